// The data-quality warnings shown after a conversion and at the Train page's pre-flight, on
// hand-made manifests whose counts are known.
#include "workspace/dataset_warnings.h"

#include <QTest>

using namespace lathe::workspace;

namespace {

// A manifest with one shard per split holding perClass[split][c] records of class c.
ShardManifest manifest(const QStringList &classes, const QMap<QString, QVector<qint64>> &perClass)
{
    ShardManifest m;
    m.path = QStringLiteral("/tmp/shards/dataset.json");
    m.classes = classes;
    for (auto it = perClass.cbegin(); it != perClass.cend(); ++it) {
        ShardManifest::Shard shard;
        shard.split = it.key();
        shard.file = it.key() + QStringLiteral("-00000-of-00001.tfrecord");
        for (int c = 0; c < classes.size(); ++c) {
            m.counts[it.key()][classes.at(c)] = it.value().value(c);
            shard.records += it.value().value(c);
        }
        m.records += shard.records;
        m.shards.append(shard);
    }
    return m;
}

const QStringList kClasses = {QStringLiteral("cat"), QStringLiteral("dog"), QStringLiteral("fox")};
const QString kTrain = QStringLiteral("train");
const QString kVal = QStringLiteral("val");

bool anyContains(const QStringList &warnings, const QString &text)
{
    for (const QString &w : warnings) {
        if (w.contains(text))
            return true;
    }
    return false;
}

} // namespace

