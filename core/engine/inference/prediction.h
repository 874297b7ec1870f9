#pragma once

// Torch-free: lathe-cli's predict verb and the GUI's "try an image" call it.

#include "engine/base/task_control.h"
#include "engine/models/model_spec.h"

#include <string>
#include <vector>

namespace lathe::engine {

struct PredictOptions
{
    // A run folder and one of its checkpoints (resolveCheckpoint's names or a file; "best"
    // falls back to "last")...
    std::string runDir;
    std::string checkpoint = "best";
    // ...or, without runDir, a bare model: model.weightsPath is required; classes name the
    // head's outputs (empty: "class_<i>", the count read from the weights); imageSize 0: the
    // backbone's input size.
    ModelSpec model;
    std::vector<std::string> classes;
    int imageSize = 0;

    int topK = 5;
    int batchSize = 16;
    std::string device; // "cpu", "cuda:N"; empty: the first CUDA device when there is one
};

// A multi-label model's verdict on one class of one image: its sigmoid score against the
// class's threshold (the checkpoint's F1-tuned one, else 0.5).
struct LabelScore
{
    int index = 0;
    std::string name;
    float score = 0;
    double threshold = 0.5;
    bool inSet = false; // score >= threshold: the class is in the image's label set
};

// One input file's outcome: either its top classes or the reason it could not be classified.
struct FilePrediction
{
    std::string path;
    std::string error; // empty on success: "<path>: <reason>" otherwise
    std::vector<int> topClasses;
    std::vector<std::string> topNames;
    std::vector<float> topProbs; // softmax probabilities; a multi-label model's sigmoid scores
    // Multi-label models: the classes whose score reaches their threshold (the checkpoint's
    // F1-tuned ones), highest score first; may be empty. Always empty for single-label models.
    std::vector<std::string> labelSet;
    // Multi-label models: every class, highest score first (lower index first on ties), with its
    // threshold; labelSet is the names of those inSet, in this order. Empty for single-label.
    std::vector<LabelScore> labelScores;
    bool multiLabel = false;
};

// The files to classify: files as given (whatever their extension), folders replaced by the
// image files (.jpg .jpeg .png .bmp .tif .tiff .webp, any case) found under them, recursively,
// sorted, hidden entries skipped; symbolic links to folders are not followed. A path that does
// not exist stays in the list (predictFiles reports it). An unreadable folder gives an entry
// for the folder.
std::vector<std::string> expandImageInputs(const std::vector<std::string> &inputs);

// Classifies every file of expandImageInputs(inputs) with the evaluation transform. One bad
// file (missing, a device, too large, not an image, truncated, a decompression bomb) gives its
// own FilePrediction.error and never stops the others. Throws EngineError only when the model
// cannot be loaded, and Cancelled.
std::vector<FilePrediction> predictFiles(const PredictOptions &options, const std::vector<std::string> &inputs,
                                         const TaskControl &control = {});

} // namespace lathe::engine
