#include "evaluate/prediction_gallery_panel.h"

#include "common/background_task.h"
#include "engine/dataset/shard_converter.h"
#include "evaluate/prediction_gallery_model.h"
#include "workspace/catalog.h"
#include "workspace/project_connection.h"
#include "workspace/workspace_error.h"

#include <QDir>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QListView>
#include <QPushButton>
#include <QThreadPool>
#include <QVBoxLayout>

#include <utility>

namespace lathe::ui {
namespace {

struct CatalogChange
{
    QString relPath;
    QString dataset;
};

} // namespace
} // namespace lathe::ui

Q_DECLARE_METATYPE(lathe::ui::CatalogChange)

namespace lathe::ui {

PredictionGalleryPanel::PredictionGalleryPanel(QWidget *parent)
    : QWidget(parent)
    , m_model(new PredictionGalleryModel(this))
    , m_title(new QLabel(this))
    , m_view(new QListView(this))
    , m_highestLossButton(new QPushButton(tr("Highest Loss"), this))
    , m_relabelButton(new QPushButton(tr("Relabel…"), this))
    , m_excludeButton(new QPushButton(tr("Exclude"), this))
{
    m_title->setObjectName(QStringLiteral("galleryTitle"));
    m_title->setWordWrap(true);
    m_view->setObjectName(QStringLiteral("predictionGallery"));
    m_view->setModel(m_model);
    m_view->setViewMode(QListView::IconMode);
    m_view->setIconSize(QSize(PredictionGalleryModel::kThumbnailSize, PredictionGalleryModel::kThumbnailSize));
    m_view->setGridSize(QSize(PredictionGalleryModel::kThumbnailSize + 40, PredictionGalleryModel::kThumbnailSize + 40));
    m_view->setResizeMode(QListView::Adjust);
    m_view->setMovement(QListView::Static);
    m_view->setUniformItemSizes(true);
    m_view->setWordWrap(true);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    // Icon mode turns drag and drop on; files dropped here go to the page (Predict).
    m_view->setDragEnabled(false);
    m_view->setAcceptDrops(false);
    m_highestLossButton->setToolTip(tr("Every evaluated image, the most confidently wrong first."));
    m_relabelButton->setToolTip(tr("Give the selected image another class in the catalog. The file is not touched; the "
                                   "change applies at the next conversion to shards."));
    m_excludeButton->setToolTip(tr("Leave the selected image out of the dataset. The file is not touched; the change "
                                   "applies at the next conversion to shards."));
    connect(m_highestLossButton, &QPushButton::clicked, m_model, &PredictionGalleryModel::showHighestLoss);
    connect(m_relabelButton, &QPushButton::clicked, this, &PredictionGalleryPanel::askRelabel);
    connect(m_excludeButton, &QPushButton::clicked, this, [this] {
        const QModelIndex current = m_view->currentIndex();
        if (current.isValid())
            excludeRow(current.row(), true);
    });
    connect(m_view->selectionModel(), &QItemSelectionModel::currentChanged, this, &PredictionGalleryPanel::currentChanged);
    connect(m_model, &QAbstractItemModel::modelReset, this, [this] {
        m_shownRow = -1; // the rows changed: a click on any of them shows it
        m_title->setText(m_model->description());
        updateButtons();
    });

    auto *row = new QHBoxLayout;
    row->addStretch(1);
    row->addWidget(m_highestLossButton);
    row->addWidget(m_relabelButton);
    row->addWidget(m_excludeButton);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_title);
    layout->addLayout(row);
    layout->addWidget(m_view, 1);
    updateButtons();
}

void PredictionGalleryPanel::setDatabasePath(const QString &databasePath)
{
    m_databasePath = databasePath;
    updateButtons();
}

void PredictionGalleryPanel::setEvaluation(const QStringList &classes, std::vector<engine::Prediction> predictions,
                                           const QString &dataDir, const QString &split, bool multiLabel)
{
    m_hasEvaluation = true;
    m_dataDir = dataDir;
    m_model->setEvaluation(classes, std::move(predictions), dataDir, split, multiLabel);
    m_model->showHighestLoss();
    m_shownRow = -1;
}

void PredictionGalleryPanel::clear()
{
    m_hasEvaluation = false;
    m_dataDir.clear();
    m_model->clear();
    m_shownRow = -1;
    updateButtons();
}

