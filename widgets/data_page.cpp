#include "data_page.h"

#include "split_names.h"

#include "background_task.h"
#include "catalog_connection.h"
#include "class_balance_chart.h"
#include "image_filter_model.h"
#include "image_list_model.h"
#include "image_viewer.h"
#include "import_job.h"
#include "job_manager.h"
#include "near_duplicate_group_model.h"
#include "project.h"
#include "rejected_files_model.h"
#include "thumbnail_grid_view.h"
#include "thumbnail_loader.h"

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
#include <QSplitter>
#include <QStackedWidget>
#include <QTabWidget>
#include <QTableView>
#include <QThreadPool>
#include <QVBoxLayout>

namespace lathe::ui {

using workspace::CatalogImage;
using workspace::DatasetInfo;
using workspace::ImportJob;
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

    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_demoImportButton);
    buttons->addWidget(m_emptyImportButton);
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
        if (id != currentDatasetId())
            reload(id);
    });
    m_importButton = new QPushButton(tr("Import Folder…"), page);
    m_importButton->setObjectName(QStringLiteral("importButton"));
    m_importButton->setToolTip(m_emptyImportButton->toolTip());
    connect(m_importButton, &QPushButton::clicked, this, &DataPage::askImportFolder);
    m_reimportButton = new QPushButton(tr("Re-import"), page);
    m_reimportButton->setObjectName(QStringLiteral("reimportButton"));
    m_reimportButton->setToolTip(tr("Scan the dataset's folder again: new and changed files are read, removed ones "
                                    "leave the catalog, and your exclusions and relabels are kept."));
    connect(m_reimportButton, &QPushButton::clicked, this, &DataPage::reimport);

    auto *datasetLabel = new QLabel(tr("Dataset:"), page);
    datasetLabel->setBuddy(m_datasetCombo);
    auto *top = new QHBoxLayout;
    top->addWidget(datasetLabel);
    top->addWidget(m_datasetCombo);
    top->addWidget(m_reimportButton);
    top->addWidget(m_importButton);
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
    for (const QString &split : SplitNames::keys())
        m_splitFilter->addItem(SplitNames::displayName(split), split);
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
    filters->addWidget(new QLabel(tr("Class:"), page));
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
    m_chart = new ClassBalanceChart(m_tabs);
    m_tabs->addTab(m_chart, tr("Class Balance"));
    m_tabs->addTab(buildRejectedTab(), tr("Rejected Files"));
    m_tabs->addTab(buildNearDuplicatesTab(), tr("Near Duplicates"));

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
    m_groupGrid = new ThumbnailGridView(splitter);
    m_groupGrid->setModel(m_groupImages);
    m_groupGrid->setObjectName(QStringLiteral("nearDuplicateImages"));
    connect(m_groupList->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) {
                if (current.isValid())
                    m_groupImages->setNearDuplicateGroup(current.data(NearDuplicateGroupModel::GroupRole).toInt());
                else
                    m_groupImages->setShowNothing(true);
            });
    connect(m_groupGrid, &QListView::activated, this,
            [this](const QModelIndex &index) { openViewer(index.data(ImageListModel::ImageIdRole).toLongLong()); });
    splitter->addWidget(m_groupList);
    splitter->addWidget(m_groupGrid);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 3);
    return splitter;
}

