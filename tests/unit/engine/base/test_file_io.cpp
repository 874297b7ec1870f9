// base/file_io: the engine's one implementation of atomic file replacement, write-all, folder
// fsync and errno text.
#include "engine/base/engine_error.h"
#include "engine/base/file_io.h"
#include "test_support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <csignal>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace lathe;
using lathe::test::errorOf;
using lathe::test::TempDir;
namespace fs = std::filesystem;

namespace {

std::string readFile(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

// The names in folder (files and folders), sorted.
std::vector<std::string> namesIn(const fs::path &folder)
{
    std::vector<std::string> names;
    for (const auto &e : fs::directory_iterator(folder))
        names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

} // namespace

TEST(FileIo, ErrnoTextIsTheSystemsMessage)
{
    EXPECT_EQ(engine::errnoText(ENOENT), "No such file or directory");
    errno = EACCES;
    EXPECT_EQ(engine::errnoText(), "Permission denied");
}

TEST(FileIo, WritesNewFilesAndReplacesOldOnes)
{
    TempDir tmp;
    const std::string path = tmp.file("report.json");
    engine::writeFileAtomically(path, std::string("{\"a\": 1}\n"));
    EXPECT_EQ(readFile(path), "{\"a\": 1}\n");

    engine::writeFileAtomically(path, std::string_view("short"));
    EXPECT_EQ(readFile(path), "short"); // replaced, not overwritten in place

    // Pieces are written in order; empty ones and bytes that are not text are fine.
    const std::string binary("\0\x01\xff", 3);
    engine::writeFileAtomically(path, std::vector<std::string_view>{"head:", "", binary, ":tail"});
    EXPECT_EQ(readFile(path), "head:" + binary + ":tail");

    engine::writeFileAtomically(path, std::string_view());
    EXPECT_TRUE(fs::exists(path));
    EXPECT_EQ(fs::file_size(path), 0u);

    // Nothing but the target is left: no temporary file of any of the writes.
    EXPECT_EQ(namesIn(tmp.path()), std::vector<std::string>{"report.json"});
}

TEST(FileIo, ReplacingKeepsAHardLinkedOldVersionIntact)
{
    // Atomic replacement is a rename, never a write into the old file: another name of the old
    // data (a checkpoint's best.* link, a reader holding it open) keeps the old content.
    TempDir tmp;
    const std::string path = tmp.file("last.json");
    engine::writeFileAtomically(path, std::string_view("old"));
    fs::create_hard_link(path, tmp.file("best.json"));
    engine::writeFileAtomically(path, std::string_view("new"));
    EXPECT_EQ(readFile(path), "new");
    EXPECT_EQ(readFile(tmp.file("best.json")), "old");
}

TEST(FileIo, AFailedWriteLeavesNoTemporaryAndNamesTheFile)
{
    TempDir tmp;
    // The target is a folder: the rename fails after the data was written.
    const std::string folder = tmp.file("metrics.json");
    fs::create_directories(folder);
    const std::string error = errorOf([&] { engine::writeFileAtomically(folder, std::string_view("x")); });
    EXPECT_NE(error.find(folder + ": "), std::string::npos) << error;
    EXPECT_NE(error.find("cannot rename"), std::string::npos) << error;
    EXPECT_TRUE(fs::is_directory(folder));
    EXPECT_EQ(namesIn(tmp.path()), std::vector<std::string>{"metrics.json"});

    // The folder does not exist: nothing can be created.
    const std::string missing = tmp.file("no/such/folder/file.csv");
    const std::string error2 = errorOf([&] { engine::writeFileAtomically(missing, std::string_view("x")); });
    EXPECT_NE(error2.find(missing + ": cannot create"), std::string::npos) << error2;
    EXPECT_NE(error2.find("No such file or directory"), std::string::npos) << error2;

    EXPECT_NE(errorOf([] { engine::writeFileAtomically("", std::string_view("x")); }), "");
}

TEST(FileIo, AWriteThatFailsMidwayKeepsTheOldFileAndNoTemporary)
{
    // A file size limit makes write() fail part way (EFBIG), as a full disk would; root is
    // subject to it too. In a child process, so the limit stays there.
    TempDir tmp;
    const std::string path = tmp.file("predictions.jsonl");
    engine::writeFileAtomically(path, std::string_view("old"));
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        std::signal(SIGXFSZ, SIG_IGN);
        const rlimit limit{1024, 1024};
        ::setrlimit(RLIMIT_FSIZE, &limit);
        const std::string error = errorOf([&] { engine::writeFileAtomically(path, std::string(4096, 'x')); });
        const bool named = error.find(path + ": cannot write (File too large)") != std::string::npos;
        ::_exit(named ? 0 : 1);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0) << "the error did not name the file and the reason";
    EXPECT_EQ(readFile(path), "old");
    EXPECT_EQ(namesIn(tmp.path()), std::vector<std::string>{"predictions.jsonl"});
}

TEST(FileIo, AFolderWithoutWritePermissionKeepsItsOldFile)
{
    if (::geteuid() == 0)
        GTEST_SKIP() << "root writes into read-only folders";
    TempDir tmp;
    const fs::path folder = tmp.path() / "read-only";
    fs::create_directories(folder);
    const std::string path = (folder / "config.json").string();
    engine::writeFileAtomically(path, std::string_view("old"));
    fs::permissions(folder, fs::perms::owner_read | fs::perms::owner_exec);
    const std::string error = errorOf([&] { engine::writeFileAtomically(path, std::string_view("new")); });
    fs::permissions(folder, fs::perms::owner_all);
    EXPECT_NE(error.find(path + ": cannot create"), std::string::npos) << error;
    EXPECT_NE(error.find("Permission denied"), std::string::npos) << error;
    EXPECT_EQ(readFile(path), "old");
    EXPECT_EQ(namesIn(folder), std::vector<std::string>{"config.json"});
}

TEST(FileIo, TemporaryNamesAreHiddenUniqueAndRecognised)
{
    const std::string a = engine::temporaryPathFor("/runs/r1/checkpoints/step-5.safetensors");
    const std::string b = engine::temporaryPathFor("/runs/r1/checkpoints/step-5.safetensors");
    EXPECT_NE(a, b);
    EXPECT_EQ(fs::path(a).parent_path(), "/runs/r1/checkpoints"); // beside the target: rename never crosses file systems
    EXPECT_EQ(fs::path(a).filename().string().rfind(".step-5.safetensors.tmp-", 0), 0u) << a;
    EXPECT_TRUE(engine::isTemporaryName(fs::path(a).filename().string()));
    EXPECT_EQ(fs::path(engine::temporaryPathFor("file")).parent_path(), ".");
    EXPECT_FALSE(engine::isTemporaryName("step-5.safetensors"));
    EXPECT_FALSE(engine::isTemporaryName("step-8.safetensors.tmp")); // not ours: left alone
}

TEST(FileIo, WriteAllWritesEverythingAndNamesTheFileOnFailure)
{
    TempDir tmp;
    const std::string path = tmp.file("log.txt");
    engine::FileDescriptor fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
    ASSERT_TRUE(fd.valid());
    const std::string text(3 << 20, 'z');
    engine::writeAll(fd.get(), text.data(), text.size(), path);
    fd.reset();
    EXPECT_FALSE(fd.valid());
    EXPECT_EQ(readFile(path), text);

    engine::FileDescriptor readOnly(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    ASSERT_TRUE(readOnly.valid());
    const std::string error = errorOf([&] { engine::writeAll(readOnly.get(), "x", 1, path); });
    EXPECT_EQ(error, path + ": cannot write (Bad file descriptor)");
}

TEST(FileIo, FileDescriptorClosesOnceAndMoves)
{
    TempDir tmp;
    const std::string path = tmp.file("a");
    int raw = -1;
    {
        engine::FileDescriptor fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
        raw = fd.get();
        engine::FileDescriptor moved(std::move(fd));
        EXPECT_FALSE(fd.valid());
        EXPECT_EQ(moved.get(), raw);
        EXPECT_NE(::fcntl(raw, F_GETFD), -1); // still open
    }
    EXPECT_EQ(::fcntl(raw, F_GETFD), -1); // closed by the moved-to owner
    engine::FileDescriptor none;
    EXPECT_EQ(none.release(), -1);
}

TEST(FileIo, SyncFolderIsBestEffort)
{
    TempDir tmp;
    EXPECT_NO_THROW(engine::syncFolder(tmp.path()));
    EXPECT_NO_THROW(engine::syncFolder(tmp.path() / "missing"));
    EXPECT_NO_THROW(engine::syncFolder(""));
}

TEST(FileIo, ReplaceWithLinkSharesTheDataAndReplacesAtomically)
{
    TempDir tmp;
    const std::string source = tmp.file("step-4.safetensors");
    const std::string target = tmp.file("best.safetensors");
    engine::writeFileAtomically(source, std::string_view("weights of step 4"));
    engine::writeFileAtomically(target, std::string_view("older best"));
    engine::replaceWithLink(source, target);
    EXPECT_EQ(readFile(target), "weights of step 4");
    EXPECT_TRUE(fs::equivalent(source, target));
    EXPECT_EQ(namesIn(tmp.path()), (std::vector<std::string>{"best.safetensors", "step-4.safetensors"}));

    const std::string error = errorOf([&] { engine::replaceWithLink(tmp.file("missing"), target); });
    EXPECT_NE(error.find("missing: cannot open"), std::string::npos) << error;
    EXPECT_EQ(readFile(target), "weights of step 4");
    EXPECT_EQ(namesIn(tmp.path()), (std::vector<std::string>{"best.safetensors", "step-4.safetensors"}));
}

TEST(FileIo, CommitTemporaryFileRenamesAFileWrittenElsewhere)
{
    TempDir tmp;
    const std::string path = tmp.file("model.pt");
    engine::writeFileAtomically(path, std::string_view("old archive"));
    const std::string temp = engine::temporaryPathFor(path);
    std::ofstream(temp, std::ios::binary) << "new archive"; // as a library's own writer would
    engine::commitTemporaryFile(temp, path);
    EXPECT_EQ(readFile(path), "new archive");
    EXPECT_EQ(namesIn(tmp.path()), std::vector<std::string>{"model.pt"});

    // The temporary is gone after a failure too (here: the library wrote nothing).
    const std::string missing = engine::temporaryPathFor(path);
    const std::string error = errorOf([&] { engine::commitTemporaryFile(missing, path); });
    EXPECT_NE(error.find(path + ": cannot open"), std::string::npos) << error;
    const std::string folder = tmp.file("folder");
    fs::create_directories(folder);
    const std::string temp2 = engine::temporaryPathFor(folder);
    std::ofstream(temp2) << "x";
    EXPECT_NE(errorOf([&] { engine::commitTemporaryFile(temp2, folder); }).find(folder + ": cannot rename"), std::string::npos);
    EXPECT_EQ(readFile(path), "new archive");
    EXPECT_EQ(namesIn(tmp.path()), (std::vector<std::string>{"folder", "model.pt"}));
}
