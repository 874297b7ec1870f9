#include "data/data_page.h"

#include "common/help_links.h"
#include "workspace/split_names.h"

#include "common/background_task.h"
#include "common/thumbnail_loader.h"
#include "data/class_balance_chart.h"
#include "data/convert_dialog.h"
#include "data/image_filter_model.h"
#include "data/image_list_model.h"
#include "data/image_viewer.h"
#include "data/label_cooccurrence_chart.h"
#include "data/label_issues_panel.h"
#include "data/near_duplicate_group_model.h"
#include "data/rejected_files_model.h"
#include "data/shard_counts_model.h"
#include "data/shard_table_model.h"
#include "data/thumbnail_grid_view.h"
#include "workspace/dataset_warnings.h"
#include "workspace/import_job.h"
#include "workspace/job_manager.h"
#include "workspace/project.h"
#include "workspace/project_connection.h"

#include <QComboBox>
#include <QDateTime>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListView>
#include <QLocale>
#include <QMessageBox>
#include <QPushButton>
#include <QScrollBar>
#include <QStyle>
#include <QSplitter>
#include <QStackedWidget>
#include <QTabWidget>
#include <QTableView>
#include <QThreadPool>
#include <QVBoxLayout>

namespace lathe::ui {

using workspace::CatalogImage;
using workspace::ConvertJob;
using workspace::ConvertSummary;
using workspace::DatasetInfo;
using workspace::ImportJob;
using workspace::ImportSummary;
using workspace::Job;

DataPage::DataPage(workspace::JobManager *jobs, QWidget *parent)
    : QWidget(parent)
    , m_jobs(jobs)
    , m_thumbnails(new ThumbnailLoader(this))
    , m_images(new ImageListModel(m_thumbnails, this))
    , m_filter(new ImageFilterModel(this))
    , m_groupImages(new ImageFilterModel(this))
    , m_groups(new NearDuplicateGroupModel(this))
    , m_rejected(new RejectedFilesModel(this))
    , m_shardModel(new ShardTableModel(this))
    , m_shardCounts(new ShardCountsModel(this))
{
    setObjectName(QStringLiteral("dataPage"));
    m_filter->setSourceModel(m_images);
    m_groupImages->setSourceModel(m_images);
    m_groupImages->setShowNothing(true);

    auto *title = new QLabel(tr("Data"), this);
    title->setObjectName(QStringLiteral("pageTitle"));

    m_stack = new QStackedWidget(this);
    m_emptyPage = buildEmptyState();
    m_inspector = buildInspector();
    m_stack->addWidget(m_emptyPage);
    m_stack->addWidget(m_inspector);

    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("dataStatus"));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);

    m_viewer = new ImageViewer(this);
    connect(m_viewer, &ImageViewer::imageChanged, this, &DataPage::imageChanged);
    // A full disk: the grid still shows thumbnails; the status line says why they are not kept.
    connect(m_thumbnails, &ThumbnailLoader::cacheWriteFailed, this, &DataPage::showStatus);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(24, 16, 24, 12);
    layout->setSpacing(10);
    layout->addWidget(title);
    layout->addWidget(m_stack, 1);
    layout->addWidget(m_status);

    connect(m_filter, &QAbstractItemModel::rowsInserted, this, &DataPage::updateShownCount);
    connect(m_filter, &QAbstractItemModel::rowsRemoved, this, &DataPage::updateShownCount);
    connect(m_filter, &QAbstractItemModel::modelReset, this, &DataPage::updateShownCount);
    connect(m_filter, &QAbstractItemModel::layoutChanged, this, &DataPage::updateShownCount);
    setProject(nullptr);
}

DataPage::~DataPage() = default;

QWidget *DataPage::buildEmptyState()
{
    auto *page = new QWidget(this);
    m_emptyMessage = new QLabel(page);
    m_emptyMessage->setObjectName(QStringLiteral("pageDescription"));
    m_emptyMessage->setWordWrap(true);

    m_factsLabel = new QLabel(page);
    m_factsLabel->setObjectName(QStringLiteral("pageFacts"));
    m_factsLabel->setWordWrap(true);
    m_factsLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);

    m_emptyImportButton = new QPushButton(tr("Import Folder…"), page);
    m_emptyImportButton->setObjectName(QStringLiteral("emptyImportButton"));
    m_emptyImportButton->setToolTip(tr("A folder with one sub-folder per class, optionally under train, val and "
                                       "test folders. Nothing in it is changed."));
    connect(m_emptyImportButton, &QPushButton::clicked, this, &DataPage::askImportFolder);
    m_demoImportButton = new QPushButton(tr("Import the Demo Images"), page);
    m_demoImportButton->setObjectName(QStringLiteral("demoImportButton"));
    connect(m_demoImportButton, &QPushButton::clicked, this, [this] { importFolder(m_demoImages); });
    m_emptyImportLabelsButton = new QPushButton(tr("Import with Labels File…"), page);
    m_emptyImportLabelsButton->setObjectName(QStringLiteral("emptyImportLabelsButton"));
    m_emptyImportLabelsButton->setToolTip(
        tr("A multi-label dataset: a labels file (CSV with the columns path and labels, the labels separated by ; "
           "or |, or JSON lines) gives each image of a folder its set of labels. Nothing in either is changed."));
    connect(m_emptyImportLabelsButton, &QPushButton::clicked, this, &DataPage::askImportWithLabels);

    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_demoImportButton);
    buttons->addWidget(m_emptyImportButton);
    buttons->addWidget(m_emptyImportLabelsButton);
    buttons->addStretch(1);

    auto *layout = new QVBoxLayout(page);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(12);
    layout->addWidget(m_emptyMessage);
    layout->addLayout(buttons);
    layout->addWidget(m_factsLabel);
    layout->addStretch(1);
    return page;
}

