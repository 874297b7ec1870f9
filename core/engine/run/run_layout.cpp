#include "engine/run/run_layout.h"

#include <algorithm>
#include <filesystem>

namespace fs = std::filesystem;

namespace lathe::engine::run_layout {
namespace {

std::string in(const std::string &runDir, const char *name)
{
    return (fs::path(runDir) / name).string();
}

} // namespace

std::string configPath(const std::string &runDir)
{
    return in(runDir, kConfigFile);
}

std::string metricsPath(const std::string &runDir)
{
    return in(runDir, kMetricsFile);
}

std::string logPath(const std::string &runDir)
{
    return in(runDir, kLogFile);
}

std::string annotationsPath(const std::string &runDir)
{
    return in(runDir, kAnnotationsFile);
}

std::string lockPath(const std::string &runDir)
{
    return in(runDir, kLockFile);
}

std::string checkpointsPath(const std::string &runDir)
{
    return in(runDir, kCheckpointsFolder);
}

std::string lastSidecarPath(const std::string &runDir)
{
    return (fs::path(runDir) / kCheckpointsFolder / kLastSidecar).string();
}

std::string bestSidecarPath(const std::string &runDir)
{
    return (fs::path(runDir) / kCheckpointsFolder / kBestSidecar).string();
}

std::string stepStem(std::int64_t step)
{
    return kStepPrefix + std::to_string(step);
}

std::int64_t stepOfStem(const std::string &stem)
{
    const std::string prefix = kStepPrefix;
    // At most 18 digits: every such number fits in an int64.
    if (stem.size() <= prefix.size() || stem.size() > prefix.size() + 18 || stem.compare(0, prefix.size(), prefix) != 0)
        return -1;
    const auto digit = [](char c) { return c >= '0' && c <= '9'; };
    if (!std::all_of(stem.begin() + std::ptrdiff_t(prefix.size()), stem.end(), digit))
        return -1;
    return std::stoll(stem.substr(prefix.size()));
}

} // namespace lathe::engine::run_layout

namespace lathe::engine {

bool isRunFolder(const std::string &dir)
{
    std::error_code ec;
    return !dir.empty() && fs::is_regular_file(run_layout::configPath(dir), ec);
}

} // namespace lathe::engine
