#pragma once

class QApplication;

namespace lathe::ui {

// The mouse wheel edits only the setting that has keyboard focus. Over an unfocused spin box,
// combo box or slider (not a scroll bar) the wheel scrolls what encloses it, so scrolling a
// page never changes a value on the way; and a wheel no longer gives those editors focus
// (Qt::WheelFocus becomes Qt::StrongFocus as each is polished). One application-wide event
// filter covers every widget, those created later too; installing it again does nothing.
void installWheelGuard(QApplication &app);

} // namespace lathe::ui