QWidget *DataPage::buildInspector()
{
    auto *page = new QWidget(this);

    m_datasetCombo = new QComboBox(page);
    m_datasetCombo->setObjectName(QStringLiteral("datasetSelector"));
    m_datasetCombo->setMinimumContentsLength(16);
    m_datasetCombo->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    connect(m_datasetCombo, &QComboBox::activated, this, [this](int index) {
        const int id = m_datasetCombo->itemData(index).toInt();
        if (id != currentDatasetId()) {
            m_status->clear(); // it spoke of the dataset shown before
            reload(id);
        }
    });
    m_importButton = new QPushButton(tr("Import Folder…"), page);
    m_importButton->setObjectName(QStringLiteral("importButton"));
    m_importButton->setToolTip(m_emptyImportButton->toolTip());
    connect(m_importButton, &QPushButton::clicked, this, &DataPage::askImportFolder);
    m_importLabelsButton = new QPushButton(tr("Import with Labels File…"), page);
    m_importLabelsButton->setObjectName(QStringLiteral("importLabelsButton"));
    m_importLabelsButton->setToolTip(m_emptyImportLabelsButton->toolTip());
    connect(m_importLabelsButton, &QPushButton::clicked, this, &DataPage::askImportWithLabels);
    m_reimportButton = new QPushButton(tr("Re-import"), page);
    m_reimportButton->setObjectName(QStringLiteral("reimportButton"));
    m_reimportButton->setToolTip(tr("Scan the dataset's folder again: new and changed files are read, removed ones "
                                    "leave the catalog, and your exclusions and relabels are kept."));
    connect(m_reimportButton, &QPushButton::clicked, this, &DataPage::reimport);
    m_convertButton = new QPushButton(tr("Convert to Shards…"), page);
    m_convertButton->setObjectName(QStringLiteral("convertButton"));
    m_convertButton->setToolTip(tr("Write the dataset's usable images as TFRecord shards for training, with a "
                                   "dataset.json that lists them."));
    connect(m_convertButton, &QPushButton::clicked, this, &DataPage::askConvert);
    m_openShardsButton = new QPushButton(tr("Open Converted Dataset…"), page);
    m_openShardsButton->setObjectName(QStringLiteral("openShardsButton"));
    m_openShardsButton->setToolTip(tr("Show the shards and counts of a dataset converted before (its dataset.json)."));
    connect(m_openShardsButton, &QPushButton::clicked, this, &DataPage::askOpenConverted);

    auto *datasetLabel = new QLabel(tr("Dataset:"), page);
    datasetLabel->setBuddy(m_datasetCombo);
    auto *top = new QHBoxLayout;
    top->addWidget(datasetLabel);
    top->addWidget(m_datasetCombo);
    top->addWidget(m_reimportButton);
    top->addWidget(m_importButton);
    top->addWidget(m_importLabelsButton);
    top->addSpacing(8);
    top->addWidget(m_convertButton);
    top->addWidget(m_openShardsButton);
    top->addStretch(1);

    m_summary = new QLabel(page);
    m_summary->setObjectName(QStringLiteral("datasetSummary"));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);

    m_classFilter = new QComboBox(page);
    m_classFilter->setObjectName(QStringLiteral("classFilter"));
    m_classFilter->setMinimumContentsLength(12);
    m_splitFilter = new QComboBox(page);
    m_splitFilter->setObjectName(QStringLiteral("splitFilter"));
    m_splitFilter->addItem(tr("All splits"), QString());
    for (const QString &split : workspace::SplitNames::keys())
        m_splitFilter->addItem(workspace::SplitNames::displayName(split), split);
    m_statusFilter = new QComboBox(page);
    m_statusFilter->setObjectName(QStringLiteral("statusFilter"));
    m_statusFilter->addItem(tr("Every status"), QString());
    m_statusFilter->addItem(tr("Usable"), QStringLiteral("ok"));
    m_statusFilter->addItem(tr("Rejected"), QStringLiteral("rejected"));
    m_statusFilter->addItem(tr("Duplicate"), QStringLiteral("duplicate"));
    m_statusFilter->addItem(tr("Excluded"), QStringLiteral("excluded"));
    for (QComboBox *combo : {m_classFilter, m_splitFilter, m_statusFilter})
        connect(combo, &QComboBox::currentIndexChanged, this, &DataPage::applyFilters);
    m_shownCount = new QLabel(page);
    m_shownCount->setObjectName(QStringLiteral("shownCount"));

    auto *filters = new QHBoxLayout;
    m_classFilterLabel = new QLabel(tr("Class:"), page);
    m_classFilterLabel->setBuddy(m_classFilter);
    filters->addWidget(m_classFilterLabel);
    filters->addWidget(m_classFilter);
    filters->addSpacing(8);
    filters->addWidget(new QLabel(tr("Split:"), page));
    filters->addWidget(m_splitFilter);
    filters->addSpacing(8);
    filters->addWidget(new QLabel(tr("Status:"), page));
    filters->addWidget(m_statusFilter);
    filters->addStretch(1);
    filters->addWidget(m_shownCount);

    m_tabs = new QTabWidget(page);
    m_tabs->setObjectName(QStringLiteral("dataTabs"));
    m_tabs->addTab(buildImagesTab(), tr("Images"));
    // Class balance; beside it, for a multi-label dataset, how often labels go together.
    auto *balance = m_balanceSplitter = new QSplitter(Qt::Horizontal, m_tabs);
    balance->setObjectName(QStringLiteral("balanceSplitter"));
    balance->setChildrenCollapsible(false);
    m_chart = new ClassBalanceChart(balance);
    m_cooccurrence = new LabelCooccurrenceChart(balance);
    m_cooccurrence->hide();
    balance->addWidget(m_chart);
    balance->addWidget(m_cooccurrence);
    balance->setStretchFactor(0, 1);
    balance->setStretchFactor(1, 1);
    m_tabs->addTab(balance, tr("Class Balance"));
    m_tabs->addTab(buildRejectedTab(), tr("Rejected Files"));
    m_tabs->addTab(buildNearDuplicatesTab(), tr("Near Duplicates"));
    m_tabs->addTab(buildShardsTab(), tr("Shards"));
    m_labelIssues = new LabelIssuesPanel(m_jobs, m_thumbnails, m_tabs);
    connect(m_labelIssues, &LabelIssuesPanel::imageChanged, this, &DataPage::imageChanged);
    connect(m_labelIssues, &LabelIssuesPanel::openImageRequested, this, &DataPage::openViewer);
    connect(m_labelIssues, &LabelIssuesPanel::findEnded, this, [this] {
        const int count = int(m_labelIssues->result().issues.size());
        m_tabs->setTabText(LabelIssuesTab, m_labelIssues->result().foldsDir.isEmpty()
                                               ? tr("Suspected Label Errors")
                                               : tr("Suspected Label Errors (%L1)").arg(count));
    });
    m_tabs->addTab(m_labelIssues, tr("Suspected Label Errors"));

    auto *layout = new QVBoxLayout(page);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(8);
    layout->addLayout(top);
    layout->addWidget(m_summary);
    layout->addLayout(filters);
    layout->addWidget(m_tabs, 1);
    return page;
}

QWidget *DataPage::buildImagesTab()
{
    m_grid = new ThumbnailGridView(this);
    m_grid->setModel(m_filter);
    m_grid->setObjectName(QStringLiteral("imageGrid"));
    connect(m_grid, &QListView::activated, this,
            [this](const QModelIndex &index) { openViewer(index.data(ImageListModel::ImageIdRole).toLongLong()); });
    return m_grid;
}

