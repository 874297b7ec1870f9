#include "engine/run/run_folder.h"

#include "engine/base/clock.h"
#include "engine/base/engine_error.h"
#include "engine/base/file_io.h"
#include "engine/run/run_events.h"
#include "engine/run/run_layout.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <mutex>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace lathe::engine {
namespace {

constexpr std::size_t kMaxMetricsLine = std::size_t(1) << 20;

// A small JSON file that must hold an object; errors name the file.
nlohmann::json readJsonObject(const std::string &path, std::uintmax_t limit);

nlohmann::json readConfigFile(const std::string &path)
{
    if (!fs::exists(path))
        throw EngineError(path + ": missing (not a run folder)");
    return readJsonObject(path, std::uintmax_t(16) << 20);
}

// "step, epoch, ..." for messages.
std::string eventTypeList()
{
    std::string list;
    for (const char *type : kAllEventTypes)
        list += (list.empty() ? "" : ", ") + std::string(type);
    return list;
}

std::string localTimestamp()
{
    using namespace std::chrono;
    const auto now = system_clock::now();
    const std::time_t t = system_clock::to_time_t(now);
    std::tm tm{};
    ::localtime_r(&t, &tm);
    char buf[64];
    const auto ms = duration_cast<milliseconds>(now.time_since_epoch()).count() % 1000;
    const std::size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
    std::snprintf(buf + n, sizeof buf - n, ".%03d", static_cast<int>(ms));
    return buf;
}

int openAppend(const std::string &path)
{
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0)
        throw EngineError(path + ": cannot open for appending (" + errnoText() + ")");
    return fd;
}

// The run lock: an open-file-description lock (F_OFD_SETLK) on .lock. Like flock() it is
// released when the holder closes it or dies (kill -9 included), and it can be tested without
// taking it (F_OFD_GETLK), so a reader never makes a writer's open() fail.
struct flock wholeFile(short type)
{
    struct flock fl{};
    fl.l_type = type;
    fl.l_whence = SEEK_SET;
    fl.l_start = 0;
    fl.l_len = 0;
    return fl;
}

// The lock a writer holds; -1 when it is held elsewhere.
int tryLock(const std::string &path)
{
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        throw EngineError(path + ": cannot create the run lock (" + errnoText() + ")");
    struct flock fl = wholeFile(F_WRLCK);
    if (::fcntl(fd, F_OFD_SETLK, &fl) != 0) {
        const int err = errno;
        ::close(fd);
        if (err == EAGAIN || err == EACCES)
            return -1;
        throw EngineError(path + ": cannot lock (" + errnoText(err) + ")");
    }
    return fd;
}

// Whether a writer holds the lock; touches nothing (read-only media included).
bool lockHeld(const std::string &path)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false; // no lock file: no writer ever, or one from before locks
    struct flock fl = wholeFile(F_WRLCK);
    const bool held = ::fcntl(fd, F_OFD_GETLK, &fl) == 0 && fl.l_type != F_UNLCK;
    ::close(fd);
    return held;
}

// Cuts an unterminated last line (a kill mid-write) off metrics.jsonl. Returns the bytes cut.
std::uintmax_t cutTruncatedLine(const std::string &path)
{
    const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return 0; // no metrics yet
    struct stat st{};
    std::uintmax_t cut = 0;
    if (::fstat(fd, &st) == 0 && st.st_size > 0) {
        // Walk back in blocks to the last newline.
        off_t end = st.st_size;
        off_t keep = 0;
        char buf[4096];
        bool found = false;
        while (end > 0 && !found) {
            const off_t begin = std::max<off_t>(0, end - off_t(sizeof buf));
            const ssize_t n = ::pread(fd, buf, static_cast<std::size_t>(end - begin), begin);
            if (n != end - begin)
                break;
            for (ssize_t i = n - 1; i >= 0; --i) {
                if (buf[i] == '\n') {
                    keep = begin + i + 1;
                    found = true;
                    break;
                }
            }
            end = begin;
        }
        if (keep < st.st_size && (found || end == 0)) {
            if (::ftruncate(fd, keep) == 0)
                cut = static_cast<std::uintmax_t>(st.st_size - keep);
        }
    }
    ::close(fd);
    return cut;
}

} // namespace

