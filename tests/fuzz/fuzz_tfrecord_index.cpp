// The DALI-style .idx reader ("offset size" per line).
#include "engine/formats/tfrecord_reader.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const lathe::fuzz::MemFile file(data, size);
    lathe::fuzz::refusalAllowed([&] { lathe::engine::TFRecordReader::readIndex(file.path()); });
    return 0;
}