QWidget *DataPage::buildRejectedTab()
{
    auto *tab = new QWidget(this);
    m_rejectedView = new QTableView(tab);
    m_rejectedView->setObjectName(QStringLiteral("rejectedView"));
    m_rejectedView->setModel(m_rejected);
    m_rejectedView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_rejectedView->setSelectionMode(QAbstractItemView::SingleSelection);
    m_rejectedView->setWordWrap(false);
    m_rejectedView->verticalHeader()->hide();
    m_rejectedView->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_rejectedView->horizontalHeader()->setSectionResizeMode(RejectedFilesModel::ReasonColumn, QHeaderView::Stretch);
    m_rejectedView->horizontalHeader()->resizeSection(RejectedFilesModel::FileColumn, 320);
    connect(m_rejectedView, &QTableView::activated, this, [this](const QModelIndex &index) {
        openViewer(index.data(RejectedFilesModel::ImageIdRole).toLongLong());
    });

    m_exportCsvButton = new QPushButton(tr("Export CSV…"), tab);
    m_exportCsvButton->setObjectName(QStringLiteral("exportCsvButton"));
    m_exportCsvButton->setToolTip(tr("Save the list (relative path, status, reason) as a CSV file"));
    connect(m_exportCsvButton, &QPushButton::clicked, this, &DataPage::askExportCsv);

    auto *buttons = new QHBoxLayout;
    buttons->addStretch(1);
    buttons->addWidget(m_exportCsvButton);
    auto *layout = new QVBoxLayout(tab);
    layout->addWidget(m_rejectedView, 1);
    layout->addLayout(buttons);
    return tab;
}

QWidget *DataPage::buildNearDuplicatesTab()
{
    auto *splitter = new QSplitter(Qt::Horizontal, this);
    m_groupList = new QListView(splitter);
    m_groupList->setObjectName(QStringLiteral("nearDuplicateGroups"));
    m_groupList->setModel(m_groups);
    m_groupList->setUniformItemSizes(true);
    m_groupList->setSelectionMode(QAbstractItemView::SingleSelection);
    // Wide enough for "2 images, within 10 of 576 bits:" and the start of a file name.
    m_groupList->setMinimumWidth(m_groupList->fontMetrics().horizontalAdvance(QLatin1Char('x')) * 48);
    auto *members = new QWidget(splitter);
    m_nearDuplicateDetails = new QLabel(members);
    m_nearDuplicateDetails->setObjectName(QStringLiteral("nearDuplicateDetails"));
    m_nearDuplicateDetails->setWordWrap(true);
    m_nearDuplicateDetails->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_groupGrid = new ThumbnailGridView(members);
    m_groupGrid->setModel(m_groupImages);
    m_groupGrid->setObjectName(QStringLiteral("nearDuplicateImages"));
    auto *membersLayout = new QVBoxLayout(members);
    membersLayout->setContentsMargins(6, 0, 0, 0);
    membersLayout->addWidget(m_nearDuplicateDetails);
    membersLayout->addWidget(m_groupGrid, 1);
    connect(m_groupList->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) {
                if (current.isValid())
                    m_groupImages->setNearDuplicateGroup(current.data(NearDuplicateGroupModel::GroupRole).toInt());
                else
                    m_groupImages->setShowNothing(true);
                updateNearDuplicateDetails();
            });
    connect(m_groupGrid, &QListView::activated, this,
            [this](const QModelIndex &index) { openViewer(index.data(ImageListModel::ImageIdRole).toLongLong()); });
    splitter->addWidget(m_groupList);
    splitter->addWidget(members);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 3);
    return splitter;
}

QWidget *DataPage::buildShardsTab()
{
    m_shardsStack = new QStackedWidget(this);

    // Before the first conversion: what it is for, and the button.
    m_notConvertedPage = new QWidget(m_shardsStack);
    m_notConvertedLabel = new QLabel(m_notConvertedPage);
    m_notConvertedLabel->setObjectName(QStringLiteral("notConvertedLabel"));
    m_notConvertedLabel->setWordWrap(true);
    m_shardsConvertButton = new QPushButton(tr("Convert to Shards…"), m_notConvertedPage);
    m_shardsConvertButton->setObjectName(QStringLiteral("shardsConvertButton"));
    connect(m_shardsConvertButton, &QPushButton::clicked, this, &DataPage::askConvert);
    auto *convertRow = new QHBoxLayout;
    convertRow->addWidget(m_shardsConvertButton);
    convertRow->addStretch(1);
    auto *notConvertedLayout = new QVBoxLayout(m_notConvertedPage);
    notConvertedLayout->setContentsMargins(12, 12, 12, 12);
    notConvertedLayout->setSpacing(12);
    notConvertedLayout->addWidget(m_notConvertedLabel);
    notConvertedLayout->addLayout(convertRow);
    notConvertedLayout->addStretch(1);
    m_shardsStack->addWidget(m_notConvertedPage);

    auto *tab = new QWidget(m_shardsStack);
    m_shardWarningsLabel = new QLabel(tab);
    m_shardWarningsLabel->setObjectName(QStringLiteral("shardWarnings"));
    m_shardWarningsLabel->setWordWrap(true);
    m_shardWarningsLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // Dark text on amber reads in the light and the dark theme alike.
    m_shardWarningsLabel->setStyleSheet(QStringLiteral(
        "QLabel { background: #fff3cd; color: #5c4400; border: 1px solid #e6d08a; border-radius: 4px; padding: 6px; }"));
    m_shardWarningsLabel->hide();
    m_shardsSummary = new QLabel(tab);
    m_shardsSummary->setObjectName(QStringLiteral("shardsSummary"));
    m_shardsSummary->setWordWrap(true);
    m_shardsSummary->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto table = [tab](QAbstractItemModel *model, const char *name) {
        auto *view = new QTableView(tab);
        view->setObjectName(QLatin1String(name));
        view->setModel(model);
        view->setSelectionBehavior(QAbstractItemView::SelectRows);
        view->setSelectionMode(QAbstractItemView::SingleSelection);
        view->setWordWrap(false);
        view->verticalHeader()->hide();
        view->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
        view->verticalHeader()->setDefaultSectionSize(view->fontMetrics().height() + 8);
        return view;
    };
    m_shardView = table(m_shardModel, "shardView");
    m_shardView->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_shardView->horizontalHeader()->setStretchLastSection(true);
    m_shardView->setTextElideMode(Qt::ElideMiddle);
    m_shardCountsView = table(m_shardCounts, "shardCountsView");
    m_shardCountsView->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);

    m_shardsSplitter = new QSplitter(Qt::Horizontal, tab);
    m_shardsSplitter->addWidget(m_shardView);
    m_shardsSplitter->addWidget(m_shardCountsView);
    m_shardsSplitter->setStretchFactor(0, 1);
    m_shardsSplitter->setStretchFactor(1, 0);

    auto *layout = new QVBoxLayout(tab);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->addWidget(m_shardWarningsLabel);
    layout->addWidget(m_shardsSummary);
    layout->addWidget(m_shardsSplitter, 1);
    m_shardsStack->addWidget(tab);
    updateShardsSummary();
    return m_shardsStack;
}