std::string readSmallFile(const std::string &path, std::uintmax_t limit)
{
    std::error_code ec;
    const std::uintmax_t size = fs::file_size(path, ec);
    if (ec)
        throw EngineError(path + ": cannot read (" + ec.message() + ")");
    if (size > limit)
        throw EngineError(path + ": too large (" + std::to_string(size) + " bytes, at most " + std::to_string(limit) + ")");
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw EngineError(path + ": cannot open");
    std::string text(static_cast<std::size_t>(size), '\0');
    in.read(text.data(), static_cast<std::streamsize>(size));
    text.resize(static_cast<std::size_t>(in.gcount()));
    return text;
}

namespace {

nlohmann::json readJsonObject(const std::string &path, std::uintmax_t limit)
{
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(readSmallFile(path, limit));
    } catch (const nlohmann::json::exception &e) {
        throw EngineError(path + ": not valid JSON (" + e.what() + ")");
    }
    if (!j.is_object())
        throw EngineError(path + ": not a JSON object");
    return j;
}

} // namespace


struct RunFolder::Impl
{
    std::string dir;
    nlohmann::json config;
    int lockFd = -1;
    int metricsFd = -1;
    int logFd = -1;
    std::mutex mutex;
    std::unique_ptr<TensorBoardWriter> tensorboard;

    ~Impl()
    {
        tensorboard.reset();
        for (int fd : {metricsFd, logFd, lockFd}) {
            if (fd >= 0)
                ::close(fd);
        }
    }

    void lock()
    {
        lockFd = tryLock(run_layout::lockPath(dir));
        if (lockFd < 0)
            throw EngineError(dir + ": the run is in use (another Lathe process, or another writer in this one, holds "
                              + run_layout::lockPath(dir) + ")");
    }

    void openFiles()
    {
        metricsFd = openAppend(run_layout::metricsPath(dir));
        logFd = openAppend(run_layout::logPath(dir));
    }
};

RunFolder::RunFolder(std::unique_ptr<Impl> impl)
    : m_impl(std::move(impl))
{
}

RunFolder::RunFolder(RunFolder &&) noexcept = default;
RunFolder &RunFolder::operator=(RunFolder &&) noexcept = default;
RunFolder::~RunFolder() = default;

RunFolder RunFolder::create(const std::string &dir, const nlohmann::json &config)
{
    if (dir.empty())
        throw EngineError("run folder: no path given");
    if (!config.is_object())
        throw EngineError(dir + ": the run config must be a JSON object");
    std::error_code ec;
    if (fs::exists(dir, ec)) {
        if (!fs::is_directory(dir, ec))
            throw EngineError(dir + ": exists and is not a folder");
        if (!fs::is_empty(dir, ec))
            throw EngineError(dir + ": exists and is not empty (a run folder is never written over)");
    }
    fs::create_directories(dir, ec);
    if (ec)
        throw EngineError(dir + ": cannot create the run folder (" + ec.message() + ")");

    auto impl = std::make_unique<Impl>();
    impl->dir = dir;
    impl->config = config;
    impl->lock();
    // Checked again under the lock: a second creator racing for the same folder may have won.
    for (const auto &entry : fs::directory_iterator(dir, ec)) {
        if (entry.path().filename() != run_layout::kLockFile)
            throw EngineError(dir + ": exists and is not empty (a run folder is never written over)");
    }
    writeFileAtomically(run_layout::configPath(dir), config.dump(2) + "\n");
    fs::create_directories(run_layout::checkpointsPath(dir), ec);
    if (ec)
        throw EngineError(run_layout::checkpointsPath(dir) + ": cannot create (" + ec.message() + ")");
    impl->openFiles();
    return RunFolder(std::move(impl));
}

