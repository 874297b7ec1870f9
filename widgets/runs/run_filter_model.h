#pragma once

#include <QSortFilterProxyModel>

namespace lathe::ui {

// The Runs page's filter over RunTableModel: every word of the text must appear in the run's
// name, folder, backbone, dataset, state, tags or notes (case-insensitive), and the run must
// carry the chosen tag (none: any run).
class RunFilterModel : public QSortFilterProxyModel
{
    Q_OBJECT

public:
    using QSortFilterProxyModel::QSortFilterProxyModel;

    void setText(const QString &text);
    void setTag(const QString &tag);
    QString tag() const { return m_tag; }

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;

private:
    QStringList m_words;
    QString m_tag;
};

} // namespace lathe::ui
