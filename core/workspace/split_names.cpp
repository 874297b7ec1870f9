#include "workspace/split_names.h"

namespace lathe::workspace {

QStringList SplitNames::keys()
{
    return {QStringLiteral("train"), QStringLiteral("val"), QStringLiteral("test")};
}

QString SplitNames::displayName(const QString &split)
{
    if (split == QLatin1String("train"))
        return tr("Training");
    if (split == QLatin1String("val"))
        return tr("Validation");
    if (split == QLatin1String("test"))
        return tr("Test");
    return split;
}

} // namespace lathe::workspace
