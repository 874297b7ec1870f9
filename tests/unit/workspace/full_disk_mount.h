#pragma once

// Full-disk tests (issue 21): a small tmpfs mounted in a private mount namespace of the test
// process, so it never outlives the test and nothing else sees it, and a filler that takes its
// last free byte. Mounting needs root (or a user namespace); tests skip, saying why, without it.

#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QString>

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <unistd.h>

namespace lathe::test {

inline QString errnoString(const char *call)
{
    return QString::fromLatin1(call) + QStringLiteral(": ") + QString::fromLocal8Bit(std::strerror(errno));
}

// Call first in main(), before any thread starts: unshare(CLONE_NEWNS) refuses a process whose
// threads share its file system state. Empty when done, else why not.
inline QString enterPrivateMountNamespace()
{
    if (::unshare(CLONE_NEWNS) != 0)
        return errnoString("unshare(CLONE_NEWNS)");
    if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
        return errnoString("mount --make-rprivate /");
    return {};
}

// Mounts a tmpfs of size (e.g. "4m") on dir (created). Empty when done, else why not.
inline QString mountTmpfs(const QString &dir, const char *size)
{
    QDir().mkpath(dir);
    const QByteArray options = QByteArray("size=") + size;
    if (::mount("tmpfs", QFile::encodeName(dir).constData(), "tmpfs", 0, options.constData()) != 0)
        return errnoString("mount -t tmpfs");
    return {};
}

// The tests' set-up: a tmpfs of size on dir inside the private namespace main() entered
// (namespaceError: what enterPrivateMountNamespace returned). Empty when mounted, else the
// reason to skip.
inline QString mountTestDisk(const QString &namespaceError, const QString &dir, const char *size)
{
    if (!namespaceError.isEmpty())
        return QStringLiteral("no private mount namespace here (%1)").arg(namespaceError);
    const QString error = mountTmpfs(dir, size);
    if (!error.isEmpty())
        return QStringLiteral("cannot mount a tmpfs here (%1)").arg(error);
    return {};
}

inline void unmount(const QString &dir)
{
    ::umount2(QFile::encodeName(dir).constData(), MNT_DETACH);
}

// Writes file until the file system holds no free byte (ENOSPC); returns the bytes written.
inline qint64 fillUp(const QString &file)
{
    const int fd = ::open(QFile::encodeName(file).constData(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0)
        return -1;
    qint64 total = 0;
    const QByteArray chunk(64 * 1024, 'f');
    for (int size : {64 * 1024, 4096, 512, 1}) {
        for (;;) {
            const ssize_t n = ::write(fd, chunk.constData(), std::size_t(size));
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                break;
            total += n;
        }
    }
    ::close(fd);
    return total;
}

} // namespace lathe::test
