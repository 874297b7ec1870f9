#include "workspace/quick_recipe.h"

#include "engine/run/run_config.h"
#include "engine/training/memory_estimate.h"

#include <QCoreApplication>

#include <algorithm>
#include <cmath>

namespace lathe::workspace {

int quickCpuEpochs(double secondsPerEpoch)
{
    if (secondsPerEpoch <= 0)
        return kQuickRecipeMaxEpochs;
    const double fit = std::floor(kQuickRecipeSeconds / secondsPerEpoch);
    return int(std::clamp(fit, double(kQuickRecipeMinEpochs), double(kQuickRecipeMaxEpochs)));
}

Recipe quickCpuRecipe(int epochs, double secondsPerEpoch)
{
    // Measured on the demo (1,000 training and 100 validation images per class) on 2 CPU cores,
    // against SGD at the same size, more data or more pixels (README: the first hour): AdamW
    // with a one-cycle schedule learns the most in few steps; 6 epochs reach ~89% validation
    // top-1, 3 epochs ~86%. An epoch of 10,000 images at 32 px takes 25-75 s on the 2-core
    // machines measured, so the epochs follow the machine (quickCpuEpochs). The validation
    // transform crops the centre, so the training one stays a plain resize and a flip.
    Recipe r;
    r.name = QCoreApplication::translate("Recipe", "Quick start on the CPU");
    r.description = QCoreApplication::translate(
        "Recipe", "ResNet-18 from scratch at 32 px, AdamW (2e-3) with a one-cycle schedule, batch 64, %n epoch(s), "
                  "horizontal flips. On 2 CPU cores it trains the Fashion-MNIST demo to 85-89% validation "
                  "top-1 within 5 minutes.", nullptr, epochs);
    if (secondsPerEpoch > 0)
        r.description += QLatin1Char(' ') + QCoreApplication::translate("Recipe", "An epoch takes about %1 s on this machine.")
                                                .arg(std::lround(secondsPerEpoch));
    r.config = {{"model", {{"arch", "resnet18"}, {"weights", ""}}},
                {"data", {{"image_size", 32}, {"augment", nlohmann::json::array({{{"type", "horizontal_flip"}, {"p", 0.5}}})}}},
                {"optimizer", {{"name", "adamw"}, {"lr", 2e-3}, {"batch_size", 64}, {"epochs", epochs}, {"weight_decay", 5e-4}}},
                {"schedule", {{"name", "one_cycle"}, {"warmup_epochs", 0}}}};
    engine::parseRunConfig(r.config); // a typo above fails the first test, not a user's run
    return r;
}

bool Recipe::isFollowedBy(const nlohmann::json &runConfig) const
{
    const nlohmann::json leaves = config.flatten();
    for (auto it = leaves.begin(); it != leaves.end(); ++it) {
        if (it.key() == "/optimizer/epochs")
            continue;
        const nlohmann::json::json_pointer path(it.key());
        if (!runConfig.contains(path) || runConfig.at(path) != it.value())
            return false;
    }
    return true;
}

Recipe recipeForMachine(int cudaDevices, std::int64_t trainImages, std::int64_t valImages, int numClasses)
{
    if (cudaDevices <= 0) {
        const Recipe sized = quickCpuRecipe();
        engine::RunConfig config = engine::parseRunConfig(sized.config);
        config.data.valSplit = valImages > 0 ? "val" : "";
        const engine::MemoryEstimate estimate = engine::estimateTrainingMemory(config, numClasses);
        const double perEpoch = engine::estimateTrainingTime(estimate, config, trainImages, valImages).secondsPerEpoch;
        return quickCpuRecipe(quickCpuEpochs(perEpoch), perEpoch);
    }
    Recipe r;
    r.name = QCoreApplication::translate("Recipe", "Lathe's defaults");
    r.description = QCoreApplication::translate("Recipe", "Pretrained ResNet-18 at 224 px on the GPU.");
    r.config = nlohmann::json::object();
    return r;
}

} // namespace lathe::workspace
