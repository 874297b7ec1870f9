#pragma once

#include <filesystem>

namespace lathe::engine {

// A folder written under a hidden temporary name beside its final place and renamed there by
// commit(): a cancelled, failed or killed writer leaves nothing under the final name.
class StagingFolder
{
public:
    // Throws EngineError when the final path exists and is not an empty folder.
    explicit StagingFolder(const std::filesystem::path &finalPath);
    ~StagingFolder(); // removes the temporary folder unless committed
    StagingFolder(const StagingFolder &) = delete;
    StagingFolder &operator=(const StagingFolder &) = delete;

    const std::filesystem::path &path() const { return m_path; }
    const std::filesystem::path &finalPath() const { return m_final; }

    // Checks the final path again (it may have been filled meanwhile: never overwrite a
    // user's files) and renames the temporary folder to it.
    void commit();

    // The check of the constructor: absent, or an empty folder.
    static void checkTarget(const std::filesystem::path &finalPath);

private:
    std::filesystem::path m_final;
    std::filesystem::path m_path;
    bool m_committed = false;
};

} // namespace lathe::engine
