#include "project_runs.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>

#include <algorithm>
#include <functional>

namespace lathe::ui {

QStringList listRunFolders(const QString &runsDir)
{
    QStringList runs;
    const QDir dir(runsDir);
    for (const QString &name : dir.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
        const QString path = QDir::cleanPath(dir.absoluteFilePath(name));
        if (QFileInfo::exists(QDir(path).filePath(QStringLiteral("config.json"))))
            runs << path;
    }
    return runs;
}

QStringList listCheckpoints(const QString &runDir)
{
    const QDir dir(QDir(runDir).filePath(QStringLiteral("checkpoints")));
    QStringList names;
    for (const QString &name : {QStringLiteral("best"), QStringLiteral("last")})
        if (QFileInfo::exists(dir.filePath(name + QStringLiteral(".json"))))
            names << name;
    static const QRegularExpression step(QStringLiteral("^step-(\\d+)\\.json$"));
    QList<qint64> steps;
    for (const QString &file : dir.entryList({QStringLiteral("step-*.json")}, QDir::Files)) {
        const QRegularExpressionMatch match = step.match(file);
        if (match.hasMatch())
            steps << match.captured(1).toLongLong();
    }
    std::sort(steps.begin(), steps.end(), std::greater<qint64>());
    for (qint64 s : steps)
        names << QStringLiteral("step-%1").arg(s);
    return names;
}

} // namespace lathe::ui
