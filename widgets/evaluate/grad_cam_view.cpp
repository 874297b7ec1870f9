#include "evaluate/grad_cam_view.h"

#include "common/image_canvas.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPainter>
#include <QSignalBlocker>
#include <QSlider>
#include <QVBoxLayout>

#include <algorithm>

namespace lathe::ui {

GradCamView::GradCamView(QWidget *parent)
    : QWidget(parent)
    , m_canvas(new ImageCanvas(this))
    , m_title(new QLabel(this))
    , m_classCombo(new QComboBox(this))
    , m_showHeat(new QCheckBox(tr("Heat map"), this))
    , m_opacity(new QSlider(Qt::Horizontal, this))
    , m_predictions(new QLabel(this))
    , m_message(new QLabel(this))
{
    setObjectName(QStringLiteral("gradCamView"));
    m_title->setWordWrap(true);
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_classCombo->setObjectName(QStringLiteral("gradCamClass"));
    m_classCombo->setToolTip(tr("The class whose evidence the heat map shows."));
    m_showHeat->setChecked(true);
    m_opacity->setRange(0, 100);
    m_opacity->setValue(50);
    m_opacity->setToolTip(tr("Heat map opacity"));
    m_opacity->setMaximumWidth(120);
    m_predictions->setWordWrap(true);
    m_predictions->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_message->setWordWrap(true);
    m_message->setObjectName(QStringLiteral("gradCamMessage"));

    auto *controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("Explain:"), this));
    controls->addWidget(m_classCombo, 1);
    controls->addWidget(m_showHeat);
    controls->addWidget(m_opacity);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_title);
    layout->addLayout(controls);
    layout->addWidget(m_canvas, 1);
    layout->addWidget(m_message);
    layout->addWidget(m_predictions);

    connect(m_classCombo, &QComboBox::activated, this,
            [this](int index) { Q_EMIT classRequested(m_classCombo->itemData(index).toInt()); });
    connect(m_showHeat, &QCheckBox::toggled, this, &GradCamView::updateCanvas);
    connect(m_opacity, &QSlider::valueChanged, this, &GradCamView::updateCanvas);
    clear();
}

void GradCamView::setClasses(const QStringList &classes)
{
    const QSignalBlocker block(m_classCombo);
    m_classCombo->clear();
    m_classCombo->addItem(tr("Predicted class"), -1);
    for (int i = 0; i < classes.size(); ++i)
        m_classCombo->addItem(classes.at(i), i);
}

void GradCamView::clear()
{
    m_image = QImage();
    m_heat = QImage();
    m_result = engine::GradCamResult();
    m_title->setText(tr("Select an image in the gallery to see it here with its heat map."));
    m_predictions->clear();
    m_message->clear();
    m_message->setVisible(false);
    m_canvas->setMessage(tr("No image selected."));
}

void GradCamView::setImage(const QImage &image, const QString &title)
{
    m_image = image;
    m_heat = QImage();
    m_result = engine::GradCamResult();
    m_title->setText(title);
    m_predictions->clear();
    m_message->clear();
    m_message->setVisible(false);
    updateCanvas();
}

void GradCamView::setBusy(bool busy)
{
    if (busy) {
        m_message->setText(tr("Computing the heat map…"));
        m_message->setVisible(true);
    } else if (m_message->text() == tr("Computing the heat map…")) {
        m_message->clear();
        m_message->setVisible(false);
    }
}

int GradCamView::requestedClass() const
{
    return m_classCombo->currentIndex() < 0 ? -1 : m_classCombo->currentData().toInt();
}

QColor GradCamView::jet(double value)
{
    const double v = std::clamp(value, 0.0, 1.0);
    // Piecewise-linear jet, as matplotlib's and OpenCV's COLORMAP_JET.
    const auto channel = [v](double centre) { return std::clamp(1.5 - std::abs(4.0 * v - centre), 0.0, 1.0); };
    return QColor::fromRgbF(float(channel(3.0)), float(channel(2.0)), float(channel(1.0)));
}

