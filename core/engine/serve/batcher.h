#pragma once

// Engine-internal (LibTorch): dynamic batching as TF Serving's batching does it. Requests wait
// in a bounded queue; one thread takes the oldest and, until maxBatch rows of the same model
// version are waiting or batchTimeout has passed since the oldest arrived, lets more arrive;
// then runs them as one forward pass and hands each request its own rows back. A full queue
// refuses at once (ServeError 503 with Retry-After), so memory stays bounded.

#include "engine/serve/served_model.h"

#include <torch/types.h>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <thread>

namespace lathe::engine::serve {

class Batcher
{
public:
    // onBatch(rows) for each forward pass, before its answers are given (the metrics' batch sizes).
    Batcher(int maxBatch, std::chrono::microseconds batchTimeout, std::size_t maxQueue,
            std::function<void(int)> onBatch);
    ~Batcher(); // stop()

    // model->forward(input) [N, K], run inside a batch. Blocks until done. Throws ServeError 503
    // when the queue is full or the batcher stopped, and what the forward pass threw.
    torch::Tensor run(const std::shared_ptr<const ModelVersion> &model, const torch::Tensor &input);

    std::size_t queueDepth() const; // requests waiting (not yet in a forward pass)

    // From now on batches run as soon as a request waits (shutdown: no request waits out the
    // batch timeout).
    void drain();
    // Runs what is queued, then ends the thread; later run() calls are refused.
    void stop();

private:
    struct Job
    {
        std::shared_ptr<const ModelVersion> model;
        torch::Tensor input;
        std::promise<torch::Tensor> done;
        std::chrono::steady_clock::time_point arrived;
    };
    void loop();
    void runBatch(std::vector<std::shared_ptr<Job>> &jobs);

    const int m_maxBatch;
    const std::chrono::microseconds m_timeout;
    const std::size_t m_maxQueue;
    std::function<void(int)> m_onBatch;

    mutable std::mutex m_mutex;
    std::condition_variable m_wake;
    std::deque<std::shared_ptr<Job>> m_queue;
    bool m_stopping = false;
    bool m_draining = false;
    std::thread m_thread;
};

} // namespace lathe::engine::serve
