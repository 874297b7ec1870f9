#include "shell/main_window.h"

#include "common/help_links.h"
#include "common/run_checkpoint_picker.h"
#include "common/theme.h"
#include "data/data_page.h"
#include "engine/base/runtime_info.h"
#include "evaluate/evaluate_page.h"
#include "export/export_page.h"
#include "model/model_page.h"
#include "runs/runs_page.h"
#include "shell/about_dialog.h"
#include "shell/jobs_panel.h"
#include "shell/new_project_dialog.h"
#include "shell/welcome_page.h"
#include "train/train_page.h"
#include "tune/tune_page.h"
#include "workspace/demo_project_job.h"
#include "workspace/job_manager.h"
#include "workspace/project.h"
#include "workspace/quick_recipe.h"
#include "workspace/settings.h"
#include "workspace/train_job.h"
#include "workspace/workspace_error.h"

#include <QAbstractButton>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QMenuBar>
#include <QDesktopServices>
#include <QMessageBox>
#include <QUrl>
#include <QWhatsThis>
#include <QStackedWidget>
#include <QStandardPaths>
#include <QStatusBar>

namespace lathe::ui {

using workspace::DemoProjectJob;
using workspace::DemoProjectResult;
using workspace::Job;
using workspace::Project;
using workspace::WorkspaceError;

MainWindow::MainWindow(workspace::Settings *settings, QWidget *parent)
    : QMainWindow(parent)
    , m_settings(settings)
    , m_jobs(new workspace::JobManager(2, this))
{
    setObjectName(QStringLiteral("mainWindow"));
    resize(1280, 800);
    buildPages();
    buildJobsDock();
    buildMenus();

    m_projectLabel = new QLabel(this);
    m_jobsLabel = new QLabel(this);
    statusBar()->addPermanentWidget(m_projectLabel);
    statusBar()->addPermanentWidget(m_jobsLabel);
    connect(m_jobs, &workspace::JobManager::activeCountChanged, this, [this](int active) {
        m_jobsLabel->setText(active == 0 ? QString() : tr("%n job(s) running", nullptr, active));
        if (active == 0 && m_closeWhenIdle)
            close();
    });

    if (!restoreGeometry(m_settings->windowGeometry()) | !restoreState(m_settings->windowState()))
        resizeDocks({m_jobsDock}, {170}, Qt::Vertical); // first start: the pages get the room
    updateTitle();
    statusBar()->showMessage(tr("Ready"), 3000);
}

MainWindow::~MainWindow() = default;

void MainWindow::buildPages()
{
    m_central = new QStackedWidget(this);
    m_welcome = new WelcomePage(m_central);
    m_welcome->setRecentProjects(m_settings->recentProjects());
    connect(m_welcome, &WelcomePage::newProjectRequested, this, &MainWindow::askNewProject);
    connect(m_welcome, &WelcomePage::openProjectRequested, this, &MainWindow::askOpenProject);
    connect(m_welcome, &WelcomePage::demoRequested, this, [this] { startDemo(DemoProjectJob::defaultRoot()); });
    connect(m_welcome, &WelcomePage::recentProjectRequested, this, &MainWindow::openProject);

    m_workbench = new QWidget(m_central);
    m_pageList = new QListWidget(m_workbench);
    m_pageList->setObjectName(QStringLiteral("pageList"));
    m_pageList->setFixedWidth(170);
    m_pages = new QStackedWidget(m_workbench);

    m_dataPage = new ui::DataPage(m_jobs, m_pages);
    m_pageList->addItem(tr("Data"));
    m_pages->addWidget(m_dataPage);
    m_modelPage = new ui::ModelPage(m_jobs, m_pages);
    m_modelPage->setWeightsCacheDir(m_settings->weightsCacheDir());
    m_pageList->addItem(tr("Model"));
    m_pages->addWidget(m_modelPage);
    m_trainPage = new ui::TrainPage(m_jobs, m_pages);
    m_trainPage->setModelSpecProvider([this] { return m_modelPage->spec(); });
    connect(m_modelPage, &ui::ModelPage::specChanged, m_trainPage, &ui::TrainPage::modelChanged);
    m_pageList->addItem(tr("Train"));
    m_pages->addWidget(m_trainPage);
    m_tunePage = new ui::TunePage(m_jobs, m_pages);
    m_tunePage->setBaseConfigProvider([this] { return m_trainPage->runConfig(); });
    m_pageList->addItem(tr("Tune"));
    m_pages->addWidget(m_tunePage);
    m_runsPage = new ui::RunsPage(m_pages);
    m_pageList->addItem(tr("Runs"));
    m_pages->addWidget(m_runsPage);
    m_evaluatePage = new ui::EvaluatePage(m_jobs, m_pages);
    m_pageList->addItem(tr("Evaluate"));
    m_pages->addWidget(m_evaluatePage);
    connect(m_dataPage, &ui::DataPage::convertFinished, m_trainPage, &ui::TrainPage::refreshDatasets);
    connect(m_trainPage, &ui::TrainPage::datasetChanged, m_modelPage, &ui::ModelPage::refreshClasses);
    connect(m_trainPage, &ui::TrainPage::runStarted, m_runsPage, &ui::RunsPage::refresh);
    connect(m_trainPage, &ui::TrainPage::runEnded, m_runsPage, &ui::RunsPage::refresh);
    connect(m_trainPage, &ui::TrainPage::runEnded, m_evaluatePage, &ui::EvaluatePage::refreshRuns);
    connect(m_runsPage, &ui::RunsPage::resumeRequested, this, [this](const QString &runDir) {
        if (m_trainPage->resumeRun(runDir))
            showPage(TrainPage);
    });
    connect(m_runsPage, &ui::RunsPage::cloneRequested, this, [this](const nlohmann::json &config) {
        m_trainPage->applyConfig(config);
        showPage(TrainPage);
    });
    m_exportPage = new ui::ExportPage(m_jobs, m_pages);
    m_pageList->addItem(tr("Export"));
    m_pages->addWidget(m_exportPage);
    connect(m_trainPage, &ui::TrainPage::runEnded, m_exportPage, &ui::ExportPage::refreshRuns);
    // A study's trials are runs: the pages that list runs hear of them.
    connect(m_tunePage, &ui::TunePage::studyStarted, m_runsPage, &ui::RunsPage::refresh);
    connect(m_tunePage, &ui::TunePage::studyEnded, m_runsPage, &ui::RunsPage::refresh);
    connect(m_tunePage, &ui::TunePage::studyEnded, m_evaluatePage, &ui::EvaluatePage::refreshRuns);
    connect(m_tunePage, &ui::TunePage::studyEnded, m_exportPage, &ui::ExportPage::refreshRuns);
    connect(m_tunePage, &ui::TunePage::trainRequested, this, [this](const nlohmann::json &config) {
        m_trainPage->applyConfig(config);
        showPage(TrainPage);
    });
    connect(m_runsPage, &ui::RunsPage::evaluateCheckpointRequested, this, [this](const QString &runDir, const QString &file) {
        m_evaluatePage->selectCheckpoint(runDir, file);
        showPage(EvaluatePage);
    });
    connect(m_runsPage, &ui::RunsPage::exportCheckpointRequested, this, [this](const QString &runDir, const QString &file) {
        m_exportPage->selectCheckpoint(runDir, file);
        showPage(ExportPage);
    });
    // Evaluate and Export show the run selected on the Runs page until the user picks one there
    // (RunCheckpointPicker's rules).
    for (ui::RunCheckpointPicker *picker : {m_evaluatePage->runPicker(), m_exportPage->runPicker()})
        connect(m_runsPage, &ui::RunsPage::selectedRunChanged, picker, &ui::RunCheckpointPicker::followRun);
    // A paused run is still "running" in its folder: the Runs page hears it from the job.
    connect(m_jobs, &workspace::JobManager::jobAdded, this, [this](workspace::Job *job) {
        auto *train = qobject_cast<workspace::TrainJob *>(job);
        if (!train)
            return;
        const QString runDir = train->params().runDir;
        connect(train, &workspace::TrainJob::pausedChanged, m_runsPage,
                [this, runDir](bool paused) { m_runsPage->setRunPaused(runDir, paused); });
        connect(train, &workspace::Job::ended, m_runsPage, [this, runDir] { m_runsPage->setRunPaused(runDir, false); });
    });
    // Next steps offered where the user stands.
    connect(m_trainPage, &ui::TrainPage::convertRequested, this, [this] { showPage(DataPage); });
    connect(m_trainPage, &ui::TrainPage::fromScratchRequested, this, [this] {
        m_modelPage->setWeightsSource(ui::ModelPage::Scratch);
        statusBar()->showMessage(tr("The Model page now trains from scratch (random initial weights)."), 5000);
    });
    connect(m_trainPage, &ui::TrainPage::recipeRequested, this, &MainWindow::applyRecipe);
    connect(m_evaluatePage, &ui::EvaluatePage::trainRequested, this, [this] { showPage(TrainPage); });
    // A stored evaluation (new or re-read) is the Runs list's Evaluation column.
    connect(m_evaluatePage, &ui::EvaluatePage::evaluationLoaded, m_runsPage, [this](qint64 evaluationId) {
        if (evaluationId != 0)
            m_runsPage->refreshEvaluations();
    });
    connect(m_pageList, &QListWidget::currentRowChanged, m_pages, &QStackedWidget::setCurrentIndex);
    m_pageList->setCurrentRow(0);

    auto *layout = new QHBoxLayout(m_workbench);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(m_pageList);
    layout->addWidget(m_pages, 1);

    m_central->addWidget(m_welcome);
    m_central->addWidget(m_workbench);
    setCentralWidget(m_central);
}

void MainWindow::buildJobsDock()
{
    m_jobsPanel = new JobsPanel(m_jobs, this);
    m_jobsDock = new QDockWidget(tr("Jobs"), this);
    m_jobsDock->setObjectName(QStringLiteral("jobsDock"));
    m_jobsDock->setWidget(m_jobsPanel);
    m_jobsDock->setAllowedAreas(Qt::BottomDockWidgetArea | Qt::RightDockWidgetArea);
    addDockWidget(Qt::BottomDockWidgetArea, m_jobsDock);
    connect(m_jobs, &workspace::JobManager::jobAdded, m_jobsDock, &QDockWidget::show);
}

void MainWindow::buildMenus()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&New Project…"), QKeySequence::New, this, &MainWindow::askNewProject);
    file->addAction(tr("&Open Project…"), QKeySequence::Open, this, &MainWindow::askOpenProject);
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    file->addAction(tr("Create &Demo Project"), this, [this] { startDemo(DemoProjectJob::defaultRoot()); });
    m_closeProjectAction = file->addAction(tr("&Close Project"), this, &MainWindow::closeProject);
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);
    refreshRecentMenu();

    QMenu *view = menuBar()->addMenu(tr("&View"));
    view->addAction(m_jobsDock->toggleViewAction());
    QMenu *themeMenu = view->addMenu(tr("&Theme"));
    auto *themes = new QActionGroup(this);
    const QList<QPair<QString, QString>> themeNames = {
        {QStringLiteral("system"), tr("System")}, {QStringLiteral("light"), tr("Light")}, {QStringLiteral("dark"), tr("Dark")}};
    for (const auto &[key, label] : themeNames) {
        QAction *action = themeMenu->addAction(label, this, [this, key = key] { setTheme(key); });
        action->setCheckable(true);
        action->setChecked(m_settings->theme() == key);
        themes->addAction(action);
    }

    QMenu *settings = menuBar()->addMenu(tr("&Settings"));
    QMenu *languageMenu = settings->addMenu(tr("&Language"));
    auto *languages = new QActionGroup(this);
    const QList<QPair<QString, QString>> languageNames = {
        {QString(), tr("System Language")}, {QStringLiteral("en"), QStringLiteral("English")},
        {QStringLiteral("zh_CN"), QStringLiteral("简体中文")}};
    for (const auto &[key, label] : languageNames) {
        QAction *action = languageMenu->addAction(label, this, [this, key = key] { setLanguage(key); });
        action->setCheckable(true);
        action->setChecked(m_settings->language() == key);
        languages->addAction(action);
    }

    QMenu *help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About Lathe"), this, [this] {
        auto *dialog = new AboutDialog(this);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        dialog->open();
    });
    help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);
    help->addSeparator();
    QAction *whatsThis = QWhatsThis::createAction(help);
    whatsThis->setText(tr("What's &This?"));
    help->addAction(whatsThis);
    // The guide beside the program, in the program's own viewer (no web browser needed).
    QAction *guide = help->addAction(tr("&User Guide"), this, [] { openDocumentation(QStringLiteral("user-guide.md")); });
    guide->setShortcut(QKeySequence::HelpContents);
    guide->setEnabled(!documentationFolder().isEmpty());
}

