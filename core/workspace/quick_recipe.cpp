#include "workspace/quick_recipe.h"

#include "engine/run/run_config.h"

#include <QCoreApplication>

namespace lathe::workspace {

Recipe quickCpuRecipe()
{
    // Measured on the demo (1,000 training and 100 validation images per class) on 2 CPU cores,
    // against SGD at the same size, more data or more pixels (README: the first hour): AdamW
    // with a one-cycle schedule learns the most in few steps; at 32 px an epoch of 10,000 images
    // takes ~30 s, and 6 epochs reach ~89% validation top-1 in ~3 minutes. The validation
    // transform crops the centre, so the training one stays a plain resize and a flip.
    Recipe r;
    r.name = QCoreApplication::translate("Recipe", "Quick start on the CPU");
    r.description = QCoreApplication::translate(
        "Recipe", "ResNet-18 from scratch at 32 px, AdamW (2e-3) with a one-cycle schedule, batch 64, 6 epochs, "
                  "horizontal flips. On 2 CPU cores it trains the Fashion-MNIST demo to about 89% validation "
                  "top-1 in about 3 minutes.");
    r.config = {{"model", {{"arch", "resnet18"}, {"weights", ""}}},
                {"data", {{"image_size", 32}, {"augment", nlohmann::json::array({{{"type", "horizontal_flip"}, {"p", 0.5}}})}}},
                {"optimizer", {{"name", "adamw"}, {"lr", 2e-3}, {"batch_size", 64}, {"epochs", 6}, {"weight_decay", 5e-4}}},
                {"schedule", {{"name", "one_cycle"}, {"warmup_epochs", 0}}}};
    engine::parseRunConfig(r.config); // a typo above fails the first test, not a user's run
    return r;
}

bool Recipe::isFollowedBy(const nlohmann::json &runConfig) const
{
    const nlohmann::json leaves = config.flatten();
    for (auto it = leaves.begin(); it != leaves.end(); ++it) {
        const nlohmann::json::json_pointer path(it.key());
        if (!runConfig.contains(path) || runConfig.at(path) != it.value())
            return false;
    }
    return true;
}

Recipe recipeForMachine(int cudaDevices)
{
    if (cudaDevices <= 0)
        return quickCpuRecipe();
    Recipe r;
    r.name = QCoreApplication::translate("Recipe", "Lathe's defaults");
    r.description = QCoreApplication::translate("Recipe", "Pretrained ResNet-18 at 224 px on the GPU.");
    r.config = nlohmann::json::object();
    return r;
}

} // namespace lathe::workspace
