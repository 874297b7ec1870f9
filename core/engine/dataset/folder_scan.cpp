#include "engine/dataset/folder_scan.h"

#include "engine/base/engine_error.h"
#include "engine/base/file_io.h"
#include "engine/base/parse_limits.h"
#include "engine/base/sha256.h"
#include "engine/dataset/label_file.h"

#include <opencv2/core/mat.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <turbojpeg.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <fcntl.h>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>
#include <unordered_map>

namespace fs = std::filesystem;

namespace lathe::engine {
namespace {

std::string lower(std::string s)
{
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s;
}

// "train", "val" or "test" for a split folder name, empty otherwise.
std::string splitOfFolder(const std::string &name)
{
    const std::string n = lower(name);
    if (n == "train" || n == "training")
        return "train";
    if (n == "val" || n == "valid" || n == "validation")
        return "val";
    if (n == "test" || n == "testing")
        return "test";
    return {};
}

std::uint64_t fnv1a(const std::string &text, std::uint64_t seed)
{
    std::uint64_t h = 1469598103934665603ull ^ (seed * 0x9E3779B97F4A7C15ull);
    for (unsigned char c : text) {
        h ^= c;
        h *= 1099511628211ull;
    }
    // Final avalanche so that near-identical paths land far apart.
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h;
}

// A file found by the walk, before it is read.
struct Candidate
{
    std::string path;
    ScannedImage image;
    bool read = true; // false: already decided (rejected by the walk, or reused)
};

void reject(ScannedImage &image, const std::string &reason)
{
    image.status = ImageStatus::Rejected;
    image.reason = reason;
}

// Walks one class folder (recursively, not following folder links: they can loop).
void walkClass(const fs::path &root, const fs::path &dir, const std::string &className, const std::string &split,
               std::vector<Candidate> &out)
{
    std::error_code ec;
    fs::recursive_directory_iterator it(dir, fs::directory_options::none, ec);
    if (ec) {
        Candidate c;
        c.path = dir.string();
        c.image.relPath = dir.lexically_relative(root).generic_string();
        c.image.className = className;
        c.image.split = split;
        reject(c.image, "cannot read folder (" + ec.message() + ")");
        c.read = false;
        out.push_back(std::move(c));
        return;
    }
    for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (ec)
            break;
        const fs::directory_entry &entry = *it;
        const std::string name = entry.path().filename().string();
        if (!name.empty() && name[0] == '.') { // hidden files and folders (.DS_Store, .git)
            if (entry.is_directory(ec) && !entry.is_symlink(ec))
                it.disable_recursion_pending();
            continue;
        }
        const bool isLink = entry.is_symlink(ec);
        const fs::file_status target = fs::status(entry.path(), ec);
        if (!isLink && fs::is_directory(target))
            continue; // the iterator descends into it
        Candidate c;
        c.path = entry.path().string();
        c.image.relPath = entry.path().lexically_relative(root).generic_string();
        c.image.className = className;
        c.image.split = split;
        if (isLink && ec) {
            reject(c.image, ec == std::errc::too_many_symbolic_link_levels ? "symbolic link loop"
                                                                           : "broken symbolic link (" + ec.message() + ")");
            c.read = false;
        } else if (isLink && fs::is_directory(target)) {
            reject(c.image, "symbolic link to a folder (not followed: links can loop)");
            c.read = false;
        } else if (!fs::is_regular_file(target)) {
            reject(c.image, "not a regular file");
            c.read = false;
        }
        ec.clear();
        out.push_back(std::move(c));
    }
}

// A labels file's rows as candidates (files that are missing are decided here), its bad rows
// as rejected entries named "<file name>:<line>". Returns whether every row's path starts with
// a train/val/test folder (the splits then come from those folders).
bool listLabelsFile(const fs::path &root, const std::string &labelsFile, std::vector<Candidate> &out)
{
    const LabelsFile file = readLabelsFile(labelsFile);
    const std::string name = fs::path(labelsFile).filename().string();
    for (const LabelsRowError &e : file.errors) {
        Candidate c;
        c.image.relPath = name + ":" + std::to_string(e.line);
        reject(c.image, e.reason);
        c.read = false;
        out.push_back(std::move(c));
    }
    bool splitFolders = !file.rows.empty();
    for (const LabelsRow &row : file.rows) {
        const std::size_t slash = row.path.find('/');
        if (slash == std::string::npos || splitOfFolder(row.path.substr(0, slash)).empty())
            splitFolders = false;
    }
    for (const LabelsRow &row : file.rows) {
        Candidate c;
        c.path = (root / row.path).string();
        c.image.relPath = row.path;
        c.image.labels = row.labels;
        if (splitFolders)
            c.image.split = splitOfFolder(row.path.substr(0, row.path.find('/')));
        std::error_code ec;
        const fs::file_status target = fs::status(c.path, ec);
        if (!fs::exists(target)) {
            reject(c.image, "listed in " + name + " line " + std::to_string(row.line) + " but not found");
            c.read = false;
        } else if (!fs::is_regular_file(target)) {
            reject(c.image, "listed in " + name + " line " + std::to_string(row.line) + " but not a regular file");
            c.read = false;
        }
        out.push_back(std::move(c));
    }
    return splitFolders;
}

// The hash's grid: kHashSide x kHashSide cells, each compared with its right and lower neighbour.
constexpr int kHashSide = 12;
static_assert(4 * kHashSide * kHashSide == kPerceptualHashBits);
// Brightness steps (of 255) a neighbour must differ by to set a bit.
constexpr int kHashMargin = 8;
// Images whose hash has fewer set bits are too flat to compare: they would all look alike.
constexpr int kMinHashBits = 8;
// JPEGs are decoded at the smallest scale that keeps this many pixels a side for the hash.
constexpr int kMinDecodedSide = 32;

// Full validation of a JPEG: entropy-decodes every block, at the smallest scale that leaves
// kMinDecodedSide pixels a side (all the perceptual hash needs), and treats libjpeg's
// warnings, such as a premature end, as errors.
cv::Mat decodeJpegGray(const std::vector<std::uint8_t> &bytes, const ImageHeader &header)
{
    struct TjDeleter
    {
        void operator()(void *h) const { tjDestroy(h); }
    };
    thread_local std::unique_ptr<void, TjDeleter> handle(tjInitDecompress());
    tjscalingfactor scale{1, 1};
    for (int denominator : {8, 4, 2}) {
        const tjscalingfactor candidate{1, denominator};
        if (TJSCALED(header.width, candidate) >= kMinDecodedSide && TJSCALED(header.height, candidate) >= kMinDecodedSide) {
            scale = candidate;
            break;
        }
    }
    const int w = TJSCALED(header.width, scale);
    const int h = TJSCALED(header.height, scale);
    const int format = header.cmyk ? TJPF_CMYK : TJPF_GRAY;
    cv::Mat out(h, w, header.cmyk ? CV_8UC4 : CV_8UC1);
    if (tjDecompress2(handle.get(), bytes.data(), static_cast<unsigned long>(bytes.size()), out.data, w, 0, h, format,
                      TJFLAG_STOPONWARNING)
        != 0) {
        const std::string reason = tjGetErrorStr2(handle.get());
        handle.reset(tjInitDecompress()); // libjpeg-turbo 2.1 leaves a handle unusable after an error
        throw EngineError("corrupt or truncated JPEG data (" + reason + ")");
    }
    if (!header.cmyk)
        return out;
    cv::Mat gray(h, w, CV_8UC1); // Adobe CMYK JPEGs store inverted ink: value = 255 - ink
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const cv::Vec4b p = out.at<cv::Vec4b>(y, x);
            gray.at<std::uint8_t>(y, x) = static_cast<std::uint8_t>((int(p[0]) + p[1] + p[2]) * p[3] / (3 * 255));
        }
    return gray;
}

