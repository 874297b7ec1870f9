#include "workspace/atomic_file.h"

#include "engine/base/engine_error.h"
#include "engine/base/file_io.h"
#include "workspace/workspace_error.h"

#include <QFile>

#include <string_view>

namespace lathe::workspace {
namespace {

std::string nativePath(const QString &path)
{
    return QFile::encodeName(path).toStdString();
}

} // namespace

void writeFileAtomically(const QString &path, const QByteArray &bytes)
{
    try {
        engine::writeFileAtomically(nativePath(path), std::string_view(bytes.constData(), std::size_t(bytes.size())));
    } catch (const engine::EngineError &e) {
        throw WorkspaceError(QString::fromUtf8(e.what()));
    }
}

void commitTemporaryFile(const QString &temporary, const QString &path)
{
    try {
        engine::commitTemporaryFile(nativePath(temporary), nativePath(path));
    } catch (const engine::EngineError &e) {
        throw WorkspaceError(QString::fromUtf8(e.what()));
    }
}

} // namespace lathe::workspace
