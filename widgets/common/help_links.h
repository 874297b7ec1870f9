#pragma once

#include <QString>

class QLabel;
class QUrl;
class QWidget;

namespace lathe::ui {

// The user guide on this machine: share/doc/lathe/docs/ beside the program (installed, or in
// the build tree, which has its own copy), found from the executable's folder upwards; empty
// when it is not there.
QString documentationFolder();

// "<a href=…troubleshooting.md#anchor>What to do</a>" for a section of the troubleshooting
// guide ("training", "export", …), or empty when the guide is not on this machine.
QString troubleshootingLink(const QString &anchor);

// Opens a document of the guide (a .md file) in the program's help viewer, anything else
// (a web page) on the desktop.
void openHelpLink(const QUrl &url);

// Opens a page of the guide ("user-guide.md", "troubleshooting.md#training") in the help
// viewer; false when the documentation is not on this machine.
bool openDocumentation(const QString &page);

// Shows message (plain text) in label followed by the troubleshooting link of its section;
// the link opens in the help viewer.
void showErrorWithHelp(QLabel *label, const QString &message, const QString &anchor);

// Opens a window-modal warning (asynchronous: never a nested event loop) with the message and
// the troubleshooting link of its section, which opens in the help viewer (a window of its own,
// not blocked by the warning); it deletes itself when closed.
void openWarning(QWidget *parent, const QString &title, const QString &message, const QString &anchor);

} // namespace lathe::ui
