#pragma once

// Engine-internal (training only): includes LibTorch through run_setup.h. The processes of a run
// that spans several (machines, or one process per device) meet at the rendezvous store before
// any of them writes or trains:
//   - rank 0's process publishes its effective config, the SHA-256 of every shard its
//     dataset.json lists, whether it resumes and, if so, the checkpoint's files;
//   - every other process compares its own config and shards with those (naming the first
//     field or shard that differs), takes the checkpoint when resuming, and posts its verdict;
//   - rank 0's process collects the verdicts, opens or creates the run folder, and says "start"
//     (or why not), so a refusal anywhere ends every process at once with the same reason.
// Rank 0's process alone owns the run folder, which may therefore sit on a shared path or on
// its disk alone.

#include "engine/training/run_setup.h"

#include <nlohmann/json.hpp>

#include <string>

namespace lathe::engine {

// Connects s.rendezvous for a multi-process launch (a no-op when it is connected or the run is
// one process).
void connectProcesses(RunSetup &s);

// A follower's resume: rank 0's effective config, as it will train.
nlohmann::json leaderConfig(RunSetup &s);

// After prepare(): the exchange above up to the verdicts. On the followers it sets
// s.resumeFrom from rank 0's checkpoint when rank 0 resumes. Throws EngineError.
void meetProcesses(RunSetup &s, bool resuming);

// Rank 0's process: the run folder is ready, the others may start.
void announceStart(RunSetup &s);
// The followers: waits for announceStart; throws EngineError with rank 0's reason if it failed.
void awaitStart(RunSetup &s);
// A process that fails before the run starts tells the others (rank 0's aborts them; another
// posts its verdict), so that none waits out the timeout. Best effort; never throws.
void reportStartFailure(RunSetup &s, const std::string &reason);

} // namespace lathe::engine
