// The Data page's Suspected Label Errors tab on a real project: Fashion-MNIST images imported
// through the page, three of them moved into the wrong class folder before the import, and a
// folds run written by hand whose out-of-fold predictions know better. The tab must list those
// three first, relabel and exclude through the catalog, and say how to make a folds run when
// there is none. Then a multi-label dataset of the same images (a labels file with a tag set per
// clothing class, three rows of it wrong) and a multi-label folds run whose predictions know
// better: the tab lists those three with the label sets they should have, applies the suggested
// set through the catalog, excludes, and refuses a run of the other task for either dataset.
// With LATHE_LABEL_ISSUES_SCREENSHOT=FILE.png it also saves the page as shown.
#include "common/theme.h"
#include "common/thumbnail_loader.h"
#include "data/data_page.h"
#include "data/image_list_model.h"
#include "data/image_viewer.h"
#include "data/label_issues_model.h"
#include "data/label_issues_panel.h"
#include "engine/dataset/demo_data.h"
#include "workspace/catalog.h"
#include "workspace/job_manager.h"
#include "workspace/project.h"

#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QStackedWidget>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTranslator>

#include <algorithm>
#include <iterator>
#include <memory>

using namespace lathe;
using lathe::ui::DataPage;
using lathe::ui::LabelIssuesModel;
using lathe::ui::LabelIssuesPanel;
using lathe::workspace::CatalogImage;

namespace {

// An image moved into another class's folder: its folder (the catalog's label) is wrong.
struct Flip
{
    QString from; // the class it shows
    QString to;   // the folder it was moved into
    QString name; // its file name there
};
const Flip kFlips[] = {
    {QStringLiteral("Sneaker"), QStringLiteral("Sandal"), QStringLiteral("zz-sneaker.png")},
    {QStringLiteral("Pullover"), QStringLiteral("Coat"), QStringLiteral("zz-pullover.png")},
    {QStringLiteral("Ankle_boot"), QStringLiteral("Sneaker"), QStringLiteral("zz-ankle-boot.png")},
};

// The multi-label dataset's tags per Fashion-MNIST class.
QStringList tagsOf(const QString &className)
{
    static const QHash<QString, QStringList> tags = {
        {QStringLiteral("T-shirt_top"), {QStringLiteral("clothing")}},
        {QStringLiteral("Trouser"), {QStringLiteral("clothing")}},
        {QStringLiteral("Pullover"), {QStringLiteral("clothing"), QStringLiteral("winter")}},
        {QStringLiteral("Dress"), {QStringLiteral("clothing")}},
        {QStringLiteral("Coat"), {QStringLiteral("clothing"), QStringLiteral("winter")}},
        {QStringLiteral("Sandal"), {QStringLiteral("footwear")}},
        {QStringLiteral("Shirt"), {QStringLiteral("clothing")}},
        {QStringLiteral("Sneaker"), {QStringLiteral("footwear")}},
        {QStringLiteral("Bag"), {QStringLiteral("bag")}},
        {QStringLiteral("Ankle_boot"), {QStringLiteral("footwear"), QStringLiteral("winter")}},
    };
    return tags.value(className);
}

// A wrong row of the labels file: the first image of a class given wrongLabels; the folds run's
// predictions give it probs (per tag, in the run's class order), the rest get their true tags.
struct WrongTags
{
    QString className;
    QStringList wrongLabels;
    QHash<QString, double> probs; // tags not named: 0.08
    QStringList suggested;        // what the tab must suggest: the true set
    QString change;               // as the Suggested labels column shows it
};

void writeText(const QString &path, const QByteArray &bytes)
{
    QFile file(path);
    QVERIFY2(file.open(QIODevice::WriteOnly), qPrintable(path));
    QCOMPARE(file.write(bytes), bytes.size());
}

} // namespace