RunFolder RunFolder::open(const std::string &dir)
{
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        throw EngineError(dir + ": not a folder");
    auto impl = std::make_unique<Impl>();
    impl->dir = dir;
    impl->config = readConfigFile(run_layout::configPath(dir));
    impl->lock();
    fs::create_directories(run_layout::checkpointsPath(dir), ec);
    if (ec)
        throw EngineError(run_layout::checkpointsPath(dir) + ": cannot create (" + ec.message() + ")");
    const std::uintmax_t cut = cutTruncatedLine(run_layout::metricsPath(dir));
    impl->openFiles();
    RunFolder run(std::move(impl));
    if (cut > 0)
        run.log(std::string(run_layout::kMetricsFile) + ": removed a truncated last line (" + std::to_string(cut)
                + " bytes) left by an interrupted run");
    return run;
}

const std::string &RunFolder::dir() const
{
    return m_impl->dir;
}

nlohmann::json RunFolder::config() const
{
    return m_impl->config;
}

std::string RunFolder::checkpointsDir() const
{
    return run_layout::checkpointsPath(m_impl->dir);
}

void RunFolder::appendMetrics(const nlohmann::json &event)
{
    const std::string file = run_layout::metricsPath(m_impl->dir);
    if (!event.is_object())
        throw EngineError(file + ": an event must be a JSON object");
    const auto type = event.find(event_key::kType);
    if (type == event.end() || !type->is_string() || !isEventType(type->get<std::string>()))
        throw EngineError(file + ": event type must be one of " + eventTypeList() + " (got "
                          + (type == event.end() ? std::string("none") : type->dump()) + ")");
    nlohmann::json copy = event;
    if (!copy.contains(event_key::kTime))
        copy[event_key::kTime] = unixSeconds();
    // dump() escapes control characters, so the event stays one line; invalid UTF-8 is replaced
    // rather than failing a run over a file name in a message.
    std::string line = copy.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    line += '\n';
    std::lock_guard<std::mutex> lock(m_impl->mutex);
    // One write() per line: with O_APPEND a kill leaves at most this line cut short.
    writeAll(m_impl->metricsFd, line.data(), line.size(), file);
}

void RunFolder::log(const std::string &line)
{
    const std::string stamp = localTimestamp() + ' ';
    std::string text;
    std::size_t begin = 0;
    do {
        std::size_t end = line.find('\n', begin);
        if (end == std::string::npos)
            end = line.size();
        text += stamp;
        text.append(line, begin, end - begin);
        text += '\n';
        begin = end + 1;
    } while (begin < line.size());
    std::lock_guard<std::mutex> lock(m_impl->mutex);
    writeAll(m_impl->logFd, text.data(), text.size(), run_layout::logPath(m_impl->dir));
}

TensorBoardWriter &RunFolder::tensorboard()
{
    std::lock_guard<std::mutex> lock(m_impl->mutex);
    if (!m_impl->tensorboard)
        m_impl->tensorboard = std::make_unique<TensorBoardWriter>(m_impl->dir);
    return *m_impl->tensorboard;
}

std::vector<nlohmann::json> readMetrics(const std::string &runDir)
{
    const std::string path = run_layout::metricsPath(runDir);
    std::vector<nlohmann::json> events;
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        std::error_code ec;
        if (!fs::exists(path, ec))
            return events;
        throw EngineError(path + ": cannot open");
    }
    std::string line;
    std::int64_t lineNumber = 0;
    char buf[1 << 16];
    auto take = [&](bool terminated) {
        ++lineNumber;
        const bool blank = line.find_first_not_of(" \t\r") == std::string::npos;
        if (blank)
            return;
        nlohmann::json event;
        std::string reason;
        try {
            event = nlohmann::json::parse(line);
            if (!event.is_object())
                reason = "not a JSON object";
        } catch (const nlohmann::json::exception &e) {
            reason = e.what();
        }
        if (reason.empty()) {
            events.push_back(std::move(event));
        } else if (terminated) {
            // Only the unterminated last line can be a kill mid-write; anything else is damage.
            throw EngineError(path + ": line " + std::to_string(lineNumber) + ": not a JSON object (" + reason + ")");
        }
    };
    while (in) {
        in.read(buf, sizeof buf);
        const std::size_t n = static_cast<std::size_t>(in.gcount());
        std::size_t begin = 0;
        for (std::size_t i = 0; i < n; ++i) {
            if (buf[i] != '\n')
                continue;
            line.append(buf + begin, i - begin);
            if (line.size() > kMaxMetricsLine)
                throw EngineError(path + ": line " + std::to_string(lineNumber + 1) + ": longer than 1 MiB");
            take(true);
            line.clear();
            begin = i + 1;
        }
        line.append(buf + begin, n - begin);
        if (line.size() > kMaxMetricsLine)
            throw EngineError(path + ": line " + std::to_string(lineNumber + 1) + ": longer than 1 MiB");
    }
    if (!line.empty())
        take(false);
    return events;
}

