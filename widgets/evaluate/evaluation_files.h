#pragma once

#include <QByteArray>
#include <QString>

namespace lathe::ui {

// Writing what the Evaluate page saves (metrics, the confusion matrix, prediction results):
// shared by the page and its Predict tab, called on worker threads.

// Writes bytes to path atomically (workspace::writeFileAtomically: a unique temporary, fsynced,
// renamed over it, the folder fsynced), so a failed save never leaves half a file; throws
// workspace::WorkspaceError naming the file and the reason.
void writeFileAtomic(const QString &path, const QByteArray &bytes);

} // namespace lathe::ui
