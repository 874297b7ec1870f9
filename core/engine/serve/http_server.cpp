// runServer: the HTTP side of `lathe-cli serve` (routing, auth, limits, logs, metrics, shutdown).
//
// The HTTP library is cpp-httplib (Debian's libcpp-httplib-dev), not Boost.Beast: it is a
// complete, mature server (request parsing, keep-alive, chunked bodies, a body-size limit
// answered with 413 before the body is read, read/write timeouts, a worker thread pool) that
// has been fuzzed and used for years; Beast is a toolkit from which the accept loop, the
// connection state machines, timeouts and the thread model would have to be written here, and
// that is where servers get their bugs. Its thread-per-connection model suits this server: a
// worker decodes its request's images in parallel with the others and then waits for the
// batcher, which does the model's work. Handlers stay thin: ModelRegistry answers every API.

#include "engine/serve/serve.h"
#include "engine/serve/serve_route.h"

#include "engine/base/clock.h"
#include "engine/base/engine_error.h"

#include <httplib.h>
#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

namespace lathe::engine::serve {
namespace {

// httplib::Server with the listening socket's backlog raised (the library listens with 5,
// which drops the connections of a burst of clients into SYN retries).
class HttpServer : public httplib::Server
{
public:
    void setBacklog(int backlog) { ::listen(svr_sock_, backlog); }
};

// What the request being handled on this thread is, for its log line and metrics.
struct RequestInfo
{
    bool started = false;
    std::chrono::steady_clock::time_point start;
    std::string api = "other"; // predict, classify, status, metadata, health, metrics, other
    std::string model;
    std::optional<std::int64_t> version;
    std::string error;         // a malformed API path: the 4xx reason
    int errorStatus = 0;
    std::int64_t servedVersion = 0;
    int instances = 0;
    std::size_t bytesIn = 0;
};
thread_local RequestInfo t_request;

// The write end is used by the signal handler (async-signal-safe: write only).
int g_signalPipe[2] = {-1, -1};

void onStopSignal(int sig)
{
    const unsigned char c = static_cast<unsigned char>(sig);
    const ssize_t written = ::write(g_signalPipe[1], &c, 1);
    (void)written;
}

void parseRoute(const std::string &method, const std::string &path, RequestInfo &r)
{
    Route route = parseApiPath(method, path);
    r.api = std::move(route.api);
    r.model = std::move(route.model);
    r.version = route.version;
    r.error = std::move(route.error);
    r.errorStatus = route.errorStatus;
}

std::string jsonText(const nlohmann::json &doc)
{
    return doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// Constant-time in the given token's content: every byte of the expected one is compared.
bool sameToken(const std::string &given, const std::string &expected)
{
    unsigned char diff = given.size() == expected.size() ? 0 : 1;
    for (std::size_t i = 0; i < expected.size(); ++i)
        diff |= static_cast<unsigned char>((i < given.size() ? given[i] : 0) ^ expected[i]);
    return diff == 0;
}

std::string readToken(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw EngineError(path + ": cannot read the token file");
    std::string token(4096, '\0');
    in.read(token.data(), std::streamsize(token.size()));
    token.resize(std::size_t(in.gcount()));
    while (!token.empty() && std::isspace(static_cast<unsigned char>(token.back())))
        token.pop_back();
    while (!token.empty() && std::isspace(static_cast<unsigned char>(token.front())))
        token.erase(0, 1);
    if (token.size() < 16)
        throw EngineError(path + ": the token must be at least 16 characters (after trimming white space)");
    return token;
}

std::string statusText(int status, const httplib::Request &req, std::size_t maxBody)
{
    switch (status) {
    case 400: return "Malformed HTTP request";
    case 404: return "Malformed request: " + req.method + " " + req.path;
    case 413:
        return std::string("the request body is larger than the limit ") + parse_limits::kServeBodyBytes.name + " = "
               + std::to_string(maxBody) + " bytes (--max-body-mb)";
    case 414: return "the request URI is too long";
    case 416: return "range not satisfiable";
    default: return "HTTP status " + std::to_string(status);
    }
}

} // namespace

int runServer(const ServeOptions &options)
{
    // SIGTERM and SIGINT, whichever thread they land on (libraries start threads of their own),
    // write to a pipe the watcher thread below reads. SIGPIPE (a client gone while its answer is
    // written) must not end the process: blocked in this thread and so in every one it starts,
    // the write fails with EPIPE instead.
    sigset_t blocked, oldMask;
    sigemptyset(&blocked);
    sigaddset(&blocked, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &blocked, &oldMask);
    struct RestoreSignals
    {
        bool handled = false;
        bool restoreMask = false;
        sigset_t mask;
        struct sigaction term = {}, interrupt = {};
        ~RestoreSignals()
        {
            if (handled) {
                sigaction(SIGTERM, &term, nullptr);
                sigaction(SIGINT, &interrupt, nullptr);
                close(g_signalPipe[0]);
                close(g_signalPipe[1]);
                g_signalPipe[0] = g_signalPipe[1] = -1;
            }
            if (restoreMask)
                pthread_sigmask(SIG_SETMASK, &mask, nullptr);
        }
    } restoreSignals;
    restoreSignals.mask = oldMask;
    restoreSignals.restoreMask = !options.handleSignals;
    if (options.handleSignals) {
        if (pipe2(g_signalPipe, O_CLOEXEC | O_NONBLOCK) != 0)
            throw EngineError("serve: cannot make a pipe for the signals");
        struct sigaction action = {};
        action.sa_handler = onStopSignal;
        sigemptyset(&action.sa_mask);
        sigaction(SIGTERM, &action, &restoreSignals.term);
        sigaction(SIGINT, &action, &restoreSignals.interrupt);
        restoreSignals.handled = true;
    }

    std::mutex logMutex;
    const auto log = [&logMutex](nlohmann::json line) {
        line["time"] = std::round(unixSeconds() * 1000) / 1000;
        const std::string text = jsonText(line) + "\n";
        std::lock_guard<std::mutex> lock(logMutex);
        std::fwrite(text.data(), 1, text.size(), stderr);
        std::fflush(stderr);
    };

    const std::string token = options.tokenFile.empty() ? std::string() : readToken(options.tokenFile);
    ServeMetrics metrics;
    ModelRegistry registry(options.models, options.registry, metrics, log);
    registry.load();

    HttpServer server;
    const int threads = std::max(1, options.threads);
    server.new_task_queue = [threads] { return new httplib::ThreadPool(std::size_t(threads)); };
    server.set_payload_max_length(options.maxBodyBytes);
    // A worker serves one connection at a time: after 100 requests a keep-alive connection is
    // closed so that connections waiting for a worker (more clients than --threads) get their turn.
    server.set_keep_alive_max_count(100);
    server.set_tcp_nodelay(true);
    // SO_REUSEADDR only: cpp-httplib's default adds SO_REUSEPORT, with which a second server on a
    // port already served binds it too (the kernel then shares the connections between them)
    // instead of failing with "in use".
    server.set_socket_options([](socket_t sock) {
        int yes = 1;
        setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, reinterpret_cast<void *>(&yes), sizeof(yes));
    });
    server.set_default_headers({{"Server", "lathe-serve"}});
    std::atomic<std::int64_t> inFlight{0};
    // For onStats: answered requests, those answered with an error, the last one's latency.
    std::atomic<std::uint64_t> answered{0}, answeredErrors{0};
    std::atomic<double> lastLatencyMs{0};

