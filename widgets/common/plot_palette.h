#pragma once

class QCustomPlot;
class QPalette;

namespace lathe::ui {

// Colours a QCustomPlot's background, legend, axes and grid from a widget palette (light and
// dark themes alike) and replots it.
void applyPlotPalette(QCustomPlot *plot, const QPalette &palette);

} // namespace lathe::ui
