// The IDX reader (MNIST / Fashion-MNIST images and labels, plain or gzip-compressed).
#include "engine/formats/idx_file.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const lathe::fuzz::MemFile file(data, size);
    lathe::fuzz::refusalAllowed([&] { lathe::engine::readIdxImages(file.path()); });
    lathe::fuzz::refusalAllowed([&] { lathe::engine::readIdxLabels(file.path()); });
    return 0;
}
