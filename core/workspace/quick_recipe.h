#pragma once

#include <QString>

#include <cstdint>

#include <nlohmann/json.hpp>

namespace lathe::workspace {

// A whole starting point for a run: the model (backbone, weights source, input size) and the
// Train page's settings, as a partial run config the Model and Train pages apply. Unlike a
// preset (RunPresets), a recipe also chooses the model: it is what the demo opens with, and
// what the pre-flight check offers when a run would take hours.
struct Recipe
{
    QString name;        // in the UI's language
    QString description; // what it is for and what it reaches, in the UI's language
    nlohmann::json config; // partial run config: "model" (arch, weights ""), "data" (image_size, augment), "optimizer", "schedule", ...

    // Whether a run config already has every value this recipe sets (then offering it is no help).
    // The epochs are not compared: they are sized to the machine (quickCpuEpochs).
    bool isFollowedBy(const nlohmann::json &runConfig) const;
};

// The quick CPU recipe trains for at most this long (conversion and the validation passes
// take the rest of the first-hour goal: 85% validation top-1 within 5 minutes of Start).
constexpr double kQuickRecipeSeconds = 240;
constexpr int kQuickRecipeMinEpochs = 3; // fewer stays under 85% on the demo (README: the first hour)
constexpr int kQuickRecipeMaxEpochs = 6; // more gains little (89% at 6)

// The epochs of the quick recipe that fit kQuickRecipeSeconds when one epoch (its training steps
// and its validation pass) takes secondsPerEpoch, within [min, max]; the most when not measured (<= 0).
int quickCpuEpochs(double secondsPerEpoch);

// For a machine without a CUDA GPU: chosen by measurement on 2 CPU cores (README: the first
// hour), a small from-scratch ResNet-18 at low resolution that reaches >= 85% validation top-1
// on the Fashion-MNIST demo within 5 minutes. secondsPerEpoch: the measured time of one epoch,
// said in the description (0: not measured).
Recipe quickCpuRecipe(int epochs = kQuickRecipeMaxEpochs, double secondsPerEpoch = 0);

// The recipe for this machine: Lathe's defaults (pretrained ResNet-18 at 224 px) when a CUDA
// device is there (cudaDevices from engine::runtimeInfo()); otherwise the quick CPU recipe with
// its epochs sized to this CPU: a few of its real training steps are timed
// (engine::estimateTrainingMemory) for a dataset of trainImages/valImages images of numClasses
// classes. Blocking (about 3 s on 2 cores): call it from a Job. Throws engine::EngineError.
Recipe recipeForMachine(int cudaDevices, std::int64_t trainImages, std::int64_t valImages, int numClasses);

} // namespace lathe::workspace