void GradCamView::setResult(const engine::GradCamResult &result)
{
    m_result = result;
    m_heat = QImage();
    const std::size_t cells = std::size_t(std::max(result.width, 0)) * std::size_t(std::max(result.height, 0));
    if (cells > 0 && result.heatmap.size() == cells) {
        QImage heat(result.width, result.height, QImage::Format_ARGB32);
        for (int y = 0; y < result.height; ++y) {
            auto *line = reinterpret_cast<QRgb *>(heat.scanLine(y));
            for (int x = 0; x < result.width; ++x) {
                const float v = result.heatmap[std::size_t(y) * std::size_t(result.width) + std::size_t(x)];
                const QColor c = jet(v);
                // Cold areas fade out so the picture shows through where nothing speaks for the class.
                line[x] = qRgba(c.red(), c.green(), c.blue(), int(255 * std::clamp(0.25 + 0.75 * double(v), 0.0, 1.0)));
            }
        }
        m_heat = heat;
    }
    {
        const QSignalBlocker block(m_classCombo);
        const int wanted = m_classCombo->findData(result.classIndex);
        if (m_classCombo->currentData().toInt() != -1 && wanted >= 0)
            m_classCombo->setCurrentIndex(wanted);
    }
    m_predictions->setText(predictionsText());
    m_message->clear();
    m_message->setVisible(false);
    if (m_heat.isNull()) {
        m_message->setText(tr("The heat map does not match the image's size."));
        m_message->setVisible(true);
    } else if (result.mapWidth == 1 && result.mapHeight == 1) {
        // Small inputs shrink to a single cell (a ResNet at 32 pixels): nothing to localise.
        m_message->setText(tr("At this input size the model's last feature map is a single cell, so the heat map "
                              "cannot point at a region: train at a larger image size to see where it looks."));
        m_message->setVisible(true);
    }
    updateCanvas();
}

void GradCamView::setUnavailable(const QString &reason)
{
    m_heat = QImage();
    m_message->setText(reason);
    m_message->setVisible(true);
    updateCanvas();
}

QString GradCamView::message() const
{
    return m_message->text();
}

QString GradCamView::predictionsText() const
{
    QStringList lines;
    if (m_result.classIndex >= 0)
        lines << tr("Heat map for %1 (p = %2)")
                     .arg(QString::fromStdString(m_result.className), QLocale().toString(m_result.classProbability, 'f', 3));
    for (std::size_t i = 0; i < m_result.topNames.size() && i < m_result.topProbs.size(); ++i)
        lines << tr("%1. %2: %3").arg(i + 1).arg(QString::fromStdString(m_result.topNames[i]),
                                               QLocale().toString(m_result.topProbs[i], 'f', 3));
    return lines.join(QLatin1Char('\n'));
}

QImage GradCamView::composed() const
{
    if (m_image.isNull())
        return {};
    QImage out = m_image.convertToFormat(QImage::Format_ARGB32);
    if (!m_heat.isNull() && m_showHeat->isChecked()) {
        QPainter painter(&out);
        painter.setOpacity(m_opacity->value() / 100.0);
        // The map is in the image's displayed size; a decoder that returned another size is
        // matched by scaling.
        painter.drawImage(out.rect(), m_heat);
        if (m_result.cropWidth > 0 && m_result.cropHeight > 0 && m_result.width > 0 && m_result.height > 0) {
            const double sx = double(out.width()) / m_result.width;
            const double sy = double(out.height()) / m_result.height;
            painter.setOpacity(1.0);
            painter.setPen(QPen(QColor(255, 255, 255, 160), 1, Qt::DashLine));
            painter.drawRect(QRectF(m_result.cropX * sx, m_result.cropY * sy, m_result.cropWidth * sx,
                                    m_result.cropHeight * sy));
        }
    }
    return out;
}

void GradCamView::updateCanvas()
{
    if (m_image.isNull()) {
        m_canvas->setMessage(tr("No image selected."));
        return;
    }
    m_canvas->setImage(composed());
}

} // namespace lathe::ui