void DataPage::setProject(workspace::Project *project)
{
    m_project = project;
    m_databasePath = project ? project->databasePath() : QString();
    m_datasetsDir = project ? project->datasetsDir() : QString();
    ++m_loadGeneration; // whatever was being read belongs to the previous project
    m_loaded = false;
    m_snapshot = DatasetSnapshot();
    m_images->clear();
    m_rejected->setImages({});
    m_groups->setGroups({});
    m_groupImages->setShowNothing(true);
    m_chart->setCounts({}, {});
    m_cooccurrence->clear();
    m_cooccurrence->hide();
    ++m_manifestGeneration; // a dataset.json still being read belongs to the previous project
    setManifest({});
    if (m_convertDialog)
        m_convertDialog->close();
    m_viewer->hide();
    m_labelIssues->setProject(m_databasePath, project ? project->runsDir() : QString());
    m_tabs->setTabText(LabelIssuesTab, tr("Suspected Label Errors"));
    m_status->clear();
    m_thumbnails->setCacheDir(project ? QDir(project->folder()).filePath(QStringLiteral("cache/thumbnails")) : QString());

    m_facts.clear();
    m_demoImages.clear();
    if (project) {
        const QLocale locale;
        m_facts << tr("Project folder: %1").arg(QDir::toNativeSeparators(project->folder()))
                << tr("Datasets folder: %1").arg(QDir::toNativeSeparators(project->datasetsDir()));
        m_demoImages = project->meta(QStringLiteral("demo_images"));
        if (!m_demoImages.isEmpty())
            m_facts << tr("Demo images: %1 (%2 training and %3 test images of 10 Fashion-MNIST classes, as class "
                          "folders ready for import)")
                           .arg(QDir::toNativeSeparators(m_demoImages),
                                locale.toString(project->meta(QStringLiteral("demo_train_images")).toInt()),
                                locale.toString(project->meta(QStringLiteral("demo_test_images")).toInt()));
    }
    m_factsLabel->setText(m_facts.join(QLatin1Char('\n')));
    m_factsLabel->setVisible(!m_facts.isEmpty());
    m_stack->setCurrentWidget(m_emptyPage);
    updateButtons();
    if (project)
        reload(0);
}

void DataPage::reload(int datasetId)
{
    if (!m_project)
        return;
    if (datasetId < 0)
        datasetId = currentDatasetId();
    const quint64 generation = ++m_loadGeneration;
    const QString databasePath = m_databasePath;
    const QString datasetsDir = m_datasetsDir;
    if (!m_loaded)
        m_emptyMessage->setText(tr("Reading the catalog…"));
    updateButtons();
    BackgroundTask::start(
        QThreadPool::globalInstance(), this,
        [databasePath, datasetsDir, datasetId]() -> QVariant {
            return QVariant::fromValue(DatasetSnapshot::load(databasePath, datasetsDir, datasetId));
        },
        [this, generation](const QVariant &result) {
            if (generation == m_loadGeneration)
                applySnapshot(result.value<DatasetSnapshot>());
        },
        [this, generation](const QString &message) {
            if (generation != m_loadGeneration)
                return;
            m_emptyMessage->setText(tr("The catalog cannot be read: %1").arg(message));
            showStatus(message);
            Q_EMIT errorOccurred(message);
        });
}

void DataPage::applySnapshot(const DatasetSnapshot &snapshot)
{
    const bool sameDataset = m_loaded && snapshot.dataset.id == m_snapshot.dataset.id;
    m_snapshot = snapshot;
    m_loaded = true;
    // The Shards tab follows the dataset; a dataset.json still being read was asked for another.
    ++m_manifestGeneration;
    setManifest(snapshot.shards);
    m_snapshot.shards = {};

    m_datasetCombo->clear();
    for (const DatasetInfo &info : snapshot.datasets)
        m_datasetCombo->addItem(info.name, info.id);
    m_datasetCombo->setCurrentIndex(m_datasetCombo->findData(snapshot.dataset.id));
    if (!sameDataset)
        m_tabs->setTabText(LabelIssuesTab, tr("Suspected Label Errors")); // its results were another dataset's
    m_labelIssues->setDataset(snapshot.dataset);

    if (snapshot.dataset.id == 0) {
        m_images->clear();
        m_rejected->setImages({});
        m_groups->setGroups({});
        updateNearDuplicateDetails();
        m_chart->setCounts({}, {});
        m_cooccurrence->clear();
        m_cooccurrence->hide();
        m_emptyMessage->setText(
            tr("This project has no dataset yet. Import a folder of images with one sub-folder per class "
               "(optionally under train, val and test folders). Lathe checks every file and records why it "
               "refuses one; the folder itself is never changed."));
        m_stack->setCurrentWidget(m_emptyPage);
        updateButtons();
        Q_EMIT datasetLoaded(0);
        return;
    }

    fillFilters();
    m_images->setImages(snapshot.images, snapshot.dataset.sourceDir);
    if (!sameDataset)
        m_grid->scrollToTop();

    QVector<CatalogImage> rejected;
    rejected.reserve(snapshot.rejectedRows.size());
    for (int row : snapshot.rejectedRows)
        rejected.append(snapshot.images.at(row));
    m_rejected->setImages(rejected);

    QVector<NearDuplicateGroupModel::Group> groups;
    for (const auto &[id, rows] : snapshot.nearDuplicateGroups) {
        NearDuplicateGroupModel::Group group;
        group.id = id;
        for (int row : rows) {
            group.files << snapshot.images.at(row).relPath;
            group.distances << snapshot.images.at(row).nearDuplicateDistance;
        }
        groups.append(group);
    }
    m_groups->setGroups(groups, snapshot.dataset.nearDuplicateThreshold, snapshot.dataset.nearDuplicateBits);
    m_groupImages->setShowNothing(true);
    if (!groups.isEmpty())
        m_groupList->setCurrentIndex(m_groups->index(0));
    updateNearDuplicateDetails();

    m_chart->setCounts(snapshot.classes, snapshot.counts);
    const bool multiLabel = snapshot.dataset.multiLabel();
    m_chart->setMultiLabel(multiLabel);
    m_cooccurrence->setCooccurrence(snapshot.cooccurrence);
    if (multiLabel && !m_cooccurrence->isVisibleTo(m_balanceSplitter)) {
        m_cooccurrence->show();
        m_balanceSplitter->setSizes({1, 1}); // shared evenly, whatever the width
    }
    m_cooccurrence->setVisible(multiLabel);
    m_tabs->setTabText(BalanceTab, multiLabel ? tr("Label Frequencies") : tr("Class Balance"));
    m_classFilterLabel->setText(multiLabel ? tr("Label:") : tr("Class:"));
    // The model holds the rows now; one copy is enough (and edits then never copy 100,000 rows).
    m_snapshot.images.clear();
    m_snapshot.rejectedRows.clear();
    m_snapshot.nearDuplicateGroups.clear();
    m_tabs->setTabText(RejectedTab, tr("Rejected Files (%L1)").arg(rejected.size()));
    m_tabs->setTabText(NearDuplicatesTab, tr("Near Duplicates (%L1)").arg(groups.size()));
    updateSummary();
    updateShownCount();
    m_stack->setCurrentWidget(m_inspector);
    updateButtons();
    Q_EMIT datasetLoaded(snapshot.dataset.id);
}

