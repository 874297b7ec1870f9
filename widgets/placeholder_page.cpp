#include "placeholder_page.h"

#include <QLabel>
#include <QVBoxLayout>

namespace lathe::ui {

PlaceholderPage::PlaceholderPage(const QString &title, const QString &willHold, QWidget *parent)
    : QWidget(parent)
    , m_title(title)
    , m_facts(new QLabel(this))
{
    auto *heading = new QLabel(title, this);
    heading->setObjectName(QStringLiteral("pageTitle"));

    auto *badge = new QLabel(tr("Not built yet"), this);
    badge->setObjectName(QStringLiteral("notYetBadge"));

    auto *description = new QLabel(willHold, this);
    description->setObjectName(QStringLiteral("pageDescription"));
    description->setWordWrap(true);
    description->setTextInteractionFlags(Qt::TextSelectableByMouse);

    m_facts->setObjectName(QStringLiteral("pageFacts"));
    m_facts->setWordWrap(true);
    m_facts->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_facts->setVisible(false);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(32, 24, 32, 24);
    layout->setSpacing(12);
    layout->addWidget(heading);
    layout->addWidget(badge, 0, Qt::AlignLeft);
    layout->addWidget(description);
    layout->addWidget(m_facts);
    layout->addStretch(1);
}

void PlaceholderPage::setFacts(const QStringList &facts)
{
    m_factLines = facts;
    m_facts->setText(facts.join(QLatin1Char('\n')));
    m_facts->setVisible(!facts.isEmpty());
}

} // namespace lathe::ui