void MainWindow::refreshRecentMenu()
{
    m_recentMenu->clear();
    const QStringList recent = m_settings->recentProjects();
    for (const QString &folder : recent)
        m_recentMenu->addAction(folder, this, [this, folder] { openProject(folder); });
    m_recentMenu->setEnabled(!recent.isEmpty());
    m_welcome->setRecentProjects(recent);
}

bool MainWindow::openProject(const QString &folder)
{
    std::unique_ptr<Project> project;
    try {
        project = Project::open(folder);
    } catch (const WorkspaceError &e) {
        showError(tr("Cannot open the project"), e.message());
        return false;
    }
    setPagesProject(nullptr); // before the previous project goes
    m_project = std::move(project);
    m_settings->addRecentProject(m_project->folder());
    m_settings->setLastProjectFolder(QFileInfo(m_project->folder()).absolutePath());
    refreshRecentMenu();
    refreshProject();
    m_central->setCurrentWidget(m_workbench);
    updateTitle();
    statusBar()->showMessage(tr("Opened %1").arg(m_project->folder()), 5000);
    Q_EMIT projectOpened(m_project->folder());
    return true;
}

bool MainWindow::createProject(const QString &folder, const QString &name)
{
    try {
        Project::create(folder, name);
    } catch (const WorkspaceError &e) {
        showError(tr("Cannot create the project"), e.message());
        return false;
    }
    return openProject(folder);
}

