// The TFLite reader of the export checks (FP32 / FP16 / INT8 files read back and evaluated), as
// Lathe reads a file: the bounded read, FlatBuffer verification and parse, the format's rules,
// the reference runtime's constants and graph checks, and one run on a zero input when the
// model's input is small (at most 4096 elements).
#include "engine/export/tflite_model.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const lathe::fuzz::MemFile file(data, size);
    lathe::fuzz::refusalAllowed([&] {
        using lathe::engine::TfliteType;
        const lathe::engine::TfliteModel model = lathe::engine::readTfliteFile(file.path());
        const lathe::engine::TfliteReferenceRuntime runtime(model);
        const lathe::engine::TfliteTensor &input = model.tensors[std::size_t(model.inputs.at(0))];
        std::vector<std::int64_t> shape;
        std::int64_t count = 1;
        for (std::int32_t d : input.shape) {
            if (d < 1 || d > 4096 || count * d > 4096)
                return;
            shape.push_back(d);
            count *= d;
        }
        torch::ScalarType type;
        switch (input.type) {
        case TfliteType::Float32:
            type = torch::kFloat;
            break;
        case TfliteType::UInt8:
            type = torch::kByte;
            break;
        case TfliteType::Int8:
            type = torch::kChar;
            break;
        case TfliteType::Int32:
            type = torch::kInt;
            break;
        case TfliteType::Int64:
            type = torch::kLong;
            break;
        default:
            return;
        }
        runtime.run(torch::zeros(shape, type), [](std::int32_t, const torch::Tensor &) {});
    });
    return 0;
}