bool metricLowerIsBetter(const std::string &metric)
{
    static const std::string suffix = "loss";
    return metric.size() >= suffix.size() && metric.compare(metric.size() - suffix.size(), suffix.size(), suffix) == 0;
}

namespace {

std::optional<double> numberAt(const nlohmann::json &object, const std::string &key)
{
    if (!object.is_object())
        return std::nullopt;
    const auto it = object.find(key);
    if (it != object.end() && it->is_number()) {
        const double v = it->get<double>();
        if (std::isfinite(v))
            return v;
    }
    return std::nullopt;
}

std::optional<std::int64_t> integerAt(const nlohmann::json &object, const std::string &key)
{
    if (!object.is_object())
        return std::nullopt;
    const auto it = object.find(key);
    if (it != object.end() && it->is_number_integer())
        return it->get<std::int64_t>();
    return std::nullopt;
}

// The step the sidecar last.json / best.json names, or -1.
std::int64_t sidecarStep(const std::string &path, nlohmann::json *content = nullptr)
{
    std::error_code ec;
    if (!fs::exists(path, ec))
        return -1;
    try {
        const nlohmann::json j = nlohmann::json::parse(readSmallFile(path, std::uintmax_t(64) << 20));
        if (content)
            *content = j;
        return integerAt(j, "step").value_or(-1);
    } catch (const std::exception &) {
        return -1; // a damaged pointer file only hides that detail from the summary
    }
}

} // namespace

RunInfo readRunInfo(const std::string &runDir)
{
    RunInfo info;
    info.dir = runDir;
    const nlohmann::json config = readConfigFile(run_layout::configPath(runDir));
    try {
        info.arch = config.value("/model/arch"_json_pointer, std::string("resnet18"));
        info.totalEpochs = config.value("/optimizer/epochs"_json_pointer, std::int64_t(0));
        info.bestMetric = config.value("/checkpoints/best_metric"_json_pointer, std::string("val_top1"));
    } catch (const nlohmann::json::exception &e) {
        throw EngineError(run_layout::configPath(runDir) + ": " + e.what());
    }
    const bool lower = metricLowerIsBetter(info.bestMetric);

    const std::vector<nlohmann::json> events = readMetrics(runDir);
    std::string end; // the last end event after the last start
    for (const nlohmann::json &e : events) {
        const std::string type = e.value(event_key::kType, std::string());
        const double time = numberAt(e, event_key::kTime).value_or(0);
        if (info.startTime == 0)
            info.startTime = time;
        if (time > 0)
            info.lastTime = time;
        if (const auto step = integerAt(e, event_key::kStep))
            info.lastStep = std::max(info.lastStep, *step);
        if (isEndEventType(type)) {
            end = type;
            info.message = type == event_type::kFailed ? e.value(event_key::kMessage, std::string()) : std::string();
        } else if (type == event_type::kResumed) {
            end.clear();
            info.message.clear();
        } else if (type == event_type::kEpoch) {
            info.lastEpochEvent = e;
            if (const auto epoch = integerAt(e, event_key::kEpoch))
                info.lastEpoch = *epoch;
            std::optional<double> v = numberAt(e, info.bestMetric);
            if (!v && e.contains(event_key::kMetrics))
                v = numberAt(e[event_key::kMetrics], info.bestMetric);
            if (v && (!info.bestValue || (lower ? *v < *info.bestValue : *v > *info.bestValue))) {
                info.bestValue = v;
                info.bestEpoch = integerAt(e, event_key::kEpoch).value_or(-1);
                info.bestStep = integerAt(e, event_key::kStep).value_or(-1);
            }
        }
    }

    nlohmann::json best;
    info.bestCheckpointStep = sidecarStep(run_layout::bestSidecarPath(runDir), &best);
    info.lastCheckpointStep = sidecarStep(run_layout::lastSidecarPath(runDir));
    if (!info.bestValue && info.bestCheckpointStep >= 0) {
        // The trainer may have kept best by another metric (e.g. no validation split): say which.
        if (best.contains("best_metric") && best["best_metric"].is_string())
            info.bestMetric = best["best_metric"].get<std::string>();
        info.bestValue = numberAt(best, "best_value");
        // A sidecar's "epoch" is the epoch in progress when it was written: at an epoch's end
        // (batch_in_epoch 0) that is the next one, so the epoch that made it best is one before.
        const std::int64_t epoch = integerAt(best, "epoch").value_or(-1);
        info.bestEpoch = epoch > 0 && integerAt(best, "batch_in_epoch").value_or(0) == 0 ? epoch - 1 : epoch;
        info.bestStep = info.bestCheckpointStep;
    }

    info.state = lockHeld(run_layout::lockPath(runDir)) ? run_state::kRunning : end.empty() ? run_state::kInterrupted : end;
    return info;
}

