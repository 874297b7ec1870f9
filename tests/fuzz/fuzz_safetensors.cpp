// The safetensors reader: the 8-byte header size, the JSON header, dtypes, shapes and offsets,
// all checked before tensor memory is allocated.
#include "engine/formats/safetensors.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const lathe::fuzz::MemFile file(data, size);
    lathe::fuzz::refusalAllowed([&] {
        std::map<std::string, std::string> metadata;
        lathe::engine::readSafetensors(file.path(), &metadata);
    });
    return 0;
}
