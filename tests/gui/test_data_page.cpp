// The Data page on a real image folder: import through the page, then the grid, filters,
// thumbnails (memory and disk cache), class balance, rejected files, CSV export, near
// duplicates and the viewer's exclude and relabel, each checked against the catalog.
#include "common/image_canvas.h"
#include "common/thumbnail_loader.h"
#include "data/class_balance_chart.h"
#include "data/data_page.h"
#include "data/image_filter_model.h"
#include "data/image_list_model.h"
#include "data/image_viewer.h"
#include "data/near_duplicate_group_model.h"
#include "data/rejected_files_model.h"
#include "data/shard_table_model.h"
#include "engine/dataset/demo_data.h"
#include "workspace/catalog.h"
#include "workspace/convert_job.h"
#include "workspace/job_manager.h"
#include "workspace/project.h"
#include "workspace/shard_manifest.h"

#include <QBuffer>
#include <QComboBox>
#include <QFile>
#include <QFileDialog>
#include <QImage>
#include <QImageReader>
#include <QLabel>
#include <QListView>
#include <QMessageBox>
#include <QPushButton>
#include <QSet>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace lathe;
using lathe::ui::DataPage;
using lathe::ui::ImageListModel;
using lathe::workspace::CatalogImage;

namespace {

void writeFile(const QString &path, const QByteArray &bytes)
{
    QFile file(path);
    QVERIFY2(file.open(QIODevice::WriteOnly), qPrintable(path));
    file.write(bytes);
}

// A JPEG whose EXIF block says "rotate 90° clockwise to show" (orientation 6).
QByteArray jpegWithOrientation6(const QImage &image)
{
    QByteArray jpeg;
    {
        QBuffer buffer(&jpeg);
        buffer.open(QIODevice::WriteOnly);
        image.save(&buffer, "JPEG", 95);
    }
    QByteArray tiff("MM\x00\x2a\x00\x00\x00\x08", 8);               // big-endian, IFD at 8
    tiff += QByteArray("\x00\x01", 2);                               // one entry
    tiff += QByteArray("\x01\x12\x00\x03\x00\x00\x00\x01\x00\x06\x00\x00", 12); // Orientation = 6
    tiff += QByteArray("\x00\x00\x00\x00", 4);                       // no next IFD
    const QByteArray payload = QByteArray("Exif\x00\x00", 6) + tiff;
    QByteArray app1("\xff\xe1", 2);
    const int length = int(payload.size()) + 2;
    app1 += char(length >> 8);
    app1 += char(length & 0xff);
    app1 += payload;
    return jpeg.left(2) + app1 + jpeg.mid(2); // right after SOI
}

} // namespace