void DataPage::fillFilters()
{
    const QString previous = m_classFilter->currentData().toString();
    const QSignalBlocker blocker(m_classFilter);
    m_classFilter->clear();
    m_classFilter->addItem(m_snapshot.dataset.multiLabel() ? tr("All labels") : tr("All classes"), QString());
    for (const QString &name : std::as_const(m_snapshot.classes))
        m_classFilter->addItem(name, name);
    m_classFilter->setCurrentIndex(qMax(0, m_classFilter->findData(previous)));
    m_filter->setClassFilter(m_classFilter->currentData().toString());
}

void DataPage::applyFilters()
{
    m_filter->setClassFilter(m_classFilter->currentData().toString());
    m_filter->setSplitFilter(m_splitFilter->currentData().toString());
    m_filter->setStatusFilter(m_statusFilter->currentData().toString());
    updateShownCount();
}

void DataPage::updateShownCount()
{
    const QLocale locale;
    m_shownCount->setText(tr("Showing %1 of %2 images")
                              .arg(locale.toString(m_filter->rowCount()), locale.toString(m_images->rowCount())));
}

void DataPage::updateSummary()
{
    const DatasetSnapshot &s = m_snapshot;
    const QLocale locale;
    if (s.dataset.multiLabel()) {
        m_summary->setText(
            tr("%1 · labels from %2 · imported %3 · %4 images: %5 usable, %6 rejected, %7 duplicates, %8 excluded · "
               "multi-label, %n label(s)",
               nullptr, int(s.classes.size()))
                .arg(QDir::toNativeSeparators(s.dataset.sourceDir), QDir::toNativeSeparators(s.dataset.labelsFile),
                     locale.toString(QDateTime::fromString(s.dataset.importedAt, Qt::ISODate).toLocalTime(),
                                     QLocale::ShortFormat),
                     locale.toString(m_images->rowCount()), locale.toString(s.usable), locale.toString(s.rejected),
                     locale.toString(s.duplicates), locale.toString(s.excluded)));
        return;
    }
    m_summary->setText(
        tr("%1 · imported %2 · %3 images: %4 usable, %5 rejected, %6 duplicates, %7 excluded · %n class(es)", nullptr,
           int(s.classes.size()))
            .arg(QDir::toNativeSeparators(s.dataset.sourceDir),
                 locale.toString(QDateTime::fromString(s.dataset.importedAt, Qt::ISODate).toLocalTime(),
                                 QLocale::ShortFormat),
                 locale.toString(m_images->rowCount()), locale.toString(s.usable), locale.toString(s.rejected),
                 locale.toString(s.duplicates), locale.toString(s.excluded)));
}

void DataPage::updateButtons()
{
    const bool project = m_project != nullptr;
    m_emptyImportButton->setEnabled(project && !m_importing && m_loaded);
    m_importButton->setEnabled(project && !m_importing);
    m_importLabelsButton->setEnabled(project && !m_importing);
    m_emptyImportLabelsButton->setEnabled(project && !m_importing && m_loaded);
    m_reimportButton->setEnabled(project && !m_importing && currentDatasetId() != 0);
    m_convertButton->setEnabled(project && !m_converting && currentDatasetId() != 0);
    m_convertButton->setToolTip(m_converting ? tr("A conversion is running; see the Jobs panel.")
                                             : tr("Write the dataset's usable images as TFRecord shards for "
                                                  "training, with a dataset.json that lists them."));
    // Until the dataset has shards, converting it is the next step: the button says so.
    const bool next = currentDatasetId() != 0 && !showsOwnShards();
    m_convertButton->setText(next ? tr("Next: Convert to Shards…") : tr("Convert to Shards…"));
    m_convertButton->setDefault(next);
    m_shardsConvertButton->setEnabled(m_convertButton->isEnabled());
    m_shardsConvertButton->setToolTip(m_convertButton->toolTip());
    m_openShardsButton->setEnabled(project);
    m_demoImportButton->setVisible(!m_demoImages.isEmpty());
    m_demoImportButton->setEnabled(project && !m_importing && m_loaded);
    m_demoImportButton->setToolTip(tr("Import %1").arg(QDir::toNativeSeparators(m_demoImages)));
    m_exportCsvButton->setEnabled(m_rejected->rowCount() > 0);
}

void DataPage::askImportFolder()
{
    QString start = m_snapshot.dataset.sourceDir.isEmpty() ? m_demoImages : m_snapshot.dataset.sourceDir;
    start = start.isEmpty() ? QDir::homePath() : QFileInfo(start).absolutePath();
    auto *dialog = new QFileDialog(this, tr("Import a folder of images"), start);
    dialog->setObjectName(QStringLiteral("importFolderDialog"));
    dialog->setFileMode(QFileDialog::Directory);
    dialog->setOption(QFileDialog::ShowDirsOnly);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QFileDialog::fileSelected, this, [this](const QString &folder) { importFolder(folder); });
    dialog->open();
}

void DataPage::askImportWithLabels()
{
    QString start = m_snapshot.dataset.labelsFile.isEmpty() ? m_snapshot.dataset.sourceDir : m_snapshot.dataset.labelsFile;
    start = start.isEmpty() ? QDir::homePath() : QFileInfo(start).absolutePath();
    auto *dialog = new QFileDialog(this, tr("Choose the labels file"), start,
                                   tr("Labels files (*.csv *.jsonl *.json);;All files (*)"));
    dialog->setObjectName(QStringLiteral("importLabelsFileDialog"));
    dialog->setFileMode(QFileDialog::ExistingFile);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QFileDialog::fileSelected, this, [this](const QString &labelsFile) {
        // Then the folder its paths are relative to; most often the one it lies in.
        auto *folders = new QFileDialog(this, tr("Choose the image folder the labels file's paths are relative to"),
                                        QFileInfo(labelsFile).absolutePath());
        folders->setObjectName(QStringLiteral("importLabelsFolderDialog"));
        folders->setFileMode(QFileDialog::Directory);
        folders->setOption(QFileDialog::ShowDirsOnly);
        folders->setAttribute(Qt::WA_DeleteOnClose);
        connect(folders, &QFileDialog::fileSelected, this,
                [this, labelsFile](const QString &folder) { importFolder(folder, labelsFile); });
        folders->open();
    });
    dialog->open();
}

