#include "engine/inference/cross_validation.h"

#include "engine/base/engine_error.h"
#include "engine/base/file_io.h"
#include "engine/base/task_control.h"
#include "engine/inference/evaluation.h"
#include "engine/run/run_events.h"
#include "engine/run/run_folder.h"

#include <cmath>
#include <filesystem>
#include <sstream>

namespace fs = std::filesystem;

namespace lathe::engine {

nlohmann::json crossValidate(RunConfig config, int folds, const std::string &outDir, const TrainControl &control)
{
    if (folds < 2 || folds > 100)
        throw EngineError("--folds: must be between 2 and 100 (got " + std::to_string(folds) + ")");
    std::error_code ec;
    fs::create_directories(outDir, ec);
    if (ec)
        throw EngineError(outDir + ": cannot create the folder (" + ec.message() + ")");

    TrainControl foldControl = control;
    foldControl.throwWhenCancelled = true;
    std::vector<std::string> runs;
    std::vector<double> metrics;
    std::vector<std::string> classes;
    std::string task = "single_label";
    std::ostringstream oof;
    for (int k = 1; k <= folds; ++k) {
        const std::string runDir = (fs::path(outDir) / ("fold-" + std::to_string(k))).string();
        runs.push_back("fold-" + std::to_string(k));
        if (control.onEvent)
            control.onEvent({{event_key::kType, event_type::kLog},
                             {event_key::kFold, k},
                             {event_key::kMessage, "fold " + std::to_string(k) + " of " + std::to_string(folds) + ": " + runDir}});
        const bool started = fs::exists(fs::path(runDir) / "config.json");
        if (!started) {
            config.data.folds = folds;
            config.data.fold = k;
            train(config, runDir, foldControl);
        } else if (readRunInfo(runDir).state != run_state::kFinished) {
            resume(runDir, foldControl);
        }

        EvalOptions e;
        e.runDir = runDir;
        e.checkpoint = "best";
        e.split = config.data.trainSplit;
        e.folds = folds;
        e.fold = k;
        e.keepProbabilities = true;
        e.threads = config.data.workers;
        TaskControl evalControl;
        evalControl.cancel = control.cancel;
        const EvalResult r = evaluate(e, evalControl);
        classes = r.classes;
        task = r.metrics.value("task", "single_label");
        const bool multi = task == "multi_label";
        // The metric of each fold: top-1, or a multi-label model's mAP.
        metrics.push_back(r.metrics.value(multi ? "map" : "top1", 0.0));
        for (std::size_t i = 0; i < r.predictions.size(); ++i) {
            const Prediction &p = r.predictions[i];
            nlohmann::json row = {{"fold", k}, {"filename", p.filename}, {"sha256", p.sha256}, {"probs", r.probabilities[i]}};
            if (multi)
                row["labels"] = p.labels;
            else
                row["label"] = p.label;
            oof << row.dump() << '\n';
        }
    }

    double mean = 0;
    for (double m : metrics)
        mean += m / double(metrics.size());
    double variance = 0;
    for (double m : metrics)
        variance += (m - mean) * (m - mean) / double(metrics.size());
    const nlohmann::json summary = {{"task", task},
                                    {"classes", classes},
                                    {"folds", folds},
                                    {"metric", task == "multi_label" ? "val_map" : "val_top1"},
                                    {"fold_metrics", metrics},
                                    {"mean", mean},
                                    {"std", std::sqrt(variance)},
                                    {"runs", runs},
                                    {"split", config.data.trainSplit},
                                    {"seed", config.seed}};
    writeFileAtomically((fs::path(outDir) / "oof_predictions.jsonl").string(), oof.str());
    writeFileAtomically((fs::path(outDir) / "folds.json").string(), summary.dump(2) + "\n");
    return summary;
}

} // namespace lathe::engine
