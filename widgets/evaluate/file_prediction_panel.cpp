#include "evaluate/file_prediction_panel.h"

#include "common/background_task.h"
#include "workspace/atomic_file.h"
#include "workspace/catalog.h"
#include "workspace/inference_jobs.h"
#include "workspace/job_manager.h"

#include <QDir>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
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
    , m_predictButton(new QPushButton(tr("Predict Files…"), this))
    , m_saveButton(new QPushButton(tr("Save Results CSV…"), this))
    , m_message(new QLabel(this))
{
    m_model->setHorizontalHeaderLabels({tr("File"), tr("Prediction"), tr("Probability"), tr("Top classes"), tr("Error")});
    m_view->setObjectName(QStringLiteral("predictTable"));
    m_view->setModel(m_model);
    m_view->verticalHeader()->hide();
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_view->horizontalHeader()->setStretchLastSection(true);
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
    layout->addWidget(m_view, 1);
    updateButtons();
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
    int failed = 0;
    for (const engine::FilePrediction &p : m_results) {
        QList<QStandardItem *> items;
        items << new QStandardItem(QDir::toNativeSeparators(QString::fromStdString(p.path)));
        if (!p.error.empty()) {
            ++failed;
            items << new QStandardItem() << new QStandardItem() << new QStandardItem()
                  << new QStandardItem(QString::fromStdString(p.error));
            items.last()->setForeground(QColor(200, 40, 40));
        } else {
            QStringList top;
            for (std::size_t i = 0; i < p.topNames.size() && i < p.topProbs.size(); ++i)
                top << tr("%1 %2").arg(QString::fromStdString(p.topNames[i]), QLocale().toString(p.topProbs[i], 'f', 3));
            items << new QStandardItem(p.topNames.empty() ? QString() : QString::fromStdString(p.topNames.front()))
                  << new QStandardItem(p.topProbs.empty() ? QString() : QLocale().toString(p.topProbs.front(), 'f', 3))
                  << new QStandardItem(top.join(QStringLiteral(", "))) << new QStandardItem();
        }
        m_model->appendRow(items);
    }
    m_message->setText(tr("%n file(s) classified", nullptr, int(m_results.size()) - failed) +
                       (failed > 0 ? QStringLiteral("; ") + tr("%n could not be read", nullptr, failed) : QString()) +
                       QLatin1Char('.'));
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
            for (const engine::FilePrediction &p : results)
                k = std::max(k, int(p.topNames.size()));
            QStringList header{QStringLiteral("file")};
            for (int i = 1; i <= k; ++i)
                header << QStringLiteral("class_%1").arg(i) << QStringLiteral("prob_%1").arg(i);
            header << QStringLiteral("error");
            QString text = header.join(QLatin1Char(',')) + QLatin1Char('\n');
            for (const engine::FilePrediction &p : results) {
                QStringList fields{workspace::csvField(QString::fromStdString(p.path))};
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
