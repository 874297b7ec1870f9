#include "runs/run_filter_model.h"

#include "runs/run_table_model.h"
#include "workspace/run_listing.h"

#include <QFileInfo>

namespace lathe::ui {

void RunFilterModel::setText(const QString &text)
{
    m_words = text.split(QLatin1Char(' '), Qt::SkipEmptyParts);
    invalidateFilter();
}

void RunFilterModel::setTag(const QString &tag)
{
    m_tag = tag;
    invalidateFilter();
}

bool RunFilterModel::filterAcceptsRow(int sourceRow, const QModelIndex &) const
{
    const auto *runs = qobject_cast<const RunTableModel *>(sourceModel());
    if (!runs || sourceRow >= runs->rowCount())
        return true;
    const RunTableModel::Row &r = runs->row(sourceRow);
    if (!m_tag.isEmpty() && !r.tags.contains(m_tag, Qt::CaseInsensitive))
        return false;
    const QString haystack = QStringList{r.name(), QFileInfo(r.dir).fileName(), r.arch, r.dataset,
                                         workspace::runStateText(r.shownState()), r.tags.join(QLatin1Char(' ')), r.notes}
                                 .join(QLatin1Char('\n'));
    for (const QString &word : m_words)
        if (!haystack.contains(word, Qt::CaseInsensitive))
            return false;
    return true;
}

} // namespace lathe::ui
