#include "evaluate/evaluation_files.h"

#include "workspace/workspace_error.h"

#include <QCoreApplication>
#include <QSaveFile>

namespace lathe::ui {

void writeFileAtomic(const QString &path, const QByteArray &bytes)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit())
        throw workspace::WorkspaceError(
            QCoreApplication::translate("lathe::ui::EvaluatePage", "%1: cannot write the file (%2)").arg(path, file.errorString()));
}

} // namespace lathe::ui