void DataPage::setProject(workspace::Project *project)
{
    m_project = project;
    m_databasePath = project ? project->databasePath() : QString();
    ++m_loadGeneration; // whatever was being read belongs to the previous project
    m_loaded = false;
    m_snapshot = DatasetSnapshot();
    m_images->clear();
    m_rejected->setImages({});
    m_groups->setGroups({});
    m_groupImages->setShowNothing(true);
    m_chart->setCounts({}, {});
    m_viewer->hide();
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
    if (!m_loaded)
        m_emptyMessage->setText(tr("Reading the catalog…"));
    updateButtons();
    BackgroundTask::start(
        QThreadPool::globalInstance(), this,
        [databasePath, datasetId]() -> QVariant {
            return QVariant::fromValue(DatasetSnapshot::load(databasePath, datasetId));
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

    m_datasetCombo->clear();
    for (const DatasetInfo &info : snapshot.datasets)
        m_datasetCombo->addItem(info.name, info.id);
    m_datasetCombo->setCurrentIndex(m_datasetCombo->findData(snapshot.dataset.id));

    if (snapshot.dataset.id == 0) {
        m_images->clear();
        m_rejected->setImages({});
        m_groups->setGroups({});
        m_chart->setCounts({}, {});
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
        for (int row : rows)
            group.files << snapshot.images.at(row).relPath;
        groups.append(group);
    }
    m_groups->setGroups(groups);
    m_groupImages->setShowNothing(true);
    if (!groups.isEmpty())
        m_groupList->setCurrentIndex(m_groups->index(0));

    m_chart->setCounts(snapshot.classes, snapshot.counts);
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
    m_classFilter->addItem(tr("All classes"), QString());
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
    m_reimportButton->setEnabled(project && !m_importing && currentDatasetId() != 0);
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
    connect(dialog, &QFileDialog::fileSelected, this, &DataPage::importFolder);
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

void DataPage::importFolder(const QString &folder)
{
    const QString clean = QDir::cleanPath(QDir(folder).absolutePath());
    // The same folder again is a re-import of its dataset, not a second copy of it.
    for (const DatasetInfo &info : std::as_const(m_snapshot.datasets)) {
        if (QDir::cleanPath(info.sourceDir) == clean) {
            startImport(clean, info.name, &info);
            return;
        }
    }
    startImport(clean, uniqueDatasetName(clean), nullptr);
}

void DataPage::reimport()
{
    if (currentDatasetId() == 0)
        return;
    const DatasetInfo info = m_snapshot.dataset;
    startImport(info.sourceDir, info.name, &info);
}

void DataPage::startImport(const QString &folder, const QString &name, const DatasetInfo *previous)
{
    if (!m_project || m_importing)
        return;
    ImportJob::Params params;
    params.databasePath = m_databasePath;
    params.sourceDir = folder;
    params.name = name;
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
        const QVariantMap summary = result.toMap();
        const QLocale locale;
        auto number = [&](const char *key) { return locale.toString(summary.value(QLatin1String(key)).toInt()); };
        showStatus(tr("Import finished: %1 added, %2 changed, %3 removed, %4 unchanged; %5 usable, %6 rejected, "
                      "%7 duplicates, %8 groups of near duplicates.")
                       .arg(number("added"), number("changed"), number("removed"), number("unchanged"), number("ok"),
                            number("rejected"), number("duplicates"), number("nearDuplicateGroups")));
        reload(summary.value(QStringLiteral("datasetId")).toInt());
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
            CatalogConnection connection(databasePath);
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
    m_viewer->showImage(m_images->image(row), m_images->sourceDir(), m_snapshot.classes, m_databasePath);
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
    m_snapshot.excluded += int(image.excluded) - int(before.excluded);
    m_snapshot.usable += int(image.usable()) - int(before.usable());
    updateSummary();
    refreshCounts();
}

void DataPage::refreshCounts()
{
    const QString databasePath = m_databasePath;
    const int datasetId = currentDatasetId();
    const quint64 generation = m_loadGeneration;
    BackgroundTask::start(
        QThreadPool::globalInstance(), this,
        [databasePath, datasetId]() -> QVariant {
            CatalogConnection connection(databasePath);
            return QVariant::fromValue(connection.catalog().classCounts(datasetId));
        },
        [this, generation](const QVariant &result) {
            if (generation != m_loadGeneration)
                return;
            m_snapshot.counts = result.value<QVector<workspace::ClassCount>>();
            m_chart->setCounts(m_snapshot.classes, m_snapshot.counts);
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
    auto *box = new QMessageBox(QMessageBox::Warning, title, message, QMessageBox::Ok, this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
    Q_EMIT errorOccurred(message);
}

} // namespace lathe::ui