PerceptualHash differenceHash(const cv::Mat &gray)
{
    cv::Mat across, down;
    cv::resize(gray, across, cv::Size(kHashSide + 1, kHashSide), 0, 0, cv::INTER_AREA);
    cv::resize(gray, down, cv::Size(kHashSide, kHashSide + 1), 0, 0, cv::INTER_AREA);
    PerceptualHash hash{};
    int bit = 0;
    // Two bits per pair: the second cell brighter by more than the margin, and darker by more.
    const auto compare = [&](int first, int second) {
        for (const bool set : {first + kHashMargin < second, second + kHashMargin < first}) {
            if (set)
                hash[std::size_t(bit / 64)] |= std::uint64_t(1) << (bit % 64);
            ++bit;
        }
    };
    for (int y = 0; y < kHashSide; ++y)
        for (int x = 0; x < kHashSide; ++x)
            compare(across.at<std::uint8_t>(y, x), across.at<std::uint8_t>(y, x + 1));
    for (int y = 0; y < kHashSide; ++y)
        for (int x = 0; x < kHashSide; ++x)
            compare(down.at<std::uint8_t>(y, x), down.at<std::uint8_t>(y + 1, x));
    return hash;
}

int popcount(const PerceptualHash &hash)
{
    int bits = 0;
    for (std::uint64_t word : hash)
        bits += __builtin_popcountll(word);
    return bits;
}

