#include "data/label_issues_panel.h"

#include "common/background_task.h"
#include "data/dataset_snapshot.h"
#include "data/label_issues_model.h"
#include "workspace/job_manager.h"
#include "workspace/project_connection.h"

#include <QComboBox>
#include <QDir>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>
#include <QStackedWidget>
#include <QTableView>
#include <QThreadPool>
#include <QVBoxLayout>

#include <algorithm>

namespace lathe::ui {

using workspace::CatalogImage;
using workspace::FoldsRunEntry;
using workspace::LabelIssueRow;
using workspace::LabelIssuesJob;
using workspace::LabelIssuesResult;

namespace {

constexpr int kThumbnailSide = 48; // in the table: small enough for a dozen rows on screen

} // namespace

LabelIssuesPanel::LabelIssuesPanel(workspace::JobManager *jobs, ThumbnailLoader *thumbnails, QWidget *parent)
    : QWidget(parent)
    , m_jobs(jobs)
    , m_model(new LabelIssuesModel(thumbnails, this))
    , m_runCombo(new QComboBox(this))
    , m_rankCombo(new QComboBox(this))
    , m_findButton(new QPushButton(tr("Find Label Errors"), this))
    , m_cancelButton(new QPushButton(tr("Cancel"), this))
    , m_progress(new QProgressBar(this))
    , m_description(new QLabel(this))
    , m_status(new QLabel(this))
    , m_stack(new QStackedWidget(this))
    , m_noRunsLabel(new QLabel(this))
    , m_view(new QTableView(this))
    , m_relabelButton(new QPushButton(tr("Relabel to Suggested"), this))
    , m_excludeButton(new QPushButton(tr("Exclude"), this))
{
    setObjectName(QStringLiteral("labelIssuesPanel"));
    m_runCombo->setObjectName(QStringLiteral("foldsRunPicker"));
    m_runCombo->setMinimumContentsLength(20);
    m_runCombo->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_runCombo->setToolTip(tr("A folds run of the project's runs folder (one with a folds.json)"));
    m_rankCombo->setObjectName(QStringLiteral("rankByPicker"));
    m_rankCombo->addItem(tr("Self-confidence"), int(engine::LabelQualityScore::SelfConfidence));
    m_rankCombo->setItemData(0, tr("The predicted probability of the given label: low when the models doubt it"),
                             Qt::ToolTipRole);
    m_rankCombo->addItem(tr("Normalized margin"), int(engine::LabelQualityScore::NormalizedMargin));
    m_rankCombo->setItemData(1,
                             tr("The given label's probability minus the most probable other class's: low when "
                                "another class is clearly preferred"),
                             Qt::ToolTipRole);
    m_findButton->setObjectName(QStringLiteral("findLabelIssuesButton"));
    m_findButton->setToolTip(tr("Rank the images whose given label the out-of-fold predictions disagree with "
                                "(confident learning)"));
    m_cancelButton->setObjectName(QStringLiteral("cancelLabelIssuesButton"));
    m_progress->setObjectName(QStringLiteral("labelIssuesProgress"));
    m_progress->setRange(0, 1000);
    m_progress->setTextVisible(false);
    m_progress->setMaximumWidth(160);
    m_progress->hide();
    connect(m_findButton, &QPushButton::clicked, this, [this] { find(); });
    connect(m_cancelButton, &QPushButton::clicked, this, &LabelIssuesPanel::cancel);
    connect(m_runCombo, &QComboBox::currentIndexChanged, this, &LabelIssuesPanel::updateButtons);

    auto *runLabel = new QLabel(tr("Folds run:"), this);
    runLabel->setBuddy(m_runCombo);
    auto *rankLabel = new QLabel(tr("Rank by:"), this);
    rankLabel->setBuddy(m_rankCombo);
    auto *controls = new QHBoxLayout;
    controls->addWidget(runLabel);
    controls->addWidget(m_runCombo);
    controls->addSpacing(8);
    controls->addWidget(rankLabel);
    controls->addWidget(m_rankCombo);
    controls->addSpacing(8);
    controls->addWidget(m_findButton);
    controls->addWidget(m_cancelButton);
    controls->addWidget(m_progress);
    controls->addStretch(1);

    m_description->setObjectName(QStringLiteral("labelIssuesDescription"));
    m_description->setWordWrap(true);
    m_description->setText(tr("Each image of a folds run was predicted by a model that never trained on it. Where "
                              "those predictions confidently disagree with the given label, the label is probably "
                              "wrong: the most suspicious come first. Nothing changes until you relabel or "
                              "exclude an image, and then only in the catalog."));
    m_status->setObjectName(QStringLiteral("labelIssuesStatus"));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);

