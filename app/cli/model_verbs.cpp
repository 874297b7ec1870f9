#include "model_verbs.h"

#include "engine/base/runtime_info.h"
#include "engine/models/model_tools.h"

#include <CLI/CLI.hpp>

#include <iomanip>
#include <memory>
#include <sstream>

namespace lathe::cli {
namespace {

std::string shapeText(const nlohmann::json &shape)
{
    std::string out = "[";
    for (std::size_t i = 0; i < shape.size(); ++i)
        out += (i ? ", " : "") + std::to_string(shape[i].get<std::int64_t>());
    return out + "]";
}

void addModels(CLI::App &app, CliContext &context)
{
    CLI::App *cmd = app.add_subcommand("models", "List the built-in backbones: input size, parameters, GFLOPs, stages");
    cmd->callback([&context] {
        context.action = [&context] {
            const nlohmann::json doc = engine::modelsJson();
            std::ostringstream text;
            text << std::left << std::setw(20) << "NAME" << std::setw(14) << "FAMILY" << std::right << std::setw(6)
                 << "INPUT" << std::setw(13) << "PARAMETERS" << std::setw(8) << "GFLOPS" << "  STAGES\n";
            for (const auto &m : doc) {
                std::string stages;
                for (const auto &s : m["stages"])
                    stages += (stages.empty() ? "" : " ") + s["name"].get<std::string>();
                text << std::left << std::setw(20) << m["name"].get<std::string>() << std::setw(14)
                     << m["family"].get<std::string>() << std::right << std::setw(6) << m["input_size"].get<int>()
                     << std::setw(13) << m["parameters"].get<std::int64_t>() << std::setw(8) << std::fixed
                     << std::setprecision(2) << m["gflops"].get<double>() << "  " << stages << '\n';
            }
            context.print(doc, text.str());
            return 0;
        };
    });
}

void addForward(CLI::App &app, CliContext &context)
{
    auto options = std::make_shared<engine::ForwardOptions>();
    CLI::App *cmd = app.add_subcommand(
        "forward", "Run tensor 'input' of a safetensors file through a backbone in eval mode and write tensor "
                   "'output' (weights: safetensors or torch.save .pth with torchvision's names)");
    cmd->add_option("--arch", options->arch, "Backbone name (see `lathe-cli models`)")->required();
    cmd->add_option("--weights", options->weightsPath, "Weights file (.safetensors or torch.save .pth); none: random")
        ->check(CLI::ExistingFile);
    cmd->add_option("--num-classes", options->numClasses,
                    "Classes of the head (default: as the weights say, 1000 without weights)")
        ->check(CLI::Range(1, 1000000));
    cmd->add_option("--in-channels", options->inChannels, "Input channels (the stem is adapted when not 3)")
        ->capture_default_str()
        ->check(CLI::Range(1, 64));
    cmd->add_option("--input", options->inputPath, "safetensors file with tensor 'input' [N, C, H, W]")
        ->required()
        ->check(CLI::ExistingFile);
    cmd->add_option("--output", options->outputPath, "safetensors file to write with tensor 'output'")->required();
    cmd->add_option("--save-weights", options->saveWeightsPath,
                    "Also write the model's weights (safetensors, torchvision names)");
    cmd->callback([&context, options] {
        context.action = [&context, options] {
            engine::configureTorchThreads();
            const nlohmann::json doc = engine::runForward(*options);
            std::ostringstream text;
            text << doc["arch"].get<std::string>() << ": " << shapeText(doc["input_shape"]) << " -> "
                 << shapeText(doc["output_shape"]) << ", written to " << doc["output"].get<std::string>() << '\n';
            if (!doc["load"].is_null())
                text << doc["load"]["text"].get<std::string>();
            else
                text << "Random initialisation (no weights given).\n";
            if (!doc["saved_weights"].is_null())
                text << "Weights saved to " << doc["saved_weights"].get<std::string>() << '\n';
            context.print(doc, text.str());
            return 0;
        };
    });
}

} // namespace

void addModelVerbs(CLI::App &app, CliContext &context)
{
    addModels(app, context);
    addForward(app, context);
}

} // namespace lathe::cli
