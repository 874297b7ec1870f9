#pragma once

#include "engine/models/model_spec.h"
#include "engine/models/model_zoo.h"

#include <QWidget>

#include <nlohmann/json.hpp>

#include <vector>

class QButtonGroup;
class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QRadioButton;
class QSortFilterProxyModel;
class QSpinBox;
class QTableView;

namespace lathe::workspace {
class JobManager;
class Project;
} // namespace lathe::workspace

namespace lathe::ui {

class BackboneTableModel;
class StageTableModel;

// Choose a backbone, its weights (model zoo, a file, or from scratch), the head and the
// freezing, and see what will train: the registry's facts per backbone, and per stage of the
// chosen one its parameters, whether it trains and its learning-rate multiplier. The model is
// built off the GUI thread to count; the choice is saved with the project.
class ModelPage : public QWidget
{
    Q_OBJECT

public:
    enum WeightsSource { Zoo, File, Scratch };

    ModelPage(workspace::JobManager *jobs, QWidget *parent = nullptr);

    void setProject(workspace::Project *project);
    // Reads the class count of the dataset chosen on the Train page again.
    void refreshClasses();

    engine::ModelSpec spec() const;
    void setArch(const QString &arch);
    QString arch() const;
    WeightsSource weightsSource() const;
    // Chooses the weights source as a click on its button does.
    void setWeightsSource(WeightsSource source);
    // The model part of a recipe (workspace::Recipe): its "arch", and "weights" "" for from scratch.
    void applyModelConfig(const nlohmann::json &model);
    QString weightsCacheDir() const { return m_cacheDir; }
    void setWeightsCacheDir(const QString &folder);
    // Verifies a weights file against the catalog and copies it into the cache (a Job);
    // "Import Weights File…" asks for the file, then calls this.
    void startImport(const QString &file);

    // For tests.
    QTableView *backboneView() const { return m_backbones; }
    BackboneTableModel *backboneModel() const { return m_backboneModel; }
    StageTableModel *stageModel() const { return m_stageModel; }
    QComboBox *policyPicker() const { return m_policy; }
    QSpinBox *frozenStagesEdit() const { return m_frozenStages; }
    QRadioButton *sourceButton(WeightsSource source) const;
    QLineEdit *weightsFileEdit() const { return m_weightsFile; }
    QLabel *summaryLabel() const { return m_summary; }
    QLabel *weightsStatusLabel() const { return m_weightsStatus; }
    QPushButton *downloadButton() const { return m_download; }
    // "Train from scratch instead", shown when the download of pretrained weights failed.
    QPushButton *scratchInsteadButton() const { return m_scratchInstead; }

Q_SIGNALS:
    void specChanged();
    // The stage table and summary line show the current spec (or the reason they cannot).
    void summaryUpdated();
    void weightsImported(const QString &cachedPath);
    void weightsImportFailed(const QString &message);

private:
    void buildBackbones();
    void loadZoo();
    void backboneChosen();
    // Fills what depends on the backbone (weights list, stage range, facts) without saving.
    void applyArch(const QString &zooId);
    void updateFacts();
    void updateWeightsState();
    void changed();
    void refreshSummary();
    void save();
    void restore();
    void download();
    void importWeights();
    void browseWeights();
    const engine::ZooWeights *chosenZooWeights() const;

    workspace::JobManager *m_jobs;
    workspace::Project *m_project = nullptr;
    std::vector<engine::ZooWeights> m_zoo;
    QString m_cacheDir;
    QString m_savedZooId;
    int m_numClasses = 0; // 0: no converted dataset chosen yet
    int m_summaryGeneration = 0;
    int m_classesGeneration = 0;
    bool m_restoring = false;

    BackboneTableModel *m_backboneModel;
    QSortFilterProxyModel *m_backboneSort;
    StageTableModel *m_stageModel;
    QTableView *m_backbones;
    QLabel *m_facts;
    QButtonGroup *m_sourceGroup;
    QComboBox *m_zooWeights;
    QLabel *m_weightsStatus;
    QPushButton *m_download;
    QPushButton *m_scratchInstead;
    QPushButton *m_import;
    QLineEdit *m_weightsFile;
    QPushButton *m_browse;
    QLabel *m_classes;
    QDoubleSpinBox *m_dropout;
    QSpinBox *m_hidden;
    QComboBox *m_policy;
    QSpinBox *m_frozenStages;
    QCheckBox *m_freezeBatchNorm;
    QSpinBox *m_unfreezeEvery;
    QTableView *m_stages;
    QLabel *m_summary;
    std::vector<std::pair<std::string, double>> m_multipliers;
};

} // namespace lathe::ui
