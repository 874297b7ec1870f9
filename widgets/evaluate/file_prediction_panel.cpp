#include "evaluate/file_prediction_panel.h"

#include "common/background_task.h"
#include "workspace/atomic_file.h"
#include "workspace/catalog.h"
#include "workspace/inference_jobs.h"
#include "workspace/job_manager.h"

#include <QDir>
#include <QFileDialog>
#include <QFont>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLocale>
#include <QPalette>
#include <QPushButton>
#include <QStandardItemModel>
#include <QTableView>
#include <QThreadPool>
#include <QVBoxLayout>

#include <algorithm>
#include <string>
#include <utility>

namespace lathe::ui {

FilePredictionPanel::FilePredictionPanel(workspace::JobManager *jobs, QWidget *parent)
    : QWidget(parent)
    , m_jobs(jobs)
    , m_model(new QStandardItemModel(this))
    , m_view(new QTableView(this))
    , m_labelModel(new QStandardItemModel(this))
    , m_labelView(new QTableView(this))
    , m_predictButton(new QPushButton(tr("Predict Files…"), this))
    , m_saveButton(new QPushButton(tr("Save Results CSV…"), this))
    , m_message(new QLabel(this))
{
    setHeaders();
    m_view->setObjectName(QStringLiteral("predictTable"));
    m_view->setModel(m_model);
    m_view->verticalHeader()->hide();
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_view->horizontalHeader()->setStretchLastSection(true);
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) { showLabels(current.row()); });
    m_labelModel->setHorizontalHeaderLabels({tr("Label"), tr("Score"), tr("Threshold"), tr("In label set")});
    m_labelView->setObjectName(QStringLiteral("predictLabelTable"));
    m_labelView->setModel(m_labelModel);
    m_labelView->verticalHeader()->hide();
    m_labelView->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_labelView->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_labelView->horizontalHeader()->setStretchLastSection(false);
    m_labelView->setToolTip(tr("The selected file's labels: each label's sigmoid score against the label's threshold "
                               "(tuned on the validation split when the checkpoint was written). A label is in the "
                               "file's label set when its score reaches its threshold."));
    m_labelView->hide();
    m_message->setWordWrap(true);
    m_message->setText(tr("Drop image files or folders anywhere on this page, or choose them with Predict Files…, "
                          "to classify them with the selected run and checkpoint."));
    connect(m_predictButton, &QPushButton::clicked, this, &FilePredictionPanel::askPredictFiles);
    connect(m_saveButton, &QPushButton::clicked, this, &FilePredictionPanel::askSavePredictions);
    auto *row = new QHBoxLayout;
    row->addWidget(m_predictButton);
    row->addWidget(m_saveButton);
    row->addStretch(1);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(row);
    layout->addWidget(m_message);
    layout->addWidget(m_view, 3);
    layout->addWidget(m_labelView, 2);
    updateButtons();
}

void FilePredictionPanel::setHeaders()
{
    if (m_multiLabel) {
        m_model->setHorizontalHeaderLabels({tr("File"), tr("Label set"), tr("Top score"), tr("Scores (threshold)"), tr("Error")});
        m_model->horizontalHeaderItem(PredictionColumn)
            ->setToolTip(tr("The labels whose sigmoid score reaches the label's threshold, highest score first."));
        m_model->horizontalHeaderItem(TopColumn)
            ->setToolTip(tr("Every label's score against its threshold, highest score first; ✓ marks the labels in "
                            "the label set."));
    } else {
        m_model->setHorizontalHeaderLabels({tr("File"), tr("Prediction"), tr("Probability"), tr("Top classes"), tr("Error")});
    }
}

QString FilePredictionPanel::labelSetText(const engine::FilePrediction &prediction)
{
    if (prediction.labelSet.empty())
        return tr("No label reaches its threshold");
    QStringList names;
    for (const std::string &name : prediction.labelSet)
        names << QString::fromStdString(name);
    return tr("Labels: %1").arg(names.join(QStringLiteral(", ")));
}

void FilePredictionPanel::showLabels(int row)
{
    m_labelModel->removeRows(0, m_labelModel->rowCount());
    if (!m_multiLabel || row < 0 || row >= int(m_results.size()))
        return;
    const QLocale locale;
    for (const engine::LabelScore &label : m_results[std::size_t(row)].labelScores) {
        QList<QStandardItem *> items{new QStandardItem(QString::fromStdString(label.name)),
                                     new QStandardItem(locale.toString(double(label.score), 'f', 4)),
                                     new QStandardItem(locale.toString(label.threshold, 'f', 4)),
                                     new QStandardItem(label.inSet ? tr("✓ yes") : tr("no"))};
        items[LabelScoreColumn]->setData(double(label.score), Qt::UserRole);
        items[LabelThresholdColumn]->setData(label.threshold, Qt::UserRole);
        items[LabelInSetColumn]->setData(label.inSet, Qt::UserRole);
        for (QStandardItem *item : items) {
            if (item == items[LabelScoreColumn] || item == items[LabelThresholdColumn]) // numbers
                item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            if (label.inSet) {
                QFont font = item->font();
                font.setBold(true);
                item->setFont(font);
            }
        }
        m_labelModel->appendRow(items);
    }
}

