#include "evaluate/grad_cam_panel.h"

#include "common/background_task.h"
#include "engine/inference/grad_cam.h"
#include "engine/models/backbone_registry.h"
#include "evaluate/grad_cam_view.h"
#include "evaluate/prediction_gallery_model.h"
#include "workspace/inference_jobs.h"
#include "workspace/job_manager.h"
#include "workspace/workspace_error.h"

#include <QBuffer>
#include <QImage>
#include <QImageReader>
#include <QLocale>
#include <QThreadPool>
#include <QVBoxLayout>

#include <optional>
#include <vector>

namespace lathe::ui {
namespace {

struct ShownImage
{
    QImage image;
    QByteArray bytes;
};

} // namespace
} // namespace lathe::ui

Q_DECLARE_METATYPE(lathe::ui::ShownImage)

namespace lathe::ui {

GradCamPanel::GradCamPanel(workspace::JobManager *jobs, QWidget *parent)
    : QWidget(parent)
    , m_jobs(jobs)
    , m_view(new GradCamView(this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_view);
    connect(m_view, &GradCamView::classRequested, this, &GradCamPanel::requestGradCam);
}

void GradCamPanel::setEvaluation(const QString &runDir, const QString &checkpoint, const QStringList &classes,
                                 const std::string &arch)
{
    clear();
    m_runDir = runDir;
    m_checkpoint = checkpoint;
    m_classes = classes;
    m_view->setClasses(classes);
    m_available = true;
    m_unavailableReason.clear();
    try {
        if (!arch.empty() && !engine::backboneInfo(arch).convolutional) {
            m_available = false;
            m_unavailableReason = tr("Grad-CAM is not available for transformer backbones.");
        }
    } catch (const std::exception &) {
        // An architecture this build does not know: gradCam() will say what is wrong.
    }
}

void GradCamPanel::cancelGradCam()
{
    if (m_job)
        m_jobs->cancel(m_job); // a queued one ends at once, a running one when the engine returns
    m_job = nullptr;
}

void GradCamPanel::clear()
{
    cancelGradCam();
    ++m_generation; // answers still on their way (an image, a map, a cancellation) are not shown
    m_runDir.clear();
    m_checkpoint.clear();
    // The bytes belong to the image the view showed: a class request must not explain it again.
    m_bytes.clear();
    m_view->clear();
}

void GradCamPanel::showPrediction(const std::shared_ptr<ShardRecordSource> &source, const engine::Prediction &p,
                                  int predictedClass, int classIndex)
{
    cancelGradCam();
    const quint64 generation = ++m_generation;
    const QString title = tr("%1\nTrue: %2, predicted: %3 (loss %4)")
                              .arg(QString::fromStdString(p.filename), m_classes.value(p.label),
                                   m_classes.value(predictedClass), QLocale().toString(p.loss, 'f', 3));
    if (!source) {
        m_view->setImage(QImage(), title);
        m_view->setUnavailable(tr("The evaluation does not say where its images are."));
        return;
    }
    const quint64 record = p.record;
    const QString name = QString::fromStdString(p.filename);
    BackgroundTask::start(
        QThreadPool::globalInstance(), this,
        [source, record, name]() -> QVariant {
            ShownImage shown;
            shown.bytes = source->read(record);
            QBuffer buffer(&shown.bytes);
            QImageReader reader(&buffer);
            reader.setAutoTransform(true);
            shown.image = reader.read();
            if (shown.image.isNull())
                throw workspace::WorkspaceError(tr("%1: the image cannot be decoded (%2)").arg(name, reader.errorString()));
            return QVariant::fromValue(shown);
        },
        [this, generation, title, classIndex, name](const QVariant &value) {
            if (generation != m_generation)
                return;
            const ShownImage shown = value.value<ShownImage>();
            m_view->setImage(shown.image, title);
            m_bytes = shown.bytes;
            m_name = name.toStdString();
            Q_EMIT imageShown();
            if (!m_available) {
                m_view->setUnavailable(m_unavailableReason);
                Q_EMIT gradCamFinished();
                return;
            }
            requestGradCam(classIndex);
        },
        [this, generation, title](const QString &message) {
            if (generation != m_generation)
                return;
            m_view->setImage(QImage(), title);
            m_view->setUnavailable(message);
            Q_EMIT imageShown();
            Q_EMIT gradCamFinished();
        });
}

void GradCamPanel::requestGradCam(int classIndex)
{
    if (m_bytes.isEmpty() || m_runDir.isEmpty())
        return;
    if (!m_available) {
        m_view->setUnavailable(m_unavailableReason);
        Q_EMIT gradCamFinished();
        return;
    }
    cancelGradCam();
    const quint64 generation = ++m_generation;
    m_view->setBusy(true);
    const std::optional<int> wanted = classIndex >= 0 ? std::optional<int>(classIndex) : std::nullopt;
    auto *job = new workspace::GradCamJob(m_runDir, m_checkpoint, m_bytes, wanted, QString::fromStdString(m_name));
    m_job = job;
    connect(job, &workspace::Job::finished, this, [this, generation](const QVariant &value) {
        if (generation != m_generation)
            return;
        m_view->setBusy(false);
        m_view->setResult(value.value<engine::GradCamResult>());
        Q_EMIT gradCamFinished();
    });
    connect(job, &workspace::Job::failed, this, [this, generation](const QString &message) {
        if (generation != m_generation)
            return;
        m_view->setBusy(false);
        m_view->setUnavailable(tr("No heat map: %1").arg(message));
        Q_EMIT gradCamFinished();
    });
    connect(job, &workspace::Job::cancelled, this, [this, generation] {
        if (generation != m_generation)
            return; // replaced by a newer request
        m_view->setBusy(false);
        m_view->setUnavailable(tr("No heat map: cancelled."));
        Q_EMIT gradCamFinished();
    });
    connect(job, &workspace::Job::ended, this, [this, job] {
        if (m_job == job)
            m_job = nullptr;
    });
    m_jobs->start(job);
}

} // namespace lathe::ui