QString DataPage::uniqueDatasetName(const QString &folder) const
{
    const QString base = QFileInfo(QDir::cleanPath(folder)).fileName();
    QString name = base;
    for (int n = 2;; ++n) {
        bool taken = false;
        for (const DatasetInfo &info : m_snapshot.datasets) {
            if (info.name == name)
                taken = true;
        }
        if (!taken)
            return name;
        name = QStringLiteral("%1 (%2)").arg(base).arg(n);
    }
}

void DataPage::importFolder(const QString &folder, const QString &labelsFile)
{
    const QString clean = QDir::cleanPath(QDir(folder).absolutePath());
    const QString labels = labelsFile.isEmpty() ? QString() : QDir::cleanPath(QFileInfo(labelsFile).absoluteFilePath());
    // The same folder again is a re-import of its dataset, not a second copy of it (with the
    // labels file it was imported with); a labels file makes another dataset of a folder unless
    // it is that dataset's.
    for (const DatasetInfo &info : std::as_const(m_snapshot.datasets)) {
        if (QDir::cleanPath(info.sourceDir) == clean && (labels.isEmpty() || labels == info.labelsFile)) {
            startImport(clean, info.name, &info, info.labelsFile);
            return;
        }
    }
    startImport(clean, uniqueDatasetName(clean), nullptr, labels);
}

void DataPage::reimport()
{
    if (currentDatasetId() == 0)
        return;
    const DatasetInfo info = m_snapshot.dataset;
    startImport(info.sourceDir, info.name, &info, info.labelsFile);
}

void DataPage::startImport(const QString &folder, const QString &name, const DatasetInfo *previous,
                           const QString &labelsFile)
{
    if (!m_project || m_importing)
        return;
    ImportJob::Params params;
    params.databasePath = m_databasePath;
    params.sourceDir = folder;
    params.name = name;
    params.labelsFile = labelsFile;
    if (previous) {
        // Same seed and fractions: every image keeps its split.
        params.seed = previous->seed;
        params.valFraction = previous->valFraction;
        params.testFraction = previous->testFraction;
    }
    auto *job = new ImportJob(params);
    const QString databasePath = m_databasePath;
    connect(job, &Job::finished, this, [this, databasePath](const QVariant &result) {
        m_importing = false;
        updateButtons();
        if (databasePath != m_databasePath)
            return; // another project is open now
        const ImportSummary summary = result.value<ImportSummary>();
        const QLocale locale;
        showStatus(tr("Import finished: %1 added, %2 changed, %3 removed, %4 unchanged; %5 usable, %6 rejected, "
                      "%7 duplicates, %8 groups of near duplicates.")
                       .arg(locale.toString(summary.added), locale.toString(summary.changed),
                            locale.toString(summary.removed), locale.toString(summary.unchanged),
                            locale.toString(summary.ok), locale.toString(summary.rejected),
                            locale.toString(summary.duplicates), locale.toString(summary.nearDuplicateGroups)));
        reload(summary.datasetId);
        Q_EMIT importFinished(summary);
    });
    connect(job, &Job::failed, this, [this](const QString &message) {
        m_importing = false;
        updateButtons();
        showError(tr("Cannot import the folder"), message);
        Q_EMIT importFailed(message);
    });
    connect(job, &Job::cancelled, this, [this] {
        m_importing = false;
        updateButtons();
        showStatus(tr("Import cancelled; the catalog is as it was."));
    });
    m_importing = true;
    updateButtons();
    showStatus(tr("Importing %1…").arg(QDir::toNativeSeparators(folder)));
    m_jobs->start(job);
}

QString DataPage::defaultConvertFolder() const
{
    if (!m_project)
        return {};
    QString base = m_snapshot.dataset.name;
    base.replace(QLatin1Char('/'), QLatin1Char('_')).replace(QLatin1Char('\\'), QLatin1Char('_'));
    if (base.isEmpty() || base == QLatin1String(".") || base == QLatin1String(".."))
        base = tr("dataset");
    const QDir datasets(m_project->datasetsDir());
    // A few stat() calls on the project's own folder.
    for (int n = 1;; ++n) {
        const QString candidate = datasets.filePath(n == 1 ? base : QStringLiteral("%1-%2").arg(base).arg(n));
        const QFileInfo info(candidate);
        if (!info.exists() || (info.isDir() && QDir(candidate).isEmpty(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden)))
            return candidate;
    }
}

ConvertDialog *DataPage::convertDialog() const
{
    return m_convertDialog.data();
}

void DataPage::askConvert()
{
    if (!m_project || currentDatasetId() == 0)
        return;
    if (m_convertDialog) {
        m_convertDialog->show();
        m_convertDialog->raise();
        m_convertDialog->activateWindow();
        return;
    }
    auto *dialog = new ConvertDialog(m_snapshot.dataset, defaultConvertFolder(), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this, dialog] { startConvert(dialog->params()); });
    m_convertDialog = dialog;
    dialog->show();
}

void DataPage::startConvert(const ConvertJob::Params &params)
{
    if (!m_project || m_converting)
        return;
    ConvertJob::Params withCatalog = params;
    withCatalog.databasePath = m_databasePath; // the catalog's scan, exclusions and relabels
    auto *job = new ConvertJob(withCatalog);
    const QString databasePath = m_databasePath;
    connect(job, &Job::finished, this, [this, databasePath](const QVariant &result) {
        m_converting = false;
        updateButtons();
        const ConvertSummary summary = result.value<ConvertSummary>();
        const QLocale locale;
        showStatus(tr("Converted %1 records into %2 shards (%3) in %4; %5 files left out, %6 re-encoded.")
                       .arg(locale.toString(summary.records), locale.toString(summary.shards),
                            locale.formattedDataSize(summary.bytes), QDir::toNativeSeparators(summary.outDir),
                            locale.toString(summary.rejected), locale.toString(summary.reencoded)));
        // Shown on the Shards tab with its warnings, and recorded as the dataset's shards.
        if (databasePath == m_databasePath)
            openConvertedDataset(QDir(summary.outDir).filePath(workspace::ShardManifest::fileName()));
        Q_EMIT convertFinished(summary);
    });
    connect(job, &Job::failed, this, [this](const QString &message) {
        m_converting = false;
        updateButtons();
        showError(tr("Cannot convert to shards"), message);
        Q_EMIT convertFailed(message);
    });
    connect(job, &Job::cancelled, this, [this] {
        m_converting = false;
        updateButtons();
        showStatus(tr("Conversion cancelled; no output folder was written."));
        Q_EMIT convertCancelled();
    });
    m_converting = true;
    updateButtons();
    showStatus(tr("Converting %1 to shards in %2…")
                   .arg(QDir::toNativeSeparators(params.sourceDir), QDir::toNativeSeparators(params.outDir)));
    m_jobs->start(job);
}