    // Without a folds run: how to make one.
    auto *noRunsPage = new QWidget(m_stack);
    m_noRunsLabel->setParent(noRunsPage);
    m_noRunsLabel->setObjectName(QStringLiteral("noFoldsRunLabel"));
    m_noRunsLabel->setWordWrap(true);
    m_noRunsLabel->setTextFormat(Qt::RichText);
    m_noRunsLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto *noRunsLayout = new QVBoxLayout(noRunsPage);
    noRunsLayout->setContentsMargins(12, 12, 12, 12);
    noRunsLayout->addWidget(m_noRunsLabel);
    noRunsLayout->addStretch(1);
    m_stack->addWidget(noRunsPage);

    auto *resultsPage = new QWidget(m_stack);
    m_view->setParent(resultsPage);
    m_view->setObjectName(QStringLiteral("labelIssuesView"));
    m_view->setModel(m_model);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_view->setWordWrap(false);
    m_view->setTextElideMode(Qt::ElideMiddle);
    m_view->setIconSize(QSize(kThumbnailSide, kThumbnailSide));
    m_view->verticalHeader()->hide();
    m_view->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_view->verticalHeader()->setDefaultSectionSize(kThumbnailSide + 6);
    QHeaderView *header = m_view->horizontalHeader();
    header->setSectionResizeMode(QHeaderView::Interactive);
    header->setStretchLastSection(true);
    header->resizeSection(LabelIssuesModel::ImageColumn, kThumbnailSide + 16);
    header->resizeSection(LabelIssuesModel::FileColumn, 320);
    header->resizeSection(LabelIssuesModel::GivenColumn, 140);
    header->resizeSection(LabelIssuesModel::SuggestedColumn, 140);
    header->resizeSection(LabelIssuesModel::ScoreColumn, 80);
    header->resizeSection(LabelIssuesModel::FoldColumn, 50);
    connect(m_view, &QTableView::activated, this, [this](const QModelIndex &index) {
        Q_EMIT openImageRequested(index.data(LabelIssuesModel::ImageIdRole).toLongLong());
    });
    connect(m_view->selectionModel(), &QItemSelectionModel::selectionChanged, this, &LabelIssuesPanel::updateButtons);
    connect(m_model, &QAbstractItemModel::dataChanged, this, &LabelIssuesPanel::updateButtons);
    connect(m_model, &QAbstractItemModel::modelReset, this, &LabelIssuesPanel::updateButtons);

    m_relabelButton->setObjectName(QStringLiteral("relabelToSuggestedButton"));
    m_excludeButton->setObjectName(QStringLiteral("excludeLabelIssuesButton"));
    connect(m_relabelButton, &QPushButton::clicked, this, &LabelIssuesPanel::relabelSelected);
    connect(m_excludeButton, &QPushButton::clicked, this, &LabelIssuesPanel::excludeSelected);
    auto *buttons = new QHBoxLayout;
    buttons->addStretch(1);
    buttons->addWidget(m_relabelButton);
    buttons->addWidget(m_excludeButton);
    auto *resultsLayout = new QVBoxLayout(resultsPage);
    resultsLayout->setContentsMargins(0, 0, 0, 0);
    resultsLayout->addWidget(m_view, 1);
    resultsLayout->addLayout(buttons);
    m_stack->addWidget(resultsPage);

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(controls);
    layout->addWidget(m_description);
    layout->addWidget(m_status);
    layout->addWidget(m_stack, 1);
    updateNoRunsMessage();
    updateButtons();
}

