#pragma once

#include <QString>

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
    bool isFollowedBy(const nlohmann::json &runConfig) const;
};

// For a machine without a CUDA GPU: chosen by measurement on 2 CPU cores (README: the first
// hour), a small from-scratch ResNet-18 at low resolution that reaches >= 85% validation top-1
// on the Fashion-MNIST demo within 5 minutes.
Recipe quickCpuRecipe();

// The recipe for this machine: quickCpuRecipe() unless a CUDA device is there, when Lathe's
// defaults (pretrained ResNet-18 at 224 px) are a better start; cudaDevices from
// engine::runtimeInfo().
Recipe recipeForMachine(int cudaDevices);

} // namespace lathe::workspace
