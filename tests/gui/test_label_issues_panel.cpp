// The Data page's Suspected Label Errors tab on a real project: Fashion-MNIST images imported
// through the page, three of them moved into the wrong class folder before the import, and a
// folds run written by hand whose out-of-fold predictions know better. The tab must list those
// three first, relabel and exclude through the catalog, and say how to make a folds run when
// there is none. With LATHE_LABEL_ISSUES_SCREENSHOT=FILE.png it also saves the page as shown.
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
    void writeFoldsRun(const QString &dir, const QStringList &classes, const QList<QJsonObject> &rows)
    {
        QVERIFY(QDir().mkpath(dir));
        const QJsonObject folds{{QStringLiteral("task"), QStringLiteral("single_label")},
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

    void cleanupTestCase()
    {
        m_page.reset();
        m_jobs.reset();
        m_project.reset();
    }
};

QTEST_MAIN(TestLabelIssuesPanel)
#include "test_label_issues_panel.moc"
