// The run-config parser (every field, every rule), from JSON text as a run.json or preset holds.
#include "engine/run/run_config.h"
#include "fuzz_support.h"

#include <nlohmann/json.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const nlohmann::json json = nlohmann::json::parse(data, data + size, nullptr, false);
    if (json.is_discarded())
        return 0;
    lathe::fuzz::refusalAllowed([&] {
        const lathe::engine::RunConfig config = lathe::engine::parseRunConfig(json);
        lathe::engine::runConfigToJson(config);
    });
    return 0;
}
