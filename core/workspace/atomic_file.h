#pragma once

#include <QByteArray>
#include <QString>

namespace lathe::workspace {

// engine/base/file_io's atomic replacement for the workspace and the widgets, taking Qt paths and
// bytes: one implementation, one guarantee (a unique temporary beside the file, fsynced, renamed
// over it, the folder fsynced). Readers see the old file or the new one, also after a crash;
// on failure the file keeps its old content and no temporary is left. Both throw WorkspaceError
// with the engine's message, which names the file and the reason ("<path>: cannot create
// <temporary> (No such file or directory)").

// Replaces path's content with bytes.
void writeFileAtomically(const QString &path, const QByteArray &bytes);

// For a file written elsewhere first (a download's .part, a QTemporaryFile beside path, flushed
// by its writer): fsyncs temporary, renames it over path and fsyncs the folder. temporary is
// removed on failure.
void commitTemporaryFile(const QString &temporary, const QString &path);

} // namespace lathe::workspace
