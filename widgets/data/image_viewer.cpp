#include "data/image_viewer.h"

#include "workspace/split_names.h"

#include "common/background_task.h"
#include "common/image_canvas.h"
#include "data/dataset_snapshot.h"
#include "data/image_list_model.h"
#include "workspace/project_connection.h"
#include "workspace/workspace_error.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QImageReader>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QLocale>
#include <QPushButton>
#include <QThreadPool>
#include <QVBoxLayout>

namespace lathe::ui {

using workspace::CatalogImage;

namespace {

// Decodes a picture for showing: EXIF orientation applied, reduced to maxSide.
QImage decodeForViewing(const QString &path, int maxSide)
{
    QImageReader reader(path);
    reader.setAutoTransform(true);
    const QSize size = reader.size();
    if (size.isValid() && (size.width() > maxSide || size.height() > maxSide))
        reader.setScaledSize(size.scaled(maxSide, maxSide, Qt::KeepAspectRatio).expandedTo(QSize(1, 1)));
    QImage image = reader.read();
    if (image.isNull())
        throw workspace::WorkspaceError(ImageViewer::tr("%1: cannot decode (%2)").arg(path, reader.errorString()));
    return image.convertToFormat(image.hasAlphaChannel() ? QImage::Format_ARGB32_Premultiplied : QImage::Format_RGB32);
}

QString orientationText(int orientation)
{
    switch (orientation) {
    case 1:
        return ImageViewer::tr("1 (as stored)");
    case 2:
        return ImageViewer::tr("2 (mirrored)");
    case 3:
        return ImageViewer::tr("3 (rotated 180°)");
    case 4:
        return ImageViewer::tr("4 (mirrored vertically)");
    case 5:
        return ImageViewer::tr("5 (mirrored, rotated 90° counter-clockwise)");
    case 6:
        return ImageViewer::tr("6 (rotated 90° clockwise)");
    case 7:
        return ImageViewer::tr("7 (mirrored, rotated 90° clockwise)");
    case 8:
        return ImageViewer::tr("8 (rotated 90° counter-clockwise)");
    default:
        return QString::number(orientation);
    }
}

} // namespace

ImageViewer::ImageViewer(QWidget *parent)
    : QDialog(parent)
    , m_canvas(new ImageCanvas(this))
    , m_form(new QFormLayout)
    , m_excludeButton(new QPushButton(this))
    , m_relabelCombo(new QComboBox(this))
    , m_relabelButton(new QPushButton(tr("Relabel"), this))
    , m_relabelRow(new QWidget(this))
    , m_labelList(new QListWidget(this))
    , m_saveLabelsButton(new QPushButton(tr("Save Labels"), this))
    , m_newLabelRow(new QWidget(this))
    , m_newLabelEdit(new QLineEdit(this))
    , m_addLabelButton(new QPushButton(tr("Add Label"), this))
    , m_resetLabelsButton(new QPushButton(tr("Reset to Labels File"), this))
    , m_message(new QLabel(this))
{
    setObjectName(QStringLiteral("imageViewer"));
    setWindowTitle(tr("Image"));
    setSizeGripEnabled(true);
    resize(960, 620);

    auto addField = [this](const QString &label) {
        auto *value = new QLabel(this);
        value->setTextInteractionFlags(Qt::TextSelectableByMouse);
        value->setWordWrap(true);
        auto *name = new QLabel(label, this);
        m_form->addRow(name, value);
        m_fields.append(qMakePair(name, static_cast<QWidget *>(value)));
        return value;
    };
    // Long values without spaces scroll in a read-only line instead of widening the dialog.
    auto addLineField = [this](const QString &label) {
        auto *value = new QLineEdit(this);
        value->setReadOnly(true);
        value->setFrame(false);
        value->setStyleSheet(QStringLiteral("background: transparent;"));
        auto *name = new QLabel(label, this);
        m_form->addRow(name, value);
        m_fields.append(qMakePair(name, static_cast<QWidget *>(value)));
        return value;
    };
    m_path = addLineField(tr("Path:"));
    m_size = addField(tr("Size:"));
    m_dimensions = addField(tr("Dimensions:"));
    m_channels = addField(tr("Channels:"));
    m_bitDepth = addField(tr("Bit depth:"));
    m_format = addField(tr("Format:"));
    m_orientation = addField(tr("EXIF orientation:"));
    m_sha256 = addLineField(tr("SHA-256:"));
    m_sha256->setStyleSheet(QStringLiteral("background: transparent; font-family: monospace;"));
    m_class = addField(tr("Class:"));
    m_className = m_fields.constLast().first;
    m_split = addField(tr("Split:"));
    m_status = addField(tr("Status:"));
    m_reason = addField(tr("Reason:"));

    m_excludeButton->setObjectName(QStringLiteral("excludeButton"));
    m_relabelCombo->setObjectName(QStringLiteral("relabelCombo"));
    m_relabelButton->setObjectName(QStringLiteral("relabelButton"));
    m_excludeButton->setToolTip(tr("Leave this image out of training, or take it back. The file is not touched."));
    m_relabelButton->setToolTip(tr("Give this image another class. The file stays where it is."));
    connect(m_excludeButton, &QPushButton::clicked, this, [this] { setExcluded(!m_image.excluded); });
    connect(m_relabelButton, &QPushButton::clicked, this, [this] { relabel(m_relabelCombo->currentText()); });
    connect(m_relabelCombo, &QComboBox::currentTextChanged, this, [this] { setBusy(m_busy); });
    m_labelList->setObjectName(QStringLiteral("labelSetList"));
    m_labelList->setToolTip(tr("The labels this image carries: tick or untick them, then Save Labels. The labels "
                               "file is not changed; the catalog keeps your edit."));
    m_labelList->setSelectionMode(QAbstractItemView::NoSelection);
    m_saveLabelsButton->setObjectName(QStringLiteral("saveLabelsButton"));
    connect(m_labelList, &QListWidget::itemChanged, this, [this] { setBusy(m_busy); });
    connect(m_saveLabelsButton, &QPushButton::clicked, this, [this] { setLabels(checkedLabels()); });
    m_newLabelEdit->setObjectName(QStringLiteral("newLabelEdit"));
    m_newLabelEdit->setPlaceholderText(tr("New label…"));
    m_newLabelEdit->setToolTip(tr("A label this dataset does not have yet: Add Label gives it to this image and "
                                  "makes it one of the dataset's labels. The labels file is not changed."));
    m_addLabelButton->setObjectName(QStringLiteral("addLabelButton"));
    m_addLabelButton->setToolTip(tr("Give this image the typed label, with the ticked ones. A new name becomes one "
                                    "of the dataset's labels; Convert to Shards makes it a class."));
    m_newLabelEdit->installEventFilter(this);
    connect(m_newLabelEdit, &QLineEdit::textChanged, this, [this] { setBusy(m_busy); });
    connect(m_addLabelButton, &QPushButton::clicked, this, [this] { addLabel(m_newLabelEdit->text()); });
    m_resetLabelsButton->setObjectName(QStringLiteral("resetLabelsButton"));
    connect(m_resetLabelsButton, &QPushButton::clicked, this, &ImageViewer::resetLabels);

    m_message->setObjectName(QStringLiteral("viewerMessage"));
    m_message->setWordWrap(true);

    auto *relabelRow = new QHBoxLayout(m_relabelRow);
    relabelRow->setContentsMargins(0, 0, 0, 0);
    relabelRow->addWidget(m_relabelCombo, 1);
    relabelRow->addWidget(m_relabelButton);

    auto *newLabelRow = new QHBoxLayout(m_newLabelRow);
    newLabelRow->setContentsMargins(0, 0, 0, 0);
    newLabelRow->addWidget(m_newLabelEdit, 1);
    newLabelRow->addWidget(m_addLabelButton);
    auto *labelButtons = new QHBoxLayout;
    labelButtons->setContentsMargins(0, 0, 0, 0);
    labelButtons->addWidget(m_saveLabelsButton, 1);
    labelButtons->addWidget(m_resetLabelsButton, 1);

    auto *side = new QVBoxLayout;
    side->setContentsMargins(0, 0, 0, 0);
    side->addLayout(m_form);
    side->addSpacing(8);
    side->addWidget(m_excludeButton);
    side->addWidget(m_relabelRow);
    side->addWidget(m_labelList, 1);
    side->addWidget(m_newLabelRow);
    side->addLayout(labelButtons);
    side->addWidget(m_message);
    side->addStretch(1);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto *body = new QHBoxLayout;
    body->addWidget(m_canvas, 3);
    auto *sideWidget = new QWidget(this);
    sideWidget->setLayout(side);
    sideWidget->setMaximumWidth(420);
    body->addWidget(sideWidget, 2);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(body, 1);
    layout->addWidget(buttons);
}

void ImageViewer::showImage(const CatalogImage &image, const QString &sourceDir, const QStringList &classes,
                            const QString &databasePath, bool multiLabel)
{
    m_image = image;
    m_sourceDir = sourceDir;
    m_databasePath = databasePath;
    m_multiLabel = multiLabel;
    m_message->clear();
    m_relabelCombo->clear();
    m_relabelCombo->addItems(classes);
    {
        const QSignalBlocker blocker(m_labelList);
        m_labelList->clear();
        for (const QString &label : classes) {
            auto *item = new QListWidgetItem(label, m_labelList);
            item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
            item->setCheckState(Qt::Unchecked);
        }
    }
    m_className->setText(multiLabel ? tr("Labels:") : tr("Class:"));
    m_relabelRow->setVisible(!multiLabel);
    m_labelList->setVisible(multiLabel);
    m_saveLabelsButton->setVisible(multiLabel);
    m_newLabelRow->setVisible(multiLabel);
    m_resetLabelsButton->setVisible(multiLabel);
    m_newLabelEdit->clear();
    updateFields();
    decode();
}

void ImageViewer::refresh(const CatalogImage &image)
{
    if (image.id != m_image.id)
        return;
    m_image = image;
    addLabelItems(image.labels);
    updateFields();
}

QStringList ImageViewer::metadataLines() const
{
    QStringList lines;
    for (const auto &[name, value] : m_fields) {
        const auto *line = qobject_cast<const QLineEdit *>(value);
        const QString text = line ? line->text() : static_cast<const QLabel *>(value)->text();
        lines << name->text() + QLatin1Char(' ') + text;
    }
    return lines;
}

void ImageViewer::updateFields()
{
    const QLocale locale;
    const CatalogImage &image = m_image;
    setWindowTitle(tr("Image — %1").arg(image.relPath));
    m_path->setText(QDir::toNativeSeparators(QDir(m_sourceDir).filePath(image.relPath)));
    m_path->setCursorPosition(0);
    m_path->setToolTip(m_path->text());
    m_size->setText(image.size < 1024 ? tr("%n byte(s)", nullptr, int(image.size))
                                      : tr("%1 bytes (%2)").arg(locale.toString(image.size),
                                                                locale.formattedDataSize(image.size)));
    m_dimensions->setText(image.width > 0 ? tr("%1 × %2 pixels").arg(image.width).arg(image.height) : tr("unknown"));
    m_channels->setText(image.channels > 0 ? locale.toString(image.channels) : tr("unknown"));
    m_bitDepth->setText(image.bitDepth > 0 ? tr("%1 bits per channel").arg(image.bitDepth) : tr("unknown"));
    m_format->setText(image.format);
    m_orientation->setText(orientationText(image.exifOrientation));
    m_sha256->setText(image.sha256.isEmpty() ? tr("not computed") : image.sha256);
    m_sha256->setCursorPosition(0);
    if (m_multiLabel)
        m_class->setText(image.labels.isEmpty() ? tr("none")
                         : image.labelsEdited
                             ? tr("%1 (edited; not the labels file's)").arg(image.labels.join(QStringLiteral(", ")))
                             : image.labels.join(QStringLiteral(", ")));
    else
        m_class->setText(image.className == image.folderClass
                             ? image.className
                             : tr("%1 (relabelled; folder: %2)").arg(image.className, image.folderClass));
    m_split->setText(workspace::SplitNames::displayName(image.split));
    m_status->setText(ImageListModel::statusText(image));
    m_reason->setText(image.reason.isEmpty() ? tr("none") : image.reason);
    m_excludeButton->setText(image.excluded ? tr("Include") : tr("Exclude"));
    m_relabelCombo->setCurrentText(image.className);
    {
        const QSignalBlocker blocker(m_labelList);
        for (int row = 0; row < m_labelList->count(); ++row) {
            QListWidgetItem *item = m_labelList->item(row);
            item->setCheckState(image.labels.contains(item->text()) ? Qt::Checked : Qt::Unchecked);
        }
    }
    setBusy(m_busy);
}

void ImageViewer::setBusy(bool busy)
{
    m_busy = busy;
    const bool ok = m_image.id != 0 && !busy;
    m_excludeButton->setEnabled(ok);
    m_relabelCombo->setEnabled(ok && m_image.status == QLatin1String("ok"));
    m_relabelButton->setEnabled(ok && m_image.status == QLatin1String("ok")
                                && !m_relabelCombo->currentText().isEmpty()
                                && m_relabelCombo->currentText() != m_image.className);
    const QStringList checked = checkedLabels();
    m_labelList->setEnabled(ok && m_image.status == QLatin1String("ok"));
    m_saveLabelsButton->setEnabled(ok && m_image.status == QLatin1String("ok") && !checked.isEmpty()
                                   && checked != m_image.labels);
    m_saveLabelsButton->setToolTip(checked.isEmpty() ? tr("Tick at least one label; to leave the image out of "
                                                          "training, exclude it.")
                                                     : tr("Give this image the ticked labels. Convert to Shards "
                                                          "uses them."));
    m_newLabelEdit->setEnabled(ok && m_image.status == QLatin1String("ok"));
    m_addLabelButton->setEnabled(m_newLabelEdit->isEnabled() && !m_newLabelEdit->text().trimmed().isEmpty());
    m_resetLabelsButton->setEnabled(ok && m_image.labelsEdited);
    m_resetLabelsButton->setToolTip(m_image.labelsEdited
                                        ? tr("Undo your edits: give this image the label set its labels file gave it "
                                             "at the import. Your ticks are dropped.")
                                        : tr("This image has its labels file's set; there is no edit to undo."));
}

void ImageViewer::addLabelItems(const QStringList &labels)
{
    const QSignalBlocker blocker(m_labelList);
    for (const QString &label : labels) {
        int row = 0;
        while (row < m_labelList->count() && m_labelList->item(row)->text() < label)
            ++row;
        if (row < m_labelList->count() && m_labelList->item(row)->text() == label)
            continue;
        auto *item = new QListWidgetItem(label);
        item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
        item->setCheckState(Qt::Unchecked);
        m_labelList->insertItem(row, item);
    }
}

QString ImageViewer::message() const
{
    return m_message->text();
}

void ImageViewer::showMessage(const QString &message)
{
    m_message->setText(message);
    Q_EMIT errorOccurred(message);
}

bool ImageViewer::eventFilter(QObject *watched, QEvent *event)
{
    // Return in the new-label field adds the label; passed on, it would press the dialog's
    // default button (Exclude).
    if (watched == m_newLabelEdit && event->type() == QEvent::KeyPress) {
        const int key = static_cast<QKeyEvent *>(event)->key();
        if (key == Qt::Key_Return || key == Qt::Key_Enter) {
            if (m_addLabelButton->isEnabled())
                addLabel(m_newLabelEdit->text());
            return true;
        }
    }
    return QDialog::eventFilter(watched, event);
}

QStringList ImageViewer::checkedLabels() const
{
    QStringList labels;
    for (int row = 0; row < m_labelList->count(); ++row) {
        const QListWidgetItem *item = m_labelList->item(row);
        if (item->checkState() == Qt::Checked)
            labels << item->text();
    }
    labels.sort(); // the catalog's order
    return labels;
}

void ImageViewer::setLabelChecked(const QString &label, bool checked)
{
    for (int row = 0; row < m_labelList->count(); ++row) {
        QListWidgetItem *item = m_labelList->item(row);
        if (item->text() == label)
            item->setCheckState(checked ? Qt::Checked : Qt::Unchecked);
    }
}

void ImageViewer::setLabels(const QStringList &labels)
{
    const qint64 id = m_image.id;
    write([id, labels](workspace::Catalog &catalog) { catalog.setLabels(id, labels); });
}

void ImageViewer::addLabel(const QString &name)
{
    if (m_busy || !m_multiLabel || m_image.id == 0)
        return;
    const QString label = name.trimmed();
    bool known = false;
    for (int row = 0; row < m_labelList->count() && !known; ++row)
        known = m_labelList->item(row)->text() == label;
    if (!known) {
        const QString problem = workspace::Catalog::labelNameProblem(label);
        if (!problem.isEmpty()) {
            showMessage(label.isEmpty() ? tr("Cannot add a label: %1.").arg(problem)
                                        : tr("Cannot add the label \"%1\": %2.").arg(label, problem));
            return;
        }
    }
    QStringList labels = checkedLabels();
    if (known && m_image.labels.contains(label) && labels == m_image.labels) {
        m_newLabelEdit->clear();
        m_message->setText(tr("This image has the label \"%1\" already.").arg(label));
        return;
    }
    setLabelChecked(label, true);
    const qint64 id = m_image.id;
    write([id, label, labels](workspace::Catalog &catalog) { catalog.addLabel(id, label, labels); },
          [this] { m_newLabelEdit->clear(); });
}

void ImageViewer::resetLabels()
{
    if (!m_multiLabel)
        return;
    const qint64 id = m_image.id;
    write([id](workspace::Catalog &catalog) { catalog.resetLabels(id); });
}

void ImageViewer::setExcluded(bool excluded)
{
    const qint64 id = m_image.id;
    write([id, excluded](workspace::Catalog &catalog) { catalog.setExcluded(id, excluded); });
}

void ImageViewer::relabel(const QString &className)
{
    const qint64 id = m_image.id;
    write([id, className](workspace::Catalog &catalog) { catalog.relabel(id, className); });
}

void ImageViewer::write(std::function<void(workspace::Catalog &)> change, std::function<void()> done)
{
    if (m_busy || m_image.id == 0 || m_databasePath.isEmpty())
        return;
    setBusy(true);
    m_message->clear();
    const QString databasePath = m_databasePath;
    const qint64 id = m_image.id;
    BackgroundTask::start(
        QThreadPool::globalInstance(), this,
        [databasePath, id, change]() -> QVariant {
            workspace::ProjectConnection connection(databasePath);
            change(connection.catalog());
            return QVariant::fromValue(connection.catalog().image(id));
        },
        [this, done](const QVariant &result) {
            setBusy(false);
            const CatalogImage image = result.value<CatalogImage>();
            if (done && image.id == m_image.id)
                done();
            refresh(image);
            Q_EMIT imageChanged(image);
        },
        [this](const QString &message) {
            setBusy(false);
            showMessage(message);
        });
}

void ImageViewer::decode()
{
    const quint64 generation = ++m_decodeGeneration;
    if (m_image.status == QLatin1String("rejected")) {
        m_canvas->setMessage(tr("This file cannot be shown: %1").arg(m_image.reason));
        Q_EMIT pictureShown();
        return;
    }
    m_canvas->setMessage(tr("Loading…"));
    const QString path = QDir(m_sourceDir).filePath(m_image.relPath);
    BackgroundTask::start(
        QThreadPool::globalInstance(), this, [path]() -> QVariant { return decodeForViewing(path, kMaxDecodedSide); },
        [this, generation](const QVariant &result) {
            if (generation != m_decodeGeneration)
                return;
            m_canvas->setImage(result.value<QImage>());
            Q_EMIT pictureShown();
        },
        [this, generation](const QString &message) {
            if (generation != m_decodeGeneration)
                return;
            m_canvas->setMessage(message);
            Q_EMIT pictureShown();
        });
}

} // namespace lathe::ui