class TestLabelIssuesPanel : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_tmp;
    QTranslator m_english;
    QString m_imagesDir;
    std::unique_ptr<workspace::JobManager> m_jobs;
    std::unique_ptr<workspace::Project> m_project;
    std::unique_ptr<DataPage> m_page;
    int m_datasetId = 0;
    QVector<qint64> m_flippedIds; // in kFlips' order: the most suspicious first
    int m_tagsDatasetId = 0;
    QVector<WrongTags> m_wrongTags;  // the most suspicious first
    QVector<qint64> m_wrongTagIds;   // in m_wrongTags' order

    workspace::Catalog catalog() const { return workspace::Catalog(m_project->database()); }
    LabelIssuesPanel *panel() const { return m_page->labelIssuesPanel(); }

    void refreshRuns(int expected)
    {
        QSignalSpy listed(panel(), &LabelIssuesPanel::runsListed);
        panel()->refreshRuns();
        QVERIFY(listed.wait(10000));
        QCOMPARE(listed.last().first().toInt(), expected);
    }

    void findWith(int rankIndex, const QString &expectedState)
    {
        panel()->rankByPicker()->setCurrentIndex(rankIndex);
        QSignalSpy ended(panel(), &LabelIssuesPanel::findEnded);
        QVERIFY(panel()->findButton()->isEnabled());
        QTest::mouseClick(panel()->findButton(), Qt::LeftButton);
        QVERIFY(panel()->isRunning());
        QVERIFY(ended.wait(30000));
        QCOMPARE(ended.first().first().toString(), expectedState);
    }

    void selectRow(int row)
    {
        QTableView *view = panel()->view();
        view->clearSelection();
        view->selectionModel()->select(panel()->model()->index(row, 0),
                                       QItemSelectionModel::Select | QItemSelectionModel::Rows);
    }

    // Writes a folds run: folds.json and one oof_predictions.jsonl row per (filename, sha256,
    // label, probabilities).
    void writeFoldsRun(const QString &dir, const QStringList &classes, const QList<QJsonObject> &rows,
                       const QString &task = QStringLiteral("single_label"))
    {
        QVERIFY(QDir().mkpath(dir));
        const QJsonObject folds{{QStringLiteral("task"), task},
                                {QStringLiteral("classes"), QJsonArray::fromStringList(classes)},
                                {QStringLiteral("folds"), 5}};
        writeText(QDir(dir).filePath(QStringLiteral("folds.json")), QJsonDocument(folds).toJson());
        QByteArray lines;
        for (const QJsonObject &row : rows)
            lines += QJsonDocument(row).toJson(QJsonDocument::Compact) + '\n';
        writeText(QDir(dir).filePath(QStringLiteral("oof_predictions.jsonl")), lines);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_tmp.isValid());
        // As the program does: English plural forms ("3 suspected label errors").
        QVERIFY(m_english.load(QStringLiteral("lathe_en"), QStringLiteral(":/i18n")));
        QVERIFY(QCoreApplication::installTranslator(&m_english));
        ui::applyTheme(QStringLiteral("light"));
        m_imagesDir = m_tmp.filePath(QStringLiteral("images"));
        engine::DemoDataOptions options;
        options.outDir = m_imagesDir.toStdString();
        options.perClass = 8;
        options.testPerClass = 0;
        QCOMPARE(engine::writeDemoData(options).trainImages, 80);
        const QDir train(QDir(m_imagesDir).filePath(QStringLiteral("train")));
        for (const Flip &flip : kFlips) {
            const QDir from(train.filePath(flip.from));
            const QString first = from.entryList({QStringLiteral("*.png")}, QDir::Files, QDir::Name).first();
            QVERIFY(QFile::rename(from.filePath(first), train.filePath(flip.to + QLatin1Char('/') + flip.name)));
        }

        m_project = workspace::Project::create(m_tmp.filePath(QStringLiteral("project")), QStringLiteral("Labels"));
        m_jobs = std::make_unique<workspace::JobManager>(2);
        m_page = std::make_unique<DataPage>(m_jobs.get());
        m_page->resize(1280, 800);
        m_page->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_page.get()));
        QSignalSpy loaded(m_page.get(), &DataPage::datasetLoaded);
        m_page->setProject(m_project.get());
        QVERIFY(loaded.wait(20000));
        QSignalSpy imported(m_page.get(), &DataPage::importFinished);
        m_page->importFolder(m_imagesDir);
        QVERIFY(imported.wait(60000));
        QTRY_VERIFY(m_page->currentDatasetId() > 0 && m_page->imageModel()->rowCount() == 80);
        m_datasetId = m_page->currentDatasetId();
    }

    void withoutAFoldsRunItSaysHowToMakeOne()
    {
        m_page->tabs()->setCurrentIndex(DataPage::LabelIssuesTab);
        QCOMPARE(m_page->tabs()->tabText(DataPage::LabelIssuesTab), QStringLiteral("Suspected Label Errors"));
        refreshRuns(0);
        QVERIFY(panel()->noRunsLabel()->isVisible());
        const QString text = panel()->noRunsLabel()->text();
        QVERIFY2(text.contains(QStringLiteral("lathe-cli train")) && text.contains(QStringLiteral("--folds 5")),
                 qPrintable(text));
        QVERIFY2(text.contains(QDir::toNativeSeparators(m_project->runsDir()).toHtmlEscaped()), qPrintable(text));
        QVERIFY(!panel()->findButton()->isEnabled());
        QVERIFY(!panel()->find());
    }

    void listsTheFlippedImagesFirst()
    {
        const QStringList classes = catalog().classes(m_datasetId);
        QCOMPARE(classes.size(), 10);
        // What each image really shows: its folder's class, except for the three moved ones.
        QHash<QString, QString> truth;
        for (const Flip &flip : kFlips)
            truth.insert(QStringLiteral("train/%1/%2").arg(flip.to, flip.name), flip.from);
        QList<QJsonObject> rows;
        m_flippedIds.fill(0, int(std::size(kFlips)));
        int n = 0;
        for (const CatalogImage &image : catalog().images(m_datasetId)) {
            QVERIFY(image.usable());
            const int given = int(classes.indexOf(image.className));
            const int shown = int(classes.indexOf(truth.value(image.relPath, image.className)));
            QVector<double> probs(classes.size(), 0.0);
            if (shown == given) {
                std::fill(probs.begin(), probs.end(), 0.1 / (classes.size() - 1));
                probs[given] = 0.9;
            } else {
                int flip = 0;
                while (kFlips[flip].from != classes.at(shown))
                    ++flip;
                m_flippedIds[flip] = image.id;
                // The first flip's given label is the least probable: the most suspicious.
                probs[given] = 0.02 * (flip + 1);
                probs[shown] = 0.9;
                const double rest = (1.0 - probs[given] - probs[shown]) / (classes.size() - 2);
                for (int c = 0; c < classes.size(); ++c) {
                    if (c != given && c != shown)
                        probs[c] = rest;
                }
            }
            QJsonArray p;
            for (double v : probs)
                p.append(v);
            rows.append({{QStringLiteral("fold"), n++ % 5 + 1},
                         {QStringLiteral("filename"), image.relPath},
                         {QStringLiteral("sha256"), image.sha256},
                         {QStringLiteral("label"), given},
                         {QStringLiteral("probs"), p}});
        }
        QVERIFY(!m_flippedIds.contains(0));
        writeFoldsRun(QDir(m_project->runsDir()).filePath(QStringLiteral("folds-demo")), classes, rows);

        refreshRuns(1);
        QVERIFY(!panel()->noRunsLabel()->isVisible());
        QCOMPARE(panel()->runPicker()->currentText(), QStringLiteral("folds-demo"));

        for (int rank : {1, 0}) { // normalized margin, then self-confidence (left shown)
            findWith(rank, QStringLiteral("finished"));
            LabelIssuesModel *model = panel()->model();
            QCOMPARE(model->rowCount(), 3);
            QCOMPARE(panel()->result().examples, 80);
            QCOMPARE(panel()->result().matched, 80);
            for (int row = 0; row < 3; ++row) {
                const workspace::LabelIssueRow &issue = model->issue(row);
                QCOMPARE(issue.image.id, m_flippedIds.at(row));
                QCOMPARE(issue.givenClass, kFlips[row].to);
                QCOMPARE(issue.suggestedClass, kFlips[row].from);
                QCOMPARE(model->index(row, LabelIssuesModel::FileColumn).data().toString(),
                         QStringLiteral("train/%1/%2").arg(kFlips[row].to, kFlips[row].name));
                QCOMPARE(model->index(row, LabelIssuesModel::SuggestedColumn).data().toString(), kFlips[row].from);
                QVERIFY(issue.score < 0.5);
                if (row > 0)
                    QVERIFY(issue.score >= model->issue(row - 1).score);
            }
        }
        QCOMPARE(m_page->tabs()->tabText(DataPage::LabelIssuesTab), QStringLiteral("Suspected Label Errors (3)"));
        QCOMPARE(panel()->statusLabel()->text(), QStringLiteral("3 suspected label errors among 80 images of folds-demo."));
        // The thumbnails arrive.
        QTRY_COMPARE(panel()->model()->index(0, 0).data(LabelIssuesModel::ThumbnailStateRole).toInt(),
                     int(ui::ThumbnailLoader::State::Ready));

        selectRow(0);
        QVERIFY(panel()->relabelButton()->isEnabled());
        const QString shot = qEnvironmentVariable("LATHE_LABEL_ISSUES_SCREENSHOT");
        if (!shot.isEmpty()) {
            QTRY_VERIFY(panel()->model()->index(2, 0).data(LabelIssuesModel::ThumbnailStateRole).toInt()
                        == int(ui::ThumbnailLoader::State::Ready));
            QTest::qWait(200); // let the repaint of the last thumbnail land before the grab
            QVERIFY(m_page->grab().save(shot));
        }
    }

    void relabelsToTheSuggestedClass()
    {
        const qint64 id = m_flippedIds.at(0);
        selectRow(0);
        QSignalSpy changed(panel(), &LabelIssuesPanel::imageChanged);
        QTest::mouseClick(panel()->relabelButton(), Qt::LeftButton);
        QVERIFY(changed.wait(10000));
        QCOMPARE(catalog().image(id).className, kFlips[0].from);
        // The rest of the page follows: the grid's row, and the row here says what was done.
        const int gridRow = m_page->imageModel()->rowOfId(id);
        QCOMPARE(m_page->imageModel()->image(gridRow).className, kFlips[0].from);
        QCOMPARE(panel()->model()->index(0, LabelIssuesModel::NowColumn).data().toString(),
                 QStringLiteral("Relabelled to %1").arg(kFlips[0].from));
        QVERIFY(!panel()->relabelButton()->isEnabled()); // it has the suggested class now
    }

    void excludesAndIncludes()
    {
        const qint64 id = m_flippedIds.at(1);
        selectRow(1);
        QCOMPARE(panel()->excludeButton()->text(), QStringLiteral("Exclude"));
        QSignalSpy changed(panel(), &LabelIssuesPanel::imageChanged);
        QTest::mouseClick(panel()->excludeButton(), Qt::LeftButton);
        QVERIFY(changed.wait(10000));
        QVERIFY(catalog().image(id).excluded);
        QCOMPARE(m_page->snapshot().excluded, 1);
        QCOMPARE(panel()->excludeButton()->text(), QStringLiteral("Include"));
        QCOMPARE(panel()->model()->index(1, LabelIssuesModel::NowColumn).data().toString(), QStringLiteral("Excluded"));

        QTest::mouseClick(panel()->excludeButton(), Qt::LeftButton);
        QVERIFY(changed.wait(10000));
        QVERIFY(!catalog().image(id).excluded);
        QCOMPARE(m_page->snapshot().excluded, 0);
    }

    void doubleClickOpensTheViewer()
    {
        const QModelIndex index = panel()->model()->index(2, LabelIssuesModel::FileColumn);
        Q_EMIT panel()->view()->activated(index);
        QTRY_VERIFY(m_page->viewer()->isVisible());
        QCOMPARE(m_page->viewer()->image().id, m_flippedIds.at(2));
        // A relabel in the viewer shows in the tab too.
        QSignalSpy changed(m_page->viewer(), &ui::ImageViewer::imageChanged);
        m_page->viewer()->relabel(kFlips[2].from);
        QVERIFY(changed.wait(10000));
        QCOMPARE(panel()->model()->issue(2).image.className, kFlips[2].from);
        m_page->viewer()->hide();
    }

    void aRunOfAnotherDatasetIsRefused()
    {
        const QStringList classes{QStringLiteral("a"), QStringLiteral("b")};
        QList<QJsonObject> rows;
        for (int i = 0; i < 4; ++i)
            rows.append({{QStringLiteral("fold"), 1},
                         {QStringLiteral("filename"), QStringLiteral("elsewhere/%1.png").arg(i)},
                         {QStringLiteral("sha256"), QString(64, QLatin1Char(char('0' + i)))},
                         {QStringLiteral("label"), i % 2},
                         {QStringLiteral("probs"), QJsonArray{0.5, 0.5}}});
        const QString dir = QDir(m_project->runsDir()).filePath(QStringLiteral("folds-other"));
        writeFoldsRun(dir, classes, rows);
        refreshRuns(2);
        panel()->runPicker()->setCurrentIndex(panel()->runPicker()->findData(QDir::cleanPath(dir)));
        QSignalSpy failed(panel(), &LabelIssuesPanel::errorOccurred);
        findWith(0, QStringLiteral("failed"));
        QVERIFY2(failed.first().first().toString().contains(QStringLiteral("None of the 4 images")),
                 qPrintable(failed.first().first().toString()));
        QVERIFY(panel()->statusLabel()->text().startsWith(QStringLiteral("Cannot look for label errors")));
        // The list of the previous search stays.
        QCOMPARE(panel()->model()->rowCount(), 3);
    }

    // Multi-label: a second dataset of Fashion-MNIST images with a tag set each (labels file),
    // three of them wrong.
    void importsAMultiLabelDataset()
    {
        const QString imagesDir = m_tmp.filePath(QStringLiteral("tagged"));
        engine::DemoDataOptions options;
        options.outDir = imagesDir.toStdString();
        options.perClass = 3;
        options.testPerClass = 0;
        QCOMPARE(engine::writeDemoData(options).trainImages, 30);
        m_wrongTags = {
            // A coat said to be footwear: the predictions say clothing, not footwear.
            {QStringLiteral("Coat"),
             {QStringLiteral("footwear"), QStringLiteral("winter")},
             {{QStringLiteral("clothing"), 0.97}, {QStringLiteral("footwear"), 0.02}, {QStringLiteral("winter"), 0.9}},
             {QStringLiteral("clothing"), QStringLiteral("winter")},
             QStringLiteral("+clothing \u2212footwear")},
            // A sandal tagged winter only: the predictions see neither winter nor anything else.
            {QStringLiteral("Sandal"),
             {QStringLiteral("winter")},
             {{QStringLiteral("winter"), 0.03}},
             {},
             QStringLiteral("\u2212winter")},
            // A bag tagged winter as well: the predictions say bag only.
            {QStringLiteral("Bag"),
             {QStringLiteral("bag"), QStringLiteral("winter")},
             {{QStringLiteral("bag"), 0.9}, {QStringLiteral("winter"), 0.05}},
             {QStringLiteral("bag")},
             QStringLiteral("\u2212winter")},
        };
        const QDir train(QDir(imagesDir).filePath(QStringLiteral("train")));
        QByteArray csv = "path,labels\n";
        for (const QString &className : train.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
            const QStringList files =
                QDir(train.filePath(className)).entryList({QStringLiteral("*.png")}, QDir::Files, QDir::Name);
            QCOMPARE(files.size(), 3);
            for (const QString &file : files) {
                QStringList tags = tagsOf(className);
                QVERIFY2(!tags.isEmpty(), qPrintable(className));
                for (const WrongTags &wrong : std::as_const(m_wrongTags)) {
                    if (wrong.className == className && file == files.first())
                        tags = wrong.wrongLabels;
                }
                csv += QStringLiteral("train/%1/%2,%3\n").arg(className, file, tags.join(QLatin1Char(';'))).toUtf8();
            }
        }
        const QString labelsFile = m_tmp.filePath(QStringLiteral("tags.csv"));
        writeText(labelsFile, csv);

        QSignalSpy imported(m_page.get(), &DataPage::importFinished);
        m_page->importFolder(imagesDir, labelsFile);
        QVERIFY(imported.wait(60000));
        QTRY_VERIFY(m_page->currentDatasetId() > 0 && m_page->currentDatasetId() != m_datasetId
                    && m_page->imageModel()->rowCount() == 30);
        m_tagsDatasetId = m_page->currentDatasetId();
        QVERIFY(catalog().dataset(m_tagsDatasetId).multiLabel());
        QCOMPARE(catalog().classes(m_tagsDatasetId),
                 (QStringList{QStringLiteral("bag"), QStringLiteral("clothing"), QStringLiteral("footwear"),
                              QStringLiteral("winter")}));
        // The results of the other dataset are gone.
        QCOMPARE(panel()->model()->rowCount(), 0);
    }

    void aSingleLabelRunOfAMultiLabelDatasetIsRefused()
    {
        refreshRuns(2);
        const QString dir = QDir::cleanPath(QDir(m_project->runsDir()).filePath(QStringLiteral("folds-demo")));
        panel()->runPicker()->setCurrentIndex(panel()->runPicker()->findData(dir));
        QSignalSpy failed(panel(), &LabelIssuesPanel::errorOccurred);
        findWith(0, QStringLiteral("failed"));
        const QString message = failed.first().first().toString();
        QVERIFY2(message.contains(QStringLiteral("folds-demo")) && message.contains(QStringLiteral("single-label"))
                     && message.contains(catalog().dataset(m_tagsDatasetId).name),
                 qPrintable(message));
        QCOMPARE(panel()->model()->rowCount(), 0);
    }

    void listsTheWrongLabelSetsFirst()
    {
        const QStringList classes = catalog().classes(m_tagsDatasetId);
        QList<QJsonObject> rows;
        m_wrongTagIds.fill(0, int(m_wrongTags.size()));
        int n = 0;
        for (const CatalogImage &image : catalog().images(m_tagsDatasetId)) {
            QVERIFY(image.usable());
            const QString className = image.relPath.section(QLatin1Char('/'), 1, 1);
            QHash<QString, double> probs;
            for (const QString &tag : tagsOf(className))
                probs.insert(tag, 0.9);
            for (int w = 0; w < m_wrongTags.size(); ++w) {
                if (m_wrongTags.at(w).className == className && image.labels == m_wrongTags.at(w).wrongLabels) {
                    m_wrongTagIds[w] = image.id;
                    probs = m_wrongTags.at(w).probs;
                }
            }
            QJsonArray given;
            for (const QString &label : image.labels)
                given.append(int(classes.indexOf(label)));
            QJsonArray p;
            for (const QString &label : classes)
                p.append(probs.value(label, 0.08));
            rows.append({{QStringLiteral("fold"), n++ % 3 + 1},
                         {QStringLiteral("filename"), image.relPath},
                         {QStringLiteral("sha256"), image.sha256},
                         {QStringLiteral("labels"), given},
                         {QStringLiteral("probs"), p}});
        }
        QVERIFY(!m_wrongTagIds.contains(0));
        const QString dir = QDir::cleanPath(QDir(m_project->runsDir()).filePath(QStringLiteral("folds-tags")));
        writeFoldsRun(dir, classes, rows, QStringLiteral("multi_label"));
        refreshRuns(3);
        panel()->runPicker()->setCurrentIndex(panel()->runPicker()->findData(dir));

        for (int rank : {1, 0}) { // normalized margin, then self-confidence (left shown)
            findWith(rank, QStringLiteral("finished"));
            QVERIFY(panel()->result().multiLabel);
            QCOMPARE(panel()->result().examples, 30);
            QCOMPARE(panel()->result().matched, 30);
            LabelIssuesModel *model = panel()->model();
            QCOMPARE(model->rowCount(), 3);
            QCOMPARE(model->headerData(LabelIssuesModel::GivenColumn, Qt::Horizontal).toString(),
                     QStringLiteral("Given labels"));
            QCOMPARE(model->headerData(LabelIssuesModel::SuggestedColumn, Qt::Horizontal).toString(),
                     QStringLiteral("Suggested labels"));
            // The coat, with two labels wrong, is the most suspicious.
            QCOMPARE(model->issue(0).image.id, m_wrongTagIds.at(0));
            QVector<qint64> listed;
            for (int row = 0; row < 3; ++row) {
                const workspace::LabelIssueRow &issue = model->issue(row);
                QVERIFY(issue.multiLabel);
                const int w = int(m_wrongTagIds.indexOf(issue.image.id));
                QVERIFY(w >= 0);
                listed << issue.image.id;
                QCOMPARE(issue.givenLabels, m_wrongTags.at(w).wrongLabels);
                QCOMPARE(issue.suggestedLabels, m_wrongTags.at(w).suggested);
                QVERIFY(issue.givenClass.isEmpty() && issue.suggestedClass.isEmpty());
                QVERIFY(issue.fold >= 1 && issue.fold <= 3);
                QCOMPARE(model->index(row, LabelIssuesModel::GivenColumn).data().toString(),
                         m_wrongTags.at(w).wrongLabels.join(QStringLiteral(", ")));
                const QModelIndex suggested = model->index(row, LabelIssuesModel::SuggestedColumn);
                QCOMPARE(suggested.data().toString(), m_wrongTags.at(w).change);
                QCOMPARE(suggested.data(LabelIssuesModel::SuggestedLabelsRole).toStringList(),
                         m_wrongTags.at(w).suggested);
                QCOMPARE(model->index(row, LabelIssuesModel::FoldColumn).data().toString(),
                         QString::number(issue.fold));
                QVERIFY(model->index(row, LabelIssuesModel::NowColumn).data().toString().isEmpty());
                QVERIFY(issue.score < 0.5);
                if (row > 0)
                    QVERIFY(issue.score >= model->issue(row - 1).score);
            }
            std::sort(listed.begin(), listed.end());
            QVector<qint64> expected = m_wrongTagIds;
            std::sort(expected.begin(), expected.end());
            QCOMPARE(listed, expected);
        }
        QCOMPARE(m_page->tabs()->tabText(DataPage::LabelIssuesTab), QStringLiteral("Suspected Label Errors (3)"));
        QCOMPARE(panel()->statusLabel()->text(),
                 QStringLiteral("3 suspected label errors among 30 images of folds-tags."));
        QCOMPARE(panel()->relabelButton()->text(), QStringLiteral("Apply Suggested Labels"));
    }

    void appliesTheSuggestedLabelSet()
    {
        const qint64 id = m_wrongTagIds.at(0);
        const int row = panel()->model()->rowOfId(id);
        selectRow(row);
        QVERIFY(panel()->relabelButton()->isEnabled());
        QSignalSpy changed(panel(), &LabelIssuesPanel::imageChanged);
        QTest::mouseClick(panel()->relabelButton(), Qt::LeftButton);
        QVERIFY(changed.wait(10000));
        QCOMPARE(catalog().image(id).labels, m_wrongTags.at(0).suggested);
        QVERIFY(catalog().image(id).labelsEdited);
        // The rest of the page follows: the grid's row, and the row here says what was done.
        const int gridRow = m_page->imageModel()->rowOfId(id);
        QCOMPARE(m_page->imageModel()->image(gridRow).labels, m_wrongTags.at(0).suggested);
        QCOMPARE(panel()->model()->index(row, LabelIssuesModel::NowColumn).data().toString(),
                 QStringLiteral("Suggested labels applied"));
        QVERIFY(!panel()->relabelButton()->isEnabled()); // it has the suggested set now

        // The suggestion that leaves no label cannot be applied: exclude that image instead.
        const qint64 bare = m_wrongTagIds.at(1);
        selectRow(panel()->model()->rowOfId(bare));
        QVERIFY(!panel()->relabelButton()->isEnabled());
        QVERIFY(panel()->model()
                    ->index(panel()->model()->rowOfId(bare), LabelIssuesModel::SuggestedColumn)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .contains(QStringLiteral("exclude the image instead")));
        // Both selected: the one with a suggestion is written, the other keeps its labels.
        QTableView *view = panel()->view();
        view->clearSelection();
        for (const qint64 imageId : {bare, m_wrongTagIds.at(2)})
            view->selectionModel()->select(panel()->model()->index(panel()->model()->rowOfId(imageId), 0),
                                           QItemSelectionModel::Select | QItemSelectionModel::Rows);
        QVERIFY(panel()->relabelButton()->isEnabled());
        changed.clear();
        QTest::mouseClick(panel()->relabelButton(), Qt::LeftButton);
        QTRY_COMPARE(changed.count(), 2);
        QCOMPARE(catalog().image(m_wrongTagIds.at(2)).labels, m_wrongTags.at(2).suggested);
        QCOMPARE(catalog().image(bare).labels, m_wrongTags.at(1).wrongLabels);
        QCOMPARE(panel()->statusLabel()->text(),
                 QStringLiteral("Not applied to 1 of the selected images: the suggestion leaves no label; exclude them "
                                "instead."));
    }

    void excludesAMultiLabelIssue()
    {
        const qint64 id = m_wrongTagIds.at(1);
        const int row = panel()->model()->rowOfId(id);
        selectRow(row);
        QCOMPARE(panel()->excludeButton()->text(), QStringLiteral("Exclude"));
        QSignalSpy changed(panel(), &LabelIssuesPanel::imageChanged);
        QTest::mouseClick(panel()->excludeButton(), Qt::LeftButton);
        QVERIFY(changed.wait(10000));
        QVERIFY(catalog().image(id).excluded);
        QCOMPARE(catalog().image(id).labels, m_wrongTags.at(1).wrongLabels);
        QCOMPARE(m_page->snapshot().excluded, 1);
        QCOMPARE(panel()->excludeButton()->text(), QStringLiteral("Include"));
        QCOMPARE(panel()->model()->index(row, LabelIssuesModel::NowColumn).data().toString(),
                 QStringLiteral("Excluded"));
    }

    void aMultiLabelRunOfASingleLabelDatasetIsRefused()
    {
        QSignalSpy loaded(m_page.get(), &DataPage::datasetLoaded);
        m_page->showDataset(m_datasetId);
        QTRY_VERIFY(m_page->currentDatasetId() == m_datasetId && m_page->imageModel()->rowCount() == 80);
        QCOMPARE(panel()->model()->rowCount(), 0); // the other dataset's results are gone
        const QString dir = QDir::cleanPath(QDir(m_project->runsDir()).filePath(QStringLiteral("folds-tags")));
        panel()->runPicker()->setCurrentIndex(panel()->runPicker()->findData(dir));
        QCOMPARE(panel()->runPicker()->currentText(), QStringLiteral("folds-tags"));
        QSignalSpy failed(panel(), &LabelIssuesPanel::errorOccurred);
        findWith(0, QStringLiteral("failed"));
        const QString message = failed.first().first().toString();
        QVERIFY2(message.contains(QStringLiteral("folds-tags")) && message.contains(QStringLiteral("multi-label"))
                     && message.contains(catalog().dataset(m_datasetId).name),
                 qPrintable(message));
        // The single-label run still works on it, with the single-label headers and button.
        const QString demo = QDir::cleanPath(QDir(m_project->runsDir()).filePath(QStringLiteral("folds-demo")));
        panel()->runPicker()->setCurrentIndex(panel()->runPicker()->findData(demo));
        findWith(0, QStringLiteral("finished"));
        QVERIFY(!panel()->result().multiLabel);
        QCOMPARE(panel()->model()->headerData(LabelIssuesModel::GivenColumn, Qt::Horizontal).toString(),
                 QStringLiteral("Given label"));
        QCOMPARE(panel()->relabelButton()->text(), QStringLiteral("Relabel to Suggested"));
        QCOMPARE(panel()->model()->rowCount(), 3);
    }

    void cleanupTestCase()
    {
        m_page.reset();
        m_jobs.reset();
        m_project.reset();
    }
};

QTEST_MAIN(TestLabelIssuesPanel)
#include "test_label_issues_panel.moc"