class TestDataPage : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_tmp;
    QString m_imagesDir;
    QString m_badClass;
    std::unique_ptr<workspace::JobManager> m_jobs;
    std::unique_ptr<workspace::Project> m_project;
    std::unique_ptr<DataPage> m_page;
    int m_datasetId = 0;
    qint64 m_editedId = 0;

    workspace::Catalog catalog() const { return workspace::Catalog(m_project->database()); }

    QVector<CatalogImage> catalogImages() const { return catalog().images(m_datasetId); }

    // Waits for the file dialog the page opened and accepts it as if the user had picked path.
    static void acceptDialog(QWidget *parent, const QString &objectName, const QString &path)
    {
        QTRY_VERIFY(parent->findChild<QFileDialog *>(objectName) && parent->findChild<QFileDialog *>(objectName)->isVisible());
        auto *dialog = parent->findChild<QFileDialog *>(objectName);
        dialog->selectFile(path);
        QMetaObject::invokeMethod(dialog, "accept", Qt::DirectConnection); // protected in QFileDialog
    }

    void selectData(QComboBox *combo, const QString &value)
    {
        const int index = combo->findData(value);
        QVERIFY2(index >= 0, qPrintable(value));
        combo->setCurrentIndex(index);
    }

    // Shows the dataset called name, as choosing it in the selector does, and waits for it.
    static void chooseDataset(DataPage *page, const QString &name)
    {
        QComboBox *combo = page->datasetSelector();
        const int index = combo->findText(name);
        QVERIFY2(index >= 0, qPrintable(name));
        QSignalSpy loaded(page, &DataPage::datasetLoaded);
        combo->setCurrentIndex(index);
        Q_EMIT combo->activated(index);
        QVERIFY(loaded.wait(20000));
        QCOMPARE(page->snapshot().dataset.name, name);
    }

    int proxyRowOfId(QAbstractItemModel *model, qint64 id) const
    {
        for (int row = 0; row < model->rowCount(); ++row) {
            if (model->index(row, 0).data(ImageListModel::ImageIdRole).toLongLong() == id)
                return row;
        }
        return -1;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_tmp.isValid());
        m_imagesDir = m_tmp.filePath(QStringLiteral("images"));
        engine::DemoDataOptions options;
        options.outDir = m_imagesDir.toStdString();
        options.perClass = 3;
        options.testPerClass = 1;
        const engine::DemoDataResult demo = engine::writeDemoData(options);
        QCOMPARE(demo.trainImages, 30);
        m_badClass = QString::fromStdString(demo.classes.front());
        const QDir classDir(QDir(m_imagesDir).filePath(QStringLiteral("train/") + m_badClass));
        const QStringList pngs = classDir.entryList({QStringLiteral("*.png")}, QDir::Files, QDir::Name);
        QVERIFY(!pngs.isEmpty());

        // Two files no decoder accepts.
        writeFile(classDir.filePath(QStringLiteral("empty.png")), {});
        writeFile(classDir.filePath(QStringLiteral("notes.jpg")), "these are notes, not a JPEG\n");
        // A byte-identical copy (a duplicate) and a look-alike (a near duplicate).
        QVERIFY(QFile::copy(classDir.filePath(pngs.first()), classDir.filePath(QStringLiteral("zz-copy.png"))));
        QImage lookAlike(classDir.filePath(pngs.first()));
        QVERIFY(!lookAlike.isNull());
        lookAlike = lookAlike.convertToFormat(QImage::Format_Grayscale8);
        lookAlike.setPixel(0, 0, qRgb(9, 9, 9));
        lookAlike.setPixel(27, 27, qRgb(3, 3, 3));
        QVERIFY(lookAlike.save(classDir.filePath(QStringLiteral("zz-look-alike.png"))));

        const QString folder = m_tmp.filePath(QStringLiteral("project"));
        m_project = workspace::Project::create(folder, QStringLiteral("Inspect"));
        m_jobs = std::make_unique<workspace::JobManager>(2);
        m_page = std::make_unique<DataPage>(m_jobs.get());
        m_page->resize(1100, 760);
        m_page->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_page.get()));
    }

    void anEmptyProjectSaysSoAndOffersImport()
    {
        QSignalSpy loaded(m_page.get(), &DataPage::datasetLoaded);
        m_page->setProject(m_project.get());
        QVERIFY(loaded.wait(20000));
        QCOMPARE(loaded.first().first().toInt(), 0);
        QVERIFY(m_page->facts().first().contains(QDir::toNativeSeparators(m_project->folder())));
        auto *button = m_page->findChild<QPushButton *>(QStringLiteral("emptyImportButton"));
        QVERIFY(button && button->isVisible() && button->isEnabled());
        // No demo images recorded in this project: no offer for them.
        QVERIFY(!m_page->findChild<QPushButton *>(QStringLiteral("demoImportButton"))->isVisible());
    }

    void importsThroughThePage()
    {
        QSignalSpy loaded(m_page.get(), &DataPage::datasetLoaded);
        QSignalSpy finished(m_page.get(), &DataPage::importFinished);
        QTest::mouseClick(m_page->findChild<QPushButton *>(QStringLiteral("emptyImportButton")), Qt::LeftButton);
        acceptDialog(m_page.get(), QStringLiteral("importFolderDialog"), m_imagesDir);
        if (QTest::currentTestFailed())
            return;
        QVERIFY(finished.wait(60000));
        QTRY_VERIFY(loaded.count() > 0);
        m_datasetId = loaded.last().first().toInt();
        QVERIFY(m_datasetId > 0);
        QCOMPARE(m_page->currentDatasetId(), m_datasetId);
        QCOMPARE(finished.first().first().value<workspace::ImportSummary>().rejected, 2);

        const QVector<CatalogImage> images = catalogImages();
        QCOMPARE(images.size(), 40 + 4);
        QCOMPARE(m_page->imageModel()->rowCount(), images.size());
        QCOMPARE(m_page->imageFilterModel()->rowCount(), images.size());
        for (int row = 0; row < images.size(); ++row)
            QCOMPARE(m_page->imageModel()->image(row).id, images.at(row).id);
        QCOMPARE(m_page->datasetSelector()->currentText(), QStringLiteral("images"));
        QVERIFY(m_page->imageGrid()->isVisible());
    }

    void filtersNarrowTheRows()
    {
        const QVector<CatalogImage> images = catalogImages();
        auto count = [&](auto predicate) { return int(std::count_if(images.begin(), images.end(), predicate)); };
        ui::ImageFilterModel *filter = m_page->imageFilterModel();

        selectData(m_page->classFilter(), m_badClass);
        QCOMPARE(filter->rowCount(), count([&](const CatalogImage &i) { return i.className == m_badClass; }));
        QCOMPARE(filter->rowCount(), 4 + 4);
        selectData(m_page->splitFilter(), QStringLiteral("test"));
        QCOMPARE(filter->rowCount(), 1);
        selectData(m_page->classFilter(), QString());
        QCOMPARE(filter->rowCount(), 10);
        selectData(m_page->splitFilter(), QString());

        selectData(m_page->statusFilter(), QStringLiteral("rejected"));
        QCOMPARE(filter->rowCount(), 2);
        for (int row = 0; row < filter->rowCount(); ++row)
            QCOMPARE(filter->index(row, 0).data(ImageListModel::StatusRole).toString(), QStringLiteral("rejected"));
        selectData(m_page->statusFilter(), QStringLiteral("duplicate"));
        QCOMPARE(filter->rowCount(), count([](const CatalogImage &i) { return i.status == QLatin1String("duplicate"); }));
        QVERIFY(filter->rowCount() >= 1);
        selectData(m_page->statusFilter(), QStringLiteral("ok"));
        QCOMPARE(filter->rowCount(), count([](const CatalogImage &i) { return i.usable(); }));
        selectData(m_page->statusFilter(), QStringLiteral("excluded"));
        QCOMPARE(filter->rowCount(), 0);
        selectData(m_page->statusFilter(), QString());
        QCOMPARE(filter->rowCount(), images.size());
    }

    void thumbnailsArriveAndAreCachedOnDisk()
    {
        ui::ThumbnailLoader *loader = m_page->thumbnails();
        ui::ImageFilterModel *filter = m_page->imageFilterModel();
        QCOMPARE(loader->cacheDir(), QDir(m_project->folder()).filePath(QStringLiteral("cache/thumbnails")));

        int okRow = -1;
        int rejectedRow = -1;
        for (int row = 0; row < filter->rowCount(); ++row) {
            const QString status = filter->index(row, 0).data(ImageListModel::StatusRole).toString();
            if (status == QLatin1String("ok") && okRow < 0)
                okRow = row;
            if (status == QLatin1String("rejected") && rejectedRow < 0)
                rejectedRow = row;
        }
        QVERIFY(okRow >= 0 && rejectedRow >= 0);
        const QModelIndex ok = filter->index(okRow, 0);
        m_page->imageGrid()->scrollTo(ok);
        // The view asks, the pixmap follows (a placeholder until then).
        QTRY_COMPARE(ok.data(ImageListModel::ThumbnailStateRole).toInt(), int(ui::ThumbnailLoader::State::Ready));
        const QPixmap pixmap = qvariant_cast<QPixmap>(ok.data(Qt::DecorationRole));
        QVERIFY(!pixmap.isNull());
        QVERIFY(pixmap.cacheKey() != loader->loadingIcon().cacheKey());
        QCOMPARE(pixmap.size(), QSize(28, 28)); // Fashion-MNIST pictures are smaller than a thumbnail: kept as is

        const QString sha = ok.data(ImageListModel::Sha256Role).toString();
        const QString cacheFile = loader->cacheFilePath(sha);
        QVERIFY(cacheFile.startsWith(loader->cacheDir()));
        QVERIFY(cacheFile.endsWith(sha + QStringLiteral(".png")));
        QVERIFY(QFileInfo::exists(cacheFile));
        QCOMPARE(QImage(cacheFile).size(), QSize(28, 28));

        // A file that cannot be decoded shows the broken picture, at once.
        const QModelIndex rejected = filter->index(rejectedRow, 0);
        QCOMPARE(qvariant_cast<QPixmap>(rejected.data(Qt::DecorationRole)).cacheKey(), loader->brokenIcon().cacheKey());

        // A corrupt cache file is ignored and written again.
        writeFile(cacheFile, "not a png");
        QString error;
        const QImage again = ui::ThumbnailLoader::render(ok.data(ImageListModel::AbsolutePathRole).toString(), cacheFile, &error);
        QCOMPARE(again.size(), QSize(28, 28));
        QVERIFY(!QImageReader(cacheFile).read().isNull());
    }

    void thumbnailsFollowExifAndReadDeepAndGreyImages()
    {
        const QDir dir(m_tmp.filePath(QStringLiteral("odd")));
        QVERIFY(dir.mkpath(QStringLiteral(".")));
        QString error;

        // Stored 400×200 with EXIF orientation 6: shown 200 wide, 400 high.
        QImage landscape(400, 200, QImage::Format_RGB32);
        landscape.fill(Qt::red);
        writeFile(dir.filePath(QStringLiteral("rotated.jpg")), jpegWithOrientation6(landscape));
        const QImage rotated = ui::ThumbnailLoader::render(dir.filePath(QStringLiteral("rotated.jpg")),
                                                           dir.filePath(QStringLiteral("rotated-cache.png")), &error);
        QVERIFY2(!rotated.isNull(), qPrintable(error));
        QCOMPARE(rotated.size(), QSize(64, 128));

        QImage deep(300, 150, QImage::Format_Grayscale16);
        deep.fill(0);
        for (int y = 0; y < deep.height(); ++y) {
            auto *line = reinterpret_cast<quint16 *>(deep.scanLine(y));
            for (int x = 0; x < deep.width(); ++x)
                line[x] = quint16(x * 200);
        }
        QVERIFY(deep.save(dir.filePath(QStringLiteral("deep.png"))));
        QCOMPARE(QImageReader(dir.filePath(QStringLiteral("deep.png"))).imageFormat(), QImage::Format_Grayscale16);
        const QImage thumb = ui::ThumbnailLoader::render(dir.filePath(QStringLiteral("deep.png")), {}, &error);
        QVERIFY2(!thumb.isNull(), qPrintable(error));
        QCOMPARE(thumb.size(), QSize(128, 64));
        QVERIFY(qGray(thumb.pixel(127, 10)) > qGray(thumb.pixel(0, 10)));

        QVERIFY(ui::ThumbnailLoader::render(dir.filePath(QStringLiteral("missing.png")), {}, &error).isNull());
        QVERIFY(!error.isEmpty());
    }

    void classBalanceMatchesTheCatalog()
    {
        workspace::Catalog cat = catalog();
        const QStringList classes = cat.classes(m_datasetId);
        ui::ClassBalanceChart *chart = m_page->balanceChart();
        QCOMPARE(chart->classLabels(), classes);
        const QVector<workspace::ClassCount> counts = cat.classCounts(m_datasetId);
        QStringList splits;
        for (const workspace::ClassCount &c : counts) {
            if (!splits.contains(c.split))
                splits << c.split;
        }
        const QStringList shown = chart->splits();
        QCOMPARE(QSet<QString>(shown.begin(), shown.end()), QSet<QString>(splits.begin(), splits.end()));
        for (const QString &split : splits) {
            QVector<double> expected(classes.size(), 0.0);
            for (const workspace::ClassCount &c : counts) {
                if (c.split == split)
                    expected[classes.indexOf(c.className)] += c.count;
            }
            QCOMPARE(chart->values(split), expected);
        }
        // Three training images per class, the bad class's look-alike on top.
        QCOMPARE(chart->values(QStringLiteral("train")).at(classes.indexOf(m_badClass)), 4.0);
    }

    void rejectedFilesAreListedWithReasons()
    {
        ui::RejectedFilesModel *model = m_page->rejectedModel();
        const QVector<CatalogImage> images = catalogImages();
        QHash<QString, QString> reasons;
        for (const CatalogImage &image : images) {
            if (image.status != QLatin1String("ok"))
                reasons.insert(image.relPath, image.reason);
        }
        QCOMPARE(model->rowCount(), reasons.size());
        for (const QString &name : {QStringLiteral("empty.png"), QStringLiteral("notes.jpg")}) {
            const QString relPath = QStringLiteral("train/%1/%2").arg(m_badClass, name);
            int found = -1;
            for (int row = 0; row < model->rowCount(); ++row) {
                if (model->index(row, ui::RejectedFilesModel::FileColumn).data().toString() == relPath)
                    found = row;
            }
            QVERIFY2(found >= 0, qPrintable(relPath));
            QCOMPARE(model->index(found, ui::RejectedFilesModel::StatusColumn).data().toString(), QStringLiteral("Rejected"));
            const QString reason = model->index(found, ui::RejectedFilesModel::ReasonColumn).data().toString();
            QVERIFY(!reason.isEmpty());
            QCOMPARE(reason, reasons.value(relPath));
        }
    }

    void exportsTheRejectedListAsCsv()
    {
        m_page->tabs()->setCurrentIndex(DataPage::RejectedTab);
        const QString path = m_tmp.filePath(QStringLiteral("rejected.csv"));
        QSignalSpy exported(m_page.get(), &DataPage::csvExported);
        QTest::mouseClick(m_page->findChild<QPushButton *>(QStringLiteral("exportCsvButton")), Qt::LeftButton);
        acceptDialog(m_page.get(), QStringLiteral("exportCsvDialog"), path);
        if (QTest::currentTestFailed())
            return;
        QVERIFY(exported.wait(20000));
        QCOMPARE(exported.first().first().toString(), path);
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(file.readAll());
        QVERIFY(text.startsWith(QStringLiteral("path,status,reason\n")));
        QVERIFY(text.contains(QStringLiteral("train/%1/empty.png,rejected,").arg(m_badClass)));
        QVERIFY(text.contains(QStringLiteral("train/%1/notes.jpg,rejected,").arg(m_badClass)));
        m_page->tabs()->setCurrentIndex(DataPage::ImagesTab);
    }

    void nearDuplicatesShowSideBySide()
    {
        ui::NearDuplicateGroupModel *groups = m_page->nearDuplicateGroupModel();
        QVERIFY(groups->rowCount() >= 1);
        m_page->tabs()->setCurrentIndex(DataPage::NearDuplicatesTab);
        auto *list = m_page->findChild<QListView *>(QStringLiteral("nearDuplicateGroups"));
        list->setCurrentIndex(groups->index(0));
        const int group = groups->index(0).data(ui::NearDuplicateGroupModel::GroupRole).toInt();
        ui::ImageFilterModel *members = m_page->nearDuplicateFilterModel();
        QCOMPARE(members->rowCount(), groups->groups().first().files.size());
        QVERIFY(members->rowCount() >= 2);
        for (int row = 0; row < members->rowCount(); ++row)
            QCOMPARE(members->index(row, 0).data(ImageListModel::NearDuplicateGroupRole).toInt(), group);
        // Each member's distance to the representative, within the threshold the import used.
        QCOMPARE(groups->threshold(), 10);
        QCOMPARE(groups->hashBits(), 576);
        for (const ui::NearDuplicateGroupModel::Group &g : groups->groups()) {
            QCOMPARE(g.distances.size(), g.files.size());
            QCOMPARE(g.distances.first(), 0);
            for (int distance : g.distances)
                QVERIFY(distance >= 0 && distance <= groups->threshold());
        }
        // The look-alike (two pixels changed) is grouped with its original, and the page says how close.
        int lookAlikeRow = -1;
        for (int row = 0; row < groups->rowCount(); ++row) {
            if (groups->groups().at(row).files.contains(QStringLiteral("train/%1/zz-look-alike.png").arg(m_badClass)))
                lookAlikeRow = row;
        }
        QVERIFY(lookAlikeRow >= 0);
        list->setCurrentIndex(groups->index(lookAlikeRow));
        const QString details = m_page->findChild<QLabel *>(QStringLiteral("nearDuplicateDetails"))->text();
        QVERIFY2(details.contains(QStringLiteral("(576 bits)")) && details.contains(QStringLiteral("the representative")),
                 qPrintable(details));
        QVERIFY2(details.contains(QStringLiteral("zz-look-alike.png: within ")) && details.contains(QStringLiteral(" of 576 bits of the representative")),
                 qPrintable(details));
        QVERIFY(groups->index(lookAlikeRow).data().toString().contains(QStringLiteral("of 576 bits")));
        const QModelIndex first = members->index(0, 0);
        QTRY_COMPARE(first.data(ImageListModel::ThumbnailStateRole).toInt(), int(ui::ThumbnailLoader::State::Ready));
        m_page->tabs()->setCurrentIndex(DataPage::ImagesTab);
    }

    void viewerExcludesAndRelabels()
    {
        // An ordinary image of the bad class, opened with a double click in the grid.
        ui::ImageFilterModel *filter = m_page->imageFilterModel();
        selectData(m_page->classFilter(), m_badClass);
        selectData(m_page->splitFilter(), QStringLiteral("train"));
        selectData(m_page->statusFilter(), QStringLiteral("ok"));
        QVERIFY(filter->rowCount() > 0);
        const QModelIndex index = filter->index(0, 0);
        m_editedId = index.data(ImageListModel::ImageIdRole).toLongLong();
        QListView *grid = m_page->imageGrid();
        QTRY_VERIFY(grid->visualRect(index).isValid());
        // QTest sends a double click alone; a real one follows a press on the same cell.
        QTest::mouseClick(grid->viewport(), Qt::LeftButton, {}, grid->visualRect(index).center());
        QTest::mouseDClick(grid->viewport(), Qt::LeftButton, {}, grid->visualRect(index).center());

        ui::ImageViewer *viewer = m_page->viewer();
        QTRY_VERIFY(viewer->isVisible());
        QCOMPARE(viewer->image().id, m_editedId);
        QTRY_VERIFY(!viewer->canvas()->image().isNull());
        QCOMPARE(viewer->canvas()->image().size(), QSize(28, 28));
        const CatalogImage before = catalog().image(m_editedId);
        const QString metadata = viewer->metadataLines().join(QLatin1Char('\n'));
        QVERIFY(metadata.contains(before.sha256));
        QVERIFY(metadata.contains(QDir::toNativeSeparators(QDir(m_imagesDir).filePath(before.relPath))));
        QVERIFY(metadata.contains(QStringLiteral("28 × 28")));
        const double trainBefore = m_page->balanceChart()->values(QStringLiteral("train")).at(
            catalog().classes(m_datasetId).indexOf(m_badClass));

        // Exclude: the catalog row, the model, the filters and the class balance follow.
        QSignalSpy changed(viewer, &ui::ImageViewer::imageChanged);
        QSignalSpy counts(m_page.get(), &DataPage::countsUpdated);
        auto *exclude = viewer->findChild<QPushButton *>(QStringLiteral("excludeButton"));
        QCOMPARE(exclude->text(), QStringLiteral("Exclude"));
        QTest::mouseClick(exclude, Qt::LeftButton);
        QVERIFY(changed.wait(20000));
        QVERIFY(catalog().image(m_editedId).excluded);
        QVERIFY(m_page->imageModel()->image(m_page->imageModel()->rowOfId(m_editedId)).excluded);
        QCOMPARE(proxyRowOfId(filter, m_editedId), -1); // no longer "usable"
        QCOMPARE(exclude->text(), QStringLiteral("Include"));
        QVERIFY(counts.wait(20000));
        const int classIndex = catalog().classes(m_datasetId).indexOf(m_badClass);
        QCOMPARE(m_page->balanceChart()->values(QStringLiteral("train")).at(classIndex), trainBefore - 1);
        selectData(m_page->statusFilter(), QStringLiteral("excluded"));
        QCOMPARE(filter->rowCount(), 1);

        // Relabel: the label changes in the catalog, not the file's folder.
        const QStringList classes = catalog().classes(m_datasetId);
        const QString target = classes.last() == m_badClass ? classes.first() : classes.last();
        auto *combo = viewer->findChild<QComboBox *>(QStringLiteral("relabelCombo"));
        combo->setCurrentText(target);
        auto *relabel = viewer->findChild<QPushButton *>(QStringLiteral("relabelButton"));
        QVERIFY(relabel->isEnabled());
        QTest::mouseClick(relabel, Qt::LeftButton);
        QVERIFY(changed.wait(20000));
        const CatalogImage relabelled = catalog().image(m_editedId);
        QCOMPARE(relabelled.className, target);
        QCOMPARE(relabelled.folderClass, m_badClass);
        QCOMPARE(relabelled.relPath, before.relPath);
        QVERIFY(QFileInfo::exists(QDir(m_imagesDir).filePath(before.relPath)));
        QCOMPARE(m_page->imageModel()->image(m_page->imageModel()->rowOfId(m_editedId)).className, target);

        // Include again: it counts for its new class now.
        const double targetBefore = m_page->balanceChart()->values(QStringLiteral("train")).at(classes.indexOf(target));
        QTest::mouseClick(exclude, Qt::LeftButton);
        QVERIFY(changed.wait(20000));
        QVERIFY(!catalog().image(m_editedId).excluded);
        QTRY_COMPARE(m_page->balanceChart()->values(QStringLiteral("train")).at(classes.indexOf(target)),
                     targetBefore + 1);
        viewer->close();
        for (QComboBox *combo : {m_page->classFilter(), m_page->splitFilter(), m_page->statusFilter()})
            combo->setCurrentIndex(0);
    }

    void reimportKeepsTheUsersDecisions()
    {
        // Exclude it again, then re-import: nothing changed on disk, so nothing is read again.
        workspace::Catalog(m_project->database()).setExcluded(m_editedId, true);
        QSignalSpy finished(m_page.get(), &DataPage::importFinished);
        QSignalSpy loaded(m_page.get(), &DataPage::datasetLoaded);
        auto *reimport = m_page->findChild<QPushButton *>(QStringLiteral("reimportButton"));
        QVERIFY(reimport->isEnabled());
        QTest::mouseClick(reimport, Qt::LeftButton);
        QVERIFY(finished.wait(60000));
        const workspace::ImportSummary summary = finished.first().first().value<workspace::ImportSummary>();
        QCOMPARE(summary.datasetId, m_datasetId);
        QCOMPARE(summary.added, 0);
        QCOMPARE(summary.unchanged, 44);
        QTRY_VERIFY(loaded.count() > 0);
        QCOMPARE(m_page->imageModel()->rowCount(), 44);
        const CatalogImage image = m_page->imageModel()->image(m_page->imageModel()->rowOfId(m_editedId));
        QVERIFY(image.excluded);
        QVERIFY(image.className != m_badClass);
    }

    void theShardsTabFollowsTheDatasetAndIsRemembered()
    {
        // Not converted: the tab says so and offers the conversion; so does the top button.
        auto *convert = m_page->findChild<QPushButton *>(QStringLiteral("convertButton"));
        auto *shardsConvert = m_page->findChild<QPushButton *>(QStringLiteral("shardsConvertButton"));
        auto *banner = m_page->findChild<QLabel *>(QStringLiteral("shardWarnings"));
        m_page->tabs()->setCurrentIndex(DataPage::ShardsTab);
        QVERIFY(m_page->shardManifest().isNull());
        QVERIFY(shardsConvert->isVisible());
        QCOMPARE(convert->text(), QStringLiteral("Next: Convert to Shards…"));

        // A second, tiny dataset (two training images per class), imported and converted.
        const QString second = m_tmp.filePath(QStringLiteral("second"));
        engine::DemoDataOptions options;
        options.outDir = second.toStdString();
        options.perClass = 2;
        options.testPerClass = 0;
        QCOMPARE(engine::writeDemoData(options).trainImages, 20);
        QSignalSpy imported(m_page.get(), &DataPage::importFinished);
        QSignalSpy loaded(m_page.get(), &DataPage::datasetLoaded);
        m_page->importFolder(second);
        QVERIFY(imported.wait(60000));
        QTRY_VERIFY(loaded.count() > 0 && m_page->snapshot().dataset.name == QStringLiteral("second"));
        const int secondId = m_page->currentDatasetId();
        QVERIFY(m_page->shardManifest().isNull());

        workspace::ConvertJob::Params params;
        params.sourceDir = second;
        params.datasetName = QStringLiteral("second");
        params.outDir = m_page->defaultConvertFolder();
        QSignalSpy shown(m_page.get(), &DataPage::shardsLoaded);
        m_page->startConvert(params);
        QVERIFY(shown.wait(120000));
        QCOMPARE(m_page->shardManifest().records, 20);
        QCOMPARE(QDir::cleanPath(m_page->shardManifest().source), QDir::cleanPath(second));
        QCOMPARE(convert->text(), QStringLiteral("Convert to Shards…"));
        QVERIFY(!m_page->shardWarnings().isEmpty()); // tiny, no validation images
        QVERIFY(banner->isVisible());
        QTRY_COMPARE(catalog().dataset(secondId).shardsDir, params.outDir);

        // An error about the shown dataset goes with it.
        QSignalSpy failed(m_page.get(), &DataPage::errorOccurred);
        m_page->openConvertedDataset(m_tmp.filePath(QStringLiteral("nowhere/dataset.json")));
        QVERIFY(failed.wait(20000));
        for (QMessageBox *box : m_page->findChildren<QMessageBox *>())
            box->close();
        auto *status = m_page->findChild<QLabel *>(QStringLiteral("dataStatus"));
        QVERIFY(!status->text().isEmpty());

        // Another dataset: its own (missing) shards, and no warnings about the other one's.
        chooseDataset(m_page.get(), QStringLiteral("images"));
        if (QTest::currentTestFailed())
            return;
        QVERIFY(m_page->shardManifest().isNull());
        QVERIFY(m_page->shardWarnings().isEmpty());
        QVERIFY(!banner->isVisible());
        QVERIFY(shardsConvert->isVisible());
        QCOMPARE(convert->text(), QStringLiteral("Next: Convert to Shards…"));
        QVERIFY(status->text().isEmpty());
        // And back.
        chooseDataset(m_page.get(), QStringLiteral("second"));
        if (QTest::currentTestFailed())
            return;
        QCOMPARE(m_page->shardManifest().folder(), params.outDir);
        QVERIFY(banner->isVisible());

        // The project opened again, as after a restart: the shards are there without converting again.
        {
            auto reopened = workspace::Project::open(m_project->folder());
            DataPage page(m_jobs.get());
            page.resize(1100, 760);
            page.show();
            QSignalSpy reloaded(&page, &DataPage::datasetLoaded);
            page.setProject(reopened.get());
            QVERIFY(reloaded.wait(20000));
            chooseDataset(&page, QStringLiteral("second"));
            if (QTest::currentTestFailed())
                return;
            QCOMPARE(page.shardManifest().folder(), params.outDir);
            QCOMPARE(page.shardModel()->rowCount(), int(page.shardManifest().shards.size()));
            QCOMPARE(page.findChild<QPushButton *>(QStringLiteral("convertButton"))->text(), QStringLiteral("Convert to Shards…"));

            // Without the catalog's record (a conversion by lathe-cli), it is found in the datasets folder.
            workspace::Catalog(reopened->database()).setShardsDir(secondId, QString());
            QSignalSpy again(&page, &DataPage::datasetLoaded);
            page.reload();
            QVERIFY(again.wait(20000));
            QCOMPARE(page.shardManifest().folder(), params.outDir);
        }
        m_page->tabs()->setCurrentIndex(DataPage::ImagesTab);
    }

    void demoImagesAreOffered()
    {
        const QString folder = m_tmp.filePath(QStringLiteral("demo-project"));
        auto project = workspace::Project::create(folder);
        project->setMeta(QStringLiteral("demo_images"), m_imagesDir);
        QSignalSpy loaded(m_page.get(), &DataPage::datasetLoaded);
        m_page->setProject(project.get());
        QVERIFY(loaded.wait(20000));
        QCOMPARE(loaded.first().first().toInt(), 0);
        QVERIFY(m_page->facts().join(QLatin1Char('\n')).contains(QDir::toNativeSeparators(m_imagesDir)));
        auto *offer = m_page->findChild<QPushButton *>(QStringLiteral("demoImportButton"));
        QVERIFY(offer->isVisible() && offer->isEnabled());
        QTest::mouseClick(offer, Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(loaded.count() == 2, 60000);
        QVERIFY(loaded.last().first().toInt() > 0);
        QCOMPARE(m_page->imageModel()->rowCount(), 44);
        m_page->setProject(nullptr);
        QCOMPARE(m_page->imageModel()->rowCount(), 0);
    }

    void cleanupTestCase()
    {
        m_page.reset();
        m_jobs.reset(); // waits for whatever job is still running
        m_project.reset();
    }
};

QTEST_MAIN(TestDataPage)
#include "test_data_page.moc"