    server.set_pre_routing_handler([&](const httplib::Request &req, httplib::Response &res) {
        t_request = RequestInfo{};
        t_request.started = true;
        t_request.start = std::chrono::steady_clock::now();
        parseRoute(req.method, req.path, t_request);
        if (!token.empty() && t_request.api != "health") {
            const std::string auth = req.get_header_value("Authorization");
            const std::string scheme = auth.substr(0, 7);
            bool bearer = auth.size() > 7;
            for (std::size_t i = 0; bearer && i < 7; ++i)
                bearer = std::tolower(static_cast<unsigned char>(scheme[i])) == "bearer "[i];
            if (!bearer || !sameToken(auth.substr(7), token)) {
                res.status = 401;
                res.set_header("WWW-Authenticate", "Bearer");
                res.set_content(jsonText({{"error", "missing or wrong bearer token (Authorization: Bearer <token>)"}}),
                                "application/json");
                return httplib::Server::HandlerResponse::Handled;
            }
        }
        return httplib::Server::HandlerResponse::Unhandled;
    });

    const std::size_t maxBody = options.maxBodyBytes;
    const auto handle = [&](const httplib::Request &req, const std::string &body, httplib::Response &res) {
        struct InFlight
        {
            std::atomic<std::int64_t> &n;
            explicit InFlight(std::atomic<std::int64_t> &c) : n(c) { ++n; }
            ~InFlight() { --n; }
        } guard(inFlight);
        RequestInfo &r = t_request;
        if (!r.started) // the pre-routing handler always runs first; be safe anyway
            parseRoute(req.method, req.path, r);
        Reply reply;
        if (r.errorStatus) {
            reply = {r.errorStatus, jsonText({{"error", r.error}})};
            if (r.errorStatus == 405)
                res.set_header("Allow", req.method == "GET" ? "POST" : "GET");
        } else if (r.api == "health") {
            reply = {200, jsonText({{"status", "ok"}, {"models", registry.health()}})};
        } else if (r.api == "metrics") {
            ServeMetrics::Gauges g = registry.gauges();
            g.inFlight = inFlight.load() - 1; // not this scrape
            res.status = 200;
            res.set_content(metrics.prometheusText(g), "text/plain; version=0.0.4");
            return;
        } else if (r.api == "status") {
            reply = registry.status(r.model, r.version);
        } else if (r.api == "metadata") {
            reply = registry.metadata(r.model, r.version);
        } else {
            reply = registry.infer(r.model, r.version, r.api, body);
        }
        r.servedVersion = reply.version;
        r.instances = reply.instances;
        res.status = reply.status;
        if (reply.retryAfter > 0)
            res.set_header("Retry-After", std::to_string(reply.retryAfter));
        res.set_content(reply.body, "application/json");
    };
    const auto tooLarge = [maxBody](httplib::Response &res) {
        res.status = 413;
        res.set_header("Connection", "close");
        res.set_content(jsonText({{"error", statusText(413, {}, maxBody)}}), "application/json");
    };
    server.Get(".*", [&](const httplib::Request &req, httplib::Response &res) { handle(req, {}, res); });
    // Bodies are read here, against the limit, whatever their framing: cpp-httplib 0.11 bounds
    // only those with a Content-Length (chunked ones would grow without limit).
    server.Post(".*", [&](const httplib::Request &req, httplib::Response &res, const httplib::ContentReader &reader) {
        const std::string length = req.get_header_value("Content-Length");
        if (!length.empty() && (length.size() > 18 || length.find_first_not_of("0123456789") != std::string::npos ||
                                std::stoull(length) > maxBody)) {
            tooLarge(res);
            return;
        }
        std::string body;
        bool over = false;
        const bool read = reader([&](const char *data, std::size_t n) {
            if (body.size() + n > maxBody) {
                over = true;
                return false;
            }
            body.append(data, n);
            return true;
        });
        t_request.bytesIn = body.size();
        if (over || res.status == 413) {
            tooLarge(res);
        } else if (!read) {
            res.status = 400;
            res.set_header("Connection", "close");
            res.set_content(jsonText({{"error", "the request body could not be read (truncated or malformed chunks)"}}),
                            "application/json");
        } else {
            handle(req, body, res);
        }
    });

