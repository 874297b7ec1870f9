// The TFRecord reader: framing, both CRCs, lengths against the limit and the file size.
#include "engine/formats/tfrecord_reader.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const lathe::fuzz::MemFile file(data, size);
    lathe::fuzz::refusalAllowed([&] {
        lathe::engine::TFRecordReader reader(file.path(), 1 << 20);
        std::string record;
        for (int i = 0; i < 1000 && reader.next(record); ++i) {
        }
    });
    return 0;
}
