#include "common/help_viewer.h"

#include "common/help_links.h"

#include <QDir>
#include <QFile>
#include <QHBoxLayout>
#include <QHash>
#include <QHeaderView>
#include <QImage>
#include <QPointer>
#include <QShortcut>
#include <QSignalBlocker>
#include <QSplitter>
#include <QStyle>
#include <QTextBlock>
#include <QTextBrowser>
#include <QTextCursor>
#include <QTextDocument>
#include <QToolButton>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace lathe::ui {
namespace {

// Screenshots in the guide are up to 1400 px wide: shown smaller, they fit beside the contents.
constexpr int kMaxImageWidth = 760;
// The contents list these first, in reading order; any other document follows by name.
const QStringList kDocumentOrder = {QStringLiteral("user-guide.md"), QStringLiteral("troubleshooting.md"),
                                    QStringLiteral("formats.md"), QStringLiteral("run-config.md"),
                                    QStringLiteral("cli-reference.md")};

struct Heading
{
    int level;
    QString text;
    QString anchor;
    QTextBlock block;
};

// GitHub's anchor for a heading: lower case, spaces become hyphens, other punctuation goes.
QString githubAnchor(const QString &heading)
{
    QString anchor;
    for (const QChar c : heading.toLower()) {
        if (c.isLetterOrNumber() || c == u'-' || c == u'_')
            anchor += c;
        else if (c == u' ')
            anchor += u'-';
    }
    return anchor;
}

// The document's headings with their anchors; a repeated one gets -1, -2, … as on GitHub.
QList<Heading> headings(const QTextDocument *document)
{
    QList<Heading> found;
    QHash<QString, int> seen;
    for (QTextBlock block = document->begin(); block.isValid(); block = block.next()) {
        const int level = block.blockFormat().headingLevel();
        const QString text = block.text().trimmed();
        if (level == 0 || text.isEmpty())
            continue;
        QString anchor = githubAnchor(text);
        if (const int n = seen[anchor]++; n > 0)
            anchor += QStringLiteral("-%1").arg(n);
        found.append({level, text, anchor, block});
    }
    return found;
}

// Qt's Markdown reader names no anchors: each heading gets its GitHub anchor, so that
// QTextBrowser scrolls to #anchor as it does for a named anchor in HTML.
void nameHeadingAnchors(QTextDocument *document)
{
    for (const Heading &h : headings(document)) {
        if (h.block.begin().fragment().charFormat().anchorNames().contains(h.anchor))
            continue; // named when this document was shown before
        QTextCursor cursor(h.block);
        cursor.movePosition(QTextCursor::EndOfBlock, QTextCursor::KeepAnchor);
        QTextCharFormat format;
        format.setAnchor(true);
        format.setAnchorNames({h.anchor});
        cursor.mergeCharFormat(format);
    }
}

bool isMarkdown(const QUrl &url)
{
    return url.path().endsWith(QLatin1String(".md"), Qt::CaseInsensitive);
}

QUrl withoutFragment(QUrl url)
{
    url.setFragment(QString());
    return url;
}

class MarkdownBrowser : public QTextBrowser
{
public:
    using QTextBrowser::QTextBrowser;

    QVariant loadResource(int type, const QUrl &name) override
    {
        const QVariant resource = QTextBrowser::loadResource(type, name);
        if (type == QTextDocument::ImageResource && resource.typeId() == QMetaType::QByteArray) {
            const QImage image = QImage::fromData(resource.toByteArray());
            if (image.width() > kMaxImageWidth)
                return image.scaledToWidth(kMaxImageWidth, Qt::SmoothTransformation);
        }
        return resource;
    }

protected:
    // Every navigation but back and forward (which restore their scroll position) comes here:
    // a link, the contents, HelpViewer::showUrl. The heading of #anchor is put at the top of
    // the view with the text cursor on it.
    void doSetSource(const QUrl &url, QTextDocument::ResourceType type) override
    {
        if (type == QTextDocument::UnknownResource && isMarkdown(url))
            type = QTextDocument::MarkdownResource;
        QTextBrowser::doSetSource(url, type);
        nameHeadingAnchors(document());
        const QString anchor = url.fragment();
        for (const Heading &h : headings(document())) {
            if (h.anchor != anchor)
                continue;
            setTextCursor(QTextCursor(h.block));
            scrollToAnchor(anchor);
            break;
        }
    }
};

QPointer<HelpViewer> &openViewer()
{
    static QPointer<HelpViewer> viewer;
    return viewer;
}

} // namespace

HelpViewer *HelpViewer::open(const QUrl &url)
{
    QPointer<HelpViewer> &viewer = openViewer();
    if (!viewer) {
        // Without a parent: a window-modal warning that links here must not block the viewer.
        viewer = new HelpViewer;
        viewer->setAttribute(Qt::WA_DeleteOnClose);
        viewer->setAttribute(Qt::WA_QuitOnClose, false); // the program ends with its main window
        viewer->resize(1100, 760);
    }
    viewer->show();
    viewer->raise();
    viewer->activateWindow();
    viewer->showUrl(url);
    return viewer;
}

HelpViewer *HelpViewer::current()
{
    return openViewer();
}

