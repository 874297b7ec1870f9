// The Data page on a multi-label dataset: six real photos and a labels file (one bad row, one
// missing file) imported through the page's Import with Labels File, then the per-label counts,
// the label co-occurrence grid, the label filter, editing one image's label set in the viewer
// (written to the catalog, the counts and the grid follow), adding a label the dataset did not
// have (bad names refused with the reason), resetting an image to its labels file's set, and
// Convert to Shards with the edited sets and the new label. With LATHE_DATA_MULTILABEL_SCREENSHOT=FILE.png it also saves the page showing the
// label frequencies and the co-occurrence grid.
#include "common/theme.h"
#include "data/class_balance_chart.h"
#include "data/data_page.h"
#include "data/image_filter_model.h"
#include "data/image_list_model.h"
#include "data/image_viewer.h"
#include "data/label_cooccurrence_chart.h"
#include "data/rejected_files_model.h"
#include "engine/dataset/shard_converter.h"
#include "engine/formats/image_example.h"
#include "engine/formats/tfrecord_reader.h"
#include "workspace/catalog.h"
#include "workspace/convert_job.h"
#include "workspace/job_manager.h"
#include "workspace/project.h"

#include <QComboBox>
#include <QDateTime>
#include <QFile>
#include <QFileDialog>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTranslator>

#include <map>
#include <memory>

using namespace lathe;
using lathe::ui::DataPage;
using lathe::ui::ImageListModel;
using lathe::workspace::CatalogImage;

namespace {

const QString kPhotos = QStringLiteral("/usr/share/darknet/data/");

QStringList list(const char *text)
{
    return QString::fromLatin1(text).split(QLatin1Char(','), Qt::SkipEmptyParts);
}

} // namespace

