#pragma once

#include "engine/training/trainer.h"

#include <QMutex>

#include <functional>

namespace lathe::workspace {

// The Pause button of a job whose engine task takes an engine::PauseToken (TrainJob, TuneJob).
// Thread-safe, and each change happens once however many threads ask for it, so the job
// announces each change exactly once.
class PauseSwitch
{
public:
    // Pauses (paused = true) or continues the task. Returns false, doing nothing, when it is in
    // that state already. whileLocked, when given, runs after the change under the switch's
    // lock, so what it queues (a job's "paused" event) stays in the order of the changes.
    bool set(bool paused, const std::function<void()> &whileLocked = {});
    bool isPaused() const { return m_token.isPaused(); }
    // For the engine task's control (copies share the state).
    const engine::PauseToken &token() const { return m_token; }

private:
    engine::PauseToken m_token;
    QMutex m_mutex;
};

} // namespace lathe::workspace
