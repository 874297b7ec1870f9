#pragma once

#include "data/dataset_snapshot.h"
#include "workspace/catalog.h"
#include "workspace/convert_job.h"
#include "workspace/shard_manifest.h"

#include <QPointer>
#include <QWidget>

class QComboBox;
class QLabel;
class QListView;
class QPushButton;
class QSplitter;
class QStackedWidget;
class QTabWidget;
class QTableView;

namespace lathe::workspace {
class JobManager;
class Project;
} // namespace lathe::workspace

namespace lathe::ui {

class ClassBalanceChart;
class ConvertDialog;
class ImageFilterModel;
class ImageListModel;
class ImageViewer;
class LabelCooccurrenceChart;
class LabelIssuesPanel;
class NearDuplicateGroupModel;
class RejectedFilesModel;
class ShardCountsModel;
class ShardTableModel;
class ThumbnailLoader;

// The Data page: import a folder into the project's catalog (or re-import it, incrementally)
// and inspect it: a thumbnail grid filtered by class, split and status; the class balance
// per split; the files that were rejected or set aside as duplicates, with their reasons;
// the groups of near duplicates; and an image viewer to exclude or relabel one image. It
// converts a dataset's folder to record shards and shows a converted dataset's shards and
// counts (its dataset.json). The Shards tab follows the shown dataset: its latest conversion
// (recorded in the catalog, or found in the project's datasets folder, so it is there again
// when the project is reopened), or "not converted yet" with the button to convert it; the
// conversion's data-quality warnings (workspace::datasetWarnings) are shown above its shards.
// The Suspected Label Errors tab ranks the images a folds run's out-of-fold predictions
// disagree with (LabelIssuesPanel); its relabels and exclusions update the page like the viewer's.
// A dataset imported with a labels file is multi-label: the Class Balance tab shows how many
// images carry each label and, beside it, how often two labels go together (a co-occurrence
// grid); the class filter keeps the images whose set holds a label; the viewer edits label sets.
// The catalog and dataset.json are read on worker threads; imports and conversions run as jobs.
class DataPage : public QWidget
{
    Q_OBJECT

public:
    enum Tab { ImagesTab, BalanceTab, RejectedTab, NearDuplicatesTab, ShardsTab, LabelIssuesTab };

    explicit DataPage(workspace::JobManager *jobs, QWidget *parent = nullptr);
    ~DataPage() override;

    // The open project (nullptr when none). The page reads its catalog at once.
    void setProject(workspace::Project *project);
    // Plain facts about the project: its folders and, for the demo, its images.
    QStringList facts() const { return m_facts; }

    // Starts an ImportJob for folder (a new dataset named after it, or an incremental
    // re-import when the folder is already a dataset of the project). With a labels file the
    // dataset is multi-label: its images are the file's rows (a re-import when the folder and
    // the labels file are a dataset's already).
    void importFolder(const QString &folder, const QString &labelsFile = QString());
    // Re-imports the shown dataset from its source folder.
    void reimport();
    // Reads the catalog again, keeping the shown dataset (0: the first one).
    void reload(int datasetId = -1);
    void showDataset(int datasetId) { reload(datasetId); }
    void exportRejectedCsv(const QString &path);
    // Opens the (non-modal) convert dialog for the shown dataset, or raises the open one.
    void askConvert();
    // Starts a ConvertJob; when it finishes, its dataset.json is shown on the Shards tab.
    void startConvert(const workspace::ConvertJob::Params &params);
    // Reads a converted dataset's dataset.json (on a worker thread) and shows its shards
    // and counts on the Shards tab; a file that cannot be used is reported with the reason.
    // When it was converted from the shown dataset's folder, the catalog records it as that
    // dataset's shards.
    void openConvertedDataset(const QString &datasetJson);
    // The output folder the convert dialog suggests: <project>/datasets/<dataset name>,
    // with a number added when that folder is already taken.
    QString defaultConvertFolder() const;
    // Opens the viewer on a row of imageFilterModel() (or of the near-duplicate view).
    void openViewer(qint64 imageId);

    int currentDatasetId() const { return m_snapshot.dataset.id; }
    const DatasetSnapshot &snapshot() const { return m_snapshot; }
    bool isImporting() const { return m_importing; }
    bool isConverting() const { return m_converting; }
    ConvertDialog *convertDialog() const; // the open convert dialog, or nullptr
    // The converted dataset shown on the Shards tab (null when none).
    const workspace::ShardManifest &shardManifest() const { return m_manifest; }
    // The warnings shown above the shards (empty when none, or no shards are shown).
    QStringList shardWarnings() const { return m_shardWarnings; }
    ShardTableModel *shardModel() const { return m_shardModel; }
    ShardCountsModel *shardCountsModel() const { return m_shardCounts; }

