#pragma once

#include <QString>

class QLabel;
class QWidget;

namespace lathe::ui {

// The user guide on this machine: share/doc/lathe/docs/ beside the installed program, or the
// source tree's docs/ when it runs from the build tree; empty when neither is there.
QString documentationFolder();

// "<a href=…troubleshooting.md#anchor>What to do</a>" for a section of the troubleshooting
// guide ("training", "export", …), or empty when the guide is not on this machine.
QString troubleshootingLink(const QString &anchor);

// Shows message (plain text) in label followed by the troubleshooting link of its section;
// the label opens the link in the desktop's viewer.
void showErrorWithHelp(QLabel *label, const QString &message, const QString &anchor);

// Opens a window-modal warning (asynchronous: never a nested event loop) with the message and
// the troubleshooting link of its section; it deletes itself when closed.
void openWarning(QWidget *parent, const QString &title, const QString &message, const QString &anchor);

} // namespace lathe::ui
