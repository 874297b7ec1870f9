#pragma once

#include <QString>

namespace lathe::ui {

// Applies "system", "light" or "dark" to the running application (Fusion style + palette +
// the theme's style sheet from resources/themes), the charts included (followThemeInEveryPlot).
void applyTheme(const QString &theme);

} // namespace lathe::ui
