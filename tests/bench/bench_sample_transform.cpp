// One image through the training transform (decode, random resized crop to 224, horizontal flip,
// normalise) on one thread, over the opencv-doc photos: images per CPU second of this thread, so
// the figure does not depend on what else the machine runs. Prints JSON. Moved out of the unit
// tests (it asserted nothing); the whole pipeline against its peers is bench_pipeline.sh.
#include "engine/dataset/image_decoder.h"
#include "engine/pipeline/augmentation.h"
#include "engine/pipeline/sample_transform.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <vector>

using namespace lathe::engine;

namespace {

double threadCpuSeconds()
{
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

} // namespace

int main(int argc, char **argv)
{
    const std::filesystem::path dir = argc > 1 ? argv[1] : "/usr/share/doc/opencv-doc/examples/data";
    const int n = argc > 2 ? std::atoi(argv[2]) : 300;
    std::vector<std::vector<std::uint8_t>> photos;
    for (const char *name : {"butterfly.jpg", "home.jpg", "messi5.jpg", "squirrel_cls.jpg", "fruits.jpg"}) {
        std::ifstream in(dir / name, std::ios::binary);
        if (in)
            photos.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    if (photos.empty()) {
        std::fprintf(stderr, "%s: none of the opencv-doc photos found (apt-get install opencv-doc)\n", dir.c_str());
        return 2;
    }
    TransformOptions o;
    o.augmentations = standardAugmentations();
    const SampleTransform t(o);
    std::vector<float> out(224 * 224 * 3);
    std::mt19937_64 rng(0);
    for (int i = 0; i < 20; ++i) { // warm-up
        const auto &p = photos[std::size_t(i) % photos.size()];
        t.apply(p.data(), p.size(), rng, out.data());
    }
    const double cpuStart = threadCpuSeconds();
    const auto wallStart = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i) {
        const auto &p = photos[std::size_t(i) % photos.size()];
        t.apply(p.data(), p.size(), rng, out.data());
    }
    const double cpu = threadCpuSeconds() - cpuStart;
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
    const nlohmann::json result{{"benchmark", "sample_transform"},
                                {"recipe", "random_resized_crop + horizontal_flip + normalize, 224"},
                                {"photos", photos.size()},
                                {"images", n},
                                {"images_per_cpu_second", n / cpu},
                                {"images_per_second", n / wall},
                                {"partial_jpeg_decode", partialJpegDecodeAvailable()}};
    std::printf("%s\n", result.dump(2).c_str());
    return 0;
}
