#include "common/help_links.h"

#include "common/help_viewer.h"

#include <QCoreApplication>
#include <QDesktopServices>
#include <QDir>
#include <QFileInfo>
#include <QLabel>
#include <QMessageBox>
#include <QUrl>

namespace lathe::ui {
namespace {

// The label's links open through openHelpLink (connected once however often it is called).
void routeLinksToHelp(QLabel *label)
{
    label->setOpenExternalLinks(false);
    label->setTextInteractionFlags(label->textInteractionFlags() | Qt::LinksAccessibleByMouse |
                                   Qt::LinksAccessibleByKeyboard);
    static const char *const kRouted = "latheHelpLinks";
    if (label->property(kRouted).toBool())
        return;
    label->setProperty(kRouted, true);
    QObject::connect(label, &QLabel::linkActivated, label, [](const QString &link) { openHelpLink(QUrl(link)); });
}

} // namespace

QString documentationFolder()
{
    static const QString found = [] {
        const QString docs = QStringLiteral("share/doc/lathe/docs");
        QDir dir(QCoreApplication::applicationDirPath());
        do {
            if (QFileInfo::exists(dir.filePath(docs + QStringLiteral("/troubleshooting.md"))))
                return QDir::cleanPath(dir.filePath(docs));
        } while (dir.cdUp());
        return QString();
    }();
    return found;
}

QString troubleshootingLink(const QString &anchor)
{
    const QString folder = documentationFolder();
    if (folder.isEmpty())
        return {};
    QUrl url = QUrl::fromLocalFile(QDir(folder).filePath(QStringLiteral("troubleshooting.md")));
    url.setFragment(anchor);
    return QStringLiteral("<a href=\"%1\">%2</a>")
        .arg(url.toString(QUrl::FullyEncoded), QCoreApplication::translate("HelpLinks", "What to do"));
}

void openHelpLink(const QUrl &url)
{
    if (url.isLocalFile() && url.path().endsWith(QLatin1String(".md"), Qt::CaseInsensitive))
        HelpViewer::open(url);
    else
        QDesktopServices::openUrl(url);
}

bool openDocumentation(const QString &page)
{
    const QString folder = documentationFolder();
    if (folder.isEmpty())
        return false;
    const QUrl relative(page);
    QUrl url = QUrl::fromLocalFile(QDir(folder).filePath(relative.path()));
    url.setFragment(relative.fragment());
    HelpViewer::open(url);
    return true;
}

void showErrorWithHelp(QLabel *label, const QString &message, const QString &anchor)
{
    const QString link = troubleshootingLink(anchor);
    // The label keeps Qt::AutoText: this text has a tag on its first line and shows as rich
    // text, the page's later plain messages as plain text.
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    routeLinksToHelp(label);
    if (link.isEmpty()) {
        label->setText(message);
        return;
    }
    label->setText(message.toHtmlEscaped().replace(QLatin1Char('\n'), QStringLiteral("<br>")) + QStringLiteral(" — ") + link);
}

void openWarning(QWidget *parent, const QString &title, const QString &message, const QString &anchor)
{
    auto *box = new QMessageBox(QMessageBox::Warning, title, message, QMessageBox::Ok, parent);
    box->setAttribute(Qt::WA_DeleteOnClose);
    if (const QString link = troubleshootingLink(anchor); !link.isEmpty()) {
        box->setInformativeText(link);
        box->setTextInteractionFlags(Qt::TextBrowserInteraction);
        // QMessageBox's labels open links on the desktop; the one holding the link opens it here.
        for (QLabel *label : box->findChildren<QLabel *>())
            if (label->text() == link)
                routeLinksToHelp(label);
    }
    box->open();
}

} // namespace lathe::ui
