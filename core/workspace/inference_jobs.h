#pragma once

#include "engine/inference/grad_cam.h"
#include "engine/inference/prediction.h"
#include "workspace/job.h"

#include <QByteArray>
#include <QMetaType>
#include <QString>

#include <optional>
#include <string>
#include <vector>

namespace lathe::workspace {

// What a PredictFilesJob returns (Job::result().value<FilePredictions>()).
struct FilePredictions
{
    std::vector<engine::FilePrediction> results;
};

// Classifies image files and folders with a run's checkpoint (engine::predictFiles): one bad
// file gives its own error row and never stops the others. Progress per file; cancellable
// between files. Result: FilePredictions; a multi-label checkpoint's carry each file's label set
// and every label's score with its threshold (FilePrediction::labelSet, labelScores).
class PredictFilesJob : public Job
{
    Q_OBJECT

public:
    PredictFilesJob(engine::PredictOptions options, std::vector<std::string> inputs, QObject *parent = nullptr);

protected:
    QVariant execute() override;

private:
    const engine::PredictOptions m_options;
    const std::vector<std::string> m_inputs;
};

// Explains one image held in memory with a run's checkpoint (engine::gradCam): the class
// classIndex, or the predicted one when it is empty. Loading the model is the long part (the
// engine keeps it for the next request with the same run and checkpoint); a job cancelled
// while it computes ends cancelled, its map dropped. Result: engine::GradCamResult.
class GradCamJob : public Job
{
    Q_OBJECT

public:
    GradCamJob(QString runDir, QString checkpoint, QByteArray image, std::optional<int> classIndex, QString name,
               QObject *parent = nullptr);

protected:
    QVariant execute() override;

private:
    const QString m_runDir;
    const QString m_checkpoint;
    const QByteArray m_image;
    const std::optional<int> m_classIndex;
    const QString m_name;
};

} // namespace lathe::workspace

Q_DECLARE_METATYPE(lathe::workspace::FilePredictions)
Q_DECLARE_METATYPE(lathe::engine::GradCamResult)
