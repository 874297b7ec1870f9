#include "serve_verbs.h"

#include "engine/base/parse_limits.h"
#include "engine/base/runtime_info.h"
#include "engine/serve/serve.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <memory>

namespace lathe::cli {
namespace {

// NAME=DIR, NAME being what TF Serving accepts in a URL path segment.
engine::serve::ModelSource parseModelArg(const std::string &arg)
{
    const std::size_t eq = arg.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == arg.size())
        throw CLI::ValidationError("--model", "expected NAME=EXPORT_DIR (got \"" + arg + "\")");
    const std::string name = arg.substr(0, eq);
    const bool nameOk = name.size() <= 128 && std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
               c == '.';
    });
    if (!nameOk || name == "." || name == "..")
        throw CLI::ValidationError("--model", "a model name is letters, digits, '_', '-' and '.' (got \"" + name + "\")");
    return {name, arg.substr(eq + 1)};
}

} // namespace

void addServeVerbs(CLI::App &app, CliContext &context)
{
    struct Args
    {
        engine::serve::ServeOptions options;
        std::vector<std::string> models;
        double maxBodyMb = double(engine::parse_limits::kServeBodyBytes.value) / 1e6;
        double maxImageMegapixels = double(engine::parse_limits::kServeImagePixels.value) / 1e6;
        int torchThreads = 0;
    };
    auto args = std::make_shared<Args>();
    engine::serve::ServeOptions &o = args->options;
    engine::serve::RegistryOptions &r = o.registry;

    CLI::App *cmd = app.add_subcommand(
        "serve", "Serve exports over HTTP with TensorFlow Serving's REST API (/v1/models/NAME[:predict|:classify|"
                 "/metadata]), dynamic batching, version folders with hot reload, Prometheus metrics. Stops on SIGTERM "
                 "or Ctrl+C after the requests in flight");
    cmd->add_option("--model", args->models,
                    "NAME=DIR: an export folder (lathe-cli export, with report.json) or a folder of numbered "
                    "version folders (1/, 2/, ...: the highest that loads is served, new ones are loaded as they "
                    "appear). Repeatable")
        ->required();
    cmd->add_option("--port", o.port, "TCP port (0: any free port, named in the \"listening\" log line)")
        ->capture_default_str()
        ->check(CLI::Range(0, 65535));
    cmd->add_option("--bind", o.bind, "Address to listen on (0.0.0.0: every interface)")->capture_default_str();
    cmd->add_option("--device", r.device, "cpu or cuda:N (default: the first GPU when there is one)");
    cmd->add_option("--threads", o.threads, "HTTP worker threads (each serves one connection at a time)")
        ->capture_default_str()
        ->check(CLI::Range(1, 4096));
    cmd->add_option("--torch-threads", args->torchThreads, "LibTorch intra-op threads (0: every core)")
        ->capture_default_str()
        ->check(CLI::Range(0, 4096));
    cmd->add_option("--max-batch", r.maxBatch, "Dynamic batching: instances per forward pass (0 or 1: off)")
        ->capture_default_str()
        ->check(CLI::Range(0, 4096));
    cmd->add_option("--batch-timeout-ms", r.batchTimeoutMs, "Dynamic batching: how long a batch waits to fill")
        ->capture_default_str()
        ->check(CLI::Range(0, 10000));
    cmd->add_option("--max-queue", r.maxQueue, "Dynamic batching: requests waiting; more get 503 with Retry-After")
        ->capture_default_str()
        ->check(CLI::Range(1, 1000000));
    cmd->add_option("--max-instances", r.maxInstances, "Instances per request")
        ->capture_default_str()
        ->check(CLI::Range(1, 65536));
    cmd->add_option("--max-body-mb", args->maxBodyMb, "Request body limit in MB (larger: 413)")
        ->capture_default_str()
        ->check(CLI::Range(0.001, 4096.0));
    cmd->add_option("--max-image-mpx", args->maxImageMegapixels,
                    "Image limit in megapixels, from the image's header before decoding")
        ->capture_default_str()
        ->check(CLI::Range(0.000001, 178.0));
    cmd->add_option("--poll-seconds", r.pollSeconds, "How often version folders are looked for (0: never)")
        ->capture_default_str()
        ->check(CLI::Range(0.0, 86400.0));
    cmd->add_option("--token-file", o.tokenFile,
                    "File holding a bearer token (16+ characters): every endpoint but /healthz then needs "
                    "\"Authorization: Bearer <token>\"")
        ->check(CLI::ExistingFile);
    cmd->add_flag("!--no-access-log", o.accessLog, "No JSON line per request on stderr");

    cmd->callback([&context, args] {
        args->options.models.clear();
        for (const std::string &m : args->models) {
            engine::serve::ModelSource source = parseModelArg(m);
            for (const auto &other : args->options.models)
                if (other.name == source.name)
                    throw CLI::ValidationError("--model", "the model name \"" + source.name + "\" is given twice");
            args->options.models.push_back(source);
        }
        args->options.maxBodyBytes = std::size_t(args->maxBodyMb * 1e6);
        args->options.registry.maxImagePixels = std::int64_t(args->maxImageMegapixels * 1e6);
        context.action = [args] {
            engine::configureTorchThreads(args->torchThreads);
            return engine::serve::runServer(args->options);
        };
    });
}

} // namespace lathe::cli