void DataPage::askOpenConverted()
{
    const QString start = !m_manifest.isNull() ? QFileInfo(m_manifest.folder()).absolutePath()
                          : m_project          ? m_project->datasetsDir()
                                               : QDir::homePath();
    auto *dialog = new QFileDialog(this, tr("Open a converted dataset"), start,
                                   tr("Converted datasets (dataset.json)"));
    dialog->setObjectName(QStringLiteral("openShardsDialog"));
    dialog->setFileMode(QFileDialog::ExistingFile);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QFileDialog::fileSelected, this, &DataPage::openConvertedDataset);
    dialog->open();
}

void DataPage::openConvertedDataset(const QString &datasetJson)
{
    const quint64 generation = ++m_manifestGeneration;
    BackgroundTask::start(
        QThreadPool::globalInstance(), this,
        [datasetJson]() -> QVariant { return QVariant::fromValue(workspace::ShardManifest::read(datasetJson)); },
        [this, generation](const QVariant &result) {
            if (generation != m_manifestGeneration)
                return;
            setManifest(result.value<workspace::ShardManifest>());
            if (showsOwnShards())
                recordShards(m_manifest);
            m_tabs->setCurrentIndex(ShardsTab);
            Q_EMIT shardsLoaded(m_manifest.path);
        },
        [this, generation](const QString &message) {
            if (generation == m_manifestGeneration)
                showError(tr("Cannot open the converted dataset"), message);
        });
}

void DataPage::setManifest(const workspace::ShardManifest &manifest)
{
    m_manifest = manifest;
    m_shardModel->setShards(manifest.shards);
    m_shardCounts->setManifest(manifest);
    if (!manifest.isNull()) {
        m_shardView->resizeColumnsToContents();
        m_shardView->setColumnWidth(ShardTableModel::FileColumn,
                                    qMin(m_shardView->columnWidth(ShardTableModel::FileColumn), 320));
        // The counts table is as wide as its columns (up to a limit), the shard list gets the rest.
        // Measured from the text: the view may not be laid out yet.
        QFont bold = m_shardCountsView->font();
        bold.setBold(true);
        const QFontMetrics boldMetrics(bold);
        const int padding = 2 * m_shardCountsView->style()->pixelMetric(QStyle::PM_FocusFrameHMargin) + 16;
        int countsWidth = m_shardCountsView->verticalScrollBar()->sizeHint().width() + 2 * m_shardCountsView->frameWidth();
        for (int column = 0; column < m_shardCounts->columnCount(); ++column) {
            int width = m_shardCountsView->horizontalHeader()->sectionSizeHint(column);
            for (int row = 0; row < m_shardCounts->rowCount(); ++row)
                width = qMax(width, boldMetrics.horizontalAdvance(m_shardCounts->index(row, column).data().toString())
                                        + padding);
            countsWidth += width;
        }
        m_shardCountsView->setMinimumWidth(qMin(countsWidth, 560));
    } else {
        m_shardCountsView->setMinimumWidth(0);
    }
    m_tabs->setTabText(ShardsTab, manifest.isNull() ? tr("Shards") : tr("Shards (%L1)").arg(manifest.shards.size()));
    // Recomputed with the manifest: the warnings go when their cause does. No batch size here:
    // the Train page's pre-flight adds the batch rule.
    m_shardWarnings = workspace::datasetWarnings(manifest, QStringLiteral("train"), QStringLiteral("val"), 0);
    QStringList items;
    for (const QString &warning : std::as_const(m_shardWarnings))
        items << QStringLiteral("<li>%1</li>").arg(warning.toHtmlEscaped());
    m_shardWarningsLabel->setText(QStringLiteral("<b>%1</b><ul style=\"margin: 0\">%2</ul>")
                                      .arg(tr("Before training on these shards:").toHtmlEscaped(), items.join(QString())));
    m_shardWarningsLabel->setVisible(!m_shardWarnings.isEmpty());
    m_shardsStack->setCurrentIndex(manifest.isNull() ? 0 : 1);
    updateShardsSummary();
    updateButtons();
}

bool DataPage::showsOwnShards() const
{
    return DatasetSnapshot::isConversionOf(m_manifest, m_snapshot.dataset);
}

void DataPage::recordShards(const workspace::ShardManifest &manifest)
{
    const QString databasePath = m_databasePath;
    const int datasetId = currentDatasetId();
    const QString folder = manifest.folder();
    BackgroundTask::start(
        QThreadPool::globalInstance(), this,
        [databasePath, datasetId, folder]() -> QVariant {
            workspace::ProjectConnection connection(databasePath);
            connection.catalog().setShardsDir(datasetId, folder);
            return {};
        },
        [this, datasetId, folder](const QVariant &) {
            if (datasetId == currentDatasetId())
                m_snapshot.dataset.shardsDir = folder;
        },
        [this](const QString &message) { showStatus(message); });
}

void DataPage::updateNearDuplicateDetails()
{
    const DatasetInfo &dataset = m_snapshot.dataset;
    if (dataset.id != 0 && dataset.nearDuplicateThreshold <= 0) {
        m_nearDuplicateDetails->setText(tr("This dataset was imported before near duplicates were grouped by their "
                                           "distance to a representative: Re-import it to find them."));
        return;
    }
    QString text = tr("A group gathers the images whose perceptual hash (%1 bits) differs from its representative's, "
                      "the first image, in at most %n bit(s).",
                      nullptr, dataset.nearDuplicateThreshold)
                       .arg(dataset.nearDuplicateBits);
    const QModelIndex current = m_groupList->currentIndex();
    if (current.isValid() && current.row() < m_groups->groups().size()) {
        const NearDuplicateGroupModel::Group &group = m_groups->groups().at(current.row());
        QStringList members;
        constexpr int kListed = 12;
        for (qsizetype i = 0; i < group.files.size() && i < kListed; ++i) {
            const int distance = i < group.distances.size() ? group.distances.at(i) : -1;
            const QString name = QFileInfo(group.files.at(i)).fileName();
            members << (i == 0 ? tr("%1 (the representative)").arg(name)
                               : tr("%1: %2").arg(name, NearDuplicateGroupModel::distanceText(distance, dataset.nearDuplicateBits)));
        }
        if (group.files.size() > kListed)
            members << tr("and %L1 more").arg(group.files.size() - kListed);
        text += QLatin1Char('\n') + members.join(QStringLiteral(" · "));
    } else if (m_groups->rowCount() == 0) {
        text += QLatin1Char('\n') + tr("No two images of this dataset are that close.");
    }
    m_nearDuplicateDetails->setText(text);
}

