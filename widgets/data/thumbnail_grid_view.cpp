#include "data/thumbnail_grid_view.h"

#include "common/thumbnail_loader.h"
#include "data/thumbnail_delegate.h"

#include <QScrollBar>

namespace lathe::ui {

ThumbnailGridView::ThumbnailGridView(QWidget *parent)
    : QListView(parent)
{
    setViewMode(QListView::IconMode);
    setMovement(QListView::Static);
    setResizeMode(QListView::Adjust);
    // Every cell has the delegate's size: the view never measures rows one by one.
    setUniformItemSizes(true);
    setGridSize(ThumbnailDelegate::cellSize());
    setIconSize(QSize(ThumbnailLoader::kSize, ThumbnailLoader::kSize));
    // Lays out the cells in slices between events instead of all at once.
    setLayoutMode(QListView::Batched);
    setBatchSize(2000);
    setSelectionMode(QAbstractItemView::ExtendedSelection);
    setVerticalScrollMode(QAbstractItemView::ScrollPerPixel);
    verticalScrollBar()->setSingleStep(24);
    setMouseTracking(true);
    setItemDelegate(new ThumbnailDelegate(this));
}

} // namespace lathe::ui
