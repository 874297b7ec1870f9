#pragma once

#include <QWidget>

class QListWidget;

namespace lathe::ui {

// Shown while no project is open: new, open, demo and the recent projects.
class WelcomePage : public QWidget
{
    Q_OBJECT

public:
    explicit WelcomePage(QWidget *parent = nullptr);
    void setRecentProjects(const QStringList &folders);

Q_SIGNALS:
    void newProjectRequested();
    void openProjectRequested();
    void demoRequested();
    void recentProjectRequested(const QString &folder);

private:
    QListWidget *m_recent;
};

} // namespace lathe::ui
