#include "common/image_canvas.h"

#include <QPainter>

namespace lathe::ui {

ImageCanvas::ImageCanvas(QWidget *parent)
    : QWidget(parent)
{
    setMinimumSize(160, 120);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

void ImageCanvas::setImage(const QImage &image)
{
    m_image = image;
    m_scaled = QImage();
    m_message.clear();
    update();
}

void ImageCanvas::setMessage(const QString &message)
{
    m_image = QImage();
    m_scaled = QImage();
    m_message = message;
    update();
}

void ImageCanvas::resizeEvent(QResizeEvent *event)
{
    m_scaled = QImage();
    QWidget::resizeEvent(event);
}

void ImageCanvas::paintEvent(QPaintEvent *)
{
    QPainter painter(this);
    painter.fillRect(rect(), palette().color(QPalette::Base));
    if (m_image.isNull()) {
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(rect().adjusted(12, 12, -12, -12), Qt::AlignCenter | Qt::TextWordWrap, m_message);
        return;
    }
    const QSize available = size() - QSize(16, 16);
    QSize target = m_image.size().scaled(available, Qt::KeepAspectRatio);
    if (target.width() > m_image.width() * 8)
        target = m_image.size() * 8; // tiny pictures: large enough to see, not blown up without end
    target = target.expandedTo(QSize(1, 1));
    if (m_scaled.size() != target) {
        // Enlarged pixels stay sharp; reduced ones are averaged.
        const Qt::TransformationMode mode =
            target.width() > m_image.width() ? Qt::FastTransformation : Qt::SmoothTransformation;
        m_scaled = m_image.scaled(target, Qt::IgnoreAspectRatio, mode);
    }
    const QPoint topLeft((width() - target.width()) / 2, (height() - target.height()) / 2);
    painter.drawImage(topLeft, m_scaled);
}

} // namespace lathe::ui