    server.set_error_handler([maxBody](const httplib::Request &req, httplib::Response &res) {
        if (res.body.empty())
            res.set_content(jsonText({{"error", statusText(res.status, req, maxBody)}}), "application/json");
    });
    server.set_exception_handler([](const httplib::Request &, httplib::Response &res, std::exception_ptr ep) {
        std::string what = "internal error";
        try {
            std::rethrow_exception(ep);
        } catch (const std::exception &e) {
            what = e.what();
        } catch (...) {
        }
        res.status = 500;
        res.set_content(jsonText({{"error", what}}), "application/json");
    });
    const bool accessLog = options.accessLog;
    server.set_logger([&metrics, &log, accessLog, &answered, &answeredErrors, &lastLatencyMs](
                          const httplib::Request &req, const httplib::Response &res) {
        RequestInfo &r = t_request;
        const double seconds = r.started ? secondsSince(r.start) : 0.0;
        metrics.countRequest(r.model, r.api, res.status, seconds);
        lastLatencyMs = seconds * 1000.0;
        if (res.status >= 400)
            ++answeredErrors;
        ++answered; // last: a reader that sees the count sees its error and latency too
        if (accessLog) {
            nlohmann::json line = {{"event", "request"},
                                   {"remote", req.remote_addr},
                                   {"method", req.method},
                                   {"path", req.path},
                                   {"status", res.status},
                                   {"bytes_in", std::max(r.bytesIn, req.body.size())},
                                   {"bytes_out", res.body.size()},
                                   {"ms", std::round(seconds * 1e5) / 100}};
            if (!r.model.empty())
                line["model"] = r.model;
            if (r.servedVersion)
                line["version"] = r.servedVersion;
            if (r.instances)
                line["instances"] = r.instances;
            if (res.status >= 400) {
                try {
                    line["error"] = nlohmann::json::parse(res.body).value("error", "");
                } catch (const std::exception &) {
                }
            }
            log(line);
        }
        r = RequestInfo{};
    });