void LabelIssuesPanel::setProject(const QString &databasePath, const QString &runsDir)
{
    if (m_job)
        m_job->requestCancel(); // its result would belong to the previous project
    m_job = nullptr;
    m_databasePath = databasePath;
    m_runsDir = runsDir;
    m_dataset = {};
    m_result = {};
    m_model->clear();
    m_runs.clear();
    m_runCombo->clear();
    m_listed = false;
    m_status->clear();
    m_progress->hide();
    updateNoRunsMessage();
    updateButtons();
    if (!runsDir.isEmpty())
        refreshRuns();
}

void LabelIssuesPanel::setDataset(const workspace::DatasetInfo &dataset)
{
    const bool same = dataset.id == m_dataset.id;
    m_dataset = dataset;
    if (!same && !m_result.foldsDir.isEmpty()) {
        m_result = {};
        m_model->clear();
        m_status->clear();
    }
    updateNoRunsMessage();
    updateButtons();
}

void LabelIssuesPanel::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    // A folds run may have been made (lathe-cli) since the tab was last looked at.
    refreshRuns();
}

void LabelIssuesPanel::refreshRuns()
{
    if (m_runsDir.isEmpty())
        return;
    const quint64 generation = ++m_listGeneration;
    const QString runsDir = m_runsDir;
    BackgroundTask::start(
        QThreadPool::globalInstance(), this,
        [runsDir]() -> QVariant { return QVariant::fromValue(workspace::listFoldsRuns(runsDir)); },
        [this, generation](const QVariant &value) {
            if (generation != m_listGeneration)
                return;
            const QString chosen = m_runCombo->currentData().toString();
            m_runs = value.value<QVector<FoldsRunEntry>>();
            m_listed = true;
            {
                const QSignalBlocker blocker(m_runCombo);
                m_runCombo->clear();
                const QLocale locale;
                for (const FoldsRunEntry &run : std::as_const(m_runs)) {
                    m_runCombo->addItem(run.name, run.dir);
                    m_runCombo->setItemData(m_runCombo->count() - 1,
                                            tr("%1\nwritten %2")
                                                .arg(QDir::toNativeSeparators(run.dir),
                                                     locale.toString(run.modified, QLocale::ShortFormat)),
                                            Qt::ToolTipRole);
                }
                m_runCombo->setCurrentIndex(qMax(0, m_runCombo->findData(chosen)));
            }
            updateNoRunsMessage();
            updateButtons();
            Q_EMIT runsListed(int(m_runs.size()));
        },
        [this, generation](const QString &message) {
            if (generation == m_listGeneration)
                m_status->setText(message);
        });
}

bool LabelIssuesPanel::find()
{
    if (m_job)
        return false;
    QString problem;
    if (m_databasePath.isEmpty() || m_dataset.id == 0)
        problem = tr("there is no dataset.");
    else if (m_runCombo->currentIndex() < 0)
        problem = tr("there is no folds run.");
    else if (!m_jobs)
        problem = tr("jobs cannot run here.");
    if (!problem.isEmpty()) {
        m_status->setText(tr("Cannot look for label errors: %1").arg(problem));
        return false;
    }
    LabelIssuesJob::Params params;
    params.databasePath = m_databasePath;
    params.datasetId = m_dataset.id;
    params.foldsDir = m_runCombo->currentData().toString();
    params.rankBy = engine::LabelQualityScore(m_rankCombo->currentData().toInt());
    auto *job = new LabelIssuesJob(params);
    m_job = job;
    connect(job, &workspace::Job::progressChanged, this, [this, job](double fraction, const QString &status) {
        if (job != m_job)
            return;
        m_progress->setValue(int(fraction * 1000));
        if (!status.isEmpty())
            m_status->setText(status);
    });
    connect(job, &workspace::Job::finished, this, [this, job](const QVariant &result) {
        if (job == m_job)
            jobEnded(QStringLiteral("finished"), {}, result);
    });
    connect(job, &workspace::Job::failed, this, [this, job](const QString &message) {
        if (job == m_job)
            jobEnded(QStringLiteral("failed"), message, {});
    });
    connect(job, &workspace::Job::cancelled, this, [this, job] {
        if (job == m_job)
            jobEnded(QStringLiteral("cancelled"), {}, {});
    });
    m_progress->setValue(0);
    m_progress->show();
    m_status->setText(tr("Reading %1…").arg(QDir::toNativeSeparators(params.foldsDir)));
    m_jobs->start(job);
    updateButtons();
    return true;
}

