#pragma once

#include <QStyledItemDelegate>

namespace lathe::ui {

// Paints one cell of the image grid: the thumbnail centred in a fixed box, the file name
// elided below it, and a coloured mark for rejected, duplicate and excluded images. Every
// cell has the same size, so the view never measures rows one by one.
class ThumbnailDelegate : public QStyledItemDelegate
{
    Q_OBJECT

public:
    explicit ThumbnailDelegate(QObject *parent = nullptr);

    static QSize cellSize();

    void paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const override;
    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const override;
};

} // namespace lathe::ui
