#pragma once

#include "workspace/shard_manifest.h"

#include <QStringList>

namespace lathe::workspace {

// A split is "tiny" below this many images per class on average: a model trained on fewer
// learns little that generalizes, and a validation split that small measures accuracy in
// coarse steps (1/n each). Fashion-MNIST's demo (100 training, 20 validation images per
// class) passes.
inline constexpr int kTinySplitPerClass = 10;

// The training pipeline drops the last partial batch of every epoch (drop_last: an epoch
// uses floor(n / batch) * batch images, on one device). Warn when that leaves out this share
// of the training split or more.
inline constexpr double kDroppedShareWarning = 0.25;

// What a user should know about a converted dataset before training on it, one translated
// sentence each, from dataset.json's counts alone (no shard is read):
// - the training split is empty, or tiny (kTinySplitPerClass), or some classes have no
//   training images;
// - with valSplit non-empty: the validation split is empty or tiny, or some classes have no
//   validation images;
// - with batchSize > 0: no full batch fits the training split, or drop_last leaves out
//   kDroppedShareWarning of it or more (saying how many images an epoch really uses).
// Empty when there is nothing to say. The conversion (Data page) and the Train page's
// pre-flight call it.
QStringList datasetWarnings(const ShardManifest &manifest, const QString &trainSplit, const QString &valSplit,
                            int batchSize);

} // namespace lathe::workspace