void DataPage::updateShardsSummary()
{
    const workspace::ShardManifest &m = m_manifest;
    if (m.isNull()) {
        m_shardsSummary->clear();
        m_notConvertedLabel->setText(
            tr("The dataset %1 is not converted yet. Training reads record shards, not the image folder: Convert "
               "to Shards writes its usable images, with your exclusions and relabels, as TFRecord shards. Open "
               "Converted Dataset… shows shards written before.")
                .arg(m_snapshot.dataset.name));
        return;
    }
    const QLocale locale;
    const QDateTime created = QDateTime::fromString(m.created, Qt::ISODate);
    QStringList splits;
    for (const QString &split : m.splits())
        splits << tr("%1: %2 records in %n shard(s)", nullptr, m.splitShards(split))
                      .arg(workspace::SplitNames::displayName(split), locale.toString(m.splitRecords(split)));
    const QStringList lines = {
        tr("%1 · converted from %2 · %3")
            .arg(QDir::toNativeSeparators(m.folder()), QDir::toNativeSeparators(m.source),
                 created.isValid() ? locale.toString(created.toLocalTime(), QLocale::ShortFormat) : m.created),
        tr("%n shard(s) · %1 records · %2 · %3 re-encoded · %4 of %5 files left out", nullptr, int(m.shards.size()))
            .arg(locale.toString(m.records), locale.formattedDataSize(m.totalBytes()), locale.toString(m.reencoded),
                 locale.toString(qint64(m.rejected.size())), locale.toString(m.scanned)),
        splits.join(QStringLiteral(" · ")),
    };
    m_shardsSummary->setText(lines.join(QLatin1Char('\n')));
}

void DataPage::askExportCsv()
{
    const QString suggested = QDir(m_project ? m_project->folder() : QDir::homePath())
                                  .filePath(tr("%1-rejected.csv").arg(m_snapshot.dataset.name));
    auto *dialog = new QFileDialog(this, tr("Export the rejected files"), suggested, tr("CSV files (*.csv)"));
    dialog->setObjectName(QStringLiteral("exportCsvDialog"));
    dialog->setAcceptMode(QFileDialog::AcceptSave);
    dialog->setDefaultSuffix(QStringLiteral("csv"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QFileDialog::fileSelected, this, &DataPage::exportRejectedCsv);
    dialog->open();
}

void DataPage::exportRejectedCsv(const QString &path)
{
    if (!m_project || currentDatasetId() == 0)
        return;
    const QString databasePath = m_databasePath;
    const int datasetId = currentDatasetId();
    BackgroundTask::start(
        QThreadPool::globalInstance(), this,
        [databasePath, datasetId, path]() -> QVariant {
            workspace::ProjectConnection connection(databasePath);
            connection.catalog().writeRejectedCsv(datasetId, path);
            return path;
        },
        [this](const QVariant &result) {
            showStatus(tr("Saved %1").arg(QDir::toNativeSeparators(result.toString())));
            Q_EMIT csvExported(result.toString());
        },
        [this](const QString &message) { showError(tr("Cannot export the list"), message); });
}

void DataPage::openViewer(qint64 imageId)
{
    const int row = m_images->rowOfId(imageId);
    if (row < 0)
        return;
    m_viewer->showImage(m_images->image(row), m_images->sourceDir(), m_snapshot.classes, m_databasePath,
                        m_snapshot.dataset.multiLabel());
    m_viewer->show();
    m_viewer->raise();
    m_viewer->activateWindow();
}

void DataPage::imageChanged(const CatalogImage &image)
{
    const int row = m_images->rowOfId(image.id);
    if (row < 0)
        return;
    const CatalogImage before = m_images->image(row);
    m_images->updateImage(image);
    // Whichever of the viewer and the label-errors tab changed it, the other shows the change.
    m_viewer->refresh(image);
    m_labelIssues->updateImage(image);
    m_snapshot.excluded += int(image.excluded) - int(before.excluded);
    m_snapshot.usable += int(image.usable()) - int(before.usable());
    // A label created in the viewer is one of the dataset's labels from now on: the label filter
    // lists it, the next image opened can take it, and the counts below (read again) include it.
    bool newLabel = false;
    for (const QString &label : image.labels) {
        if (!m_snapshot.classes.contains(label)) {
            m_snapshot.classes.append(label);
            newLabel = true;
        }
    }
    if (newLabel) {
        m_snapshot.classes.sort(); // the catalog's order
        fillFilters();
    }
    updateSummary();
    refreshCounts();
}

void DataPage::refreshCounts()
{
    const QString databasePath = m_databasePath;
    const int datasetId = currentDatasetId();
    const quint64 generation = m_loadGeneration;
    const bool multiLabel = m_snapshot.dataset.multiLabel();
    BackgroundTask::start(
        QThreadPool::globalInstance(), this,
        [databasePath, datasetId, multiLabel]() -> QVariant {
            workspace::ProjectConnection connection(databasePath);
            return QVariantList{QVariant::fromValue(connection.catalog().classCounts(datasetId)),
                                QVariant::fromValue(multiLabel ? connection.catalog().labelCooccurrence(datasetId)
                                                               : workspace::LabelCooccurrence{})};
        },
        [this, generation](const QVariant &result) {
            if (generation != m_loadGeneration)
                return;
            const QVariantList values = result.toList();
            m_snapshot.counts = values.value(0).value<QVector<workspace::ClassCount>>();
            m_snapshot.cooccurrence = values.value(1).value<workspace::LabelCooccurrence>();
            m_chart->setCounts(m_snapshot.classes, m_snapshot.counts);
            m_cooccurrence->setCooccurrence(m_snapshot.cooccurrence);
            Q_EMIT countsUpdated();
        },
        [this](const QString &message) { showStatus(message); });
}

void DataPage::showStatus(const QString &message)
{
    m_status->setText(message);
}

void DataPage::showError(const QString &title, const QString &message)
{
    showStatus(message);
    openWarning(this, title, message, QStringLiteral("importing-and-converting-images"));
    Q_EMIT errorOccurred(message);
}

} // namespace lathe::ui
