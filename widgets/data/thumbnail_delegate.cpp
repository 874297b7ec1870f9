#include "data/thumbnail_delegate.h"

#include "common/thumbnail_loader.h"
#include "data/image_list_model.h"

#include <QApplication>
#include <QPainter>

namespace lathe::ui {
namespace {

constexpr int kPadding = 6;
constexpr int kTextHeight = 34; // two short lines: name and mark

} // namespace

ThumbnailDelegate::ThumbnailDelegate(QObject *parent)
    : QStyledItemDelegate(parent)
{
}

QSize ThumbnailDelegate::cellSize()
{
    return {ThumbnailLoader::kSize + 2 * kPadding, ThumbnailLoader::kSize + 2 * kPadding + kTextHeight};
}

QSize ThumbnailDelegate::sizeHint(const QStyleOptionViewItem &, const QModelIndex &) const
{
    return cellSize();
}

void ThumbnailDelegate::paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    painter->save();
    const QRect cell = option.rect.adjusted(2, 2, -2, -2);
    const QPalette &pal = option.palette;
    if (option.state & QStyle::State_Selected) {
        painter->setPen(Qt::NoPen);
        painter->setBrush(pal.color(QPalette::Highlight).lighter(option.state & QStyle::State_HasFocus ? 100 : 120));
        painter->drawRoundedRect(cell, 4, 4);
    } else if (option.state & QStyle::State_MouseOver) {
        painter->setPen(Qt::NoPen);
        painter->setBrush(pal.color(QPalette::Midlight));
        painter->drawRoundedRect(cell, 4, 4);
    }

    const QString status = index.data(ImageListModel::StatusRole).toString();
    const bool excluded = index.data(ImageListModel::ExcludedRole).toBool();
    const QRect box(option.rect.left() + kPadding, option.rect.top() + kPadding, ThumbnailLoader::kSize,
                    ThumbnailLoader::kSize);
    const QPixmap pixmap = qvariant_cast<QPixmap>(index.data(Qt::DecorationRole));
    if (!pixmap.isNull()) {
        const QSize size = pixmap.deviceIndependentSize().toSize().scaled(box.size(), Qt::KeepAspectRatio);
        const QRect target(box.left() + (box.width() - size.width()) / 2,
                           box.top() + (box.height() - size.height()) / 2, size.width(), size.height());
        if (excluded)
            painter->setOpacity(0.35);
        painter->drawPixmap(target, pixmap);
        painter->setOpacity(1.0);
    }

    // Name, then the mark (or the class) on the second line.
    const bool selected = option.state & QStyle::State_Selected;
    const QColor text = pal.color(selected ? QPalette::HighlightedText : QPalette::Text);
    const QFontMetrics metrics(option.font);
    const QRect nameRect(option.rect.left() + 4, box.bottom() + 4, option.rect.width() - 8, metrics.height());
    painter->setFont(option.font);
    painter->setPen(text);
    painter->drawText(nameRect, Qt::AlignHCenter | Qt::AlignTop,
                      metrics.elidedText(index.data(Qt::DisplayRole).toString(), Qt::ElideMiddle, nameRect.width()));

    QString mark;
    QColor markColour = text;
    if (status == QLatin1String("rejected")) {
        mark = tr("Cannot decode");
        markColour = QColor(200, 50, 50);
    } else if (status == QLatin1String("duplicate")) {
        mark = tr("Duplicate");
        markColour = QColor(200, 120, 20);
    } else if (excluded) {
        mark = tr("Excluded");
        markColour = pal.color(QPalette::PlaceholderText);
    } else {
        mark = index.data(ImageListModel::ClassRole).toString();
        markColour = selected ? text : pal.color(QPalette::PlaceholderText);
    }
    const QRect markRect = nameRect.translated(0, metrics.height());
    painter->setPen(markColour);
    painter->drawText(markRect, Qt::AlignHCenter | Qt::AlignTop, metrics.elidedText(mark, Qt::ElideRight, markRect.width()));
    painter->restore();
}

} // namespace lathe::ui
