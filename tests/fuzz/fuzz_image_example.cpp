// The tf.train.Example parser of shard records.
#include "engine/formats/image_example.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const std::string record(reinterpret_cast<const char *>(data), size);
    lathe::fuzz::refusalAllowed([&] { lathe::engine::parseImageExample(record, "fuzz"); });
    return 0;
}