void LabelIssuesPanel::cancel()
{
    if (!m_job)
        return;
    m_job->requestCancel();
    m_status->setText(tr("Cancelling…"));
}

void LabelIssuesPanel::jobEnded(const QString &state, const QString &message, const QVariant &result)
{
    m_job = nullptr;
    m_progress->hide();
    if (state == QLatin1String("finished")) {
        m_result = result.value<LabelIssuesResult>();
        m_model->setIssues(m_result.issues, m_dataset.sourceDir, m_result.multiLabel);
        const QLocale locale;
        QString text = tr("%n suspected label error(s) among %1 images of %2.", nullptr, int(m_result.issues.size()))
                           .arg(locale.toString(m_result.examples), QDir(m_result.foldsDir).dirName());
        if (m_result.matched < m_result.examples)
            text += QLatin1Char(' ') + tr("%1 of the run's images are no longer in this dataset, or changed since.")
                                           .arg(locale.toString(m_result.examples - m_result.matched));
        if (m_result.unmatchedIssues > 0)
            text += QLatin1Char(' ') + tr("%n suspected label error(s) among those images cannot be listed.", nullptr,
                                              m_result.unmatchedIssues);
        if (m_result.issues.isEmpty())
            text += QLatin1Char(' ') + tr("The predictions agree with every given label.");
        m_status->setText(text);
        if (!m_result.issues.isEmpty())
            m_view->scrollToTop();
    } else if (state == QLatin1String("failed")) {
        m_status->setText(tr("Cannot look for label errors: %1").arg(message));
        Q_EMIT errorOccurred(message);
    } else {
        m_status->setText(tr("Cancelled; the list is as it was."));
    }
    updateButtons();
    Q_EMIT findEnded(state);
}

QVector<int> LabelIssuesPanel::selectedRows() const
{
    QVector<int> rows;
    for (const QModelIndex &index : m_view->selectionModel()->selectedRows())
        rows.append(index.row());
    std::sort(rows.begin(), rows.end());
    return rows;
}

void LabelIssuesPanel::relabelSelected()
{
    int emptySets = 0;
    for (int row : selectedRows()) {
        const LabelIssueRow &issue = m_model->issue(row);
        emptySets += issue.multiLabel && issue.suggestedLabels.isEmpty() ? 1 : 0;
    }
    if (emptySets > 0)
        m_status->setText(tr("Not applied to %1 of the selected images: the suggestion leaves no label; exclude "
                             "them instead.")
                              .arg(QLocale().toString(emptySets)));
    writeSelected([](workspace::Catalog &catalog, const LabelIssueRow &issue) {
        if (!issue.multiLabel)
            catalog.relabel(issue.image.id, issue.suggestedClass);
        else if (!issue.suggestedLabels.isEmpty()) // the catalog refuses an image without a label
            catalog.setLabels(issue.image.id, issue.suggestedLabels);
    });
}

void LabelIssuesPanel::excludeSelected()
{
    bool allExcluded = true;
    for (int row : selectedRows())
        allExcluded = allExcluded && m_model->issue(row).image.excluded;
    const bool exclude = !allExcluded;
    writeSelected([exclude](workspace::Catalog &catalog, const LabelIssueRow &issue) {
        catalog.setExcluded(issue.image.id, exclude);
    });
}

