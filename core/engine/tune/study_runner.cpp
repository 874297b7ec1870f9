#include "engine/tune/study_runner.h"

#include "engine/base/device_name.h"
#include "engine/base/engine_error.h"
#include "engine/base/file_io.h"
#include "engine/base/runtime_info.h"
#include "engine/dataset/shard_converter.h"
#include "engine/run/run_events.h"
#include "engine/run/run_layout.h"
#include "engine/training/memory_estimate.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <list>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

namespace lathe::engine {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

std::string baseConfigPath(const std::string &folder)
{
    return (fs::path(folder) / kStudyBaseConfigFile).string();
}

std::string memoryText(std::uint64_t bytes)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.1f GiB", double(bytes) / double(1ull << 30));
    return text;
}

// The bytes the trials on `device` may hold together.
std::uint64_t deviceCapacity(const std::string &device, const StudyRunOptions &options)
{
    const std::optional<DeviceName> name = parseDeviceName(device);
    if (!name || name->cuda) {
        for (const ComputeDevice &d : computeDevices().devices)
            if (name && d.id == name->str())
                return d.totalMemory * 9 / 10;
        return 0; // unknown: the trainer says what is wrong with the device
    }
    if (options.cpuMemoryBudget > 0)
        return options.cpuMemoryBudget;
    return physicalMemory() * 8 / 10;
}

// Runs trials on threads, at most `parallel` at once and never more on a device than the
// memory estimate lets fit there; serialises the study events.
class StudyScheduler
{
public:
    StudyScheduler(Study &study, const StudyRunOptions &options)
        : m_study(study)
        , m_options(options)
        , m_base(readStudyBaseConfig(study.folder()))
        , m_maxEpochs(study.maxEpochs())
        , m_metric(study.state().space.metric)
        , m_maximize(study.state().space.maximize)
        , m_start(std::chrono::steady_clock::now())
    {
        const int parallel = std::max(1, options.parallel);
        m_slots.resize(std::size_t(parallel));
        for (std::size_t i = 0; i < m_slots.size() && !options.devices.empty(); ++i)
            m_slots[i].device = options.devices[i % options.devices.size()];
    }

    ~StudyScheduler()
    {
        // Reached normally with every thread joined; after an exception, stop and join them.
        for (Slot &slot : m_slots)
            slot.cancel.cancel();
        for (Slot &slot : m_slots)
            if (slot.thread.joinable())
                slot.thread.join();
    }

    json run()
    {
        // Trials a killed or stopped earlier run left running come first, in id order.
        std::list<Trial> resumable;
        for (const Trial &t : m_study.state().trials)
            if (t.state == TrialState::Running)
                resumable.push_back(t);

        std::string status = "finished";
        bool exhausted = false;
        std::unique_lock<std::mutex> lock(m_mutex);
        for (;;) {
            reapFinished(lock);
            if (m_options.cancel.isCancelled()) {
                status = run_state::kCancelled;
                for (Slot &slot : m_slots)
                    slot.cancel.cancel();
                if (busySlots() == 0)
                    break;
            } else if (!exhausted && timeIsUp()) {
                exhausted = true;
                status = "time_up";
                emit({{"type", "study_log"},
                            {"message", "the study's time budget is spent: no new trial starts; the running ones finish"}});
            }
            const bool canStart = !exhausted && !m_options.cancel.isCancelled() && !m_options.pause.isPaused();
            Slot *free = canStart ? freeSlot() : nullptr;
            if (free) {
                std::optional<Trial> next;
                bool resumed = false;
                if (!resumable.empty()) {
                    next = resumable.front();
                    resumable.pop_front();
                    resumed = true;
                } else {
                    lock.unlock();
                    next = m_study.startTrial();
                    lock.lock();
                    if (!next)
                        exhausted = true;
                }
                if (next) {
                    launch(lock, *free, *next, resumed); // false: it ended before training
                    continue;
                }
            }
            if (busySlots() == 0 && (exhausted || !canStart) && !m_options.pause.isPaused())
                break;
            m_wake.wait_for(lock, std::chrono::milliseconds(100));
        }
        reapFinished(lock);

        json ended = {{"type", "study_ended"}, {"status", status}};
        const StudyState state = m_study.state();
        ended["trials"] = state.trials.size();
        const std::optional<Trial> best = m_study.bestTrial();
        ended["best_trial"] = best ? json(best->id) : json(nullptr);
        ended["best_value"] = best && best->value ? json(*best->value) : json(nullptr);
        emit(ended);
        return ended;
    }

private:
    struct Slot
    {
        std::string device;        // empty: the base config's devices
        std::thread thread;
        bool busy = false;
        bool done = false;         // the thread has ended and waits to be joined
        std::uint64_t bytes = 0;   // the memory estimate of its trial
        std::string memoryDevice;  // where those bytes are held
        CancelToken cancel;        // this trial's stop
    };

