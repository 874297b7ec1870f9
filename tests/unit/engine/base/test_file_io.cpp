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

#include <sched.h>

#include <fcntl.h>
#include <sys/mount.h>
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
        const bool named = error.find(path + ": the disk is full (File too large)") != std::string::npos;
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

TEST(FileIo, NoRoomToWriteIsOneMessageNamingTheFile)
{
    for (const int error : {ENOSPC, EDQUOT, EFBIG}) {
        EXPECT_TRUE(engine::isDiskFull(error));
        EXPECT_EQ(engine::writeErrorMessage("/d/x.bin", "write", error),
                  "/d/x.bin: the disk is full (" + engine::errnoText(error) + ")");
    }
    EXPECT_FALSE(engine::isDiskFull(EIO));
    EXPECT_EQ(engine::writeErrorMessage("/d/x.bin", "fsync", EIO), "/d/x.bin: cannot fsync (" + engine::errnoText(EIO) + ")");
}

TEST(FileIo, AFullFileSystemKeepsTheOldFileAndSaysTheDiskIsFull)
{
    // A 1 MiB tmpfs in a private mount namespace of a child process (root only: the test is
    // skipped where mounting is not allowed). The old file survives a replacement that does not
    // fit, and the same replacement succeeds once there is room again.
    TempDir tmp;
    const std::string mountPoint = tmp.file("small");
    fs::create_directory(mountPoint);
    int pipeFds[2];
    ASSERT_EQ(::pipe(pipeFds), 0);
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        ::close(pipeFds[0]);
        auto report = [&](const std::string &text, int code) {
            (void)!::write(pipeFds[1], text.data(), text.size());
            ::_exit(code);
        };
        if (::unshare(CLONE_NEWNS) != 0 || ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0
            || ::mount("tmpfs", mountPoint.c_str(), "tmpfs", 0, "size=1m") != 0)
            report("cannot mount a tmpfs here (" + engine::errnoText() + ")", 77);
        const std::string path = mountPoint + "/weights.bin";
        try {
            engine::writeFileAtomically(path, std::string(600 * 1024, 'a'));
            const std::string error = errorOf([&] { engine::writeFileAtomically(path, std::string(600 * 1024, 'b')); });
            if (error != path + ": the disk is full (No space left on device)")
                report("unexpected error: " + error, 1);
            if (readFile(path) != std::string(600 * 1024, 'a') || namesIn(mountPoint) != std::vector<std::string>{"weights.bin"})
                report("the old file or the folder changed", 1);
            fs::remove(path);
            engine::writeFileAtomically(path, std::string(600 * 1024, 'b'));
            if (readFile(path) != std::string(600 * 1024, 'b'))
                report("the write with room failed", 1);
        } catch (const std::exception &e) {
            report(e.what(), 1);
        }
        report("", 0);
    }
    ::close(pipeFds[1]);
    std::string text;
    char buffer[512];
    for (ssize_t n; (n = ::read(pipeFds[0], buffer, sizeof buffer)) > 0;)
        text.append(buffer, std::size_t(n));
    ::close(pipeFds[0]);
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status));
    if (WEXITSTATUS(status) == 77)
        GTEST_SKIP() << text;
    EXPECT_EQ(WEXITSTATUS(status), 0) << text;
}
