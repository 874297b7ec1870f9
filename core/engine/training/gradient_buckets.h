#pragma once

// Engine-internal (training only): includes LibTorch. Data-parallel gradient averaging that
// overlaps backward, as PyTorch's DistributedDataParallel does: the trainable parameters are cut
// into buckets in reverse order (about the order backward produces their gradients); a hook on
// each parameter copies its gradient into its bucket's flat buffer, and a bucket whose
// gradients are all in is all-reduced at once, on Gloo's threads or NCCL's stream, while
// backward goes on with the earlier layers. Buckets start in the same order on every rank.

#include "engine/training/distributed.h"

#include <torch/torch.h>

#include <cstdint>
#include <mutex>
#include <vector>

namespace lathe::engine {

class GradientBuckets
{
public:
    // parameters: the trainable ones, the same list on every rank; bucketElements: the most
    // elements per bucket (a parameter larger than that gets a bucket of its own).
    GradientBuckets(RankGroup &group, const std::vector<torch::Tensor> &parameters, std::int64_t bucketElements);
    ~GradientBuckets(); // removes the hooks
    GradientBuckets(const GradientBuckets &) = delete;
    GradientBuckets &operator=(const GradientBuckets &) = delete;

    // Before the backward that completes a step's gradients (the last micro-batch): its
    // hooks fill and start the buckets. The hooks of other backwards do nothing.
    void arm();
    // After that backward: starts the buckets still waiting (parameters that got no gradient
    // count as zero, or as what earlier micro-batches left), waits for every bucket, and sets
    // each parameter's gradient to the mean over the ranks.
    void finish();
    // Bytes of each bucket, in the order they start.
    std::vector<std::int64_t> bucketBytes() const;

private:
    struct Bucket
    {
        std::vector<std::size_t> members; // indices into m_parameters
        std::vector<std::int64_t> offsets;
        torch::Tensor flat;
        std::size_t ready = 0;
        RankGroup::Pending pending;
        bool started = false;
    };
    void onGradient(std::size_t parameter, const torch::Tensor &grad);
    void reset();             // under m_mutex: no gradient in, no bucket started
    void startReadyBuckets(); // under m_mutex: buckets start in order
    void start(Bucket &bucket);

    RankGroup &m_group;
    std::vector<torch::Tensor> m_parameters;
    std::vector<unsigned> m_hooks;
    std::vector<std::size_t> m_bucketOf; // per parameter
    std::vector<std::size_t> m_slotOf;   // per parameter: its place in its bucket
    std::vector<bool> m_got;             // per parameter, this backward
    std::vector<Bucket> m_buckets;
    std::size_t m_nextToStart = 0;
    bool m_armed = false;
    std::mutex m_mutex; // hooks may run on autograd's device threads
};

} // namespace lathe::engine