    bool timeIsUp() const
    {
        const double budget = m_study.state().space.budget.seconds;
        if (budget <= 0)
            return false;
        const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count();
        return elapsed >= budget;
    }

    int busySlots() const
    {
        return int(std::count_if(m_slots.begin(), m_slots.end(), [](const Slot &s) { return s.busy; }));
    }

    Slot *freeSlot()
    {
        for (Slot &slot : m_slots)
            if (!slot.busy)
                return &slot;
        return nullptr;
    }

    void reapFinished(std::unique_lock<std::mutex> &lock)
    {
        for (Slot &slot : m_slots)
            if (slot.busy && slot.done) {
                std::thread t = std::move(slot.thread);
                lock.unlock();
                t.join();
                lock.lock();
                slot.busy = false;
                slot.done = false;
                slot.bytes = 0;
            }
    }

    std::uint64_t bytesOn(const std::string &device) const
    {
        std::uint64_t used = 0;
        for (const Slot &slot : m_slots)
            if (slot.busy && slot.memoryDevice == device)
                used += slot.bytes;
        return used;
    }

    // Starts trial t in slot (false: it ended before training, e.g. an invalid config). Waits
    // while its memory does not fit beside the trials running on its device.
    bool launch(std::unique_lock<std::mutex> &lock, Slot &slot, const Trial &t, bool resumed)
    {
        RunConfig config;
        try {
            config = trialRunConfig(m_base, t, m_maxEpochs);
            if (!slot.device.empty())
                config.devices = {slot.device};
        } catch (const std::exception &e) {
            endTrialBeforeTraining(lock, t, e.what());
            return false;
        }
        const std::string device = config.devices.empty() ? "cpu" : config.devices.front();
        // A trial that has reported every epoch already was killed between its end and its
        // completion: it is complete, without training again.
        if (resumed && t.lastEpoch() >= config.optimizer.epochs && t.lastEpoch() > 0) {
            lock.unlock();
            const json ended = endTrial(t.id, json{{"status", run_state::kFinished}}, false, "");
            lock.lock();
            emit(ended);
            return false;
        }

        std::uint64_t bytes = 0;
        if (!m_options.skipMemoryEstimate) {
            lock.unlock();
            try {
                const int classes = int(readDatasetManifest(config.data.shards).classes.size());
                bytes = std::uint64_t(std::max<std::int64_t>(0, estimateTrainingMemory(config, classes).total)) *
                        std::uint64_t(std::max<std::size_t>(1, config.devices.size()));
            } catch (const std::exception &e) {
                lock.lock();
                endTrialBeforeTraining(lock, t, e.what());
                return false;
            }
            lock.lock();
            const std::uint64_t capacity = deviceCapacity(device, m_options);
            bool told = false;
            while (capacity > 0 && bytesOn(device) > 0 && bytesOn(device) + bytes > capacity &&
                   !m_options.cancel.isCancelled()) {
                if (!told) {
                    emit({{"type", "study_log"},
                                {"message", "trial " + std::to_string(t.id) + " needs about " + memoryText(bytes) +
                                                " on " + device + ": it waits for a running trial to end (" +
                                                memoryText(capacity) + " available to trials there)"}});
                    told = true;
                }
                m_wake.wait_for(lock, std::chrono::milliseconds(100));
                reapFinished(lock);
            }
            if (m_options.cancel.isCancelled())
                return false; // stays running in study.json: a resumed study starts it
        }

        slot.busy = true;
        slot.done = false;
        slot.bytes = bytes;
        slot.memoryDevice = device;
        slot.cancel = CancelToken();
        const std::string runDir = (fs::path(m_study.folder()) / t.runFolder).string();
        emit({{"type", "trial_started"},
                    {"trial", t.id},
                    {"params", t.params},
                    {"run_folder", t.runFolder},
                    {"device", device},
                    {"resumed", resumed}});
        slot.thread = std::thread([this, &slot, t, config, runDir, resumed] {
            const json ended = trainTrial(slot, t, config, runDir, resumed);
            std::lock_guard<std::mutex> guard(m_mutex);
            emit(ended);
            slot.done = true;
            m_wake.notify_all();
        });
        return true;
    }