HelpViewer::HelpViewer(QWidget *parent)
    : QWidget(parent, Qt::Window)
    , m_browser(new MarkdownBrowser(this))
    , m_contents(new QTreeWidget(this))
    , m_back(new QToolButton(this))
    , m_forward(new QToolButton(this))
{
    setObjectName(QStringLiteral("helpViewer"));
    setWindowTitle(tr("Lathe Help"));
    m_browser->setObjectName(QStringLiteral("helpBrowser"));
    m_browser->setOpenExternalLinks(true); // the web on the desktop; the documents here
    m_browser->document()->setUndoRedoEnabled(false);
    m_browser->document()->setDocumentMargin(16);
    m_contents->setObjectName(QStringLiteral("helpContents"));
    m_contents->setHeaderHidden(true);
    m_contents->setRootIsDecorated(true);
    m_contents->setToolTip(tr("Every document of the guide and its sections."));

    m_back->setIcon(style()->standardIcon(QStyle::SP_ArrowBack));
    m_back->setText(tr("Back"));
    m_back->setShortcut(QKeySequence::Back);
    m_back->setToolTip(tr("Back (%1)").arg(QKeySequence(QKeySequence::Back).toString(QKeySequence::NativeText)));
    m_back->setEnabled(false);
    m_forward->setIcon(style()->standardIcon(QStyle::SP_ArrowForward));
    m_forward->setText(tr("Forward"));
    m_forward->setShortcut(QKeySequence::Forward);
    m_forward->setToolTip(tr("Forward (%1)").arg(QKeySequence(QKeySequence::Forward).toString(QKeySequence::NativeText)));
    m_forward->setEnabled(false);
    for (QToolButton *button : {m_back, m_forward}) {
        button->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
        button->setAutoRaise(true);
    }

    auto *bar = new QHBoxLayout;
    bar->addWidget(m_back);
    bar->addWidget(m_forward);
    bar->addStretch(1);
    auto *splitter = new QSplitter(this);
    splitter->addWidget(m_contents);
    splitter->addWidget(m_browser);
    splitter->setStretchFactor(1, 1);
    splitter->setSizes({260, 840});
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->addLayout(bar);
    layout->addWidget(splitter, 1);

    // A help window closes as other windows do, and with Escape as a help window should.
    for (const QKeySequence &keys : {QKeySequence(Qt::Key_Escape), QKeySequence(QKeySequence::Close)})
        connect(new QShortcut(keys, this), &QShortcut::activated, this, &QWidget::close);

    connect(m_back, &QToolButton::clicked, m_browser, &QTextBrowser::backward);
    connect(m_forward, &QToolButton::clicked, m_browser, &QTextBrowser::forward);
    connect(m_browser, &QTextBrowser::backwardAvailable, m_back, &QToolButton::setEnabled);
    connect(m_browser, &QTextBrowser::forwardAvailable, m_forward, &QToolButton::setEnabled);
    connect(m_browser, &QTextBrowser::sourceChanged, this, &HelpViewer::selectInContents);
    connect(m_contents, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem *item) {
        if (item)
            showUrl(item->data(0, Qt::UserRole).toUrl());
    });
    fillContents();
}

void HelpViewer::showUrl(const QUrl &url)
{
    m_browser->setSource(url);
}

QUrl HelpViewer::source() const
{
    return m_browser->source();
}

QString HelpViewer::currentHeading() const
{
    for (QTextBlock block = m_browser->textCursor().block(); block.isValid(); block = block.previous())
        if (block.blockFormat().headingLevel() > 0)
            return block.text().trimmed();
    return {};
}

// Each document's title (its first heading) with its sections (the second-level headings),
// read as the browser reads them, so the anchors are the same.
void HelpViewer::fillContents()
{
    const QString folder = documentationFolder();
    if (folder.isEmpty())
        return;
    QStringList files = QDir(folder).entryList({QStringLiteral("*.md")}, QDir::Files, QDir::Name);
    std::stable_sort(files.begin(), files.end(), [](const QString &a, const QString &b) {
        const auto rank = [](const QString &name) {
            const qsizetype i = kDocumentOrder.indexOf(name);
            return i < 0 ? kDocumentOrder.size() : i;
        };
        return rank(a) < rank(b);
    });
    for (const QString &name : std::as_const(files)) {
        QFile file(QDir(folder).filePath(name));
        if (!file.open(QIODevice::ReadOnly))
            continue;
        QTextDocument document;
        document.setMarkdown(QString::fromUtf8(file.readAll()));
        const QUrl url = QUrl::fromLocalFile(file.fileName());
        auto *item = new QTreeWidgetItem(m_contents, {name});
        item->setData(0, Qt::UserRole, url);
        item->setToolTip(0, QDir::toNativeSeparators(file.fileName()));
        for (const Heading &h : headings(&document)) {
            if (h.level == 1 && item->text(0) == name) {
                item->setText(0, h.text);
            } else if (h.level == 2) {
                QUrl section = url;
                section.setFragment(h.anchor);
                auto *child = new QTreeWidgetItem(item, {h.text});
                child->setData(0, Qt::UserRole, section);
            }
        }
    }
}

// The contents follow the browser (a link, back, forward): the section shown, else its
// document; the window is named after the document.
void HelpViewer::selectInContents(const QUrl &url)
{
    QTreeWidgetItem *match = nullptr;
    for (int i = 0; i < m_contents->topLevelItemCount() && !match; ++i) {
        QTreeWidgetItem *document = m_contents->topLevelItem(i);
        if (document->data(0, Qt::UserRole).toUrl() != withoutFragment(url))
            continue;
        match = document;
        setWindowTitle(tr("%1 — Lathe Help").arg(document->text(0)));
        for (int j = 0; j < document->childCount(); ++j)
            if (document->child(j)->data(0, Qt::UserRole).toUrl() == url)
                match = document->child(j);
    }
    const QSignalBlocker blocker(m_contents);
    m_contents->setCurrentItem(match);
    if (match) // the sections of the document shown
        (match->parent() ? match->parent() : match)->setExpanded(true);
}

} // namespace lathe::ui