    ImageListModel *imageModel() const { return m_images; }
    ImageFilterModel *imageFilterModel() const { return m_filter; }
    ImageFilterModel *nearDuplicateFilterModel() const { return m_groupImages; }
    NearDuplicateGroupModel *nearDuplicateGroupModel() const { return m_groups; }
    RejectedFilesModel *rejectedModel() const { return m_rejected; }
    ThumbnailLoader *thumbnails() const { return m_thumbnails; }
    ClassBalanceChart *balanceChart() const { return m_chart; }
    // A multi-label dataset's label co-occurrence (hidden for a single-label one).
    LabelCooccurrenceChart *cooccurrenceChart() const { return m_cooccurrence; }
    ImageViewer *viewer() const { return m_viewer; }
    LabelIssuesPanel *labelIssuesPanel() const { return m_labelIssues; }
    QListView *imageGrid() const { return m_grid; }
    QTabWidget *tabs() const { return m_tabs; }
    QComboBox *classFilter() const { return m_classFilter; }
    QComboBox *splitFilter() const { return m_splitFilter; }
    QComboBox *statusFilter() const { return m_statusFilter; }
    QComboBox *datasetSelector() const { return m_datasetCombo; }

Q_SIGNALS:
    // The catalog was read and is shown (datasetId 0: the project has none).
    void datasetLoaded(int datasetId);
    void importFinished(const workspace::ImportSummary &summary);
    void importFailed(const QString &message);
    void countsUpdated();
    void csvExported(const QString &path);
    void convertFinished(const workspace::ConvertSummary &summary);
    void convertFailed(const QString &message);
    void convertCancelled();
    // A dataset.json was read and is shown on the Shards tab.
    void shardsLoaded(const QString &datasetJson);
    void errorOccurred(const QString &message);

private:
    QWidget *buildEmptyState();
    QWidget *buildInspector();
    QWidget *buildImagesTab();
    QWidget *buildRejectedTab();
    QWidget *buildNearDuplicatesTab();
    QWidget *buildShardsTab();
    void setManifest(const workspace::ShardManifest &manifest);
    void updateShardsSummary();
    void updateNearDuplicateDetails();
    void recordShards(const workspace::ShardManifest &manifest);
    bool showsOwnShards() const;
    void askOpenConverted();
    void applySnapshot(const DatasetSnapshot &snapshot);
    void fillFilters();
    void applyFilters();
    void updateSummary();
    void updateShownCount();
    void updateButtons();
    void refreshCounts();
    void imageChanged(const workspace::CatalogImage &image);
    void askImportFolder();
    void askImportWithLabels();
    void askExportCsv();
    void showError(const QString &title, const QString &message);
    void showStatus(const QString &message);
    QString uniqueDatasetName(const QString &folder) const;
    void startImport(const QString &folder, const QString &name, const workspace::DatasetInfo *previous,
                     const QString &labelsFile);

    workspace::JobManager *m_jobs;
    workspace::Project *m_project = nullptr;
    QString m_databasePath;
    QString m_datasetsDir;
    QStringList m_facts;
    QString m_demoImages;
    DatasetSnapshot m_snapshot;
    quint64 m_loadGeneration = 0;
    bool m_loaded = false;
    bool m_importing = false;
    bool m_converting = false;
    workspace::ShardManifest m_manifest;
    QStringList m_shardWarnings;
    quint64 m_manifestGeneration = 0;
    QPointer<ConvertDialog> m_convertDialog;

    ThumbnailLoader *m_thumbnails;
    ImageListModel *m_images;
    ImageFilterModel *m_filter;
    ImageFilterModel *m_groupImages;
    NearDuplicateGroupModel *m_groups;
    RejectedFilesModel *m_rejected;
    ShardTableModel *m_shardModel;
    ShardCountsModel *m_shardCounts;

    QStackedWidget *m_stack = nullptr;
    // Empty state.
    QWidget *m_emptyPage = nullptr;
    QLabel *m_emptyMessage = nullptr;
    QLabel *m_factsLabel = nullptr;
    QPushButton *m_emptyImportButton = nullptr;
    QPushButton *m_emptyImportLabelsButton = nullptr;
    QPushButton *m_demoImportButton = nullptr;
    // Inspector.
    QWidget *m_inspector = nullptr;
    QComboBox *m_datasetCombo = nullptr;
    QPushButton *m_importButton = nullptr;
    QPushButton *m_importLabelsButton = nullptr;
    QPushButton *m_reimportButton = nullptr;
    QPushButton *m_convertButton = nullptr;
    QPushButton *m_openShardsButton = nullptr;
    QLabel *m_summary = nullptr;
    QLabel *m_classFilterLabel = nullptr;
    QComboBox *m_classFilter = nullptr;
    QComboBox *m_splitFilter = nullptr;
    QComboBox *m_statusFilter = nullptr;
    QLabel *m_shownCount = nullptr;
    QTabWidget *m_tabs = nullptr;
    QListView *m_grid = nullptr;
    ClassBalanceChart *m_chart = nullptr;
    LabelCooccurrenceChart *m_cooccurrence = nullptr;
    QSplitter *m_balanceSplitter = nullptr;
    QTableView *m_rejectedView = nullptr;
    QPushButton *m_exportCsvButton = nullptr;
    QListView *m_groupList = nullptr;
    QListView *m_groupGrid = nullptr;
    QLabel *m_nearDuplicateDetails = nullptr;
    QStackedWidget *m_shardsStack = nullptr;
    QWidget *m_notConvertedPage = nullptr;
    QLabel *m_notConvertedLabel = nullptr;
    QPushButton *m_shardsConvertButton = nullptr;
    QLabel *m_shardWarningsLabel = nullptr;
    QLabel *m_shardsSummary = nullptr;
    QSplitter *m_shardsSplitter = nullptr;
    QTableView *m_shardView = nullptr;
    QTableView *m_shardCountsView = nullptr;
    LabelIssuesPanel *m_labelIssues = nullptr;
    QLabel *m_status = nullptr;
    ImageViewer *m_viewer = nullptr;
};

} // namespace lathe::ui