class TestDatasetWarnings : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void aHealthyDatasetGetsNone()
    {
        // The demo's shape: 100 training and 20 validation images per class; batch 32 uses 288 of 300.
        const ShardManifest m = manifest(kClasses, {{kTrain, {100, 100, 100}}, {kVal, {20, 20, 20}}});
        QCOMPARE(datasetWarnings(m, kTrain, kVal, 32), QStringList());
        QCOMPARE(datasetWarnings(m, kTrain, kVal, 0), QStringList());
        QCOMPARE(datasetWarnings(ShardManifest(), kTrain, kVal, 32), QStringList()); // nothing converted
    }

    void tinySplitsAreNamed()
    {
        // 3 training images per class (fewer than kTinySplitPerClass), validation 1 per class.
        const ShardManifest m = manifest(kClasses, {{kTrain, {3, 3, 3}}, {kVal, {1, 1, 1}}});
        const QStringList w = datasetWarnings(m, kTrain, kVal, 0);
        QCOMPARE(w.size(), 2);
        QVERIFY2(w.at(0).contains(QStringLiteral("\"train\" is tiny: 9 images for 3 class")), qPrintable(w.at(0)));
        QVERIFY2(w.at(0).contains(QString::number(kTinySplitPerClass)), qPrintable(w.at(0)));
        // 3 validation images: accuracy moves in steps of a third.
        QVERIFY2(w.at(1).contains(QStringLiteral("\"val\" is tiny: 3 images")), qPrintable(w.at(1)));
        QVERIFY2(w.at(1).contains(QStringLiteral("steps of 33 %")), qPrintable(w.at(1)));
        // Exactly kTinySplitPerClass per class is not tiny.
        const ShardManifest enough = manifest(kClasses, {{kTrain, {10, 10, 10}}, {kVal, {10, 10, 10}}});
        QCOMPARE(datasetWarnings(enough, kTrain, kVal, 0), QStringList());
    }

    void missingSplitsAndClasses()
    {
        // No validation split at all (the folder had train and test folders only).
        const ShardManifest noVal = manifest(kClasses, {{kTrain, {50, 50, 50}}, {QStringLiteral("test"), {5, 5, 5}}});
        QStringList w = datasetWarnings(noVal, kTrain, kVal, 0);
        QCOMPARE(w.size(), 1);
        QVERIFY2(w.first().contains(QStringLiteral("\"val\" has no images")), qPrintable(w.first()));
        // A run without validation asks for none: nothing to say.
        QCOMPARE(datasetWarnings(noVal, kTrain, QString(), 0), QStringList());

        // fox has no validation images, dog no training images.
        const ShardManifest gaps = manifest(kClasses, {{kTrain, {50, 0, 50}}, {kVal, {20, 20, 0}}});
        w = datasetWarnings(gaps, kTrain, kVal, 0);
        QCOMPARE(w.size(), 2);
        QVERIFY2(w.at(0).startsWith(QStringLiteral("No images in split \"train\" for 1 class")), qPrintable(w.at(0)));
        QVERIFY2(w.at(0).endsWith(QStringLiteral(": dog.")), qPrintable(w.at(0)));
        QVERIFY2(w.at(1).contains(QStringLiteral("split \"val\"")) && w.at(1).endsWith(QStringLiteral(": fox.")),
                 qPrintable(w.at(1)));

        // No training images at all.
        const ShardManifest noTrain = manifest(kClasses, {{kVal, {20, 20, 20}}});
        w = datasetWarnings(noTrain, kTrain, kVal, 64);
        QCOMPARE(w.size(), 1);
        QVERIFY2(w.first().contains(QStringLiteral("\"train\" has no images")), qPrintable(w.first()));
    }

    void longClassListsAreCutShort()
    {
        QStringList classes;
        QVector<qint64> train, val;
        for (int c = 0; c < 12; ++c) {
            classes << QStringLiteral("c%1").arg(c, 2, 10, QLatin1Char('0'));
            train << 40;
            val << (c < 2 ? 100 : 0); // ten classes without validation images (200 in all: not tiny)
        }
        const QStringList w = datasetWarnings(manifest(classes, {{kTrain, train}, {kVal, val}}), kTrain, kVal, 0);
        QCOMPARE(w.size(), 1);
        QVERIFY2(w.first().startsWith(QStringLiteral("No images in split \"val\" for 10 class")), qPrintable(w.first()));
        QVERIFY2(w.first().contains(QStringLiteral("c02, c03, c04, c05, c06, and 5 more")), qPrintable(w.first()));
    }

    void theBatchRuleSaysWhatAnEpochUses()
    {
        // 300 training images: batch 128 gives 2 full batches, 256 images; 44 (15 %) are dropped: no warning.
        const ShardManifest m = manifest(kClasses, {{kTrain, {100, 100, 100}}, {kVal, {20, 20, 20}}});
        QCOMPARE(datasetWarnings(m, kTrain, kVal, 128), QStringList());
        // Batch 200: one full batch, 200 images; 100 (a third) are dropped every epoch.
        QStringList w = datasetWarnings(m, kTrain, kVal, 200);
        QCOMPARE(w.size(), 1);
        QVERIFY2(w.first().contains(QStringLiteral("leaves 100 of the 300 images")), qPrintable(w.first()));
        QVERIFY2(w.first().contains(QStringLiteral("an epoch uses 200 images (1 full batch")), qPrintable(w.first()));
        // Batch 301: no full batch at all.
        w = datasetWarnings(m, kTrain, kVal, 301);
        QCOMPARE(w.size(), 1);
        QVERIFY2(w.first().contains(QStringLiteral("not one full batch")), qPrintable(w.first()));
        QVERIFY2(w.first().contains(QStringLiteral("at most 300")), qPrintable(w.first()));
        // Exactly a quarter warns: 40 images, batch 30 uses 30 and drops 10; batch 32 drops 8.
        const ShardManifest four = manifest({QStringLiteral("a")}, {{kTrain, {40}}});
        QVERIFY(anyContains(datasetWarnings(four, kTrain, QString(), 30), QStringLiteral("leaves 10 of the 40")));
        QVERIFY(!anyContains(datasetWarnings(four, kTrain, QString(), 32), QStringLiteral("leaves")));
    }
};

QTEST_GUILESS_MAIN(TestDatasetWarnings)
#include "test_dataset_warnings.moc"
