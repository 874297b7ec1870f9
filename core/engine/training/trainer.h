#pragma once

// Torch-free: the workspace's training Job and lathe-cli call it.

#include "engine/base/cancel_token.h"
#include "engine/run/run_config.h"
#include "engine/training/launch.h"

#include <nlohmann/json.hpp>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

namespace lathe::engine {

// Pauses a run between optimizer steps (the GUI's Pause button). Copies share the state.
class PauseToken
{
public:
    PauseToken()
        : m_state(std::make_shared<State>())
    {
    }
    void pause() const
    {
        std::lock_guard<std::mutex> lock(m_state->mutex);
        m_state->paused = true;
    }
    void resume() const
    {
        {
            std::lock_guard<std::mutex> lock(m_state->mutex);
            m_state->paused = false;
        }
        m_state->cv.notify_all();
    }
    bool isPaused() const
    {
        std::lock_guard<std::mutex> lock(m_state->mutex);
        return m_state->paused;
    }
    // Blocks while paused; returns early (false) once cancelled, polling it every 50 ms.
    bool waitWhilePaused(const CancelToken &cancel) const
    {
        std::unique_lock<std::mutex> lock(m_state->mutex);
        while (m_state->paused && !cancel.isCancelled())
            m_state->cv.wait_for(lock, std::chrono::milliseconds(50));
        return !cancel.isCancelled();
    }

private:
    struct State
    {
        std::mutex mutex;
        std::condition_variable cv;
        bool paused = false;
    };
    std::shared_ptr<State> m_state;
};

struct TrainControl
{
    // Stops the run within one optimizer step; a checkpoint of the position reached is written
    // first (Stop loses no work) and the run ends with a "cancelled" event.
    CancelToken cancel;
    PauseToken pause;
    // Every event the run emits, also appended to metrics.jsonl, called on rank 0's thread:
    //   step        loss, lr, images_per_s, input_wait_fraction, step, epoch, total_steps
    //               (planned optimizer steps of the run) (rate-limited)
    //   epoch       train_loss, train_top1, val_loss, val_top1, val_top5 (>= 5 classes),
    //               per_class_accuracy, lr, seconds, step, epoch (every epoch)
    //   checkpoint  path, step, epoch, reason ("steps", "epoch", "end", "cancel")
    //   log         message (feature cache use, model loading, ...)
    //   overflow_skipped  fp16 steps skipped by the loss scaler (step, skipped_total)
    //   resumed     step, epoch, batch_in_epoch, checkpoint
    //   finished / failed (message) / cancelled
    std::function<void(const nlohmann::json &event)> onEvent;
    // Step events: every this many optimizer steps; 0 = at most one each 0.25 s (and the first).
    int stepEventEvery = 0;
    // > 0: stop after this optimizer step (counted over the whole run) as cancel does: checkpoint,
    // then a "cancelled" event. For tests and for splitting a run into sessions.
    std::int64_t stopAfterStep = 0;
    // How a stopped run (cancel or stopAfterStep) ends once its checkpoint and "cancelled" event
    // are written: false returns the summary with status "cancelled" (lathe-cli prints it); true
    // throws Cancelled, as TaskControl::checkCancel does in the other engine tasks (the
    // workspace's TrainJob then ends cancelled like every other job).
    bool throwWhenCancelled = false;
    // The launcher's variables (torchrun, Slurm; training/launch.h): lathe-cli passes its
    // environment's. Empty: the run config's distributed fields alone, as the workbench runs.
    LaunchEnvironment launchEnvironment;
    // Non-empty: every rank appends "epoch shard offset" for each training record it takes to
    // DIR/records-rank-R.txt, an audit of how the data was split across ranks and machines.
    std::string recordLogDir;
};

// Trains a new run in runDir (must not exist or be empty): validateRunConfig, then
// RunFolder::create with the effective config (model.head.num_classes and data.image_size
// resolved). Returns the summary {"run_dir", "status" ("finished" | "cancelled"), "epochs",
// "steps", "stopped_early", "best_metric", "best_value", "last_checkpoint", "best_checkpoint",
// "feature_cache"}. Throws EngineError for invalid configs and failures (also written to the
// run folder as a "failed" event). A cancelled run returns status "cancelled", or throws
// Cancelled with control.throwWhenCancelled.
nlohmann::json train(const RunConfig &config, const std::string &runDir, const TrainControl &control = {});

// Continues runDir from its latest complete checkpoint exactly where it was: model, optimizer,
// loss scaler, EMA, scheduler, data position (epoch and batch) and the per-step random seeds,
// so the curve after a resume continues the one before. overrides (applyRunConfigOverrides
// paths) may change fields that do not alter the run's past, e.g. optimizer.epochs to train
// longer, devices or data.workers. Without a checkpoint the run starts over from its config.
nlohmann::json resume(const std::string &runDir, const TrainControl &control = {},
                      const nlohmann::json &overrides = nlohmann::json::object());

// lathe and lathe-cli run with OMP_WAIT_POLICY=PASSIVE and GOMP_SPINCOUNT=3000 unless their
// environment sets the policy (on Linux they start themselves again with them, before any library
// is initialised; see app/common/passive_openmp_waits.cpp, which only the programs link):
// LibTorch's OpenMP threads spin ~30 us after a parallel region, then sleep instead of spinning
// on, leaving the cores to the input pipeline and other work.

// `lathe-cli bench train`: training throughput of an architecture on synthetic data (random
// tensors, no input pipeline), with the trainer's optimizers (optimizer_factory) and precision
// handling.
struct TrainBenchOptions
{
    std::string arch = "resnet18";
    std::string optimizer = "sgd"; // sgd (lr 0.01, momentum 0.9) or adamw (lr 1e-3, weight decay 0.01): PyTorch's defaults
    int imageSize = 224;
    int batchSize = 32;
    int steps = 20;       // timed steps, after 3 warm-up steps
    int numClasses = 1000;
    std::string precision = "fp32";
    std::string device = "cpu";
    bool channelsLast = false;
    int threads = 0;      // torch intra-op threads; 0: all cores
};
// {"arch", "optimizer", "batch", "image_size", "precision", "threads", "steps", "step_ms", "cpu_ms_per_step",
//  "images_per_s", "channels_last", "omp_wait_policy", "omp_spin_count", "loss_finite", "gpu_memory_peak_mib"
//  (null on the CPU)}
nlohmann::json benchTrain(const TrainBenchOptions &options);

} // namespace lathe::engine
