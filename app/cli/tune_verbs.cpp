#include "tune_verbs.h"
#include "run_args.h"

#include "engine/base/engine_error.h"
#include "engine/base/runtime_info.h"
#include "engine/run/run_config.h"
#include "engine/run/run_events.h"
#include "engine/tune/study_runner.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace lathe::cli {
namespace {

using json = nlohmann::json;

struct TuneArgs
{
    RunArgs run;
    std::string out;
    std::string space;
    std::string strategy = "tpe+asha";
    int trials = 0;
    int epochs = 0;
    double seconds = 0;
    int parallel = 1;
    std::string devices;
    long long seed = -1;
    int startupTrials = 0;
    bool resume = false;
};

std::string valueText(const json &v)
{
    if (v.is_number_float()) {
        char text[32];
        std::snprintf(text, sizeof text, "%.4g", v.get<double>());
        return text;
    }
    return v.is_string() ? v.get<std::string>() : v.dump();
}

std::string paramsText(const json &params)
{
    std::string text;
    for (const auto &[name, value] : params.items())
        text += (text.empty() ? "" : "  ") + name + "=" + valueText(value);
    return text.empty() ? "(no parameters)" : text;
}

// One line on stderr for each study event worth a line (the runs' own step events are not).
void printStudyProgress(const json &e, const std::string &metric)
{
    const std::string type = e.value("type", "");
    const std::string trial = "trial " + std::to_string(e.value("trial", -1));
    std::ostringstream line;
    if (type == "trial_started") {
        line << trial << (e.value("resumed", false) ? " resumed" : " started") << " on " << e.value("device", "")
             << ": " << paramsText(e.value("params", json::object()));
    } else if (type == "trial_epoch") {
        line << trial << " epoch " << e.value("epoch", 0) << ": " << metric << " " << valueText(e.value("value", 0.0));
        if (e.value("rung", -1) >= 0)
            line << " (rung " << e.value("rung", -1) << ")";
        if (e.value("pruned", false))
            line << ", pruned";
    } else if (type == "trial_ended") {
        line << trial << " " << e.value("state", "");
        if (e.contains("value") && e["value"].is_number())
            line << ": " << metric << " " << valueText(e["value"]);
        if (e.value("state", "") == "pruned")
            line << " at rung " << e.value("rung", -1);
        if (!e.value("error", "").empty())
            line << ": " << e.value("error", "");
    } else if (type == "trial_event") {
        const json &run = e["event"];
        const std::string t = run.value(engine::event_key::kType, "");
        if (t != engine::event_type::kFailed && t != engine::event_type::kLog)
            return;
        line << trial << ": " << run.value(engine::event_key::kMessage, "");
    } else if (type == "study_log") {
        line << e.value("message", "");
    } else {
        return;
    }
    std::cerr << line.str() << '\n';
}

// The trials of a study as a table, best first (completed by value, then pruned by their last
// value, then running and failed).
std::string trialsTable(const engine::StudyState &state)
{
    std::vector<const engine::Trial *> order;
    for (const engine::Trial &t : state.trials)
        order.push_back(&t);
    auto rank = [](const engine::Trial &t) {
        switch (t.state) {
        case engine::TrialState::Completed: return 0;
        case engine::TrialState::Pruned: return 1;
        case engine::TrialState::Running: return 2;
        case engine::TrialState::Failed: return 3;
        }
        return 4;
    };
    auto value = [](const engine::Trial &t) {
        return t.value ? *t.value : t.lastIntermediate().value_or(0.0);
    };
    const bool maximize = state.space.maximize;
    std::stable_sort(order.begin(), order.end(), [&](const engine::Trial *a, const engine::Trial *b) {
        if (rank(*a) != rank(*b))
            return rank(*a) < rank(*b);
        return maximize ? value(*a) > value(*b) : value(*a) < value(*b);
    });
    std::ostringstream out;
    char head[128];
    std::snprintf(head, sizeof head, "%-6s %-10s %-5s %-6s %-10s %s\n", "trial", "state", "rung", "epochs",
                  state.space.metric.c_str(), "parameters");
    out << head;
    for (const engine::Trial *t : order) {
        const std::optional<double> v = t->value ? t->value : t->lastIntermediate();
        char row[128];
        std::snprintf(row, sizeof row, "%-6d %-10s %-5s %-6d %-10s ", t->id, engine::trialStateName(t->state).c_str(),
                      t->rung >= 0 ? std::to_string(t->rung).c_str() : "-", t->lastEpoch(),
                      v ? valueText(*v).c_str() : "-");
        out << row << paramsText(t->params);
        if (!t->error.empty())
            out << "  (" << t->error << ")";
        out << '\n';
    }
    return out.str();
}

std::vector<std::string> splitDevices(const std::string &text)
{
    std::vector<std::string> devices;
    std::stringstream in(text);
    for (std::string d; std::getline(in, d, ',');)
        if (!d.empty())
            devices.push_back(d);
    return devices;
}

std::unique_ptr<engine::Study> createFromArgs(const TuneArgs &a)
{
    if (a.space.empty())
        throw engine::EngineError("tune: --space is required for a new study (or --resume an existing one)");
    engine::SearchSpace space = engine::readSearchSpace(a.space);
    if (a.trials > 0)
        space.budget.trials = a.trials;
    if (a.epochs > 0)
        space.budget.epochs = a.epochs;
    if (a.seconds > 0)
        space.budget.seconds = a.seconds;
    engine::StrategyConfig strategy = engine::strategyFromName(a.strategy);
    if (a.seed >= 0)
        strategy.seed = std::uint64_t(a.seed);
    if (a.startupTrials > 0) {
        if (strategy.sampler != "tpe")
            throw engine::EngineError("tune: --startup-trials is TPE's setting (the strategy's sampler is " +
                                      strategy.sampler + ")");
        strategy.samplerOptions["n_startup_trials"] = a.startupTrials;
    }
    const engine::RunConfig base = a.run.runConfig();
    return engine::createStudy(a.out, engine::runConfigToJson(base), space, strategy);
}

void addTune(CLI::App &app, CliContext &context)
{
    auto a = std::make_shared<TuneArgs>();
    CLI::App *cmd = app.add_subcommand(
        "tune", "Hyperparameter study: trains many runs of --config with the fields of --space varied, each a run "
                "folder STUDY_DIR/trial-NNNN; study.json keeps every trial (kill-safe; --resume continues). Ctrl+C "
                "stops the running trials with a checkpoint (exit 130)");
    a->run.add(cmd);
    cmd->add_option("--out", a->out, "Study folder: new (with --resume: the study to continue)")->required();
    cmd->add_option("--space", a->space, "Search space file (JSON; docs/formats.md: space.json)");
    cmd->add_option("--strategy", a->strategy,
                    "tpe, random, grid, asha, hyperband, median, or SAMPLER+PRUNER (tpe+asha, random+median)")
        ->capture_default_str();
    cmd->add_option("--trials", a->trials, "Most trials (overrides the space's budget.trials)")->check(CLI::Range(1, 100000));
    cmd->add_option("--epochs", a->epochs, "Most epochs a trial trains (ASHA/Hyperband's maximum; overrides "
                                           "budget.epochs)")->check(CLI::Range(1, 100000));
    cmd->add_option("--seconds", a->seconds, "Wall time of the study: no trial starts after it (overrides "
                                             "budget.seconds)")->check(CLI::PositiveNumber);
    cmd->add_option("--parallel", a->parallel, "Trials at once (the memory estimate may run fewer)")
        ->capture_default_str()->check(CLI::Range(1, 64));
    cmd->add_option("--devices", a->devices, "One device per parallel trial, comma-separated (cuda:0,cuda:1); "
                                             "default: the run config's devices");
    cmd->add_option("--seed", a->seed, "The strategy's seed (default 0)")->check(CLI::NonNegativeNumber);
    cmd->add_option("--startup-trials", a->startupTrials, "TPE: the first trials drawn at random before it models the "
                                                          "results (default 10)")->check(CLI::Range(1, 100000));
    cmd->add_flag("--resume", a->resume, "Continue the study in --out: running trials from their checkpoints, then "
                                         "new ones");
    cmd->callback([&context, a] {
        context.action = [&context, a]() -> int {
            engine::configureTorchThreads();
            std::unique_ptr<engine::Study> study;
            if (a->resume) {
                if (!a->space.empty() || !a->run.config.empty())
                    throw engine::EngineError("tune --resume: the study keeps its space and run config; leave out "
                                              "--space and --config");
                study = engine::Study::open(a->out);
            } else {
                study = createFromArgs(*a);
            }
            const std::string metric = study->state().space.metric;
            engine::StudyRunOptions options;
            options.parallel = a->parallel;
            options.devices = splitDevices(a->devices);
            const bool jsonOut = context.json;
            options.onEvent = [jsonOut, metric](const json &e) {
                if (jsonOut)
                    std::cout << e.dump() << std::endl;
                printStudyProgress(e, metric);
            };
            InterruptWatch watch(options.cancel);
            json ended = engine::runStudy(*study, options);
            const engine::StudyState state = study->state();
            if (jsonOut) {
                ended["type"] = "summary";
                ended["study"] = a->out;
                std::cout << ended.dump() << std::endl;
            } else {
                std::cout << trialsTable(state);
                std::cout << "study " << ended.value("status", "") << ": " << state.trials.size() << " trials";
                if (ended["best_trial"].is_number())
                    std::cout << "; best trial " << ended["best_trial"].get<int>() << " (" << metric << " "
                              << valueText(ended["best_value"]) << "), run folder "
                              << (std::filesystem::path(a->out) / engine::Study::runFolderName(ended["best_trial"]))
                                     .string();
                std::cout << '\n';
            }
            return ended.value("status", "") == engine::run_state::kCancelled ? 130 : 0;
        };
    });
}

void addStudy(CLI::App &app, CliContext &context)
{
    auto folder = std::make_shared<std::string>();
    CLI::App *cmd = app.add_subcommand("study", "A study folder's trials, best first (--json: its study.json)");
    cmd->add_option("STUDY_DIR", *folder, "Study folder (with study.json)")->required();
    cmd->callback([&context, folder] {
        context.action = [&context, folder]() -> int {
            const std::unique_ptr<engine::Study> study = engine::Study::open(*folder);
            const engine::StudyState state = study->state();
            context.print(engine::studyStateToJson(state), trialsTable(state));
            return 0;
        };
    });
}

} // namespace

void addTuneVerbs(CLI::App &app, CliContext &context)
{
    addTune(app, context);
    addStudy(app, context);
}

} // namespace lathe::cli
