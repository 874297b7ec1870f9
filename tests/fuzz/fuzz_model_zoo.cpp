// The model-zoo catalog reader (model_zoo.json: every entry's fields, URL and file-name rules,
// duplicates) and the look-ups the GUI and `lathe-cli zoo` make on what it accepted.
#include "engine/models/model_zoo.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const lathe::fuzz::MemFile file(data, size);
    lathe::fuzz::refusalAllowed([&] {
        const std::vector<lathe::engine::ZooWeights> zoo = lathe::engine::loadModelZoo(file.path());
        for (const lathe::engine::ZooWeights &w : zoo) {
            // What the catalog accepted must hold together: the cache name is the file name and
            // the file name carries the hash prefix the entry is matched by.
            if (lathe::engine::cacheFileName(w) != w.fileName ||
                lathe::engine::sha256PrefixOfFileName(w.fileName) != w.sha256Prefix ||
                lathe::engine::findWeights(zoo, w.arch, w.id) == nullptr ||
                lathe::engine::matchSha256(zoo, w.sha256Prefix + std::string(64 - w.sha256Prefix.size(), '0')) == nullptr)
                std::abort();
            if (w.isDefault && lathe::engine::defaultWeights(zoo, w.arch) != &w)
                std::abort();
        }
    });
    return 0;
}
