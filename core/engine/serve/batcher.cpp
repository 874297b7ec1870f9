#include "engine/serve/batcher.h"

#include "engine/serve/serve_error.h"

#include <torch/torch.h>

#include <algorithm>

namespace lathe::engine::serve {

Batcher::Batcher(int maxBatch, std::chrono::microseconds batchTimeout, std::size_t maxQueue,
                 std::function<void(int)> onBatch)
    : m_maxBatch(std::max(1, maxBatch))
    , m_timeout(batchTimeout)
    , m_maxQueue(std::max<std::size_t>(1, maxQueue))
    , m_onBatch(std::move(onBatch))
    , m_thread([this] { loop(); })
{
}

Batcher::~Batcher()
{
    stop();
}

void Batcher::stop()
{
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_stopping = true;
    }
    m_wake.notify_all();
    if (m_thread.joinable())
        m_thread.join();
}

void Batcher::drain()
{
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_draining = true;
    }
    m_wake.notify_all();
}

std::size_t Batcher::queueDepth() const
{
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_queue.size();
}

torch::Tensor Batcher::run(const std::shared_ptr<const ModelVersion> &model, const torch::Tensor &input)
{
    auto job = std::make_shared<Job>();
    job->model = model;
    job->input = input;
    job->arrived = std::chrono::steady_clock::now();
    std::future<torch::Tensor> done = job->done.get_future();
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        if (m_stopping)
            throw ServeError(503, "the server is shutting down", 1);
        if (m_queue.size() >= m_maxQueue)
            throw ServeError(503, "the batching queue is full (" + std::to_string(m_maxQueue) +
                                      " requests waiting, --max-queue); retry later", 1);
        m_queue.push_back(job);
    }
    m_wake.notify_all();
    return done.get();
}

void Batcher::loop()
{
    std::unique_lock<std::mutex> lock(m_mutex);
    for (;;) {
        m_wake.wait(lock, [this] { return m_stopping || !m_queue.empty(); });
        if (m_queue.empty()) {
            if (m_stopping)
                return;
            continue;
        }
        // Rows of the oldest request's model version waiting at the front of the queue.
        const auto readyRows = [this] {
            std::int64_t rows = 0;
            for (const auto &job : m_queue) {
                if (job->model != m_queue.front()->model)
                    break;
                rows += job->input.size(0);
            }
            return rows;
        };
        const auto deadline = m_queue.front()->arrived + m_timeout;
        while (!m_stopping && !m_draining && readyRows() < m_maxBatch &&
               m_wake.wait_until(lock, deadline) != std::cv_status::timeout) {
        }
        // One batch: the front's model version, as many of its rows as fit (the first always).
        const auto model = m_queue.front()->model;
        std::vector<std::shared_ptr<Job>> jobs;
        std::int64_t rows = 0;
        while (!m_queue.empty() && m_queue.front()->model == model &&
               (jobs.empty() || rows + m_queue.front()->input.size(0) <= m_maxBatch)) {
            rows += m_queue.front()->input.size(0);
            jobs.push_back(std::move(m_queue.front()));
            m_queue.pop_front();
        }
        lock.unlock();
        // Counted before the answers go out, so a client that has its answer sees its batch in /metrics.
        if (m_onBatch)
            m_onBatch(int(rows));
        runBatch(jobs);
        lock.lock();
    }
}

void Batcher::runBatch(std::vector<std::shared_ptr<Job>> &jobs)
{
    try {
        std::vector<torch::Tensor> inputs;
        inputs.reserve(jobs.size());
        for (const auto &job : jobs)
            inputs.push_back(job->input);
        const torch::Tensor out = jobs[0]->model->forward(inputs.size() == 1 ? inputs[0] : torch::cat(inputs, 0));
        std::int64_t row = 0;
        for (const auto &job : jobs) {
            const std::int64_t n = job->input.size(0);
            job->done.set_value(out.narrow(0, row, n).contiguous());
            row += n;
        }
    } catch (...) {
        for (const auto &job : jobs) {
            try {
                job->done.set_exception(std::current_exception());
            } catch (const std::future_error &) {
                // this job already has its rows
            }
        }
    }
}

} // namespace lathe::engine::serve
