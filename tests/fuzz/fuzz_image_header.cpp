// Image-header readers (JPEG with EXIF, PNG, BMP, TIFF, WebP) and the decompression-bomb check.
#include "engine/dataset/image_decoder.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    lathe::engine::sniffFormat(data, size);
    lathe::fuzz::refusalAllowed([&] { lathe::engine::readCheckedHeader(data, size); });
    return 0;
}
