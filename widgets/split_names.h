#pragma once

#include <QCoreApplication>
#include <QStringList>

namespace lathe::ui {

// The catalog's split keys ("train", "val", "test") and the names the UI shows for them.
class SplitNames
{
    Q_DECLARE_TR_FUNCTIONS(lathe::ui::SplitNames)

public:
    static QStringList keys();
    static QString displayName(const QString &split);
};

} // namespace lathe::ui
