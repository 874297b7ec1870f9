#pragma once

#include <QCoreApplication>
#include <QStringList>

namespace lathe::workspace {

// The catalog's split keys ("train", "val", "test") and the names the UI shows for them.
class SplitNames
{
    Q_DECLARE_TR_FUNCTIONS(lathe::workspace::SplitNames)

public:
    static QStringList keys();
    static QString displayName(const QString &split);
};

} // namespace lathe::workspace