void MainWindow::closeProject()
{
    if (!m_project)
        return;
    setPagesProject(nullptr);
    m_project.reset();
    m_central->setCurrentWidget(m_welcome);
    refreshProject();
    updateTitle();
    Q_EMIT projectClosed();
}

void MainWindow::startDemo(const QString &root)
{
    DemoProjectJob::Params params;
    params.root = root;
    auto *job = new DemoProjectJob(params);
    connect(job, &Job::finished, this, [this](const QVariant &result) {
        const auto demo = result.value<DemoProjectResult>();
        openProject(demo.project);
        // A new demo project starts from the recipe for this machine; a reused one keeps the
        // settings the user left in it.
        if (!demo.reused && m_project)
            applyRecipe(demo.recipe);
    });
    connect(job, &Job::failed, this,
            [this](const QString &message) { showError(tr("Cannot create the demo project"), message); });
    m_jobs->start(job);
    statusBar()->showMessage(tr("Creating the demo project in %1").arg(root), 5000);
}

void MainWindow::applyRecipe(const workspace::Recipe &recipe)
{
    if (recipe.config.contains("model"))
        m_modelPage->applyModelConfig(recipe.config["model"]);
    m_trainPage->applyConfig(recipe.config);
    statusBar()->showMessage(tr("Recipe \"%1\" chosen: %2").arg(recipe.name, recipe.description), 10000);
}

