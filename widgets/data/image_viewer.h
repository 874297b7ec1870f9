#pragma once

#include "workspace/catalog.h"

#include <QDialog>
#include <QStringList>

#include <functional>

class QComboBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;

namespace lathe::ui {

class ImageCanvas;

// One image of the catalog: the picture scaled to fit (decoded off the GUI thread), what
// the catalog knows about it, and the user's two decisions, written to the catalog only
// (the source folder is never touched): exclude or include it, and relabel it (an image of a
// multi-label dataset: tick the labels of its set and save them).
class ImageViewer : public QDialog
{
    Q_OBJECT

public:
    explicit ImageViewer(QWidget *parent = nullptr);

    // databasePath: the project's database, written through its own connection. multiLabel:
    // the image's dataset is multi-label (classes are its labels; the viewer edits a label set).
    void showImage(const workspace::CatalogImage &image, const QString &sourceDir, const QStringList &classes,
                   const QString &databasePath, bool multiLabel = false);
    // Shows a newer copy of the current image's row (ignored for another image).
    void refresh(const workspace::CatalogImage &image);

    workspace::CatalogImage image() const { return m_image; }
    ImageCanvas *canvas() const { return m_canvas; }
    // The metadata as shown, one "label: value" line each.
    QStringList metadataLines() const;

    // The actions behind the buttons.
    void setExcluded(bool excluded);
    void relabel(const QString &className);
    // Writes a multi-label image's label set.
    void setLabels(const QStringList &labels);

    // The label-set editor (multi-label images): its ticked labels, and ticking one.
    QStringList checkedLabels() const;
    void setLabelChecked(const QString &label, bool checked);
    QListWidget *labelList() const { return m_labelList; }
    QPushButton *saveLabelsButton() const { return m_saveLabelsButton; }

    // Largest side of the decoded picture; larger files are reduced while decoding.
    static constexpr int kMaxDecodedSide = 2048;

Q_SIGNALS:
    // The catalog row after a change was written.
    void imageChanged(const lathe::workspace::CatalogImage &image);
    // The picture (or the reason there is none) is on the canvas.
    void pictureShown();
    void errorOccurred(const QString &message);

private:
    void updateFields();
    void setBusy(bool busy);
    void write(std::function<void(workspace::Catalog &)> change);
    void decode();

    workspace::CatalogImage m_image;
    QString m_sourceDir;
    QString m_databasePath;
    bool m_multiLabel = false;
    quint64 m_decodeGeneration = 0;
    bool m_busy = false;

    ImageCanvas *m_canvas;
    QFormLayout *m_form;
    QList<QPair<QLabel *, QWidget *>> m_fields;
    QLineEdit *m_path;
    QLabel *m_size;
    QLabel *m_dimensions;
    QLabel *m_channels;
    QLabel *m_bitDepth;
    QLabel *m_format;
    QLabel *m_orientation;
    QLineEdit *m_sha256;
    QLabel *m_className;
    QLabel *m_class;
    QLabel *m_split;
    QLabel *m_status;
    QLabel *m_reason;
    QPushButton *m_excludeButton;
    QComboBox *m_relabelCombo;
    QPushButton *m_relabelButton;
    QWidget *m_relabelRow;
    QListWidget *m_labelList;
    QPushButton *m_saveLabelsButton;
    QLabel *m_message;
};

} // namespace lathe::ui
