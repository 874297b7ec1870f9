#pragma once

// K-fold cross-validation (`lathe-cli train --folds K`): K runs of one config, each holding out
// one hash-stable fold of the training split (RunConfig data.folds / data.fold), then every
// fold's best checkpoint evaluated on the fold it never saw. The out-of-fold predictions cover
// every training image once, scored by a model that did not train on it: what confident
// learning (label_issues.h) needs to find wrong labels.

#include "engine/run/run_config.h"
#include "engine/training/trainer.h"

#include <nlohmann/json.hpp>

#include <string>

namespace lathe::engine {

// Writes into outDir (created when missing):
//   fold-1 ... fold-K         the runs (an unfinished one is resumed, a finished one kept)
//   folds.json                {"task", "classes", "folds", "metric": "val_top1" (multi-label:
//                              "val_map"), "fold_metrics", "mean", "std" (population), "runs",
//                              "split", "seed"}
//   oof_predictions.jsonl     one {"fold", "filename", "sha256", "label" (multi-label: "labels"),
//                              "probs"} per image
// (docs/formats.md). fold_metrics are each fold's top-1 (multi-label: macro mAP) on its
// held-out fold, from the fold's best checkpoint (last when it has none). Before each fold
// control.onEvent gets a log event with its number (event_key::kFold) and folder, then the fold's
// run's own events. Returns folds.json's object. config.data.folds and
// data.fold are set here; throws EngineError for folds < 2 or a failed fold, and Cancelled
// when control's token is cancelled (the fold's run keeps a checkpoint to resume from).
nlohmann::json crossValidate(RunConfig config, int folds, const std::string &outDir, const TrainControl &control = {});

} // namespace lathe::engine
