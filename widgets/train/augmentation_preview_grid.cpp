#include "train/augmentation_preview_grid.h"

#include "engine/pipeline/augmentation.h"
#include "engine/pipeline/augmentation_preview.h"
#include "common/background_task.h"

#include <QGridLayout>
#include <QLabel>
#include <QPixmap>
#include <QPushButton>
#include <QThreadPool>
#include <QVBoxLayout>

#include <random>

namespace lathe::ui {
namespace {

constexpr int kTileSize = 128;

struct PreviewResult
{
    QList<QImage> images;
    QStringList labels;
};

} // namespace
} // namespace lathe::ui

Q_DECLARE_METATYPE(lathe::ui::PreviewResult)

namespace lathe::ui {

AugmentationPreviewGrid::AugmentationPreviewGrid(QWidget *parent)
    : QWidget(parent)
    , m_message(new QLabel(this))
    , m_reroll(new QPushButton(tr("Re-roll"), this))
{
    m_reroll->setObjectName(QStringLiteral("rerollButton"));
    m_reroll->setToolTip(tr("Draw new random parameters for the same images."));
    m_message->setObjectName(QStringLiteral("previewMessage"));
    m_message->setWordWrap(true);

    auto *grid = new QGridLayout;
    grid->setSpacing(6);
    for (int i = 0; i < kImages; ++i) {
        auto *tile = new QLabel(this);
        tile->setFixedSize(kTileSize, kTileSize);
        tile->setAlignment(Qt::AlignCenter);
        tile->setObjectName(QStringLiteral("previewTile"));
        auto *caption = new QLabel(this);
        caption->setAlignment(Qt::AlignHCenter);
        caption->setFixedWidth(kTileSize);
        grid->addWidget(tile, (i / 4) * 2, i % 4);
        grid->addWidget(caption, (i / 4) * 2 + 1, i % 4);
        m_tiles.append(tile);
        m_captions.append(caption);
    }

    auto *top = new QHBoxLayout;
    top->addWidget(m_message, 1);
    top->addWidget(m_reroll);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(top);
    layout->addLayout(grid);
    layout->addStretch(1);

    connect(m_reroll, &QPushButton::clicked, this, &AugmentationPreviewGrid::reroll);
    showMessage(tr("Convert a dataset to shards on the Data page to preview augmentations."));
}

void AugmentationPreviewGrid::setDataset(const QString &shardFolder)
{
    m_shardFolder = shardFolder;
    refresh();
}

void AugmentationPreviewGrid::setSteps(const nlohmann::json &steps)
{
    m_steps = steps;
    refresh();
}

void AugmentationPreviewGrid::setImageSize(int size)
{
    m_imageSize = size;
    refresh();
}

void AugmentationPreviewGrid::reroll()
{
    m_seed = std::mt19937_64(m_seed)();
    refresh();
}

QString AugmentationPreviewGrid::message() const
{
    return m_message->text();
}

void AugmentationPreviewGrid::refresh()
{
    const int generation = ++m_generation;
    if (m_shardFolder.isEmpty()) {
        showMessage(tr("Convert a dataset to shards on the Data page to preview augmentations."));
        return;
    }
    m_reroll->setEnabled(true);
    const std::string folder = m_shardFolder.toStdString();
    const nlohmann::json steps = m_steps;
    const int size = m_imageSize;
    const quint64 seed = m_seed;
    BackgroundTask::start(
        QThreadPool::globalInstance(), this,
        [folder, steps, size, seed]() -> QVariant {
            const std::vector<engine::PreviewImage> images = engine::previewAugmentations(
                folder, "train", kImages, engine::parseAugmentations(steps), size, seed);
            PreviewResult result;
            for (const engine::PreviewImage &image : images) {
                QImage view(image.rgb.data(), image.width, image.height, image.width * 3, QImage::Format_RGB888);
                result.images.append(view.copy()); // the engine's buffer goes with this scope
                result.labels.append(QString::fromStdString(image.label));
            }
            return QVariant::fromValue(result);
        },
        [this, generation](const QVariant &value) {
            if (generation != m_generation)
                return;
            const PreviewResult result = value.value<PreviewResult>();
            m_images = result.images;
            for (int i = 0; i < kImages; ++i) {
                const bool has = i < result.images.size();
                m_tiles[i]->setPixmap(has ? QPixmap::fromImage(result.images[i].scaled(
                                                kTileSize, kTileSize, Qt::KeepAspectRatio, Qt::SmoothTransformation))
                                          : QPixmap());
                m_captions[i]->setText(has ? result.labels[i] : QString());
            }
            m_message->setText(tr("%n image(s) of the training split at %1 × %1 pixels, seed %2.", "",
                                  int(result.images.size()))
                                   .arg(m_imageSize)
                                   .arg(m_seed));
            Q_EMIT updated();
        },
        [this, generation](const QString &error) {
            if (generation == m_generation)
                showMessage(tr("Cannot preview: %1").arg(error));
        });
}

void AugmentationPreviewGrid::showMessage(const QString &message)
{
    m_images.clear();
    for (int i = 0; i < kImages; ++i) {
        m_tiles[i]->setPixmap(QPixmap());
        m_captions[i]->clear();
    }
    m_message->setText(message);
    m_reroll->setEnabled(!m_shardFolder.isEmpty());
    Q_EMIT updated();
}

} // namespace lathe::ui
