#include "workspace/dataset_warnings.h"

#include <QCoreApplication>
#include <QLocale>

namespace lathe::workspace {
namespace {

class Tr
{
    Q_DECLARE_TR_FUNCTIONS(lathe::workspace::DatasetWarnings)
};

constexpr int kNamedClasses = 5; // a longer list of classes is cut short with "and N more"

QString classList(const QStringList &names)
{
    QStringList shown = names.mid(0, kNamedClasses);
    if (names.size() > kNamedClasses)
        shown << Tr::tr("and %L1 more").arg(names.size() - kNamedClasses);
    return shown.join(QStringLiteral(", "));
}

QStringList classesWithout(const ShardManifest &manifest, const QString &split)
{
    QStringList missing;
    const QMap<QString, qint64> perClass = manifest.counts.value(split);
    for (const QString &name : manifest.classes) {
        if (perClass.value(name, 0) == 0)
            missing << name;
    }
    return missing;
}

bool isTiny(qint64 records, qsizetype classes)
{
    return records < qint64(kTinySplitPerClass) * qMax<qsizetype>(1, classes);
}

} // namespace

QStringList datasetWarnings(const ShardManifest &manifest, const QString &trainSplit, const QString &valSplit,
                            int batchSize)
{
    QStringList warnings;
    if (manifest.isNull())
        return warnings;
    const QLocale locale;
    const qsizetype classes = manifest.classes.size();

    const qint64 train = manifest.splitRecords(trainSplit);
    if (train == 0) {
        warnings << Tr::tr("Split \"%1\" has no images: there is nothing to train on.").arg(trainSplit);
    } else {
        if (isTiny(train, classes))
            warnings << Tr::tr("Split \"%1\" is tiny: %2 images for %n class(es), fewer than %3 per class; a model "
                               "trained on so few learns little that holds for new images.",
                               nullptr, int(classes))
                            .arg(trainSplit, locale.toString(train))
                            .arg(kTinySplitPerClass);
        const QStringList untrained = classesWithout(manifest, trainSplit);
        if (!untrained.isEmpty())
            warnings << Tr::tr("No images in split \"%1\" for %n class(es), which cannot be learned: %2.", nullptr,
                               int(untrained.size()))
                            .arg(trainSplit, classList(untrained));
    }

    if (!valSplit.isEmpty()) {
        const qint64 val = manifest.splitRecords(valSplit);
        if (val == 0) {
            warnings << Tr::tr("Split \"%1\" has no images: training cannot measure validation accuracy, and the "
                               "best checkpoint cannot be chosen by it.")
                            .arg(valSplit);
        } else {
            if (isTiny(val, classes))
                warnings << Tr::tr("Split \"%1\" is tiny: %2 images for %n class(es); its accuracy moves in steps "
                                   "of %3 %.",
                                   nullptr, int(classes))
                                .arg(valSplit, locale.toString(val), locale.toString(100.0 / double(val), 'g', 2));
            const QStringList unmeasured = classesWithout(manifest, valSplit);
            if (!unmeasured.isEmpty())
                warnings << Tr::tr("No images in split \"%1\" for %n class(es), whose accuracy is never "
                                   "measured: %2.",
                                   nullptr, int(unmeasured.size()))
                                .arg(valSplit, classList(unmeasured));
        }
    }

    if (batchSize > 0 && train > 0) {
        // The trainer's input pipeline drops the last partial batch (drop_last).
        const qint64 fullBatches = train / batchSize;
        const qint64 used = fullBatches * batchSize;
        if (fullBatches == 0) {
            warnings << Tr::tr("Batch size %1 is larger than the %2 images of split \"%3\": not one full batch fits, "
                               "so training cannot start. Choose a batch size of at most %2.")
                            .arg(locale.toString(batchSize), locale.toString(train), trainSplit);
        } else if (double(train - used) >= kDroppedShareWarning * double(train)) {
            warnings << Tr::tr("Batch size %1 leaves %2 of the %3 images of split \"%4\" out of every epoch: an "
                               "epoch uses %5 images (%n full batch(es); the last, partial batch is dropped).",
                               nullptr, int(fullBatches))
                            .arg(locale.toString(batchSize), locale.toString(train - used), locale.toString(train),
                                 trainSplit, locale.toString(used));
        }
    }
    return warnings;
}

} // namespace lathe::workspace