void LabelIssuesPanel::writeSelected(std::function<void(workspace::Catalog &, const LabelIssueRow &)> change)
{
    const QVector<int> rows = selectedRows();
    if (m_writing || rows.isEmpty() || m_databasePath.isEmpty())
        return;
    QVector<LabelIssueRow> issues;
    for (int row : rows)
        issues.append(m_model->issue(row));
    m_writing = true;
    updateButtons();
    const QString databasePath = m_databasePath;
    BackgroundTask::start(
        QThreadPool::globalInstance(), this,
        [databasePath, issues, change]() -> QVariant {
            workspace::ProjectConnection connection(databasePath);
            QVector<CatalogImage> changed;
            for (const LabelIssueRow &issue : issues) {
                change(connection.catalog(), issue);
                changed.append(connection.catalog().image(issue.image.id));
            }
            return QVariant::fromValue(changed);
        },
        [this](const QVariant &result) {
            m_writing = false;
            for (const CatalogImage &image : result.value<QVector<CatalogImage>>()) {
                m_model->updateImage(image);
                Q_EMIT imageChanged(image);
            }
            updateButtons();
        },
        [this](const QString &message) {
            m_writing = false;
            m_status->setText(message);
            updateButtons();
            Q_EMIT errorOccurred(message);
        });
}

void LabelIssuesPanel::updateImage(const CatalogImage &image)
{
    m_model->updateImage(image);
}

void LabelIssuesPanel::updateRelabelButton()
{
    if (m_model->multiLabel()) {
        m_relabelButton->setText(tr("Apply Suggested Labels"));
        m_relabelButton->setToolTip(tr("Give each selected image the label set the predictions suggest (the given "
                                       "set with the doubtful labels added or removed). The files are not "
                                       "touched."));
    } else {
        m_relabelButton->setText(tr("Relabel to Suggested"));
        m_relabelButton->setToolTip(tr("Give each selected image the class the predictions suggest. The files stay "
                                       "where they are."));
    }
}

void LabelIssuesPanel::updateNoRunsMessage()
{
    const QString shards = m_dataset.shardsDir.isEmpty() ? tr("SHARD_DIR") : QDir::toNativeSeparators(m_dataset.shardsDir);
    const QString out = m_runsDir.isEmpty() ? tr("RUNS_DIR/folds")
                                            : QDir::toNativeSeparators(QDir(m_runsDir).filePath(QStringLiteral("folds")));
    m_noRunsLabel->setText(
        tr("<p>No folds run in the project's runs folder yet.</p><p>Suspected label errors come from out-of-fold "
           "predictions: k-fold cross-validation trains k models, each predicting the images it did not train on. "
           "Make a folds run with Cross-Validate on the Train page, or from a terminal, then come back to this "
           "tab:</p><pre>%1</pre>")
            .arg(QStringLiteral("lathe-cli train --data %1 --folds 5 --out %2").arg(shards, out).toHtmlEscaped()));
    m_stack->setCurrentIndex(m_listed && m_runs.isEmpty() ? 0 : 1);
}

void LabelIssuesPanel::updateButtons()
{
    const bool running = m_job != nullptr;
    m_findButton->setEnabled(!running && m_dataset.id != 0 && m_runCombo->currentIndex() >= 0);
    m_cancelButton->setEnabled(running);
    m_cancelButton->setVisible(running);
    m_runCombo->setEnabled(!running);
    m_rankCombo->setEnabled(!running);
    const QVector<int> rows = m_view->selectionModel() ? selectedRows() : QVector<int>();
    bool allExcluded = !rows.isEmpty();
    bool anyToRelabel = false;
    for (int row : rows) {
        const LabelIssueRow &issue = m_model->issue(row);
        allExcluded = allExcluded && issue.image.excluded;
        anyToRelabel = anyToRelabel || LabelIssuesModel::canApplySuggestion(issue);
    }
    updateRelabelButton();
    m_relabelButton->setEnabled(!m_writing && anyToRelabel);
    m_excludeButton->setEnabled(!m_writing && !rows.isEmpty());
    m_excludeButton->setText(allExcluded ? tr("Include") : tr("Exclude"));
    m_excludeButton->setToolTip(allExcluded ? tr("Take the selected images back into training.")
                                            : tr("Leave the selected images out of training. The files are not "
                                                 "touched."));
}

} // namespace lathe::ui
