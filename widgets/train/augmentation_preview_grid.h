#pragma once

#include <QImage>
#include <QList>
#include <QString>
#include <QWidget>

#include <nlohmann/json.hpp>

class QLabel;
class QPushButton;

namespace lathe::ui {

// The same few dataset images through the current augmentation list, as the model will see
// them: re-rolled on a click, redrawn whenever the list, the shards or the size change. The
// decoding runs off the GUI thread; a result that arrives after a newer request is dropped.
class AugmentationPreviewGrid : public QWidget
{
    Q_OBJECT

public:
    static constexpr int kImages = 8;

    explicit AugmentationPreviewGrid(QWidget *parent = nullptr);

    void setDataset(const QString &shardFolder);
    void setSteps(const nlohmann::json &steps);
    void setImageSize(int size);
    void reroll();

    QList<QImage> images() const { return m_images; }
    QString message() const;
    quint64 seed() const { return m_seed; }

Q_SIGNALS:
    // A preview was drawn (images()) or could not be (message()).
    void updated();

private:
    void refresh();
    void showMessage(const QString &message);

    QString m_shardFolder;
    nlohmann::json m_steps = nlohmann::json::array();
    int m_imageSize = 224;
    quint64 m_seed = 1;
    int m_generation = 0;
    QList<QImage> m_images;
    QList<QLabel *> m_tiles;
    QList<QLabel *> m_captions;
    QLabel *m_message;
    QPushButton *m_reroll;
};

} // namespace lathe::ui
