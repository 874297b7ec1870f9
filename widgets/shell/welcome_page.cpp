#include "shell/welcome_page.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

namespace lathe::ui {

WelcomePage::WelcomePage(QWidget *parent)
    : QWidget(parent)
    , m_recent(new QListWidget(this))
{
    auto *title = new QLabel(tr("Welcome to Lathe"), this);
    title->setObjectName(QStringLiteral("pageTitle"));
    auto *intro = new QLabel(tr("Train image classifiers from folders of images: import, inspect, train on CPU "
                                "or GPUs, evaluate and export. Start with a project."),
                             this);
    intro->setWordWrap(true);

    auto *newButton = new QPushButton(tr("New Project…"), this);
    auto *openButton = new QPushButton(tr("Open Project…"), this);
    auto *demoButton = new QPushButton(tr("Create Demo Project"), this);
    demoButton->setToolTip(tr("Writes real Fashion-MNIST images as class folders and creates a project for them"));
    newButton->setObjectName(QStringLiteral("newProjectButton"));
    openButton->setObjectName(QStringLiteral("openProjectButton"));
    demoButton->setObjectName(QStringLiteral("demoButton"));
    connect(newButton, &QPushButton::clicked, this, &WelcomePage::newProjectRequested);
    connect(openButton, &QPushButton::clicked, this, &WelcomePage::openProjectRequested);
    connect(demoButton, &QPushButton::clicked, this, &WelcomePage::demoRequested);

    auto *buttons = new QHBoxLayout;
    buttons->addWidget(newButton);
    buttons->addWidget(openButton);
    buttons->addWidget(demoButton);
    buttons->addStretch(1);

    auto *recentLabel = new QLabel(tr("Recent projects"), this);
    recentLabel->setObjectName(QStringLiteral("sectionTitle"));
    m_recent->setObjectName(QStringLiteral("recentProjects"));
    connect(m_recent, &QListWidget::itemActivated, this,
            [this](QListWidgetItem *item) { Q_EMIT recentProjectRequested(item->data(Qt::UserRole).toString()); });

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(48, 40, 48, 40);
    layout->setSpacing(14);
    layout->addWidget(title);
    layout->addWidget(intro);
    layout->addLayout(buttons);
    layout->addSpacing(12);
    layout->addWidget(recentLabel);
    layout->addWidget(m_recent, 1);
}

void WelcomePage::setRecentProjects(const QStringList &folders)
{
    m_recent->clear();
    for (const QString &folder : folders) {
        auto *item = new QListWidgetItem(folder, m_recent);
        item->setData(Qt::UserRole, folder);
    }
    if (folders.isEmpty()) {
        auto *item = new QListWidgetItem(tr("No recent projects"), m_recent);
        item->setFlags(Qt::NoItemFlags);
    }
}

} // namespace lathe::ui
