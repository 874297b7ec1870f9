#include "evaluate/evaluation_files.h"

#include "workspace/atomic_file.h"

namespace lathe::ui {

void writeFileAtomic(const QString &path, const QByteArray &bytes)
{
    workspace::writeFileAtomically(path, bytes);
}

} // namespace lathe::ui
