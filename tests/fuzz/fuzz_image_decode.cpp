// The decoders behind the pipeline: a whole-image decode and the JPEG partial (cropped, DCT-
// scaled) decode of a region, on images small enough to keep an iteration short.
#include "engine/dataset/image_decoder.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    using namespace lathe::engine;
    lathe::fuzz::refusalAllowed([&] {
        const ImageHeader header = readCheckedHeader(data, size);
        if (std::int64_t(header.width) * header.height > 1 << 20)
            return;
        decodeImage(data, size, 3);
        const cv::Rect region(header.width / 4, header.height / 4, header.width / 2 + 1, header.height / 2 + 1);
        decodeRegion(data, size, header, region, 0.25, 1);
        decodeRegion(data, size, header, region, 1.0, 3, true, nullptr, true);
    });
    return 0;
}
