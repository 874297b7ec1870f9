#pragma once

#include <QWidget>

#include <nlohmann/json.hpp>

class QLabel;
class QPlainTextEdit;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;
class QTableWidget;

namespace lathe::workspace {
class Project;
}

namespace lathe::ui {

class RunOverlayPlot;
class RunTableModel;

// Every run of the project, from its run folders: state, backbone, best metric, duration.
// Select runs to overlay their curves, two to see how their configs differ; one to list its
// checkpoints, open its folder, resume it (stopped or crashed), clone its config into the
// Train page, or move it to the trash.
class RunsPage : public QWidget
{
    Q_OBJECT

public:
    explicit RunsPage(QWidget *parent = nullptr);

    void setProject(workspace::Project *project);
    void refresh();

    RunTableModel *model() const { return m_model; }
    QTableView *view() const { return m_view; }
    RunOverlayPlot *overlay() const { return m_overlay; }
    QPlainTextEdit *configDiff() const { return m_diff; }
    QTableWidget *checkpoints() const { return m_checkpoints; }
    QStringList selectedRuns() const;
    void selectRuns(const QStringList &dirs);

    // "a.b.c: x -> y" lines for the fields where two configs differ.
    static QStringList diffConfigs(const nlohmann::json &a, const nlohmann::json &b);

Q_SIGNALS:
    void refreshed();
    void selectionLoaded();
    void resumeRequested(const QString &runDir);
    void cloneRequested(const nlohmann::json &config);

private:
    void selectionChanged();
    void updateButtons();
    void deleteRun();

    workspace::Project *m_project = nullptr;
    RunTableModel *m_model;
    QSortFilterProxyModel *m_sort;
    QTableView *m_view;
    RunOverlayPlot *m_overlay;
    QPlainTextEdit *m_diff;
    QTableWidget *m_checkpoints;
    QLabel *m_summary;
    QPushButton *m_refresh;
    QPushButton *m_open;
    QPushButton *m_resume;
    QPushButton *m_clone;
    QPushButton *m_delete;
    int m_generation = 0;
    int m_selectionGeneration = 0;
};

} // namespace lathe::ui
