#pragma once

#include "engine/inference/evaluation.h"

#include <QString>
#include <QStringList>
#include <QWidget>

#include <vector>

class QLabel;
class QListView;
class QPushButton;

namespace lathe::ui {

class PredictionGalleryModel;

// The Evaluate page's gallery: the images of one confusion-matrix cell or every image by
// decreasing loss, with Highest Loss, Relabel… and Exclude. Relabelling and excluding correct
// the image in the project's catalog (on a worker thread): the record's file name is looked up
// in the catalog dataset imported from the folder the shards were converted from (their
// dataset.json "source"). The page shows the image the user makes current (rowChosen()).
class PredictionGalleryPanel : public QWidget
{
    Q_OBJECT

public:
    explicit PredictionGalleryPanel(QWidget *parent = nullptr);

    // The project database whose catalog the corrections change (empty: none; they are off).
    void setDatabasePath(const QString &databasePath);
    // An evaluation's images, shown by decreasing loss; dataDir: the shards they were read from.
    // Multi-label evaluations cannot be relabelled here (their labels come from a labels file).
    void setEvaluation(const QStringList &classes, std::vector<engine::Prediction> predictions, const QString &dataDir,
                       const QString &split, bool multiLabel = false);
    void clear();

    // Makes row the current one; the page shows it, so rowChosen() does not follow.
    void setShownRow(int row);
    // Catalog corrections for the image of a row; catalogChanged() or catalogChangeFailed() follows.
    void relabelRow(int row, const QString &className);
    void excludeRow(int row, bool excluded);

    PredictionGalleryModel *model() const { return m_model; }
    QListView *view() const { return m_view; }

Q_SIGNALS:
    // The user made another row current.
    void rowChosen(int row);
    // A correction was stored; message says what changed and when it applies.
    void catalogChanged(const QString &relPath, const QString &message);
    void catalogChangeFailed(const QString &message);

private:
    void currentChanged();
    void askRelabel();
    void changeCatalog(int row, const QString &className, bool exclude, bool excluded);
    void updateButtons();

    QString m_databasePath;
    QString m_dataDir; // where the shown evaluation's images are
    bool m_hasEvaluation = false;
    int m_shownRow = -1;

    PredictionGalleryModel *m_model;
    QLabel *m_title;
    QListView *m_view;
    QPushButton *m_highestLossButton;
    QPushButton *m_relabelButton;
    QPushButton *m_excludeButton;
};

} // namespace lathe::ui