    int port = options.port;
    if (port == 0) {
        port = server.bind_to_any_port(options.bind);
        if (port < 0)
            throw EngineError("serve: cannot bind a port on " + options.bind);
    } else if (!server.bind_to_port(options.bind, port)) {
        throw EngineError("serve: cannot listen on " + options.bind + ":" + std::to_string(port) +
                          " (in use, or not an address of this machine)");
    }
    server.setBacklog(1024);

    nlohmann::json models = registry.health();
    log({{"event", "listening"},
         {"address", options.bind},
         {"port", port},
         {"url", "http://" + (options.bind.find(':') != std::string::npos ? "[" + options.bind + "]" : options.bind) +
                     ":" + std::to_string(port)},
         {"models", models},
         {"threads", threads},
         {"max_batch", options.registry.maxBatch},
         {"batch_timeout_ms", options.registry.batchTimeoutMs},
         {"auth", !token.empty()}});
    registry.startPolling();

    if (options.onListening)
        options.onListening(port);

    const auto stats = [&] {
        ServeStats st;
        st.requests = answered.load();
        st.errors = answeredErrors.load();
        st.lastLatencyMs = lastLatencyMs.load();
        st.inFlight = inFlight.load();
        return st;
    };
    std::atomic<bool> finished{false};
    // Watches for the stop signal (or `stop`) and reports the counts while they change.
    std::thread watcher([&] {
        std::uint64_t reported = 0;
        std::int64_t reportedInFlight = 0;
        bool stopping = false;
        while (!finished) {
            if (options.onStats) {
                const ServeStats st = stats();
                if (st.requests != reported || st.inFlight != reportedInFlight) {
                    reported = st.requests;
                    reportedInFlight = st.inFlight;
                    options.onStats(st);
                }
            }
            if (stopping) {
                std::this_thread::sleep_for(std::chrono::milliseconds(100));
                continue;
            }
            std::string reason;
            if (options.handleSignals) {
                pollfd fd{g_signalPipe[0], POLLIN, 0};
                unsigned char sig = 0;
                if (::poll(&fd, 1, 100) > 0 && ::read(g_signalPipe[0], &sig, 1) == 1 &&
                    (sig == SIGTERM || sig == SIGINT))
                    reason = sig == SIGTERM ? "SIGTERM" : "SIGINT";
            } else {
                std::this_thread::sleep_for(std::chrono::milliseconds(100));
            }
            if (reason.empty() && options.stop.isCancelled())
                reason = "stop";
            if (reason.empty())
                continue;
            log({{"event", "draining"}, {"signal", reason}, {"in_flight", inFlight.load()}});
            while (!server.is_running() && !finished)
                std::this_thread::sleep_for(std::chrono::milliseconds(10));
            server.stop();
            registry.drain();
            stopping = true; // the counts are still reported while the requests in flight finish
        }
    });
    server.listen_after_bind(); // returns once stopped and every worker finished its connection
    finished = true;
    watcher.join();
    registry.stop();
    if (options.onStats)
        options.onStats(stats());
    log({{"event", "stopped"}});
    return 0;
}

} // namespace lathe::engine::serve
