#pragma once

#include <QImage>
#include <QWidget>

namespace lathe::ui {

// Paints one picture scaled to fit, centred, never enlarged past 8×; or a message instead.
class ImageCanvas : public QWidget
{
    Q_OBJECT

public:
    explicit ImageCanvas(QWidget *parent = nullptr);

    void setImage(const QImage &image);
    void setMessage(const QString &message);
    QImage image() const { return m_image; }
    QString message() const { return m_message; }

    QSize sizeHint() const override { return {520, 420}; }

protected:
    void paintEvent(QPaintEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;

private:
    QImage m_image;
    QImage m_scaled; // m_image at the size it is painted, made once per resize
    QString m_message;
};

} // namespace lathe::ui
