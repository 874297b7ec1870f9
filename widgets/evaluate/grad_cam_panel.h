#pragma once

#include "engine/inference/evaluation.h"

#include <QByteArray>
#include <QString>
#include <QStringList>
#include <QWidget>

#include <memory>
#include <string>

namespace lathe::workspace {
class GradCamJob;
class JobManager;
} // namespace lathe::workspace

namespace lathe::ui {

class GradCamView;
class ShardRecordSource;

// The Evaluate page's image panel: one evaluated image with its Grad-CAM heat map. It reads the
// record's bytes from the shards and decodes them on a worker thread, then computes the map in
// a GradCamJob (in the Jobs panel, cancellable) for the class the view's combo asks for. Each
// new image or class request outdates the answers still on their way, so only the latest is
// shown, and cancels the map still being computed.
class GradCamPanel : public QWidget
{
    Q_OBJECT

public:
    explicit GradCamPanel(workspace::JobManager *jobs, QWidget *parent = nullptr);

    // The evaluation whose images are shown: the run and checkpoint the maps are computed with,
    // its classes, and its backbone (transformers have no spatial feature map to explain).
    void setEvaluation(const QString &runDir, const QString &checkpoint, const QStringList &classes,
                       const std::string &arch);
    // No evaluation: the view is emptied and heat maps are no longer computed.
    void clear();

    // Shows an evaluated image (read from source) under a title with its labels, then its heat
    // map for classIndex (-1: the predicted class); imageShown() then gradCamFinished() follow.
    void showPrediction(const std::shared_ptr<ShardRecordSource> &source, const engine::Prediction &prediction,
                        int predictedClass, int classIndex);
    // The shown image's heat map for another class (-1: the predicted one).
    void requestGradCam(int classIndex);

    GradCamView *view() const { return m_view; }

Q_SIGNALS:
    void imageShown();
    void gradCamFinished();

private:
    void cancelGradCam();

    workspace::JobManager *m_jobs;
    workspace::GradCamJob *m_job = nullptr; // the map being computed
    GradCamView *m_view;
    QString m_runDir; // empty: no evaluation
    QString m_checkpoint;
    QStringList m_classes;
    bool m_available = true;
    QString m_unavailableReason;
    QByteArray m_bytes;           // the shown image's encoded bytes, what gradCam() reads
    std::string m_name = "image"; // and its file name, for gradCam()'s messages
    quint64 m_generation = 0;
};

} // namespace lathe::ui
