#include "train_verbs.h"
#include "run_args.h"

#include "engine/base/engine_error.h"
#include "engine/base/runtime_info.h"
#include "engine/inference/cross_validation.h"
#include "engine/run/run_config.h"
#include "engine/run/run_events.h"
#include "engine/training/trainer.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

namespace lathe::cli {
namespace {

struct TrainArgs
{
    std::string data;
    std::string out;
    std::string config;
    std::string arch;
    std::string weights;
    std::string freeze;
    int epochs = 0;
    int batch = 0;
    double lr = 0;
    std::string optimizer;
    std::string schedule;
    double warmupEpochs = -1;
    std::string precision;
    std::string devices;
    int imageSize = 0;
    long long seed = -1;
    bool resume = false;
    int nnodes = 0;
    int nodeRank = -1;
    std::string master;
    std::string recordLog;
    int folds = 0;
    std::vector<std::string> set;
};

// Flags as run-config overrides: they go on top of --config, as --set does.
nlohmann::json flagOverrides(const TrainArgs &a)
{
    nlohmann::json o = engine::runConfigOverrides(a.set);
    if (!a.data.empty())
        o["data.shards"] = a.data;
    if (!a.arch.empty())
        o["model.arch"] = a.arch;
    if (!a.weights.empty())
        o["model.weights"] = a.weights;
    if (!a.freeze.empty())
        o["model.freeze.policy"] = a.freeze;
    if (a.epochs > 0)
        o["optimizer.epochs"] = a.epochs;
    if (a.batch > 0)
        o["optimizer.batch_size"] = a.batch;
    if (a.lr > 0)
        o["optimizer.lr"] = a.lr;
    if (!a.optimizer.empty())
        o["optimizer.name"] = a.optimizer;
    if (!a.schedule.empty())
        o["schedule.name"] = a.schedule;
    if (a.warmupEpochs >= 0)
        o["schedule.warmup_epochs"] = a.warmupEpochs;
    if (!a.precision.empty())
        o["precision"] = a.precision;
    if (!a.devices.empty())
        o["devices"] = a.devices;
    if (a.imageSize > 0)
        o["data.image_size"] = a.imageSize;
    if (a.seed >= 0)
        o["seed"] = a.seed;
    if (a.nnodes > 0)
        o["distributed.nnodes"] = a.nnodes;
    if (a.nodeRank >= 0)
        o["distributed.node_rank"] = a.nodeRank;
    if (!a.master.empty())
        o["distributed.master"] = a.master;
    return o;
}

// One progress line on stderr per event worth a line.
void printProgress(const nlohmann::json &e)
{
    namespace type = engine::event_type;
    namespace key = engine::event_key;
    const std::string t = e.value(key::kType, "");
    std::ostringstream line;
    line << std::setprecision(4);
    if (t == type::kStep) {
        line << "step " << e.value(key::kStep, 0) << "  epoch " << e.value(key::kEpoch, 0) + 1 << "  loss "
             << e.value(key::kLoss, 0.0) << "  lr " << e.value(key::kLr, 0.0) << "  " << std::setprecision(1) << std::fixed
             << e.value(key::kImagesPerSecond, 0.0) << " img/s  input wait " << 100 * e.value(key::kInputWaitFraction, 0.0)
             << "%";
        if (e.contains(key::kGpuMemoryAllocatedMiB))
            line << "  GPU memory " << std::setprecision(0) << e.value(key::kGpuMemoryAllocatedMiB, 0.0) << " MiB (peak "
                 << e.value(key::kGpuMemoryPeakMiB, 0.0) << ", reserved " << e.value(key::kGpuMemoryReservedMiB, 0.0) << ")";
        if (e.contains(key::kGpuUtilization))
            line << "  GPU busy " << 100 * e.value(key::kGpuUtilization, 0.0) << "%";
    } else if (t == type::kEpoch) {
        line << "epoch " << e.value(key::kEpoch, 0) + 1 << "  train_loss " << e.value("train_loss", 0.0) << "  train_top1 "
             << e.value("train_top1", 0.0);
        if (e.contains("val_loss"))
            line << "  val_loss " << e.value("val_loss", 0.0) << "  val_top1 " << e.value("val_top1", 0.0);
        line << "  (" << std::setprecision(1) << std::fixed << e.value(key::kSeconds, 0.0) << " s)";
    } else if (t == type::kCheckpoint) {
        line << "checkpoint " << e.value(key::kPath, "");
    } else if (t == type::kLog) {
        line << e.value(key::kMessage, "");
    } else if (t == type::kResumed) {
        line << "resumed at step " << e.value(key::kStep, 0) << " (epoch " << e.value(key::kEpoch, 0) + 1 << ", batch "
             << e.value(key::kBatchInEpoch, 0) << ")";
    } else if (t == type::kFailed) {
        line << "failed: " << e.value(key::kMessage, "");
    } else if (t == type::kOverflowSkipped) {
        line << "fp16 overflow: step " << e.value(key::kStep, 0) << " skipped";
    } else {
        line << t;
    }
    std::cerr << line.str() << '\n';
}

void addTrain(CLI::App &app, CliContext &context)
{
    auto a = std::make_shared<TrainArgs>();
    CLI::App *cmd = app.add_subcommand(
        "train", "Train a classifier on converted shards into a run folder (config.json, metrics.jsonl, TensorBoard "
                 "events, checkpoints/); --resume continues a run folder from its last checkpoint. Ctrl+C stops "
                 "after the current step with a checkpoint (exit 130)");
    cmd->add_option("--data", a->data, "Converted dataset folder (with dataset.json)");
    cmd->add_option("--out", a->out, "Run folder: new or empty (with --resume: the run to continue). Only rank 0's "
                                     "process writes it; the others of a multi-machine run ignore it")
        ->required();
    cmd->add_option("--config", a->config, "Run config file (JSON); the flags below override it");
    cmd->add_option("--arch", a->arch, "Backbone architecture (lathe-cli models)");
    cmd->add_option("--weights", a->weights, "Initial weights: a .safetensors/.pth file, or zoo (the default "
                                             "pretrained weights of the architecture, downloaded beforehand)");
    cmd->add_option("--freeze", a->freeze, "Freezing policy: train_all, head_only, up_to_stage");
    cmd->add_option("--epochs", a->epochs, "Epochs")->check(CLI::Range(1, 1000000));
    cmd->add_option("--batch", a->batch, "Batch size per rank")->check(CLI::Range(1, 1 << 20));
    cmd->add_option("--lr", a->lr, "Base learning rate")->check(CLI::PositiveNumber);
    cmd->add_option("--optimizer", a->optimizer, "sgd, adamw, rmsprop");
    cmd->add_option("--schedule", a->schedule,
                    "constant, step, multi_step, exponential, cosine, cosine_restarts, one_cycle, plateau");
    cmd->add_option("--warmup-epochs", a->warmupEpochs, "Linear warm-up epochs")->check(CLI::Range(0.0, 1e6));
    cmd->add_option("--precision", a->precision, "fp32, bf16 or fp16 (CUDA only)");
    cmd->add_option("--devices", a->devices, "Comma-separated devices, one rank each: cpu, cuda:0,cuda:1, cpu,cpu");
    cmd->add_option("--image-size", a->imageSize, "Training crop side (default: the backbone's)")->check(
        CLI::Range(8, 4096));
    cmd->add_option("--seed", a->seed, "Random seed")->check(CLI::NonNegativeNumber);
    cmd->add_option("--set", a->set, "Any run-config field, PATH=VALUE (e.g. optimizer.momentum=0.8); repeatable");
    cmd->add_flag("--resume", a->resume, "Continue the run in --out from its latest complete checkpoint");
    cmd->add_option("--nnodes", a->nnodes, "Machines in the run")->check(CLI::Range(1, 4096));
    cmd->add_option("--node-rank", a->nodeRank, "This machine's index (0: the one at --master)")->check(
        CLI::Range(0, 4095));
    cmd->add_option("--master", a->master, "HOST:PORT of node 0's rendezvous store. torchrun's and Slurm's "
                                           "variables (RANK, WORLD_SIZE, MASTER_ADDR, SLURM_PROCID, ...) are read "
                                           "too; a flag that disagrees with them is refused");
    cmd->add_option("--record-log", a->recordLog, "Audit: each rank appends \"epoch shard offset\" for every training "
                                                  "record it takes to DIR/records-rank-R.txt");
    cmd->add_option("--folds", a->folds, "K-fold cross-validation: K runs in --out/fold-1..K, each holding out one "
                                         "hash-stable fold of the training split; writes folds.json (mean and std "
                                         "of top-1) and oof_predictions.jsonl (for lathe-cli label-issues)")
        ->check(CLI::Range(2, 100));
    cmd->callback([&context, a] {
        context.action = [&context, a]() -> int {
            engine::configureTorchThreads(); // every core, shared by the CPU ranks
            engine::TrainControl control;
            control.launchEnvironment = engine::processLaunchEnvironment();
            control.recordLogDir = a->recordLog;
            const bool json = context.json;
            control.onEvent = [json](const nlohmann::json &e) {
                if (json)
                    std::cout << e.dump() << std::endl;
                printProgress(e);
            };
            // Ctrl+C: cancel (the trainer writes a checkpoint), exit 130.
            InterruptWatch watch(control.cancel);

            nlohmann::json summary;
            const nlohmann::json overrides = flagOverrides(*a);
            if (a->folds > 0) {
                if (a->resume)
                    throw engine::EngineError("--folds resumes by itself: run the same command again (without --resume)");
                try {
                    summary = engine::crossValidate(runConfigFromArgs(a->config, overrides), a->folds, a->out, control);
                } catch (const engine::Cancelled &) {
                    std::cerr << "cancelled; run the same command again to continue\n";
                    return 130;
                }
                summary["type"] = "folds";
                std::ostringstream text;
                text << std::setprecision(4) << a->folds << "-fold cross-validation, "
                     << (summary["task"] == "multi_label" ? "mAP" : "top-1") << " per fold:";
                for (const auto &m : summary["fold_metrics"])
                    text << ' ' << m.get<double>();
                text << "\nmean " << summary["mean"].get<double>() << " +- " << summary["std"].get<double>() << " (std); "
                     << a->out << "/oof_predictions.jsonl\n";
                if (json)
                    std::cout << summary.dump() << std::endl;
                else
                    std::cout << text.str();
                return 0;
            }
            if (a->resume) {
                summary = engine::resume(a->out, control, overrides);
            } else {
                summary = engine::train(runConfigFromArgs(a->config, overrides), a->out, control);
            }
            summary["type"] = "summary";
            if (json)
                std::cout << summary.dump() << std::endl;
            else if (!summary.value("rank_0_process", true))
                std::cout << "ranks done: " << summary.value("steps", 0) << " steps, " << summary.value("epochs", 0)
                          << " epochs; the run folder is rank 0's\n";
            else
                std::cout << "run " << summary.value("status", "") << ": " << summary.value("steps", 0) << " steps, "
                          << summary.value("epochs", 0) << " epochs; " << a->out << '\n';
            return summary.value("status", "") == engine::run_state::kCancelled ? 130 : 0;
        };
    });
}

void addBenchTrain(CLI::App &app, CliContext &context)
{
    CLI::App *bench = nullptr;
    try {
        bench = app.get_subcommand("bench");
    } catch (const CLI::OptionNotFound &) {
        bench = app.add_subcommand("bench", "Benchmarks; print JSON");
    }
    auto o = std::make_shared<engine::TrainBenchOptions>();
    auto devices = std::make_shared<std::string>("cpu");
    CLI::App *cmd = bench->add_subcommand("train", "Training throughput (forward, backward, optimizer step) of an "
                                                   "architecture on synthetic data; prints one JSON line");
    cmd->add_option("--arch", o->arch, "Backbone architecture")->capture_default_str();
    cmd->add_option("--image-size", o->imageSize, "Input side")->capture_default_str()->check(CLI::Range(8, 4096));
    cmd->add_option("--batch", o->batchSize, "Batch size")->capture_default_str()->check(CLI::Range(1, 65536));
    cmd->add_option("--steps", o->steps, "Timed steps (after 3 warm-up steps)")->capture_default_str()->check(
        CLI::Range(1, 100000));
    cmd->add_option("--optimizer", o->optimizer, "sgd (lr 0.01, momentum 0.9) or adamw (lr 1e-3, weight decay 0.01)")
        ->capture_default_str()
        ->check(CLI::IsMember({"sgd", "adamw"}));
    cmd->add_option("--precision", o->precision, "fp32, bf16, fp16 (CUDA)")->capture_default_str();
    cmd->add_option("--devices", *devices, "Device (the first of a list is used)")->capture_default_str();
    cmd->add_option("--threads", o->threads, "Torch threads (0: all cores)")->capture_default_str();
    cmd->add_flag("--channels-last", o->channelsLast, "Channels-last memory format");
    cmd->callback([&context, o, devices] {
        context.action = [o, devices] {
            o->device = devices->substr(0, devices->find(','));
            std::cout << engine::benchTrain(*o).dump() << std::endl;
            return 0;
        };
    });
}

} // namespace

void addTrainVerbs(CLI::App &app, CliContext &context)
{
    addTrain(app, context);
    addBenchTrain(app, context);
}

} // namespace lathe::cli
