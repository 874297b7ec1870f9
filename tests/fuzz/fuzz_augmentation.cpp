// The augmentation list of a run config ("data.augment") on its own: every type and parameter
// form. What it accepts must survive a round trip: the canonical JSON it writes parses again to
// the same steps (a preset saved by the GUI reads back unchanged).
#include "engine/pipeline/augmentation.h"
#include "fuzz_support.h"

#include <nlohmann/json.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const nlohmann::json json = nlohmann::json::parse(data, data + size, nullptr, false);
    if (json.is_discarded())
        return 0;
    std::vector<lathe::engine::AugmentationSpec> steps;
    bool accepted = false;
    lathe::fuzz::refusalAllowed([&] {
        steps = lathe::engine::parseAugmentations(json);
        accepted = true;
    });
    if (!accepted)
        return 0;
    // Outside refusalAllowed: refusing its own canonical form is a finding too.
    const nlohmann::json written = lathe::engine::augmentationsToJson(steps);
    if (lathe::engine::augmentationsToJson(lathe::engine::parseAugmentations(written)) != written)
        std::abort();
    return 0;
}