void PredictionGalleryPanel::updateButtons()
{
    m_highestLossButton->setEnabled(m_hasEvaluation);
    const bool selected = m_view->currentIndex().isValid();
    m_relabelButton->setEnabled(selected && !m_databasePath.isEmpty() && !m_model->isMultiLabel());
    m_excludeButton->setEnabled(selected && !m_databasePath.isEmpty());
}

void PredictionGalleryPanel::currentChanged()
{
    updateButtons();
    const QModelIndex current = m_view->currentIndex();
    if (current.isValid() && current.row() != m_shownRow)
        Q_EMIT rowChosen(current.row());
}

void PredictionGalleryPanel::setShownRow(int row)
{
    if (m_view->currentIndex().row() != row) {
        m_shownRow = row; // currentChanged() must not ask for it a second time
        m_view->setCurrentIndex(m_model->index(row));
    }
    m_shownRow = row;
}

void PredictionGalleryPanel::askRelabel()
{
    const QModelIndex current = m_view->currentIndex();
    if (!current.isValid())
        return;
    const int row = current.row();
    auto *dialog = new QInputDialog(this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowTitle(tr("Relabel Image"));
    dialog->setLabelText(tr("New class for %1:").arg(QString::fromStdString(m_model->prediction(row).filename)));
    dialog->setComboBoxItems(m_model->classes());
    dialog->setComboBoxEditable(false);
    const int predicted = m_model->predictedClass(row);
    if (predicted >= 0)
        dialog->setTextValue(m_model->classes().value(predicted));
    connect(dialog, &QInputDialog::textValueSelected, this,
            [this, row](const QString &className) { relabelRow(row, className); });
    dialog->open();
}

void PredictionGalleryPanel::relabelRow(int row, const QString &className)
{
    changeCatalog(row, className, false, false);
}

void PredictionGalleryPanel::excludeRow(int row, bool excluded)
{
    changeCatalog(row, {}, true, excluded);
}

void PredictionGalleryPanel::changeCatalog(int row, const QString &className, bool exclude, bool excluded)
{
    if (row < 0 || row >= m_model->rowCount() || m_databasePath.isEmpty())
        return;
    const QString databasePath = m_databasePath;
    const QString dataDir = m_dataDir;
    const QString relPath = QString::fromStdString(m_model->prediction(row).filename);
    BackgroundTask::start(
        QThreadPool::globalInstance(), this,
        [databasePath, dataDir, relPath, className, exclude, excluded]() -> QVariant {
            // image/filename holds the path relative to the folder the shards were converted
            // from (dataset.json "source"); catalog rows are keyed by the same relative path
            // within the dataset imported from that folder.
            const engine::DatasetManifest manifest = engine::readDatasetManifest(dataDir.toStdString());
            const QString source = QDir::cleanPath(QString::fromStdString(manifest.source));
            workspace::ProjectConnection connection(databasePath);
            workspace::Catalog &catalog = connection.catalog();
            for (const workspace::DatasetInfo &dataset : catalog.datasets()) {
                if (QDir::cleanPath(dataset.sourceDir) != source)
                    continue;
                for (const workspace::CatalogImage &image : catalog.images(dataset.id)) {
                    if (image.relPath != relPath)
                        continue;
                    if (exclude)
                        catalog.setExcluded(image.id, excluded);
                    else
                        catalog.relabel(image.id, className);
                    return QVariant::fromValue(CatalogChange{relPath, dataset.name});
                }
                throw workspace::WorkspaceError(
                    tr("%1 is not in the catalog's dataset \"%2\" (was it removed by a re-import?)").arg(relPath, dataset.name));
            }
            throw workspace::WorkspaceError(
                tr("No dataset of this project was imported from %1, the folder these shards were converted from: "
                   "import it on the Data page to correct its images.")
                    .arg(QDir::toNativeSeparators(source)));
        },
        [this, className, exclude, excluded](const QVariant &value) {
            const CatalogChange change = value.value<CatalogChange>();
            const QString what = exclude ? (excluded ? tr("%1 is now excluded from dataset \"%2\".")
                                                     : tr("%1 is included in dataset \"%2\" again."))
                                                   .arg(change.relPath, change.dataset)
                                         : tr("%1 is now labelled %2 in dataset \"%3\".")
                                               .arg(change.relPath, className, change.dataset);
            Q_EMIT catalogChanged(change.relPath,
                                  what + QLatin1Char(' ') +
                                      tr("The change applies at the next conversion to shards; this evaluation still "
                                         "shows the label the shards hold."));
        },
        [this](const QString &message) { Q_EMIT catalogChangeFailed(message); });
}

} // namespace lathe::ui
