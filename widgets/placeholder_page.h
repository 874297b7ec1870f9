#pragma once

#include <QWidget>

class QLabel;

namespace lathe::ui {

// A workbench page whose feature has not landed yet. It says plainly what the page will
// hold, and shows only real facts (setFacts) — never controls that do nothing.
class PlaceholderPage : public QWidget
{
    Q_OBJECT

public:
    PlaceholderPage(const QString &title, const QString &willHold, QWidget *parent = nullptr);

    QString title() const { return m_title; }
    // Lines of plain facts about the open project that belong on this page.
    void setFacts(const QStringList &facts);
    QStringList facts() const { return m_factLines; }

private:
    QString m_title;
    QLabel *m_facts;
    QStringList m_factLines;
};

} // namespace lathe::ui