void MainWindow::showPage(Page page)
{
    m_pageList->setCurrentRow(page);
}

MainWindow::Page MainWindow::currentPage() const
{
    return static_cast<Page>(m_pages->currentIndex());
}

QWidget *MainWindow::pageWidget(Page page) const
{
    return m_pages->widget(page);
}

void MainWindow::setPagesProject(Project *project)
{
    m_dataPage->setProject(project);
    m_modelPage->setProject(project);
    m_trainPage->setProject(project);
    m_tunePage->setProject(project);
    m_runsPage->setProject(project);
    m_evaluatePage->setProject(project);
    m_exportPage->setProject(project);
}

void MainWindow::refreshProject()
{
    setPagesProject(m_project.get());
    m_projectLabel->setText(m_project ? m_project->name() : QString());
    m_closeProjectAction->setEnabled(m_project != nullptr);
}

void MainWindow::updateTitle()
{
    setWindowTitle(m_project ? tr("%1 — Lathe").arg(m_project->name()) : tr("Lathe"));
}

void MainWindow::showError(const QString &title, const QString &message)
{
    statusBar()->showMessage(message, 10000);
    openWarning(this, title, message, QStringLiteral("projects"));
    Q_EMIT errorShown(message);
}

void MainWindow::askNewProject()
{
    QString location = m_settings->lastProjectFolder();
    if (location.isEmpty())
        location = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
    auto *dialog = new NewProjectDialog(location, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this,
            [this, dialog] { createProject(dialog->projectFolder(), dialog->projectName()); });
    dialog->open();
}

void MainWindow::askOpenProject()
{
    auto *dialog = new QFileDialog(this, tr("Open a Lathe project folder"), m_settings->lastProjectFolder());
    dialog->setFileMode(QFileDialog::Directory);
    dialog->setOption(QFileDialog::ShowDirsOnly);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QFileDialog::fileSelected, this, &MainWindow::openProject);
    dialog->open();
}

void MainWindow::setLanguage(const QString &language)
{
    m_settings->setLanguage(language);
    statusBar()->showMessage(tr("Lathe will use the new language the next time it starts."), 10000);
}

void MainWindow::setTheme(const QString &theme)
{
    m_settings->setTheme(theme);
    applyTheme(theme);
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    const int active = m_jobs->activeCount();
    if (active > 0 && !m_closeWhenIdle) {
        event->ignore();
        auto *box = new QMessageBox(QMessageBox::Question, tr("Jobs are running"),
                                    tr("%n job(s) are still running. Cancel them and quit?", nullptr, active),
                                    QMessageBox::Yes | QMessageBox::No, this);
        box->setAttribute(Qt::WA_DeleteOnClose);
        connect(box, &QMessageBox::buttonClicked, this, [this, box](QAbstractButton *button) {
            if (box->standardButton(button) != QMessageBox::Yes)
                return;
            m_closeWhenIdle = true;
            m_jobs->cancelAll();
            statusBar()->showMessage(tr("Waiting for jobs to stop…"));
        });
        box->open();
        return;
    }
    if (active > 0) {
        event->ignore(); // still waiting; activeCountChanged(0) closes the window
        return;
    }
    m_settings->setWindowGeometry(saveGeometry());
    m_settings->setWindowState(saveState());
    m_settings->sync();
    setPagesProject(nullptr);
    m_project.reset();
    event->accept();
}

} // namespace lathe::ui