// ---- annotations ----------------------------------------------------------------------------

RunAnnotations readRunAnnotations(const std::string &runDir)
{
    const std::string path = run_layout::annotationsPath(runDir);
    RunAnnotations a;
    std::error_code ec;
    if (!fs::exists(path, ec))
        return a;
    const nlohmann::json j = readJsonObject(path, std::uintmax_t(4) << 20);
    const auto text = [&](const char *key, std::string &out) {
        const auto it = j.find(key);
        if (it == j.end() || it->is_null())
            return;
        if (!it->is_string())
            throw EngineError(path + ": " + key + " must be a string");
        out = it->get<std::string>();
    };
    text("display_name", a.displayName);
    text("notes", a.notes);
    if (const auto tags = j.find("tags"); tags != j.end() && !tags->is_null()) {
        if (!tags->is_array())
            throw EngineError(path + ": tags must be an array of strings");
        for (const nlohmann::json &tag : *tags) {
            if (!tag.is_string())
                throw EngineError(path + ": tags must be an array of strings");
            a.tags.push_back(tag.get<std::string>());
        }
    }
    return a;
}

void writeRunAnnotations(const std::string &runDir, const RunAnnotations &annotations)
{
    std::error_code ec;
    if (!fs::is_directory(runDir, ec))
        throw EngineError(runDir + ": not a folder");
    const auto trimmed = [](const std::string &s) {
        const std::size_t begin = s.find_first_not_of(" \t\r\n");
        return begin == std::string::npos ? std::string() : s.substr(begin, s.find_last_not_of(" \t\r\n") - begin + 1);
    };
    std::vector<std::string> tags;
    for (const std::string &tag : annotations.tags) {
        const std::string t = trimmed(tag);
        if (!t.empty() && std::find(tags.begin(), tags.end(), t) == tags.end())
            tags.push_back(t);
    }
    const nlohmann::json j = {{"version", 1},
                              {"display_name", trimmed(annotations.displayName)},
                              {"notes", annotations.notes},
                              {"tags", tags}};
    writeFileAtomically(run_layout::annotationsPath(runDir),
                        j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

// ---- checkpoints ----------------------------------------------------------------------------

namespace {

constexpr std::uintmax_t kMaxSidecar = std::uintmax_t(64) << 20;

nlohmann::json readSidecar(const fs::path &path)
{
    nlohmann::json j = readJsonObject(path.string(), kMaxSidecar);
    if (!j.contains("files") || !j["files"].is_object() || !j["files"].contains("model"))
        throw EngineError(path.string() + ": not a checkpoint sidecar (no files.model)");
    return j;
}

std::string fileName(const nlohmann::json &sidecar, const char *key)
{
    const nlohmann::json &files = sidecar["files"];
    if (!files.contains(key) || !files[key].is_object() || !files[key].contains("name") || !files[key]["name"].is_string())
        return {};
    const std::string name = files[key]["name"].get<std::string>();
    return name.find('/') == std::string::npos && name != ".." ? name : std::string();
}

// Fills an entry from a sidecar: step, epoch, metrics, files and whether they are complete.
CheckpointEntry entryOf(const fs::path &sidecarPath, const std::string &name)
{
    CheckpointEntry e;
    e.name = name;
    e.sidecar = sidecarPath.string();
    try {
        const nlohmann::json j = readSidecar(sidecarPath);
        e.step = integerAt(j, "step").value_or(-1);
        e.epoch = integerAt(j, "epoch").value_or(-1);
        e.metrics = j.contains("metrics") && j["metrics"].is_object() ? j["metrics"] : nlohmann::json::object();
        for (const char *key : {"model", "state"}) {
            const std::string file = fileName(j, key);
            if (file.empty()) {
                if (std::string(key) == "model")
                    e.problem = "files.model names no file in the checkpoint folder";
                continue;
            }
            const fs::path path = sidecarPath.parent_path() / file;
            if (std::string(key) == "model")
                e.model = path.string();
            std::error_code ec;
            const std::uintmax_t size = fs::file_size(path, ec);
            const std::uintmax_t recorded = j["files"][key].value("bytes", std::uintmax_t(0));
            if (ec)
                e.problem = file + " is missing";
            else if (size != recorded)
                e.problem = file + " has " + std::to_string(size) + " bytes, the sidecar records " + std::to_string(recorded);
            else
                e.bytes += size;
        }
    } catch (const std::exception &error) { // EngineError, or a field of the wrong JSON type
        e.problem = error.what();
    }
    return e;
}

void refuseWhileRunning(const std::string &runDir, const std::string &what)
{
    if (lockHeld(run_layout::lockPath(runDir)))
        throw EngineError(runDir + ": " + what + " while the run is running (the trainer writes best.* and last.*); "
                          "stop it or wait until it ends");
}

} // namespace

std::vector<CheckpointEntry> listCheckpoints(const std::string &runDir)
{
    const fs::path folder = run_layout::checkpointsPath(runDir);
    std::vector<CheckpointEntry> entries;
    std::error_code ec;
    if (!fs::is_directory(folder, ec))
        return entries;
    nlohmann::json best;
    const std::int64_t bestStep = sidecarStep((folder / run_layout::kBestSidecar).string(), &best);
    const std::int64_t lastStep = sidecarStep((folder / run_layout::kLastSidecar).string());
    for (const auto &item : fs::directory_iterator(folder, ec)) {
        if (item.path().extension() != run_layout::kSidecarSuffix)
            continue;
        const std::string stem = item.path().stem().string();
        if (run_layout::stepOfStem(stem) >= 0)
            entries.push_back(entryOf(item.path(), stem));
    }
    const auto hasStep = [&](std::int64_t step) {
        return std::any_of(entries.begin(), entries.end(), [&](const CheckpointEntry &e) { return e.step == step; });
    };
    // Aliases whose step files were pruned (or keep 0): they are checkpoints of their own.
    if (lastStep >= 0 && !hasStep(lastStep))
        entries.push_back(entryOf(folder / run_layout::kLastSidecar, run_layout::kLastAlias));
    if (bestStep >= 0 && !hasStep(bestStep))
        entries.push_back(entryOf(folder / run_layout::kBestSidecar, run_layout::kBestAlias));
    const bool chosen = best.is_object() && best.value("chosen_by_user", false);
    for (CheckpointEntry &e : entries) {
        e.best = e.step >= 0 && e.step == bestStep;
        e.last = e.step >= 0 && e.step == lastStep;
        e.chosenByUser = e.best && chosen;
    }
    std::sort(entries.begin(), entries.end(), [](const CheckpointEntry &a, const CheckpointEntry &b) {
        return a.step != b.step ? a.step < b.step : a.name < b.name;
    });
    return entries;
}

void markBestCheckpoint(const std::string &runDir, const std::string &name)
{
    refuseWhileRunning(runDir, "cannot change the best checkpoint");
    const fs::path folder = run_layout::checkpointsPath(runDir);
    if (name != run_layout::kLastAlias && run_layout::stepOfStem(name) < 0)
        throw EngineError(name + ": not a checkpoint name (step-<n> or last)");
    const CheckpointEntry source = entryOf(folder / (name + run_layout::kSidecarSuffix), name);
    if (!source.problem.empty())
        throw EngineError(source.sidecar + ": " + source.problem);
    nlohmann::json best = readSidecar(source.sidecar);
    const nlohmann::json config = readConfigFile(run_layout::configPath(runDir));
    std::string metric = config.value("/checkpoints/best_metric"_json_pointer, std::string("val_top1"));
    nlohmann::json previous;
    if (sidecarStep((folder / run_layout::kBestSidecar).string(), &previous) >= 0 && previous.contains("best_metric") &&
        previous["best_metric"].is_string() && !previous["best_metric"].get<std::string>().empty())
        metric = previous["best_metric"].get<std::string>(); // the metric the trainer kept best.* by
    const std::string bestModel = std::string(run_layout::kBestAlias) + run_layout::kModelSuffix;
    std::error_code ec;
    // The old best.json goes before best.safetensors changes, so a kill in between never leaves
    // it vouching for the new weights (same sizes); best is then absent until it is written.
    fs::remove(folder / run_layout::kBestSidecar, ec);
    syncFolder(folder);
    replaceWithLink(source.model, (folder / bestModel).string());
    // best.* never carries training state.
    fs::remove(folder / (std::string(run_layout::kBestAlias) + run_layout::kStateSuffix), ec);
    if (!best.contains("source") || !best["source"].is_string()) // last.json already names its step file
        best["source"] = fs::path(source.model).filename().string();
    best["files"]["model"]["name"] = bestModel;
    best["files"].erase("state");
    best["best_metric"] = metric;
    if (const auto value = numberAt(source.metrics, metric))
        best["best_value"] = *value;
    else
        best.erase("best_value");
    best["chosen_by_user"] = true;
    writeFileAtomically((folder / run_layout::kBestSidecar).string(),
                        best.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

void deleteCheckpoint(const std::string &runDir, const std::string &name)
{
    const std::int64_t step = run_layout::stepOfStem(name);
    if (step < 0)
        throw EngineError(name + ": only step checkpoints can be deleted (best and last are kept by the run)");
    const fs::path folder = run_layout::checkpointsPath(runDir);
    if (lockHeld(run_layout::lockPath(runDir))) {
        std::int64_t newest = -1;
        for (const CheckpointEntry &e : listCheckpoints(runDir))
            newest = std::max(newest, e.step);
        if (step == newest)
            throw EngineError(name + ": the running job resumes from its newest checkpoint; it cannot be deleted now");
    }
    const fs::path sidecar = folder / (name + run_layout::kSidecarSuffix);
    std::error_code ec;
    if (!fs::exists(sidecar, ec))
        throw EngineError(sidecar.string() + ": no such checkpoint");
    // Sidecar first: a kill meanwhile never leaves a sidecar naming a deleted file.
    for (const char *suffix : {run_layout::kSidecarSuffix, run_layout::kModelSuffix, run_layout::kStateSuffix}) {
        fs::remove(folder / (name + suffix), ec);
        if (ec)
            throw EngineError((folder / (name + suffix)).string() + ": cannot delete (" + ec.message() + ")");
    }
    syncFolder(folder);
}

} // namespace lathe::engine