// Bits [start, start + width) of hash, width <= 64.
std::uint64_t band(const PerceptualHash &hash, int start, int width)
{
    std::uint64_t value = 0;
    for (int i = 0; i < width; ++i) {
        const int bit = start + i;
        value |= ((hash[std::size_t(bit / 64)] >> (bit % 64)) & 1u) << i;
    }
    return value;
}

std::string megapixels(std::int64_t pixels)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", double(pixels) / 1e6);
    return buf;
}

// Reads, hashes and validates one file; every failure becomes a reason on the record.
void examine(Candidate &c, std::int64_t maxPixels)
{
    ScannedImage &image = c.image;
    const int fd = ::open(c.path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        reject(image, std::string("cannot read (") + errnoText() + ")");
        return;
    }
    struct stat st {};
    ::fstat(fd, &st);
    image.size = st.st_size;
    image.mtimeNs = std::int64_t(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
    if (image.size == 0) {
        ::close(fd);
        reject(image, "empty file (0 bytes)");
        return;
    }
    if (std::uint64_t(image.size) > parse_limits::kImageFileBytes.value) {
        ::close(fd);
        reject(image, "file too large (" + limitReason(std::uint64_t(image.size), parse_limits::kImageFileBytes,
                                                       parse_limits::kImageFileBytes.value) + ")");
        return;
    }
    std::vector<std::uint8_t> bytes(static_cast<std::size_t>(image.size));
    std::size_t got = 0;
    while (got < bytes.size()) {
        const ssize_t n = ::read(fd, bytes.data() + got, bytes.size() - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += static_cast<std::size_t>(n);
    }
    const int readErrno = errno;
    ::close(fd);
    if (got != bytes.size()) {
        reject(image, std::string("cannot read (") + errnoText(readErrno) + ")");
        return;
    }

    image.sha256 = sha256Hex(bytes.data(), bytes.size());

    try {
        image.header = readImageHeader(bytes.data(), bytes.size());
        // Decompression bombs are refused here, from the header, before any pixel buffer.
        if (image.header.pixels() > maxPixels)
            throw EngineError(std::to_string(image.header.width) + "x" + std::to_string(image.header.height) + " is "
                              + megapixels(image.header.pixels()) + " Mpx, over the limit of "
                              + megapixels(maxPixels) + " Mpx");
        cv::Mat gray;
        if (image.header.format == ImageFormat::Jpeg) {
            gray = decodeJpegGray(bytes, image.header);
        } else {
            const cv::Mat buffer(1, static_cast<int>(bytes.size()), CV_8UC1, bytes.data());
            gray = cv::imdecode(buffer, cv::IMREAD_GRAYSCALE | cv::IMREAD_IGNORE_ORIENTATION);
            if (gray.empty())
                throw EngineError(std::string("corrupt or truncated ") + formatName(image.header.format) + " data");
        }
        image.hash = differenceHash(gray);
        image.status = ImageStatus::Ok;
        image.reason.clear();
    } catch (const EngineError &e) {
        reject(image, e.what());
    } catch (const cv::Exception &e) {
        reject(image, std::string("undecodable (") + e.err + ")");
    } catch (const std::exception &e) { // e.g. out of memory: this file fails, the scan goes on
        reject(image, std::string("cannot validate (") + e.what() + ")");
    }
}

struct NearDuplicates
{
    std::vector<std::vector<int>> groups;
    std::vector<std::vector<int>> distances;
};

// Groups usable images around representatives: in relPath order, each image joins the nearest
// representative (the first on a tie) whose hash is within maxDistance bits of its own, or
// becomes a representative itself; representatives left alone are no group. Only
// representatives are compared with, so a member is never linked to the group through another
// member. Pigeonhole: two hashes that close agree exactly on at least one of maxDistance + 1
// bands, so only representatives sharing a band value with the image are compared.
NearDuplicates findNearDuplicates(const std::vector<ScannedImage> &images, int maxDistance)
{
    NearDuplicates result;
    if (maxDistance <= 0)
        return result;
    const int bands = std::min(maxDistance + 1, kPerceptualHashBits);
    const int width = kPerceptualHashBits / bands;
    constexpr std::size_t kMaxBucket = 256; // caps the quadratic worst case of a degenerate band
    std::vector<std::unordered_map<std::uint64_t, std::vector<int>>> index(static_cast<std::size_t>(bands));
    std::map<int, std::vector<std::pair<int, int>>> members; // representative -> (image, distance)
    for (int i = 0; i < static_cast<int>(images.size()); ++i) {
        const ScannedImage &image = images[std::size_t(i)];
        const int bits = popcount(image.hash);
        if (image.status != ImageStatus::Ok || bits < kMinHashBits || bits > kPerceptualHashBits - kMinHashBits)
            continue;
        int best = -1;
        int bestDistance = maxDistance + 1;
        for (int b = 0; b < bands; ++b) {
            const int w = b == bands - 1 ? kPerceptualHashBits - b * width : width;
            const auto found = index[std::size_t(b)].find(band(image.hash, b * width, std::min(w, 64)));
            if (found == index[std::size_t(b)].end())
                continue;
            for (int r : found->second) {
                const int d = hashDistance(image.hash, images[std::size_t(r)].hash);
                if (d < bestDistance || (d == bestDistance && r < best)) {
                    best = r;
                    bestDistance = d;
                }
            }
        }
        if (best >= 0) {
            members[best].push_back({i, bestDistance});
            continue;
        }
        for (int b = 0; b < bands; ++b) {
            const int w = b == bands - 1 ? kPerceptualHashBits - b * width : width;
            std::vector<int> &bucket = index[std::size_t(b)][band(image.hash, b * width, std::min(w, 64))];
            if (bucket.size() < kMaxBucket)
                bucket.push_back(i);
        }
    }
    for (const auto &[representative, found] : members) {
        std::vector<int> group{representative};
        std::vector<int> distances{0};
        for (const auto &[image, distance] : found) {
            group.push_back(image);
            distances.push_back(distance);
        }
        result.groups.push_back(std::move(group));
        result.distances.push_back(std::move(distances));
    }
    return result;
}

} // namespace

int hashDistance(const PerceptualHash &a, const PerceptualHash &b)
{
    int bits = 0;
    for (std::size_t i = 0; i < a.size(); ++i)
        bits += __builtin_popcountll(a[i] ^ b[i]);
    return bits;
}

const char *statusName(ImageStatus status)
{
    switch (status) {
    case ImageStatus::Ok: return "ok";
    case ImageStatus::Duplicate: return "duplicate";
    case ImageStatus::Rejected: break;
    }
    return "rejected";
}

int ScanResult::count(ImageStatus status) const
{
    return static_cast<int>(std::count_if(images.begin(), images.end(),
                                          [status](const ScannedImage &i) { return i.status == status; }));
}

std::string assignSplit(const std::string &relPath, std::uint64_t seed, double valFraction, double testFraction)
{
    const double u = double(fnv1a(relPath, seed) >> 11) / double(1ull << 53);
    if (u < testFraction)
        return "test";
    if (u < testFraction + valFraction)
        return "val";
    return "train";
}

ScanResult scanFolder(const ScanOptions &options, const TaskControl &control)
{
    std::error_code ec;
    const fs::path root = fs::absolute(options.root, ec).lexically_normal();
    if (!fs::exists(root, ec))
        throw EngineError(options.root + ": folder not found");
    if (!fs::is_directory(root, ec))
        throw EngineError(options.root + ": not a folder");
    if (::access(root.c_str(), R_OK | X_OK) != 0)
        throw EngineError(options.root + ": cannot read the folder (" + errnoText() + ")");
    if (options.valFraction < 0 || options.testFraction < 0 || options.valFraction + options.testFraction >= 1)
        throw EngineError("validation and test fractions must be >= 0 and sum to less than 1");
    if (options.maxPixels <= 0)
        throw EngineError("the pixel limit must be positive");

    ScanResult result;
    result.root = root.string();
    control.report(0.0, "listing files");

    std::vector<Candidate> candidates;
    if (!options.labelsFile.empty()) {
        result.multiLabel = true;
        result.folderSplits = listLabelsFile(root, options.labelsFile, candidates);
    } else {
        // Layout: split folders above class folders, or class folders directly.
        std::vector<fs::path> topDirs;
        for (const fs::directory_entry &entry : fs::directory_iterator(root, ec)) {
            const std::string name = entry.path().filename().string();
            if (name.empty() || name[0] == '.')
                continue;
            if (entry.is_directory(ec)) {
                topDirs.push_back(entry.path());
            } else {
                Candidate c;
                c.image.relPath = name;
                reject(c.image, "not inside a class folder");
                c.read = false;
                candidates.push_back(std::move(c));
            }
        }
        if (ec)
            throw EngineError(options.root + ": cannot list the folder (" + ec.message() + ")");
        std::sort(topDirs.begin(), topDirs.end());
        result.folderSplits = !topDirs.empty() && std::all_of(topDirs.begin(), topDirs.end(), [](const fs::path &p) {
            return !splitOfFolder(p.filename().string()).empty();
        });

        std::vector<std::string> classes;
        auto addClassDir = [&](const fs::path &dir, const std::string &split) {
            const std::string cls = dir.filename().string();
            classes.push_back(cls);
            walkClass(root, dir, cls, split, candidates);
        };
        for (const fs::path &top : topDirs) {
            control.checkCancel();
            if (!result.folderSplits) {
                addClassDir(top, {});
                continue;
            }
            const std::string split = splitOfFolder(top.filename().string());
            for (const fs::directory_entry &entry : fs::directory_iterator(top, ec)) {
                const std::string name = entry.path().filename().string();
                if (name.empty() || name[0] == '.')
                    continue;
                if (entry.is_directory(ec)) {
                    addClassDir(entry.path(), split);
                } else {
                    Candidate c;
                    c.image.relPath = entry.path().lexically_relative(root).generic_string();
                    c.image.split = split;
                    reject(c.image, "not inside a class folder");
                    c.read = false;
                    candidates.push_back(std::move(c));
                }
            }
        }
        std::sort(classes.begin(), classes.end());
        classes.erase(std::unique(classes.begin(), classes.end()), classes.end());
        result.classes = classes;
    }

    // Files seen before with the same size and time are taken over unread.
    std::unordered_map<std::string, const ScannedImage *> previous;
    for (const ScannedImage &p : options.previous)
        previous.emplace(p.relPath, &p);
    for (Candidate &c : candidates) {
        if (!c.read)
            continue;
        const auto it = previous.find(c.image.relPath);
        if (it == previous.end())
            continue;
        struct stat st {};
        if (::stat(c.path.c_str(), &st) != 0)
            continue;
        const std::int64_t mtime = std::int64_t(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
        if (st.st_size != it->second->size || mtime != it->second->mtimeNs)
            continue;
        const std::string className = c.image.className;
        const std::string split = c.image.split;
        std::vector<std::string> labels = std::move(c.image.labels);
        c.image = *it->second;
        c.image.className = className;
        c.image.split = split;
        c.image.labels = std::move(labels);
        c.image.reused = true;
        if (c.image.status == ImageStatus::Duplicate) { // re-decided below
            c.image.status = ImageStatus::Ok;
            c.image.reason.clear();
        }
        c.read = false;
    }

    // Read and validate in parallel; progress and cancel are handled on this thread.
    std::vector<std::size_t> toRead;
    for (std::size_t i = 0; i < candidates.size(); ++i)
        if (candidates[i].read)
            toRead.push_back(i);
    std::atomic<std::size_t> next{0};
    std::atomic<std::size_t> done{0};
    std::atomic<bool> stop{false};
    const int threads = std::max(1, options.threads > 0 ? options.threads
                                                        : static_cast<int>(std::thread::hardware_concurrency()));
    std::vector<std::thread> workers;
    for (int t = 0; t < threads; ++t)
        workers.emplace_back([&] {
            for (;;) {
                const std::size_t k = next.fetch_add(1);
                if (k >= toRead.size() || stop.load())
                    return;
                examine(candidates[toRead[k]], options.maxPixels);
                done.fetch_add(1);
            }
        });
    while (done.load() < toRead.size()) {
        if (control.cancel.isCancelled()) {
            stop = true;
            break;
        }
        const std::size_t d = done.load();
        control.report(toRead.empty() ? 1.0 : double(d) / double(toRead.size()),
                       "validating " + std::to_string(d) + " of " + std::to_string(toRead.size()) + " files");
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    for (std::thread &w : workers)
        w.join();
    control.checkCancel();

    result.images.reserve(candidates.size());
    for (Candidate &c : candidates) {
        if (!result.folderSplits)
            c.image.split = assignSplit(c.image.relPath, options.seed, options.valFraction, options.testFraction);
        else if (c.image.split.empty())
            c.image.split = "train";
        result.images.push_back(std::move(c.image));
    }
    std::sort(result.images.begin(), result.images.end(),
              [](const ScannedImage &a, const ScannedImage &b) { return a.relPath < b.relPath; });

    // Exact duplicates: one copy stays and the others point at it. A file known from the
    // previous scan keeps its place, so a copy added later is the one marked; otherwise the
    // first path in sorted order stays.
    std::unordered_map<std::string, const ScannedImage *> firstWithHash;
    for (const bool reusedPass : {true, false}) {
        for (ScannedImage &image : result.images) {
            if (image.status != ImageStatus::Ok || image.reused != reusedPass)
                continue;
            const auto [it, inserted] = firstWithHash.emplace(image.sha256, &image);
            if (!inserted) {
                image.status = ImageStatus::Duplicate;
                image.reason = "duplicate of " + it->second->relPath;
            }
        }
    }
    if (result.multiLabel) { // the labels of images that will be records, and no others
        std::set<std::string> classes;
        for (const ScannedImage &image : result.images)
            if (image.status == ImageStatus::Ok)
                classes.insert(image.labels.begin(), image.labels.end());
        result.classes.assign(classes.begin(), classes.end());
    }
    NearDuplicates near = findNearDuplicates(result.images, options.nearDuplicateDistance);
    result.nearDuplicates = std::move(near.groups);
    result.nearDuplicateDistances = std::move(near.distances);
    result.nearDuplicateDistance = std::max(0, options.nearDuplicateDistance);
    control.report(1.0, "done");
    return result;
}

} // namespace lathe::engine
