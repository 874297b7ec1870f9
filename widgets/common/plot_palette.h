#pragma once

class QCustomPlot;
class QCPRange;
class QPalette;

namespace lathe::ui {

// Colours a QCustomPlot from a widget palette (light and dark themes alike): background,
// legend, every axis and grid, the text elements (titles); and replots it. Graph colours stay.
void applyPlotPalette(QCustomPlot *plot, const QPalette &palette);

// From now on every QCustomPlot of the application takes its palette when it is polished and
// whenever the palette changes (a theme switch): no chart stays light in the dark theme, those
// created later included. applyTheme() calls it; calling it again does nothing.
void followThemeInEveryPlot();

// Moves the legend out of the axis rect into a row of its own above it, centred, without a
// frame: it never covers a point. Its entries sit side by side, in as many rows as the plot's
// width needs (fitted again before each replot).
void placeLegendAbove(QCustomPlot *plot);

// The fraction of an axis range added beyond its extreme points (each side), so that a point
// or a line at the minimum or maximum is drawn whole, not clipped by the axis rect.
inline constexpr double kPlotPadding = 0.04;

// The range widened by kPlotPadding of its size on each side (of its value when it is a single
// point), so that its extreme points are drawn whole.
QCPRange paddedRange(const QCPRange &range);

// Rescales every axis of the plot to its graphs and pads each range as paddedRange() does.
void rescaleWithPadding(QCustomPlot *plot);

} // namespace lathe::ui
