#include "common/help_links.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QLabel>
#include <QMessageBox>
#include <QUrl>

namespace lathe::ui {

QString documentationFolder()
{
    static const QString found = [] {
        const QString guide = QStringLiteral("troubleshooting.md");
        QDir dir(QCoreApplication::applicationDirPath());
        do {
            for (const QString &sub : {QStringLiteral("share/doc/lathe/docs"), QStringLiteral("docs")})
                if (QFileInfo::exists(dir.filePath(sub + QLatin1Char('/') + guide)))
                    return QDir::cleanPath(dir.filePath(sub));
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

void showErrorWithHelp(QLabel *label, const QString &message, const QString &anchor)
{
    const QString link = troubleshootingLink(anchor);
    // The label keeps Qt::AutoText: this text has a tag on its first line and shows as rich
    // text, the page's later plain messages as plain text.
    label->setOpenExternalLinks(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::LinksAccessibleByMouse);
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
    }
    box->open();
}

} // namespace lathe::ui
