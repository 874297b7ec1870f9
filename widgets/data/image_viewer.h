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
// multi-label dataset: tick the labels of its set and save them, give it a label the dataset
// does not have yet, or reset it to the set its labels file gave it).
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
    // Gives a multi-label image the label name (trimmed) with its ticked labels, written at once: a
    // name the dataset does not have becomes one of its labels, a bad one is refused with the reason
    // (message()); one it has (the same text) is ticked and written with the rest.
    void addLabel(const QString &name);
    // Undoes the edits of a multi-label image's label set: the labels file's set again
    // (Catalog::resetLabels; a file that is gone or changed is reported in message()).
    void resetLabels();

    // The label-set editor (multi-label images): its ticked labels, and ticking one.
    QStringList checkedLabels() const;
    void setLabelChecked(const QString &label, bool checked);
    QListWidget *labelList() const { return m_labelList; }
    QPushButton *saveLabelsButton() const { return m_saveLabelsButton; }
    QLineEdit *newLabelEdit() const { return m_newLabelEdit; }
    QPushButton *addLabelButton() const { return m_addLabelButton; }
    QPushButton *resetLabelsButton() const { return m_resetLabelsButton; }
    // The last error or notice shown under the buttons (empty when none).
    QString message() const;

    // Largest side of the decoded picture; larger files are reduced while decoding.
    static constexpr int kMaxDecodedSide = 2048;

Q_SIGNALS:
    // The catalog row after a change was written.
    void imageChanged(const lathe::workspace::CatalogImage &image);
    // The picture (or the reason there is none) is on the canvas.
    void pictureShown();
    void errorOccurred(const QString &message);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void updateFields();
    void setBusy(bool busy);
    // Adds list items for labels the list lacks (a label just created), in the catalog's order.
    void addLabelItems(const QStringList &labels);
    void showMessage(const QString &message);
    // done runs once the change is written, before the row is shown again (not when another image
    // is shown by then).
    void write(std::function<void(workspace::Catalog &)> change, std::function<void()> done = {});
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
    QWidget *m_newLabelRow;
    QLineEdit *m_newLabelEdit;
    QPushButton *m_addLabelButton;
    QPushButton *m_resetLabelsButton;
    QLabel *m_message;
};

} // namespace lathe::ui
