#include "finder_verbs.h"

#include "engine/base/engine_error.h"
#include "engine/base/runtime_info.h"
#include "engine/training/batch_size_finder.h"
#include "engine/training/lr_finder.h"
#include "run_args.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace lathe::cli {
namespace {

std::string number(const char *format, double v)
{
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, format, v);
    return buffer;
}

std::string padLeft(const std::string &s, std::size_t width)
{
    return std::string(width > s.size() ? width - s.size() : 0, ' ') + s;
}

std::string padRight(const std::string &s, std::size_t width)
{
    return s + std::string(width > s.size() ? width - s.size() : 0, ' ');
}

std::string mib(std::int64_t bytes)
{
    return number("%.1f MiB", double(bytes) / (1024.0 * 1024.0));
}

void addLrFind(CLI::App &app, CliContext &context)
{
    auto args = std::make_shared<RunArgs>();
    auto options = std::make_shared<engine::LrFinderOptions>();
    CLI::App *cmd = app.add_subcommand(
        "lr-find", "Learning-rate range test (fastai's lr_find): real training steps of the run config with the "
                   "learning rate growing exponentially, the smoothed loss of each, stopped when it diverges; prints "
                   "the curve and two suggestions (steepest descent, valley). Nothing is written");
    args->add(cmd);
    cmd->add_option("--steps", options->steps, "Steps, one per learning rate")
        ->capture_default_str()
        ->check(CLI::Range(2, 100000));
    cmd->add_option("--start-lr", options->startLr, "First learning rate")->capture_default_str()->check(
        CLI::PositiveNumber);
    cmd->add_option("--end-lr", options->endLr, "Last learning rate")->capture_default_str()->check(CLI::PositiveNumber);
    cmd->callback([&context, args, options] {
        context.action = [&context, args, options]() -> int {
            engine::configureTorchThreads();
            engine::TaskControl control;
            const int every = std::max(1, options->steps / 10);
            options->onPoint = [every, steps = options->steps](const engine::LrFinderPoint &p, int i) {
                if ((i + 1) % every == 0)
                    std::cerr << "step " << (i + 1) << "/" << steps << "  lr " << number("%.3g", p.lr) << "  loss "
                              << number("%.4f", p.loss) << "  smoothed " << number("%.4f", p.smoothed) << '\n';
            };
            engine::LrFinderResult r;
            try {
                InterruptWatch watch(control.cancel);
                r = engine::findLearningRate(args->runConfig(), *options, control);
            } catch (const engine::Cancelled &) {
                std::cerr << "lr-find: cancelled\n";
                return 130;
            }
            std::ostringstream text;
            text << "learning-rate range test on " << r.device << ", batch " << r.batchSize << ": " << r.stepsDone
                 << " of " << r.stepsPlanned << " steps";
            if (!r.stoppedEarly.empty())
                text << " (stopped early: " << (r.stoppedEarly == "diverged" ? "the loss diverged" : "the loss is not finite")
                     << ")";
            text << "\n\n          lr        loss    smoothed\n";
            // About 15 rows, the last point always among them.
            const std::size_t n = r.points.size();
            const std::size_t stride = std::max<std::size_t>(1, (n + 14) / 15);
            for (std::size_t i = 0; i < n; ++i)
                if (i % stride == 0 || i + 1 == n)
                    text << number("%12.3e", r.points[i].lr) << number("%12.4f", r.points[i].loss)
                         << number("%12.4f", r.points[i].smoothed) << '\n';
            text << '\n';
            if (r.suggestions.empty())
                text << "no suggestion: too few points (raise --steps or lower --start-lr)\n";
            for (const engine::LrSuggestion &s : r.suggestions)
                text << padRight(s.rule, 10) << "lr " << number("%.3g", s.lr) << "  (smoothed loss "
                     << number("%.4f", s.smoothed) << ")\n";
            context.print(engine::lrFinderResultToJson(r), text.str());
            return 0;
        };
    });
}

void addBatchFind(CLI::App &app, CliContext &context)
{
    auto args = std::make_shared<RunArgs>();
    auto options = std::make_shared<engine::BatchSizeFinderOptions>();
    auto maxMemoryMib = std::make_shared<double>(0);
    CLI::App *cmd = app.add_subcommand(
        "batch-find", "The largest batch per rank of the run config that fits the device's memory (Lightning's "
                      "BatchSizeFinder, binary search): on CUDA measured with real training steps until one runs "
                      "out of memory, on the CPU from the memory estimate against the available memory; capped by "
                      "the training split");
    args->add(cmd);
    cmd->add_option("--max-batch", options->maxBatch, "Largest batch to try")->check(CLI::Range(1, 1 << 20));
    cmd->add_option("--max-memory", *maxMemoryMib,
                    "Memory the run may use, in MiB (default: CPU: the memory available now; CUDA: the device's)")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--start-batch", options->startBatch, "First batch tried, then doubled")
        ->capture_default_str()
        ->check(CLI::Range(1, 1 << 20));
    cmd->callback([&context, args, options, maxMemoryMib] {
        context.action = [&context, args, options, maxMemoryMib]() -> int {
            engine::configureTorchThreads();
            options->maxMemory = std::int64_t(*maxMemoryMib * 1024.0 * 1024.0);
            engine::TaskControl control;
            engine::BatchSizeResult r;
            try {
                InterruptWatch watch(control.cancel);
                r = engine::findBatchSize(args->runConfig(), *options, control);
            } catch (const engine::Cancelled &) {
                std::cerr << "batch-find: cancelled\n";
                return 130;
            }
            std::ostringstream text;
            text << "batch sizes on " << r.device << (r.measured ? " (measured)" : " (estimated)");
            if (r.memoryLimit > 0)
                text << ", limit " << mib(r.memoryLimit);
            if (r.ranks > 1)
                text << ", " << r.ranks << " ranks";
            text << "\n\n   batch        memory  fits\n";
            for (const engine::BatchSizeTrial &t : r.trials)
                text << padLeft(std::to_string(t.batch), 8) << padLeft(mib(t.bytes), 14)
                     << (t.fits ? "  yes" : t.outOfMemory ? "  no (out of memory)" : "  no") << '\n';
            const std::string why = r.stoppedBy == "memory"    ? "the next larger batch does not fit"
                                    : r.stoppedBy == "dataset" ? "the training split caps it"
                                                               : "--max-batch";
            text << "\nbatch size: " << r.batchSize << " (" << why << ")\n" << r.note << '\n';
            context.print(engine::batchSizeResultToJson(r), text.str());
            return 0;
        };
    });
}

} // namespace

void addFinderVerbs(CLI::App &app, CliContext &context)
{
    addLrFind(app, context);
    addBatchFind(app, context);
}

} // namespace lathe::cli
