#pragma once

#include <QUrl>
#include <QWidget>

class QTextBrowser;
class QToolButton;
class QTreeWidget;

namespace lathe::ui {

// The documentation in a window of the program, no web browser needed: the Markdown files of
// documentationFolder() rendered by Qt, links between them and to their headings (#anchors as
// GitHub spells them: "## Weights and the model zoo" is #weights-and-the-model-zoo), back and
// forward, and the contents: every document with its sections. Links that leave the
// documentation (the web) open on the desktop.
class HelpViewer : public QWidget
{
    Q_OBJECT

public:
    // The program's one viewer (created on first use, a window of its own so that a modal
    // dialog never blocks it), shown and raised at url: a .md file, optionally with #heading.
    static HelpViewer *open(const QUrl &url);
    // The viewer while it is open, else null.
    static HelpViewer *current();

    explicit HelpViewer(QWidget *parent = nullptr);

    void showUrl(const QUrl &url);
    QUrl source() const;
    // The heading the text cursor is in or last passed: where a #heading link puts it.
    QString currentHeading() const;

    QTextBrowser *browser() const { return m_browser; }
    QTreeWidget *contents() const { return m_contents; }
    QToolButton *backButton() const { return m_back; }
    QToolButton *forwardButton() const { return m_forward; }

private:
    void fillContents();
    void selectInContents(const QUrl &url);

    QTextBrowser *m_browser;
    QTreeWidget *m_contents;
    QToolButton *m_back;
    QToolButton *m_forward;
};

} // namespace lathe::ui
