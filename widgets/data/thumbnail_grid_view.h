#pragma once

#include <QListView>

namespace lathe::ui {

// The image grid: an icon-mode list of equal cells painted by ThumbnailDelegate, laid out
// in batches so that a model of 100,000 images never stalls the GUI thread.
class ThumbnailGridView : public QListView
{
    Q_OBJECT

public:
    explicit ThumbnailGridView(QWidget *parent = nullptr);
};

} // namespace lathe::ui