class TestDataPageMultiLabel : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_tmp;
    QString m_imagesDir;
    QString m_labelsFile;
    std::unique_ptr<workspace::JobManager> m_jobs;
    std::unique_ptr<workspace::Project> m_project;
    std::unique_ptr<DataPage> m_page;
    QTranslator m_english;

    workspace::Catalog catalog() const { return workspace::Catalog(m_project->database()); }

    static void acceptDialog(QWidget *parent, const QString &objectName, const QString &path)
    {
        QTRY_VERIFY(parent->findChild<QFileDialog *>(objectName) && parent->findChild<QFileDialog *>(objectName)->isVisible());
        auto *dialog = parent->findChild<QFileDialog *>(objectName);
        dialog->selectFile(path);
        QMetaObject::invokeMethod(dialog, "accept", Qt::DirectConnection); // protected in QFileDialog
    }

    qint64 idOf(const QString &relPath) const
    {
        for (const CatalogImage &image : m_page->imageModel()->images()) {
            if (image.relPath == relPath)
                return image.id;
        }
        return 0;
    }

    // Usable images per label over every split, as the chart shows them.
    QMap<QString, int> chartCounts() const
    {
        const ui::ClassBalanceChart *chart = m_page->balanceChart();
        QMap<QString, int> counts;
        const QStringList labels = chart->classLabels();
        for (const QString &split : chart->splits()) {
            const QVector<double> values = chart->values(split);
            for (int i = 0; i < labels.size() && i < values.size(); ++i)
                counts[labels.at(i)] += int(values.at(i));
        }
        return counts;
    }

    int cooccurrence(const char *a, const char *b) const
    {
        const ui::LabelCooccurrenceChart *chart = m_page->cooccurrenceChart();
        return chart->count(int(chart->labels().indexOf(QLatin1String(a))), int(chart->labels().indexOf(QLatin1String(b))));
    }

    QStringList listedLabels() const
    {
        QStringList labels;
        for (int row = 0; row < m_page->viewer()->labelList()->count(); ++row)
            labels << m_page->viewer()->labelList()->item(row)->text();
        return labels;
    }

    QStringList filterLabels() const
    {
        QStringList labels;
        for (int i = 1; i < m_page->classFilter()->count(); ++i)
            labels << m_page->classFilter()->itemData(i).toString();
        return labels;
    }

    void setLabelsFileModified(const QDateTime &time)
    {
        QFile file(m_labelsFile);
        QVERIFY(file.open(QIODevice::ReadWrite));
        QVERIFY(file.setFileTime(time, QFileDevice::FileModificationTime));
    }

    QStringList shownFiles() const
    {
        QStringList files;
        const QAbstractItemModel *model = m_page->imageFilterModel();
        for (int row = 0; row < model->rowCount(); ++row)
            files << model->index(row, 0).data(ImageListModel::RelPathRole).toString();
        files.sort();
        return files;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_tmp.isValid());
        // As the program does: English plural forms ("3 images carry both").
        QVERIFY(m_english.load(QStringLiteral("lathe_en"), QStringLiteral(":/i18n")));
        QVERIFY(QCoreApplication::installTranslator(&m_english));
        ui::applyTheme(QStringLiteral("light"));
        m_imagesDir = m_tmp.filePath(QStringLiteral("photos"));
        QVERIFY(QDir().mkpath(m_imagesDir));
        for (const char *photo : {"dog.jpg", "eagle.jpg", "giraffe.jpg", "horses.jpg", "person.jpg", "kite.jpg"})
            QVERIFY(QFile::copy(kPhotos + QLatin1String(photo), QDir(m_imagesDir).filePath(QLatin1String(photo))));
        m_labelsFile = m_tmp.filePath(QStringLiteral("labels.csv"));
        QFile labels(m_labelsFile);
        QVERIFY(labels.open(QIODevice::WriteOnly));
        labels.write("path,labels\n"
                     "dog.jpg,animal;pet;grass\n"
                     "eagle.jpg,animal|bird|sky\n"
                     "giraffe.jpg,animal;tree\n"
                     "horses.jpg,animal;grass;person\n"
                     "person.jpg,person;animal;pet;grass\n"
                     "kite.jpg,sky;person;grass\n"
                     "lost.jpg,animal\n"   // 8: no such file
                     "bad.jpg,sky;;pet\n"); // 9: an empty label
        labels.close();

        m_project = workspace::Project::create(m_tmp.filePath(QStringLiteral("project")), QStringLiteral("Tags"));
        m_jobs = std::make_unique<workspace::JobManager>(2);
        m_page = std::make_unique<DataPage>(m_jobs.get());
        m_page->resize(1280, 800);
        m_page->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_page.get()));
        QSignalSpy loaded(m_page.get(), &DataPage::datasetLoaded);
        m_page->setProject(m_project.get());
        QVERIFY(loaded.wait(20000));
    }

    void importsWithALabelsFileThroughThePage()
    {
        QSignalSpy loaded(m_page.get(), &DataPage::datasetLoaded);
        QSignalSpy finished(m_page.get(), &DataPage::importFinished);
        auto *button = m_page->findChild<QPushButton *>(QStringLiteral("emptyImportLabelsButton"));
        QVERIFY(button && button->isVisible() && button->isEnabled());
        QTest::mouseClick(button, Qt::LeftButton);
        acceptDialog(m_page.get(), QStringLiteral("importLabelsFileDialog"), m_labelsFile);
        if (QTest::currentTestFailed())
            return;
        acceptDialog(m_page.get(), QStringLiteral("importLabelsFolderDialog"), m_imagesDir);
        if (QTest::currentTestFailed())
            return;
        QVERIFY(finished.wait(60000));
        QTRY_VERIFY(loaded.count() > 0 && m_page->currentDatasetId() > 0);

        const workspace::DatasetInfo &dataset = m_page->snapshot().dataset;
        QVERIFY(dataset.multiLabel());
        QCOMPARE(dataset.labelsFile, QDir::cleanPath(m_labelsFile));
        QCOMPARE(m_page->imageModel()->rowCount(), 8);
        // The refused rows are listed with their reasons, as rejected files are.
        QCOMPARE(m_page->rejectedModel()->rowCount(), 2);
        QCOMPARE(m_page->tabs()->tabText(DataPage::RejectedTab), QStringLiteral("Rejected Files (2)"));
        QStringList reasons;
        for (int row = 0; row < m_page->rejectedModel()->rowCount(); ++row)
            reasons << m_page->rejectedModel()->index(row, ui::RejectedFilesModel::FileColumn).data().toString()
                           + QStringLiteral(": ")
                           + m_page->rejectedModel()->index(row, ui::RejectedFilesModel::ReasonColumn).data().toString();
        reasons.sort();
        QCOMPARE(reasons, (QStringList{
                              QStringLiteral("labels.csv:9: an empty label for bad.jpg (two separators in a row, or "
                                             "one at an end)"),
                              QStringLiteral("lost.jpg: listed in labels.csv line 8 but not found")}));
    }

    void showsLabelFrequenciesAndCooccurrence()
    {
        QCOMPARE(m_page->tabs()->tabText(DataPage::BalanceTab), QStringLiteral("Label Frequencies"));
        QCOMPARE(m_page->snapshot().classes, list("animal,bird,grass,person,pet,sky,tree"));
        QCOMPARE(m_page->balanceChart()->classLabels(), list("animal,bird,grass,person,pet,sky,tree"));
        const QMap<QString, int> expected = {{QStringLiteral("animal"), 5}, {QStringLiteral("bird"), 1},
                                             {QStringLiteral("grass"), 4},  {QStringLiteral("person"), 3},
                                             {QStringLiteral("pet"), 2},    {QStringLiteral("sky"), 2},
                                             {QStringLiteral("tree"), 1}};
        QCOMPARE(chartCounts(), expected);

        m_page->tabs()->setCurrentIndex(DataPage::BalanceTab);
        ui::LabelCooccurrenceChart *chart = m_page->cooccurrenceChart();
        QTRY_VERIFY(chart->isVisible());
        QCOMPARE(chart->labels(), list("animal,bird,grass,person,pet,sky,tree"));
        QCOMPARE(cooccurrence("animal", "animal"), 5);
        QCOMPARE(cooccurrence("animal", "grass"), 3); // dog, horses, person
        QCOMPARE(cooccurrence("grass", "animal"), 3);
        QCOMPARE(cooccurrence("person", "grass"), 3); // horses, person, kite
        QCOMPARE(cooccurrence("animal", "pet"), 2);
        QCOMPARE(cooccurrence("bird", "sky"), 1);
        QCOMPARE(cooccurrence("tree", "sky"), 0);
        QCOMPARE(chart->share(5, 3), 0.5); // of the 2 sky images, kite.jpg is also person
        QVERIFY(chart->toolTipFor(0, 2).startsWith(QStringLiteral("animal and grass: 3 images carry both")));
        QVERIFY(!chart->cellRect(6, 6).isEmpty());

        const QString shot = qEnvironmentVariable("LATHE_DATA_MULTILABEL_SCREENSHOT");
        if (!shot.isEmpty()) {
            QTest::qWait(300);
            QVERIFY(m_page->grab().save(shot));
        }
    }

    void filtersByAnyLabel()
    {
        QComboBox *filter = m_page->classFilter();
        QCOMPARE(filter->itemText(0), QStringLiteral("All labels"));
        filter->setCurrentIndex(filter->findData(QStringLiteral("person")));
        QCOMPARE(shownFiles(), list("horses.jpg,kite.jpg,person.jpg"));
        filter->setCurrentIndex(filter->findData(QStringLiteral("pet")));
        QCOMPARE(shownFiles(), list("dog.jpg,person.jpg"));
        filter->setCurrentIndex(0);
        QCOMPARE(m_page->imageFilterModel()->rowCount(), 8);
    }

    void editsALabelSetInTheViewer()
    {
        const qint64 person = idOf(QStringLiteral("person.jpg"));
        QVERIFY(person > 0);
        m_page->openViewer(person);
        ui::ImageViewer *viewer = m_page->viewer();
        QTRY_VERIFY(viewer->isVisible());
        QVERIFY(viewer->labelList()->isVisible());
        QCOMPARE(viewer->labelList()->count(), 7);
        QCOMPARE(viewer->checkedLabels(), list("animal,grass,person,pet"));
        QVERIFY(!viewer->saveLabelsButton()->isEnabled()); // nothing changed yet
        QVERIFY(viewer->metadataLines().contains(QStringLiteral("Labels: animal, grass, person, pet")));

        // The person is no animal and no pet.
        viewer->setLabelChecked(QStringLiteral("animal"), false);
        viewer->setLabelChecked(QStringLiteral("pet"), false);
        QVERIFY(viewer->saveLabelsButton()->isEnabled());
        QSignalSpy changed(viewer, &ui::ImageViewer::imageChanged);
        QSignalSpy counts(m_page.get(), &DataPage::countsUpdated);
        QTest::mouseClick(viewer->saveLabelsButton(), Qt::LeftButton);
        QVERIFY(changed.wait(10000));
        QCOMPARE(catalog().image(person).labels, list("grass,person"));
        QVERIFY(catalog().image(person).labelsEdited);
        QVERIFY(counts.wait(10000));
        QCOMPARE(chartCounts().value(QStringLiteral("animal")), 4);
        QCOMPARE(chartCounts().value(QStringLiteral("pet")), 1);
        QCOMPARE(cooccurrence("animal", "grass"), 2);
        QCOMPARE(cooccurrence("person", "grass"), 3);
        // The grid's row and the filter follow.
        QCOMPARE(m_page->imageModel()->image(m_page->imageModel()->rowOfId(person)).labels, list("grass,person"));
        m_page->classFilter()->setCurrentIndex(m_page->classFilter()->findData(QStringLiteral("pet")));
        QCOMPARE(shownFiles(), list("dog.jpg"));
        m_page->classFilter()->setCurrentIndex(0);

        // Every label unticked: not saved (exclude the image instead).
        viewer->setLabelChecked(QStringLiteral("grass"), false);
        viewer->setLabelChecked(QStringLiteral("person"), false);
        QVERIFY(!viewer->saveLabelsButton()->isEnabled());
        viewer->hide();
    }

    void addsANewLabelInTheViewer()
    {
        const qint64 kite = idOf(QStringLiteral("kite.jpg"));
        QVERIFY(kite > 0);
        m_page->openViewer(kite);
        ui::ImageViewer *viewer = m_page->viewer();
        QTRY_VERIFY(viewer->isVisible());
        QVERIFY(viewer->newLabelEdit()->isVisible());
        QVERIFY(!viewer->addLabelButton()->isEnabled()); // nothing typed
        QVERIFY(!viewer->resetLabelsButton()->isEnabled()); // the labels file's set
        QCOMPARE(viewer->checkedLabels(), list("grass,person,sky"));

        // Typed, the new label is written at once with the ticked ones.
        QTest::keyClicks(viewer->newLabelEdit(), QStringLiteral(" kite "));
        QVERIFY(viewer->addLabelButton()->isEnabled());
        QSignalSpy changed(viewer, &ui::ImageViewer::imageChanged);
        QSignalSpy counts(m_page.get(), &DataPage::countsUpdated);
        QTest::mouseClick(viewer->addLabelButton(), Qt::LeftButton);
        QVERIFY(changed.wait(10000));
        QCOMPARE(viewer->message(), QString());
        QCOMPARE(catalog().classes(m_page->currentDatasetId()), list("animal,bird,grass,kite,person,pet,sky,tree"));
        QCOMPARE(catalog().image(kite).labels, list("grass,kite,person,sky"));
        QVERIFY(catalog().image(kite).labelsEdited);
        // The viewer lists it, ticked; the field is empty for the next one.
        QCOMPARE(listedLabels(), list("animal,bird,grass,kite,person,pet,sky,tree"));
        QCOMPARE(viewer->checkedLabels(), list("grass,kite,person,sky"));
        QCOMPARE(viewer->newLabelEdit()->text(), QString());
        QVERIFY(viewer->resetLabelsButton()->isEnabled());
        // The page: the label filter lists it and keeps the image, the frequencies and the grid count it.
        QCOMPARE(filterLabels(), list("animal,bird,grass,kite,person,pet,sky,tree"));
        QCOMPARE(m_page->snapshot().classes, list("animal,bird,grass,kite,person,pet,sky,tree"));
        m_page->classFilter()->setCurrentIndex(m_page->classFilter()->findData(QStringLiteral("kite")));
        QCOMPARE(shownFiles(), list("kite.jpg"));
        m_page->classFilter()->setCurrentIndex(0);
        QVERIFY(counts.wait(10000));
        QCOMPARE(chartCounts().value(QStringLiteral("kite")), 1);
        QVERIFY(m_page->balanceChart()->classLabels().contains(QStringLiteral("kite")));
        QCOMPARE(m_page->cooccurrenceChart()->labels(), list("animal,bird,grass,kite,person,pet,sky,tree"));
        QCOMPARE(cooccurrence("kite", "sky"), 1);
        QVERIFY(m_page->findChild<QLabel *>(QStringLiteral("datasetSummary"))->text().endsWith(QStringLiteral("8 labels")));

        // Another image: the list has the new label; a name the dataset has (the same text) is ticked
        // and written, no second label.
        const qint64 giraffe = idOf(QStringLiteral("giraffe.jpg"));
        m_page->openViewer(giraffe);
        QCOMPARE(listedLabels(), list("animal,bird,grass,kite,person,pet,sky,tree"));
        viewer->newLabelEdit()->setText(QStringLiteral("sky"));
        QTest::keyClick(viewer->newLabelEdit(), Qt::Key_Return); // Return adds too (and closes nothing)
        QVERIFY(changed.wait(10000));
        QVERIFY(viewer->isVisible());
        QCOMPARE(catalog().image(giraffe).labels, list("animal,sky,tree"));
        QCOMPARE(catalog().classes(m_page->currentDatasetId()).size(), 8);
        QVERIFY(counts.wait(10000));
        QCOMPARE(chartCounts().value(QStringLiteral("sky")), 3);
    }

    void refusesBadLabelNames()
    {
        ui::ImageViewer *viewer = m_page->viewer();
        const qint64 giraffe = idOf(QStringLiteral("giraffe.jpg"));
        QCOMPARE(viewer->image().id, giraffe);
        QSignalSpy changed(viewer, &ui::ImageViewer::imageChanged);
        QSignalSpy errors(viewer, &ui::ImageViewer::errorOccurred);
        const QList<QPair<QString, QString>> bad = {
            {QStringLiteral("sky;blue"), QStringLiteral("Cannot add the label \"sky;blue\": a label cannot hold ';' or "
                                                        "'|' (they separate the labels in a labels file).")},
            {QStringLiteral("a|b"), QStringLiteral("Cannot add the label \"a|b\": a label cannot hold ';' or '|' (they "
                                                   "separate the labels in a labels file).")},
            {QStringLiteral("tall, spotted"), QStringLiteral("Cannot add the label \"tall, spotted\": a label cannot "
                                                             "hold ',' (it separates the columns of a CSV labels file).")},
            {QString(101, QLatin1Char('x')),
             QStringLiteral("Cannot add the label \"%1\": a label has at most 100 characters; this one has 101.")
                 .arg(QString(101, QLatin1Char('x')))},
        };
        for (const auto &[name, message] : bad) {
            viewer->newLabelEdit()->setText(name);
            QVERIFY(viewer->addLabelButton()->isEnabled());
            QTest::mouseClick(viewer->addLabelButton(), Qt::LeftButton);
            QCOMPARE(viewer->message(), message);
            QCOMPARE(errors.takeLast().first().toString(), message);
            QCOMPARE(viewer->newLabelEdit()->text(), name); // kept, to be corrected
        }
        viewer->addLabel(QStringLiteral("line\nbreak"));
        QCOMPARE(viewer->message(), QStringLiteral("Cannot add the label \"line\nbreak\": a label cannot hold a line "
                                                   "break, a tab or another control character."));
        viewer->newLabelEdit()->setText(QStringLiteral("   "));
        QVERIFY(!viewer->addLabelButton()->isEnabled());
        viewer->addLabel(QStringLiteral("   "));
        QCOMPARE(viewer->message(), QStringLiteral("Cannot add a label: a label needs a name (spaces alone are none)."));
        QTest::qWait(200);
        QCOMPARE(changed.count(), 0); // nothing was written
        QCOMPARE(catalog().image(giraffe).labels, list("animal,sky,tree"));
        QCOMPARE(catalog().classes(m_page->currentDatasetId()).size(), 8);
        viewer->newLabelEdit()->clear();
    }

    void resetsToTheLabelsFileSet()
    {
        ui::ImageViewer *viewer = m_page->viewer();
        const qint64 giraffe = idOf(QStringLiteral("giraffe.jpg"));
        QCOMPARE(viewer->image().id, giraffe);
        QVERIFY(viewer->resetLabelsButton()->isEnabled());
        QSignalSpy changed(viewer, &ui::ImageViewer::imageChanged);
        QSignalSpy counts(m_page.get(), &DataPage::countsUpdated);

        // A labels file modified after the import: refused with the reason, nothing changes.
        setLabelsFileModified(QDateTime::currentDateTimeUtc().addSecs(3600));
        QSignalSpy errors(viewer, &ui::ImageViewer::errorOccurred);
        QTest::mouseClick(viewer->resetLabelsButton(), Qt::LeftButton);
        QVERIFY(errors.wait(10000));
        QVERIFY2(viewer->message().contains(QStringLiteral("labels.csv was modified (")), qPrintable(viewer->message()));
        QVERIFY(viewer->message().endsWith(QStringLiteral("re-import the dataset (your edits are kept), then reset the image")));
        QCOMPARE(catalog().image(giraffe).labels, list("animal,sky,tree"));
        setLabelsFileModified(QDateTime::currentDateTimeUtc().addSecs(-3600));

        // Unsaved ticks are dropped with the edit.
        viewer->setLabelChecked(QStringLiteral("bird"), true);
        QTest::mouseClick(viewer->resetLabelsButton(), Qt::LeftButton);
        QVERIFY(changed.wait(10000));
        QCOMPARE(viewer->message(), QString());
        QCOMPARE(catalog().image(giraffe).labels, list("animal,tree"));
        QVERIFY(!catalog().image(giraffe).labelsEdited);
        QCOMPARE(viewer->checkedLabels(), list("animal,tree"));
        QVERIFY(!viewer->resetLabelsButton()->isEnabled());
        QVERIFY(viewer->metadataLines().contains(QStringLiteral("Labels: animal, tree")));
        QCOMPARE(m_page->imageModel()->image(m_page->imageModel()->rowOfId(giraffe)).labels, list("animal,tree"));
        QVERIFY(counts.wait(10000));
        QCOMPARE(chartCounts().value(QStringLiteral("sky")), 2);
        QCOMPARE(cooccurrence("sky", "tree"), 0);
        viewer->hide();
    }

    void convertsWithTheEditedLabelSets()
    {
        const workspace::DatasetInfo dataset = m_page->snapshot().dataset;
        workspace::ConvertJob::Params params;
        params.sourceDir = dataset.sourceDir;
        params.datasetName = dataset.name;
        params.valFraction = dataset.valFraction;
        params.testFraction = dataset.testFraction;
        params.seed = dataset.seed;
        params.outDir = m_page->defaultConvertFolder();
        QSignalSpy finished(m_page.get(), &DataPage::convertFinished);
        QSignalSpy shown(m_page.get(), &DataPage::shardsLoaded);
        m_page->startConvert(params);
        QVERIFY(shown.wait(120000));
        QVERIFY(finished.first().first().value<workspace::ConvertSummary>().multiLabel);
        QCOMPARE(m_page->shardManifest().records, 6);

        std::map<std::string, std::vector<std::string>> records;
        const engine::DatasetManifest manifest = engine::readDatasetManifest(params.outDir.toStdString());
        QCOMPARE(QString::fromStdString(manifest.task), QStringLiteral("multi_label"));
        // The label made in the viewer is a class, in the classes' sorted order.
        QVERIFY(manifest.classes
                == (std::vector<std::string>{"animal", "bird", "grass", "kite", "person", "pet", "sky", "tree"}));
        for (const engine::ShardInfo &shard : manifest.shards) {
            engine::TFRecordReader reader(QDir(params.outDir).filePath(QString::fromStdString(shard.file)).toStdString());
            std::string record;
            while (reader.next(record)) {
                const engine::ImageExample example = engine::parseImageExample(record);
                records[example.filename] = example.classTexts;
            }
        }
        QCOMPARE(records.size(), std::size_t(6));
        QVERIFY(records.at("person.jpg") == (std::vector<std::string>{"grass", "person"}));
        QVERIFY(records.at("dog.jpg") == (std::vector<std::string>{"animal", "grass", "pet"}));
        QVERIFY(records.at("kite.jpg") == (std::vector<std::string>{"grass", "kite", "person", "sky"}));
        QVERIFY(records.at("giraffe.jpg") == (std::vector<std::string>{"animal", "tree"}));
        const engine::VerifyReport verify = engine::verifyDataset(params.outDir.toStdString());
        QVERIFY2(verify.ok(), verify.problems.empty() ? "" : verify.problems.front().c_str());
    }
};

QTEST_MAIN(TestDataPageMultiLabel)
#include "test_data_page_multilabel.moc"
