#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace lathe::engine {

// Images of an IDX file (the MNIST/Fashion-MNIST format), gzip-compressed or plain.
struct IdxImages
{
    int count = 0;
    int rows = 0;
    int cols = 0;
    std::vector<std::uint8_t> pixels; // count * rows * cols bytes, row-major, one byte per pixel
};

// Both throw EngineError naming the file and the reason for anything that is not a
// well-formed IDX file of the expected kind (magic, dimensions, length). Sizes come from
// the header and are checked against limits before anything is allocated.
IdxImages readIdxImages(const std::string &path);
std::vector<std::uint8_t> readIdxLabels(const std::string &path);

} // namespace lathe::engine
