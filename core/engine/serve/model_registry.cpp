// The served models: versions, loading and checking them, switching, and answering requests.

#include "engine/serve/model_registry.h"

#include "engine/base/engine_error.h"
#include "engine/serve/batcher.h"
#include "engine/serve/served_model.h"
#include "engine/serve/serve_error.h"
#include "engine/serve/tf_json.h"

#include <torch/torch.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <map>
#include <mutex>
#include <thread>
#include <utility>

namespace fs = std::filesystem;

namespace lathe::engine::serve {
namespace {

// What TF Serving's model status lists for one version.
struct VersionState
{
    std::string state = "LOADING"; // LOADING, AVAILABLE, END
    std::string errorCode = "OK";
    std::string message;
    std::string stamp; // the folder's files when it was refused: retried once they change
};

struct Slot
{
    std::string name;
    std::string base;
    bool versioned = false;
    mutable std::mutex mutex;
    std::shared_ptr<const ModelVersion> current;
    std::map<std::int64_t, VersionState> versions;
    std::unique_ptr<Batcher> batcher;
};

bool isVersionName(const std::string &s)
{
    return !s.empty() && s.size() <= 18 && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Numbered version folders, highest first.
std::vector<std::int64_t> versionFolders(const std::string &base)
{
    std::vector<std::int64_t> out;
    std::error_code ec;
    for (fs::directory_iterator it(base, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        std::error_code ec2;
        if (isVersionName(name) && it->is_directory(ec2))
            out.push_back(std::stoll(name));
    }
    std::sort(out.rbegin(), out.rend());
    return out;
}

// The folder's files (names, sizes, modification times): a refused version is tried again
// when this changes.
std::string folderStamp(const fs::path &dir)
{
    std::vector<std::string> entries;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        std::error_code ec2;
        const auto size = it->is_regular_file(ec2) ? it->file_size(ec2) : 0;
        const auto time = it->last_write_time(ec2).time_since_epoch().count();
        entries.push_back(it->path().filename().string() + ":" + std::to_string(size) + ":" + std::to_string(time));
    }
    std::sort(entries.begin(), entries.end());
    std::string out;
    for (const std::string &e : entries)
        out += e + ";";
    return out;
}

std::string errorBody(const std::string &message)
{
    return nlohmann::json{{"error", message}}.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

} // namespace

struct ModelRegistry::Impl
{
    RegistryOptions options;
    ServeMetrics &metrics;
    std::function<void(const nlohmann::json &)> log;
    std::vector<std::unique_ptr<Slot>> slots;

    std::mutex pollMutex;
    std::condition_variable pollWake;
    bool stopping = false;
    std::thread poller;

    Impl(RegistryOptions o, ServeMetrics &m, std::function<void(const nlohmann::json &)> l)
        : options(std::move(o))
        , metrics(m)
        , log(std::move(l))
    {
    }

    const Slot &find(const std::string &name) const
    {
        for (const auto &s : slots)
            if (s->name == name)
                return *s;
        throw notFound("Servable not found for request: Latest(" + name + ")");
    }
    Slot &find(const std::string &name) { return const_cast<Slot &>(std::as_const(*this).find(name)); }

    std::shared_ptr<const ModelVersion> served(const Slot &slot, std::optional<std::int64_t> version) const
    {
        std::shared_ptr<const ModelVersion> model;
        {
            std::lock_guard<std::mutex> lock(slot.mutex);
            model = slot.current;
        }
        if (version && (!model || model->version != *version))
            throw notFound("Servable not found for request: Specific(" + slot.name + ", " + std::to_string(*version) + ")");
        if (!model)
            throw ServeError(503, "Servable not found for request: Latest(" + slot.name + "): no version is loaded", 1);
        return model;
    }

    // Tries version v of slot; on success it becomes the served one. Returns whether it did.
    bool tryLoad(Slot &slot, std::int64_t v, const std::string &dir)
    {
        {
            std::lock_guard<std::mutex> lock(slot.mutex);
            slot.versions[v].state = "LOADING";
        }
        try {
            std::shared_ptr<const ModelVersion> model = loadModelVersion(slot.name, v, dir, options.device);
            std::shared_ptr<const ModelVersion> old;
            {
                std::lock_guard<std::mutex> lock(slot.mutex);
                old = slot.current;
                slot.current = model;
                slot.versions[v] = VersionState{"AVAILABLE", "OK", "", ""};
                if (old && old->version != v)
                    slot.versions[old->version].state = "END";
            }
            metrics.countLoad(slot.name, "loaded");
            log({{"event", "model_loaded"},
                 {"model", slot.name},
                 {"version", v},
                 {"previous_version", old ? nlohmann::json(old->version) : nlohmann::json()},
                 {"dir", dir},
                 {"runtime", model->runtime},
                 {"file", model->file},
                 {"device", model->device.str()}});
            return true;
        } catch (const std::exception &e) {
            {
                std::lock_guard<std::mutex> lock(slot.mutex);
                slot.versions[v] = VersionState{"END", "FAILED_PRECONDITION", e.what(), folderStamp(dir)};
            }
            metrics.countLoad(slot.name, "refused");
            log({{"event", "model_refused"}, {"model", slot.name}, {"version", v}, {"dir", dir}, {"reason", e.what()}});
            return false;
        }
    }

    // Serves the highest version folder that loads; versions refused before are skipped until
    // their files change, folders without report.json (still being written) are left for later.
    void reconcile(Slot &slot)
    {
        for (std::int64_t v : versionFolders(slot.base)) {
            const fs::path dir = fs::path(slot.base) / std::to_string(v);
            {
                std::lock_guard<std::mutex> lock(slot.mutex);
                if (slot.current && slot.current->version == v)
                    return;
                const auto it = slot.versions.find(v);
                if (it != slot.versions.end() && it->second.errorCode != "OK" && it->second.stamp == folderStamp(dir))
                    continue;
            }
            std::error_code ec;
            if (!fs::exists(dir / "report.json", ec)) {
                std::lock_guard<std::mutex> lock(slot.mutex);
                if (!slot.versions.count(v)) {
                    slot.versions[v] = VersionState{"LOADING", "OK", "waiting for report.json", ""};
                    log({{"event", "model_waiting"}, {"model", slot.name}, {"version", v}, {"dir", dir.string()},
                         {"reason", "no report.json yet (an export still being written?)"}});
                }
                continue;
            }
            if (tryLoad(slot, v, dir.string()))
                return;
        }
    }

    void pollLoop()
    {
        std::unique_lock<std::mutex> lock(pollMutex);
        while (!stopping) {
            pollWake.wait_for(lock, std::chrono::duration<double>(options.pollSeconds), [this] { return stopping; });
            if (stopping)
                break;
            lock.unlock();
            for (const auto &slot : slots)
                if (slot->versioned) {
                    try {
                        reconcile(*slot);
                    } catch (const std::exception &e) {
                        log({{"event", "poll_error"}, {"model", slot->name}, {"reason", e.what()}});
                    }
                }
            lock.lock();
        }
    }
};

ModelRegistry::ModelRegistry(std::vector<ModelSource> sources, RegistryOptions options, ServeMetrics &metrics,
                             std::function<void(const nlohmann::json &)> log)
    : m_impl(std::make_unique<Impl>(std::move(options), metrics, std::move(log)))
{
    for (ModelSource &s : sources) {
        auto slot = std::make_unique<Slot>();
        slot->name = s.name;
        slot->base = s.path;
        m_impl->slots.push_back(std::move(slot));
    }
}

ModelRegistry::~ModelRegistry()
{
    stop();
}

void ModelRegistry::load()
{
    Impl &d = *m_impl;
    for (const auto &slot : d.slots) {
        std::error_code ec;
        if (!fs::is_directory(slot->base, ec))
            throw EngineError(slot->base + ": not a folder (model " + slot->name + ")");
        if (fs::exists(fs::path(slot->base) / "report.json", ec)) {
            slot->versioned = false;
            d.tryLoad(*slot, 1, slot->base);
        } else {
            if (versionFolders(slot->base).empty())
                throw EngineError(slot->base + ": neither an export folder (report.json) nor a folder of numbered "
                                               "version folders (1/, 2/, ...) (model " + slot->name + ")");
            slot->versioned = true;
            d.reconcile(*slot);
        }
        std::lock_guard<std::mutex> lock(slot->mutex);
        if (!slot->current) {
            std::string reasons;
            for (const auto &[v, st] : slot->versions)
                reasons += (reasons.empty() ? "" : "; ") + std::string(slot->versioned ? "version " + std::to_string(v) + ": " : "") +
                           st.message;
            throw EngineError("model " + slot->name + ": no version could be loaded: " + reasons);
        }
        if (d.options.maxBatch > 1) {
            const std::string name = slot->name;
            ServeMetrics *metrics = &d.metrics;
            slot->batcher = std::make_unique<Batcher>(d.options.maxBatch,
                                                      std::chrono::microseconds(std::int64_t(d.options.batchTimeoutMs) * 1000),
                                                      std::size_t(d.options.maxQueue),
                                                      [metrics, name](int rows) { metrics->countBatch(name, rows); });
        }
    }
}

void ModelRegistry::startPolling()
{
    Impl &d = *m_impl;
    if (d.options.pollSeconds > 0 && !d.poller.joinable())
        d.poller = std::thread([&d] { d.pollLoop(); });
}

void ModelRegistry::stop()
{
    Impl &d = *m_impl;
    {
        std::lock_guard<std::mutex> lock(d.pollMutex);
        d.stopping = true;
    }
    d.pollWake.notify_all();
    if (d.poller.joinable())
        d.poller.join();
    for (const auto &slot : d.slots)
        if (slot->batcher)
            slot->batcher->stop();
}

void ModelRegistry::drain()
{
    for (const auto &slot : m_impl->slots)
        if (slot->batcher)
            slot->batcher->drain();
}

std::vector<std::string> ModelRegistry::names() const
{
    std::vector<std::string> out;
    for (const auto &slot : m_impl->slots)
        out.push_back(slot->name);
    return out;
}

Reply ModelRegistry::status(const std::string &name, std::optional<std::int64_t> version) const
{
    try {
        const Slot &slot = m_impl->find(name);
        nlohmann::json list = nlohmann::json::array();
        std::lock_guard<std::mutex> lock(slot.mutex);
        for (auto it = slot.versions.rbegin(); it != slot.versions.rend(); ++it) {
            if (version && it->first != *version)
                continue;
            list.push_back({{"version", std::to_string(it->first)},
                            {"state", it->second.state},
                            {"status", {{"error_code", it->second.errorCode}, {"error_message", it->second.message}}}});
        }
        if (list.empty())
            throw notFound("Could not find version " + std::to_string(version.value_or(0)) + " of model " + name);
        return {200, nlohmann::json{{"model_version_status", list}}.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)};
    } catch (const ServeError &e) {
        return {e.status(), errorBody(e.what()), e.retryAfter()};
    }
}

Reply ModelRegistry::metadata(const std::string &name, std::optional<std::int64_t> version) const
{
    try {
        const std::shared_ptr<const ModelVersion> model = m_impl->served(m_impl->find(name), version);
        Reply r{200, encodeMetadata(*model).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)};
        r.version = model->version;
        return r;
    } catch (const ServeError &e) {
        return {e.status(), errorBody(e.what()), e.retryAfter()};
    }
}

Reply ModelRegistry::infer(const std::string &name, std::optional<std::int64_t> version, const std::string &api,
                           const std::string &body)
{
    Impl &d = *m_impl;
    Reply r;
    try {
        Slot &slot = d.find(name);
        const std::shared_ptr<const ModelVersion> model = d.served(slot, version);
        r.version = model->version;
        DecodeLimits limits;
        limits.maxInstances = d.options.maxInstances;
        limits.maxImagePixels = d.options.maxImagePixels;
        const nlohmann::json request = parseRequestBody(body);
        DecodedBatch batch;
        if (api == "predict")
            batch = decodePredict(*model, request, limits);
        else if (api == "classify")
            batch.input = decodeClassify(*model, request, limits);
        else
            throw invalidArgument("Expected prediction signature method_name to be one of {tensorflow/serving/predict, "
                                  "tensorflow/serving/classify}: this model does not " + api);
        r.instances = int(batch.input.size(0));
        torch::Tensor out;
        if (slot.batcher) {
            out = slot.batcher->run(model, batch.input);
        } else {
            out = model->forward(batch.input);
            d.metrics.countBatch(name, r.instances);
        }
        const nlohmann::json answer = api == "predict" ? encodePredict(*model, out, batch.columnar) : encodeClassify(*model, out);
        r.body = answer.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    } catch (const ServeError &e) {
        r.status = e.status();
        r.body = errorBody(e.what());
        r.retryAfter = e.retryAfter();
    } catch (const c10::Error &e) {
        r.status = 500;
        r.body = errorBody(std::string("the model failed: ") + e.what_without_backtrace());
    } catch (const std::bad_alloc &) {
        r.status = 503;
        r.body = errorBody("out of memory; retry later");
        r.retryAfter = 1;
    } catch (const std::exception &e) {
        r.status = 500;
        r.body = errorBody(e.what());
    }
    return r;
}

nlohmann::json ModelRegistry::health() const
{
    nlohmann::json models = nlohmann::json::object();
    for (const auto &slot : m_impl->slots) {
        std::lock_guard<std::mutex> lock(slot->mutex);
        models[slot->name] = slot->current ? nlohmann::json(slot->current->version) : nlohmann::json();
    }
    return models;
}

ServeMetrics::Gauges ModelRegistry::gauges() const
{
    ServeMetrics::Gauges g;
    for (const auto &slot : m_impl->slots) {
        g.queueDepth[slot->name] = slot->batcher ? std::int64_t(slot->batcher->queueDepth()) : 0;
        std::lock_guard<std::mutex> lock(slot->mutex);
        g.version[slot->name] = slot->current ? slot->current->version : 0;
    }
    return g;
}

} // namespace lathe::engine::serve
