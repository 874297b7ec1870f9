#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace lathe::engine {

// The classification head put on a backbone.
struct HeadOptions
{
    int numClasses = 1000;
    double dropout = -1;  // before the final Linear; < 0 keeps the architecture's own value
    int hiddenUnits = 0;  // > 0 inserts Linear(embedding, hidden) + ReLU + Dropout ("head_hidden.*")
};

enum class FreezePolicy {
    TrainAll,    // every parameter trains
    HeadOnly,    // only the "head" stage trains
    UpToStage,   // stages [0, frozenStages) are frozen, the rest train
};

// Which parameters train, and how fast (run config "model.freeze").
struct FreezeOptions
{
    FreezePolicy policy = FreezePolicy::TrainAll;
    int frozenStages = 0;          // UpToStage: how many stages from the input are frozen
    bool freezeBatchNorm = false;  // BatchNorm layers keep their running statistics (eval mode)
    // Discriminative fine-tuning: the learning rate of a stage is multiplied by its factor
    // (stage name -> multiplier; stages not named use 1).
    std::vector<std::pair<std::string, double>> lrMultipliers;
    // Gradual unfreezing: every this many epochs one more frozen stage, from the head down,
    // starts training. 0 = off.
    int unfreezeEveryEpochs = 0;
};

// Everything needed to build a model (run config "model").
struct ModelSpec
{
    std::string arch = "resnet18"; // a registry name, or "torchscript" with torchscriptPath
    int inChannels = 3;            // 1 (grayscale) or > 3 (multispectral) adapts the stem
    HeadOptions head;
    std::string weightsPath;       // safetensors or torch.save .pth; empty = random init (from scratch)
    std::string torchscriptPath;   // custom backbone: a torch.jit.save'd module
    FreezeOptions freeze;
};

// What loading a weights file into a model did.
struct LoadReport
{
    std::vector<std::string> missing;     // in the model, not in the file (left as initialised)
    std::vector<std::string> unexpected;  // in the file, not in the model (ignored)
    std::vector<std::string> mismatched;  // "name: file [a, b] vs model [c, d]" (left as initialised)
    bool headReplaced = false;            // the file's head had another class count: a fresh head is used
    std::string stemAdapted;              // non-empty when the stem was adapted to another channel count
    std::int64_t loadedTensors = 0;

    bool clean() const { return missing.empty() && unexpected.empty() && mismatched.empty(); }
    std::string text() const; // several lines a user can read
};

struct StageSummary
{
    std::string name;
    std::int64_t parameters = 0;
    std::int64_t trainable = 0;
    double lrMultiplier = 1;
};

// A built model's parameters per stage under a freezing policy (the Model page's table).
struct ModelSummary
{
    std::string arch;
    std::int64_t parameters = 0;
    std::int64_t trainable = 0;
    std::vector<StageSummary> stages;
};

} // namespace lathe::engine
