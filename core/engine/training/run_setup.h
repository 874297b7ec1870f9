#pragma once

// Engine-internal (training only): includes LibTorch. What trainer.cpp's prepare() and
// runTraining() work out before any rank starts, and what every rank then reads: the effective
// config, the dataset's classes and counts, the model's spec, the devices and thread shares, the
// model replicas, the feature cache and the checkpoint to resume from. The ranks of a process
// share one RunSetup; its emit() is the one writer of the run's events.

#include "engine/base/clock.h"
#include "engine/dataset/shard_converter.h"
#include "engine/models/backbone_registry.h"
#include "engine/models/model_spec.h"
#include "engine/models/networks/classifier.h"
#include "engine/pipeline/sample_transform.h"
#include "engine/run/checkpoint_io.h"
#include "engine/run/run_config.h"
#include "engine/run/run_events.h"
#include "engine/run/run_folder.h"
#include "engine/training/distributed.h"
#include "engine/training/trainer.h"

#include <torch/torch.h>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace lathe::engine {

struct FeatureCache; // engine/training/feature_cache.h

struct RunSetup
{
    RunConfig config;
    std::string runDir;
    TrainControl control;
    std::unique_ptr<RunFolder> folder;
    DatasetManifest manifest;
    int numClasses = 0;
    ModelSpec spec;
    BackboneInfo info;
    TransformOptions trainTransform;
    TransformOptions valTransform;
    bool hasVal = false;
    std::vector<torch::Device> devices;
    DistributedLaunch launch;
    int localRanks = 1;
    int worldSize = 1;
    int firstRank = 0; // the global rank of this process's local rank 0
    int threadsPerRank = 1;
    int workersPerRank = 1;
    std::vector<std::shared_ptr<models::Classifier>> replicas;
    std::shared_ptr<RankRendezvous> rendezvous;
    std::shared_ptr<const FeatureCache> cache;
    std::optional<CheckpointData> resumeFrom;
    std::vector<std::int64_t> trainCounts; // per class (multi-label: images carrying each label)
    std::int64_t trainImages = 0;          // records of the training split
    bool multiLabel = false;               // dataset.json task "multi_label"

    std::mutex eventMutex;
    std::mutex errorMutex;
    std::exception_ptr error;
    int errorRank = -1;
    nlohmann::json summary = nlohmann::json::object();

    // Stamps the event's time, appends it to metrics.jsonl (log, end, resumed and checkpoint
    // events to the run's log too) and passes it to TrainControl::onEvent.
    void emit(nlohmann::json event)
    {
        std::lock_guard<std::mutex> lock(eventMutex);
        if (!event.contains(event_key::kTime))
            event[event_key::kTime] = unixSeconds();
        if (folder) {
            folder->appendMetrics(event);
            const std::string type = event.value(event_key::kType, "");
            if (type == event_type::kLog)
                folder->log(event.value(event_key::kMessage, ""));
            else if (isEndEventType(type) || type == event_type::kResumed || type == event_type::kCheckpoint)
                folder->log(type + ": " + event.dump());
        }
        if (control.onEvent)
            control.onEvent(event);
    }
    // The process of rank 0 owns the run folder; the others write nothing there (it may be on a
    // shared path, or only on rank 0's disk).
    bool ownsRunFolder() const { return firstRank == 0; }
    // Ranks meet in a process group when there are several, and a single rank does when a
    // launcher started it (torchrun, Slurm, RANK/WORLD_SIZE), as DDP does: such a run goes
    // through the same collectives (NCCL on CUDA) as a larger one.
    bool usesProcessGroup() const { return worldSize > 1 || launch.source != "config"; }
    void log(const std::string &message) { emit({{event_key::kType, event_type::kLog}, {event_key::kMessage, message}}); }
};

// trainer.cpp's prepare(): everything that follows from s.config and its dataset before any rank
// starts (validateRunConfig, the manifest, classes and train counts, the model spec with zoo
// weights resolved, data.image_size, the transforms, the devices and world size). Reads no
// image and builds no model (except a TorchScript one, for its info). Also what the learning-rate
// and batch-size finders start from. Throws EngineError naming the field.
void prepareRunSetup(RunSetup &s);

} // namespace lathe::engine
