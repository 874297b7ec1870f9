#include "engine/base/staging_folder.h"

#include "engine/base/engine_error.h"
#include "engine/base/file_io.h"

#include <cerrno>
#include <csignal>
#include <string>

#include <unistd.h>

namespace fs = std::filesystem;

namespace lathe::engine {
namespace {

// Removes the staging folders of earlier writers of the same final folder that were killed
// (kill -9, power loss): ".NAME.partial-PID" whose process no longer exists. A folder whose pid
// is alive (a writer at work, or an unrelated process that reused the pid) is left alone.
void removeDeadLeftovers(const fs::path &finalPath)
{
    const std::string prefix = "." + finalPath.filename().string() + ".partial-";
    std::error_code ec;
    for (fs::directory_iterator it(finalPath.parent_path(), ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.compare(0, prefix.size(), prefix) != 0)
            continue;
        const std::string digits = name.substr(prefix.size());
        if (digits.empty() || digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos)
            continue;
        const pid_t pid = static_cast<pid_t>(std::stol(digits));
        if (pid > 0 && ::kill(pid, 0) != 0 && errno == ESRCH) {
            std::error_code ignored;
            fs::remove_all(it->path(), ignored);
        }
    }
}

} // namespace

void StagingFolder::checkTarget(const fs::path &finalPath)
{
    std::error_code ec;
    if (!fs::exists(finalPath, ec))
        return;
    if (!fs::is_directory(finalPath, ec))
        throw EngineError(finalPath.string() + ": exists and is not a folder");
    if (!fs::is_empty(finalPath, ec))
        throw EngineError(finalPath.string() + ": folder is not empty; choose a new or empty folder");
}

StagingFolder::StagingFolder(const fs::path &finalPath)
    : m_final(fs::absolute(finalPath).lexically_normal())
{
    checkTarget(m_final);
    m_path = m_final.parent_path() / ("." + m_final.filename().string() + ".partial-" + std::to_string(::getpid()));
    std::error_code ec;
    fs::remove_all(m_path, ec); // a leftover of an earlier process with the same pid
    removeDeadLeftovers(m_final);
    fs::create_directories(m_path, ec);
    if (ec)
        throw EngineError(writeErrorMessage(m_path.string(), "create", ec.value()));
}

StagingFolder::~StagingFolder()
{
    if (!m_committed) {
        std::error_code ignored;
        fs::remove_all(m_path, ignored);
    }
}

void StagingFolder::commit()
{
    checkTarget(m_final);
    std::error_code ec;
    fs::remove(m_final, ec); // an empty folder, if any
    fs::rename(m_path, m_final, ec);
    if (ec)
        throw EngineError(writeErrorMessage(m_final.string(), "move the finished folder into place", ec.value()));
    m_committed = true;
}

} // namespace lathe::engine
