// torch.save archives: the zip directory check, every entry's CRC-32 and the restricted
// unpickler of data.pkl (no global outside the allowed torch rebuild functions).
#include "engine/formats/torch_pth.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const lathe::fuzz::MemFile file(data, size);
    lathe::fuzz::refusalAllowed([&] { lathe::engine::readTorchPth(file.path()); });
    return 0;
}
