#pragma once

#include <QAbstractTableModel>
#include <QJsonObject>
#include <QList>
#include <QStringList>

namespace lathe::ui {

// The runs of a project (one row per run folder, as readRunInfo summarises it): name, start,
// backbone, best metric, state, epochs, duration, and what the user wrote about it (display
// name, tags, notes: annotations.json in the run folder). Runs written by lathe-cli into the
// project's runs folder appear like any other: the run folder is the contract. The name and
// the tags are edited in place; annotationsEdited() asks the page to write them.
class RunTableModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column { Name, Started, Backbone, Best, State, Epochs, Duration, Tags, Notes, ColumnCount };

    struct Row
    {
        QString dir;
        QString state; // running, finished, failed, cancelled, interrupted
        QString message;
        QString arch;
        QString bestMetric;
        double bestValue = 0;
        bool hasBest = false;
        qint64 lastEpoch = -1;
        qint64 totalEpochs = 0;
        double startTime = 0;
        double lastTime = 0;
        QString displayName; // empty: the folder name
        QString notes;
        QStringList tags;
        QString annotationsProblem; // annotations.json could not be read: why
        QString name() const;       // displayName, else the folder name
    };

    explicit RunTableModel(QObject *parent = nullptr);

    void setRows(QList<Row> rows);
    const Row &row(int index) const { return m_rows.at(index); }
    // Changes a run's name, notes and tags in the table (the page writes them to its folder).
    void setAnnotations(int index, const QString &displayName, const QString &notes, const QStringList &tags);
    QStringList allTags() const;
    int indexOf(const QString &dir) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;
    bool setData(const QModelIndex &index, const QVariant &value, int role = Qt::EditRole) override;

    // "a, b , a" -> ["a", "b"]
    static QStringList parseTags(const QString &text);

    static QString stateText(const QString &state);

Q_SIGNALS:
    void annotationsEdited(const QString &dir);

private:
    QList<Row> m_rows;
};

} // namespace lathe::ui