    void endTrialBeforeTraining(std::unique_lock<std::mutex> &lock, const Trial &t, const std::string &error)
    {
        lock.unlock();
        const json ended = endTrial(t.id, json(), false, error);
        lock.lock();
        emit(ended);
    }

    // Trains (or continues) one trial on the slot's thread; returns its trial_ended event, or a
    // study_log when it was stopped by the user (it stays running, to be resumed).
    json trainTrial(Slot &slot, const Trial &t, const RunConfig &config, const std::string &runDir, bool resumed)
    {
        bool pruned = false;
        TrainControl control;
        control.cancel = slot.cancel;
        control.pause = m_options.pause;
        control.onEvent = [&](const json &e) {
            emit({{"type", "trial_event"}, {"trial", t.id}, {"event", e}});
            if (e.value(event_key::kType, "") != event_type::kEpoch || pruned)
                return;
            const int epoch = e.value(event_key::kEpoch, 0) + 1;
            if (!e.contains(m_metric) || !e[m_metric].is_number())
                return; // no such metric (no validation split): the trial fails at its end
            if (epoch <= m_study.trial(t.id).lastEpoch())
                return; // a resumed run repeats an epoch the study has already
            const double value = e[m_metric].get<double>();
            const PruneDecision d = m_study.reportEpoch(t.id, epoch, value);
            emit({{"type", "trial_epoch"},
                  {"trial", t.id},
                  {"epoch", epoch},
                  {"value", value},
                  {"rung", d.rung},
                  {"pruned", d.prune}});
            if (d.prune) {
                pruned = true;
                slot.cancel.cancel(); // the trainer writes its checkpoint and stops
            }
        };

        json summary;
        try {
            const bool hasRun = fs::exists(run_layout::configPath(runDir));
            if (resumed && hasRun) {
                json overrides = json::object();
                if (!m_options.devices.empty())
                    overrides["devices"] = config.devices;
                summary = resume(runDir, control, overrides);
            } else {
                // A folder without config.json holds nothing of a run yet (killed while created).
                if (resumed && fs::exists(runDir))
                    fs::remove_all(runDir);
                summary = train(config, runDir, control);
            }
        } catch (const std::exception &e) {
            if (pruned)
                return endTrial(t.id, json(), true, "");
            return endTrial(t.id, json(), false, e.what());
        }
        if (pruned)
            return endTrial(t.id, summary, true, "");
        if (summary.value("status", "") == run_state::kCancelled)
            return {{"type", "study_log"},
                    {"trial", t.id},
                    {"message", "trial " + std::to_string(t.id) + " stopped with a checkpoint; resume the study to "
                                "continue it"}};
        return endTrial(t.id, summary, false, "");
    }

