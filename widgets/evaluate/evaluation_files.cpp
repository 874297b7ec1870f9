#include "evaluate/evaluation_files.h"

#include "workspace/workspace_error.h"

#include <QCoreApplication>
#include <QSaveFile>

namespace lathe::ui {

QString csvField(QString text)
{
    if (text.contains(QLatin1Char(',')) || text.contains(QLatin1Char('"')) || text.contains(QLatin1Char('\n'))) {
        text.replace(QLatin1String("\""), QLatin1String("\"\""));
        return QLatin1Char('"') + text + QLatin1Char('"');
    }
    return text;
}

void writeFileAtomic(const QString &path, const QByteArray &bytes)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit())
        throw workspace::WorkspaceError(
            QCoreApplication::translate("lathe::ui::EvaluatePage", "%1: cannot write the file (%2)").arg(path, file.errorString()));
}

} // namespace lathe::ui
