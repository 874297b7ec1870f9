#include "workspace/inference_jobs.h"

#include <QDir>
#include <QFileInfo>

namespace lathe::workspace {

PredictFilesJob::PredictFilesJob(engine::PredictOptions options, std::vector<std::string> inputs, QObject *parent)
    : Job(inputs.size() == 1 ? tr("Classify %1").arg(QFileInfo(QString::fromStdString(inputs.front())).fileName())
                             : tr("Classify %n file(s) or folder(s)", nullptr, int(inputs.size())),
          parent)
    , m_options(std::move(options))
    , m_inputs(std::move(inputs))
{
}

QVariant PredictFilesJob::execute()
{
    FilePredictions predictions{engine::predictFiles(m_options, m_inputs, taskControl(tr("Classifying")))};
    return QVariant::fromValue(predictions);
}

GradCamJob::GradCamJob(QString runDir, QString checkpoint, QByteArray image, std::optional<int> classIndex,
                       QString name, QObject *parent)
    : Job(tr("Grad-CAM of %1").arg(name), parent)
    , m_runDir(std::move(runDir))
    , m_checkpoint(std::move(checkpoint))
    , m_image(std::move(image))
    , m_classIndex(classIndex)
    , m_name(std::move(name))
{
}

QVariant GradCamJob::execute()
{
    reportProgress(0.0, tr("Loading the model and explaining the image"));
    const std::vector<std::uint8_t> bytes(m_image.begin(), m_image.end());
    engine::GradCamResult result =
        engine::gradCam(m_runDir.toStdString(), m_checkpoint.toStdString(), bytes, m_classIndex, 5, m_name.toStdString());
    checkCancel(); // asked to stop while the engine worked: the map is no longer wanted
    reportProgress(1.0);
    return QVariant::fromValue(result);
}

} // namespace lathe::workspace
