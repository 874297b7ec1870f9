#pragma once

#include <QMainWindow>

#include <memory>

class QActionGroup;
class QDockWidget;
class QLabel;
class QListWidget;
class QMenu;
class QStackedWidget;

namespace lathe::workspace {
class JobManager;
class Project;
class Settings;
struct Recipe;
} // namespace lathe::workspace

namespace lathe::ui {

class DataPage;
class EvaluatePage;
class ExportPage;
class ModelPage;
class RunsPage;
class TrainPage;
class TunePage;
class JobsPanel;
class WelcomePage;

// The workbench: a page list (Data, Model, Train, Tune, Runs, Evaluate, Export) beside the
// current page, the jobs panel below, project and settings menus, and a status bar.
class MainWindow : public QMainWindow
{
    Q_OBJECT

public:
    enum Page { DataPage, ModelPage, TrainPage, TunePage, RunsPage, EvaluatePage, ExportPage, PageCount };

    explicit MainWindow(workspace::Settings *settings, QWidget *parent = nullptr);
    ~MainWindow() override;

    // Open or create a project; on failure the reason is shown (without blocking) and
    // false is returned. Whatever was open before stays open when opening fails.
    bool openProject(const QString &folder);
    bool createProject(const QString &folder, const QString &name);
    void closeProject();
    workspace::Project *project() const { return m_project.get(); }

    // Builds the demo project in a job and opens it when the job finishes.
    void startDemo(const QString &root);
    // Applies a whole recipe: its model to the Model page, its settings to the Train page.
    void applyRecipe(const lathe::workspace::Recipe &recipe);

    void showPage(Page page);
    Page currentPage() const;
    // The widget shown for a page: DataPage, TrainPage, ...
    QWidget *pageWidget(Page page) const;
    // Qualified: inside MainWindow, DataPage names the Page value.
    ui::DataPage *dataPage() const { return m_dataPage; }
    ui::ModelPage *modelPage() const { return m_modelPage; }
    ui::TrainPage *trainPage() const { return m_trainPage; }
    ui::TunePage *tunePage() const { return m_tunePage; }
    ui::RunsPage *runsPage() const { return m_runsPage; }
    ui::EvaluatePage *evaluatePage() const { return m_evaluatePage; }
    ui::ExportPage *exportPage() const { return m_exportPage; }
    workspace::JobManager *jobManager() const { return m_jobs; }

Q_SIGNALS:
    void projectOpened(const QString &folder);
    void projectClosed();
    // A failure the user was told about (also shown in a message box).
    void errorShown(const QString &message);

protected:
    void closeEvent(QCloseEvent *event) override;

private:
    void buildPages();
    void buildMenus();
    void buildJobsDock();
    void refreshRecentMenu();
    void refreshProject();
    void setPagesProject(workspace::Project *project);
    void updateTitle();
    void showError(const QString &title, const QString &message);
    void askNewProject();
    void askOpenProject();
    void setLanguage(const QString &language);
    void setTheme(const QString &theme);

    workspace::Settings *m_settings;
    workspace::JobManager *m_jobs;
    std::unique_ptr<workspace::Project> m_project;

    QStackedWidget *m_central = nullptr; // welcome page or workbench
    WelcomePage *m_welcome = nullptr;
    QWidget *m_workbench = nullptr;
    QListWidget *m_pageList = nullptr;
    QStackedWidget *m_pages = nullptr;
    ui::DataPage *m_dataPage = nullptr;
    ui::ModelPage *m_modelPage = nullptr;
    ui::TrainPage *m_trainPage = nullptr;
    ui::TunePage *m_tunePage = nullptr;
    ui::RunsPage *m_runsPage = nullptr;
    ui::EvaluatePage *m_evaluatePage = nullptr;
    ui::ExportPage *m_exportPage = nullptr;
    QDockWidget *m_jobsDock = nullptr;
    JobsPanel *m_jobsPanel = nullptr;
    QMenu *m_recentMenu = nullptr;
    QAction *m_closeProjectAction = nullptr;
    QLabel *m_projectLabel = nullptr;
    QLabel *m_jobsLabel = nullptr;
    bool m_closeWhenIdle = false;
};

} // namespace lathe::ui