    // Records how a trial ended in the study; returns its trial_ended event.
    json endTrial(int id, const json &summary, bool pruned, const std::string &error)
    {
        json ended = {{"type", "trial_ended"}, {"trial", id}};
        Trial t = m_study.trial(id);
        if (pruned) {
            ended["state"] = trialStateName(TrialState::Pruned);
            ended["rung"] = t.rung;
            ended["value"] = t.lastIntermediate() ? json(*t.lastIntermediate()) : json(nullptr);
            return ended;
        }
        std::string why = error;
        if (why.empty() && t.intermediate.empty())
            why = "the run reported no " + m_metric + " (the " + m_metric.substr(0, m_metric.find('_')) +
                  " metrics need a " + (m_metric.rfind("val", 0) == 0 ? "validation split" : "training epoch") + ")";
        if (why.empty() && summary.value("status", "") != run_state::kFinished)
            why = "the run ended " + summary.value("status", std::string("without a status"));
        if (!why.empty()) {
            if (m_study.trial(id).state == TrialState::Running)
                m_study.failTrial(id, why);
            ended["state"] = trialStateName(TrialState::Failed);
            ended["error"] = why;
            ended["value"] = nullptr;
            return ended;
        }
        double best = t.intermediate.begin()->second;
        for (const auto &[epoch, value] : t.intermediate)
            best = m_maximize ? std::max(best, value) : std::min(best, value);
        m_study.completeTrial(id, best);
        ended["state"] = trialStateName(TrialState::Completed);
        ended["value"] = best;
        ended["rung"] = t.rung;
        return ended;
    }

    void emit(const json &event)
    {
        std::lock_guard<std::mutex> guard(m_emitMutex);
        if (m_options.onEvent)
            m_options.onEvent(event);
    }

    Study &m_study;
    const StudyRunOptions &m_options;
    const json m_base;
    const int m_maxEpochs;
    const std::string m_metric;
    const bool m_maximize;
    const std::chrono::steady_clock::time_point m_start;
    std::vector<Slot> m_slots; // sized once: threads keep references to their slot
    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::mutex m_emitMutex;
};

} // namespace

std::unique_ptr<Study> createStudy(const std::string &folder, const json &baseRunConfig, const SearchSpace &space,
                                   const StrategyConfig &strategy)
{
    // The base must be a run config, and every trial's fields are checked when it starts.
    const RunConfig base = parseRunConfig(baseRunConfig);
    if (fs::exists(fs::path(folder) / kStudyFile))
        throw EngineError((fs::path(folder) / kStudyFile).string() +
                          ": a study exists here already (resume it, or choose another folder)");
    std::error_code ec;
    fs::create_directories(folder, ec);
    if (ec)
        throw EngineError(folder + ": cannot create the study folder (" + ec.message() + ")");
    writeFileAtomically(baseConfigPath(folder), runConfigToJson(base).dump(2) + "\n");
    return Study::create(folder, space, strategy);
}

json readStudyBaseConfig(const std::string &folder)
{
    const std::string path = baseConfigPath(folder);
    std::ifstream in(path);
    if (!in)
        throw EngineError(path + ": cannot read the study's base run config (" + errnoText() + ")");
    try {
        json base = json::parse(in);
        parseRunConfig(base); // checked: names the field
        return base;
    } catch (const json::exception &e) {
        throw EngineError(path + ": not valid JSON (" + e.what() + ")");
    } catch (const EngineError &e) {
        throw EngineError(path + ": " + e.what());
    }
}

RunConfig trialRunConfig(const json &baseRunConfig, const Trial &trial, int maxEpochs)
{
    const std::string where = "trial " + std::to_string(trial.id) + ": ";
    try {
        json doc = applyTrialParams(baseRunConfig, trial.params);
        if (maxEpochs > 0)
            doc["optimizer"]["epochs"] = maxEpochs;
        RunConfig config = parseRunConfig(doc);
        validateRunConfig(config);
        return config;
    } catch (const EngineError &e) {
        throw EngineError(where + e.what());
    }
}

json runStudy(Study &study, const StudyRunOptions &options)
{
    StudyScheduler scheduler(study, options);
    return scheduler.run();
}

} // namespace lathe::engine