void FilePredictionPanel::setReady(bool ready)
{
    m_ready = ready;
    updateButtons();
}

void FilePredictionPanel::setMessage(const QString &text)
{
    m_message->setText(text);
}

void FilePredictionPanel::clear()
{
    m_results.clear();
    m_model->removeRows(0, m_model->rowCount());
    m_labelModel->removeRows(0, m_labelModel->rowCount());
    m_multiLabel = false;
    m_labelView->hide();
    setHeaders();
    updateButtons();
}

void FilePredictionPanel::updateButtons()
{
    m_predictButton->setEnabled(m_ready && !m_job);
    m_saveButton->setEnabled(!m_results.empty());
}

void FilePredictionPanel::askPredictFiles()
{
    auto *dialog = new QFileDialog(this, tr("Predict Files"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setFileMode(QFileDialog::ExistingFiles);
    dialog->setNameFilters({tr("Images (*.jpg *.jpeg *.png *.bmp *.tif *.tiff *.webp)"), tr("All files (*)")});
    connect(dialog, &QFileDialog::filesSelected, this, &FilePredictionPanel::filesChosen);
    dialog->open();
}

void FilePredictionPanel::predict(const QStringList &paths, const QString &runDir, const QString &checkpoint)
{
    if (m_job)
        return;
    m_message->setText(tr("Classifying %n file(s) or folder(s)…", nullptr, int(paths.size())));
    engine::PredictOptions options;
    options.runDir = runDir.toStdString();
    options.checkpoint = checkpoint.toStdString();
    std::vector<std::string> inputs;
    for (const QString &path : paths)
        inputs.push_back(QDir::cleanPath(path).toStdString());
    m_job = new workspace::PredictFilesJob(options, inputs);
    updateButtons();
    connect(m_job, &workspace::Job::progressChanged, this, [this](double fraction, const QString &) {
        m_message->setText(tr("Classifying… %1%").arg(qRound(fraction * 100)));
    });
    connect(m_job, &workspace::Job::finished, this, [this](const QVariant &value) {
        showResults(value.value<workspace::FilePredictions>().results);
    });
    connect(m_job, &workspace::Job::failed, this, [this](const QString &message) {
        m_message->setText(tr("Cannot classify the files: %1").arg(message));
    });
    connect(m_job, &workspace::Job::cancelled, this,
            [this] { m_message->setText(tr("The classification was cancelled.")); });
    connect(m_job, &workspace::Job::ended, this, [this] {
        m_job = nullptr;
        updateButtons();
        Q_EMIT finished();
    });
    m_jobs->start(m_job);
}

void FilePredictionPanel::showResults(std::vector<engine::FilePrediction> results)
{
    m_results = std::move(results);
    m_model->removeRows(0, m_model->rowCount());
    m_labelModel->removeRows(0, m_labelModel->rowCount());
    // One model classified them all: a multi-label one marks every file it read.
    m_multiLabel = std::any_of(m_results.begin(), m_results.end(), [](const engine::FilePrediction &p) { return p.multiLabel; });
    setHeaders();
    m_labelView->setVisible(m_multiLabel);
    const QLocale locale;
    int failed = 0;
    for (const engine::FilePrediction &p : m_results) {
        QList<QStandardItem *> items;
        items << new QStandardItem(QDir::toNativeSeparators(QString::fromStdString(p.path)));
        if (!p.error.empty()) {
            ++failed;
            items << new QStandardItem() << new QStandardItem() << new QStandardItem()
                  << new QStandardItem(QString::fromStdString(p.error));
            items.last()->setForeground(QColor(200, 40, 40));
        } else if (p.multiLabel) {
            // The engine's label set, then every label's score against its threshold.
            QStringList scores;
            for (const engine::LabelScore &label : p.labelScores) {
                const QString name = QString::fromStdString(label.name);
                const QString score = locale.toString(double(label.score), 'f', 4);
                const QString threshold = locale.toString(label.threshold, 'f', 4);
                scores << (label.inSet ? tr("✓ %1 %2 ≥ %3").arg(name, score, threshold)
                                       : tr("%1 %2 < %3").arg(name, score, threshold));
            }
            auto *set = new QStandardItem(labelSetText(p));
            if (p.labelSet.empty())
                set->setForeground(palette().brush(QPalette::PlaceholderText));
            auto *scoreCell = new QStandardItem(scores.join(QStringLiteral(", ")));
            scoreCell->setToolTip(scores.join(QLatin1Char('\n')));
            items << set
                  << new QStandardItem(p.topProbs.empty() ? QString() : locale.toString(p.topProbs.front(), 'f', 4))
                  << scoreCell << new QStandardItem();
        } else {
            QStringList top;
            for (std::size_t i = 0; i < p.topNames.size() && i < p.topProbs.size(); ++i)
                top << tr("%1 %2").arg(QString::fromStdString(p.topNames[i]), locale.toString(p.topProbs[i], 'f', 3));
            items << new QStandardItem(p.topNames.empty() ? QString() : QString::fromStdString(p.topNames.front()))
                  << new QStandardItem(p.topProbs.empty() ? QString() : locale.toString(p.topProbs.front(), 'f', 3))
                  << new QStandardItem(top.join(QStringLiteral(", "))) << new QStandardItem();
        }
        m_model->appendRow(items);
    }
    if (m_multiLabel && !m_results.empty()) {
        // The label sets in full; every label's score is long: the table below lists them.
        m_view->resizeColumnToContents(PredictionColumn);
        m_view->setColumnWidth(PredictionColumn, std::min(m_view->columnWidth(PredictionColumn), 60 * fontMetrics().averageCharWidth()));
        m_view->resizeColumnToContents(ProbabilityColumn);
        m_view->setColumnWidth(TopColumn, std::max(m_view->columnWidth(TopColumn), 24 * fontMetrics().averageCharWidth()));
        m_view->setCurrentIndex(m_model->index(0, 0)); // its labels below (currentRowChanged)
    }
    m_message->setText(tr("%n file(s) classified", nullptr, int(m_results.size()) - failed) +
                       (failed > 0 ? QStringLiteral("; ") + tr("%n could not be read", nullptr, failed) : QString()) +
                       QLatin1Char('.') +
                       (m_multiLabel ? QStringLiteral(" ") + tr("Multi-label model: a file gets every label whose score "
                                                             "reaches the label's threshold.")
                                     : QString()));
}

void FilePredictionPanel::askSavePredictions()
{
    if (m_results.empty())
        return;
    auto *dialog = new QFileDialog(this, tr("Save Results CSV"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setAcceptMode(QFileDialog::AcceptSave);
    dialog->setNameFilter(tr("CSV files (*.csv)"));
    dialog->setDefaultSuffix(QStringLiteral("csv"));
    dialog->selectFile(QStringLiteral("predictions.csv"));
    connect(dialog, &QFileDialog::fileSelected, this, &FilePredictionPanel::savePredictionsCsv);
    dialog->open();
}

void FilePredictionPanel::savePredictionsCsv(const QString &path)
{
    const std::vector<engine::FilePrediction> results = m_results;
    BackgroundTask::start(
        QThreadPool::globalInstance(), this,
        [path, results]() -> QVariant {
            int k = 0;
            bool multiLabel = false;
            for (const engine::FilePrediction &p : results) {
                k = std::max(k, int(p.topNames.size()));
                multiLabel = multiLabel || p.multiLabel;
            }
            // A multi-label model's label set comes second, its labels separated by ";".
            QStringList header{QStringLiteral("file")};
            if (multiLabel)
                header << QStringLiteral("labels");
            for (int i = 1; i <= k; ++i)
                header << QStringLiteral("class_%1").arg(i) << QStringLiteral("prob_%1").arg(i);
            header << QStringLiteral("error");
            QString text = header.join(QLatin1Char(',')) + QLatin1Char('\n');
            for (const engine::FilePrediction &p : results) {
                QStringList fields{workspace::csvField(QString::fromStdString(p.path))};
                if (multiLabel) {
                    QStringList labels;
                    for (const std::string &label : p.labelSet)
                        labels << QString::fromStdString(label);
                    fields << workspace::csvField(labels.join(QLatin1Char(';')));
                }
                for (int i = 0; i < k; ++i) {
                    const bool has = i < int(p.topNames.size()) && i < int(p.topProbs.size());
                    fields << (has ? workspace::csvField(QString::fromStdString(p.topNames[i])) : QString())
                           << (has ? QString::number(p.topProbs[i], 'g', 6) : QString());
                }
                fields << workspace::csvField(QString::fromStdString(p.error));
                text += fields.join(QLatin1Char(',')) + QLatin1Char('\n');
            }
            workspace::writeFileAtomically(path, text.toUtf8());
            return path;
        },
        [this](const QVariant &value) {
            m_message->setText(tr("Saved %1").arg(QDir::toNativeSeparators(value.toString())));
            Q_EMIT fileSaved(value.toString());
        },
        [this](const QString &message) { Q_EMIT saveFailed(message); });
}

} // namespace lathe::ui
