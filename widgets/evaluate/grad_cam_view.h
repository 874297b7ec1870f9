#pragma once

#include "engine/inference/grad_cam.h"

#include <QImage>
#include <QStringList>
#include <QWidget>

class QCheckBox;
class QComboBox;
class QLabel;
class QSlider;

namespace lathe::ui {

class ImageCanvas;

// One image with the model's top-k predictions and its Grad-CAM heat map blended over it, for
// the predicted class or a class chosen in the combo box. The widget only shows: GradCamPanel
// computes the map (engine::gradCam, on a worker thread) when classRequested() asks for one.
// For backbones without a spatial feature map it says so instead of showing a map.
class GradCamView : public QWidget
{
    Q_OBJECT

public:
    explicit GradCamView(QWidget *parent = nullptr);

    void setClasses(const QStringList &classes);
    // A new image: shown without a heat map until setResult(). title: its name and labels.
    void setImage(const QImage &image, const QString &title);
    void setResult(const engine::GradCamResult &result);
    // Grad-CAM cannot be shown (transformer backbone, an error): the image stays, the reason
    // replaces the map.
    void setUnavailable(const QString &reason);
    void setBusy(bool busy);
    void clear();

    // The class the combo asks for: -1 for the predicted one.
    int requestedClass() const;
    bool hasHeatMap() const { return !m_heat.isNull(); }
    int heatMapClass() const { return m_result.classIndex; }
    const engine::GradCamResult &result() const { return m_result; }
    QImage image() const { return m_image; }
    QImage composed() const; // what is painted: the image with the heat map over it
    QString predictionsText() const;
    QString message() const;
    QComboBox *classCombo() const { return m_classCombo; }

    // The jet colormap of a heat map value in [0, 1] (0 blue, 0.5 green/yellow, 1 red).
    static QColor jet(double value);

Q_SIGNALS:
    // The user chose another class (-1: the predicted one).
    void classRequested(int classIndex);

private:
    void updateCanvas();

    ImageCanvas *m_canvas;
    QLabel *m_title;
    QComboBox *m_classCombo;
    QCheckBox *m_showHeat;
    QSlider *m_opacity;
    QLabel *m_predictions;
    QLabel *m_message;
    QImage m_image;
    QImage m_heat; // ARGB, the image's size; null when there is no map
    engine::GradCamResult m_result;
};

} // namespace lathe::ui
