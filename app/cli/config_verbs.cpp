#include "config_verbs.h"

#include "engine/base/engine_error.h"
#include "engine/run/run_config.h"

#include <CLI/CLI.hpp>

#include <iostream>
#include <memory>
#include <string>
#include <vector>

namespace lathe::cli {

void addConfigVerbs(CLI::App &app, CliContext &context)
{
    CLI::App *config = app.add_subcommand("config", "Run configs: the reference of every field, the defaults, and checking a file");
    config->require_subcommand(1);

    CLI::App *schema = config->add_subcommand(
        "schema", "Print the reference of every run-config field as Markdown (docs/run-config.md), or with --json the "
                  "schema: field, type, default, allowed values, range, description");
    schema->callback([&context] {
        context.action = [&context] {
            context.print(engine::runConfigSchema(), engine::runConfigReference());
            return 0;
        };
    });

    CLI::App *defaults = config->add_subcommand(
        "defaults", "Print a complete run config with every default (data.shards, which a run needs, is empty)");
    defaults->callback([&context] {
        context.action = [] {
            std::cout << engine::runConfigToJson(engine::RunConfig{}).dump(2) << '\n';
            return 0;
        };
    });

    auto file = std::make_shared<std::string>();
    auto assignments = std::make_shared<std::vector<std::string>>();
    CLI::App *check = config->add_subcommand(
        "check", "Check a run config file, every field and the rules across fields, and print the effective config "
                 "(exit 2 and the error naming the field when it is invalid)");
    check->add_option("FILE", *file, "The run config (JSON)")->required();
    check->add_option("--set", *assignments,
                      "Override a field on top of the file, PATH=VALUE (e.g. optimizer.lr=0.1, devices=cuda:0,cuda:1); "
                      "repeatable, as `train` takes it");
    check->callback([&context, file, assignments] {
        context.action = [&context, file, assignments] {
            try {
                engine::RunConfig config = engine::readRunConfig(*file);
                try {
                    if (!assignments->empty())
                        config = engine::applyRunConfigOverrides(config, engine::runConfigOverrides(*assignments));
                    engine::validateRunConfig(config);
                } catch (const engine::EngineError &e) {
                    // Name the file here too; with --set the field may come from the command line.
                    throw engine::EngineError(*file + (assignments->empty() ? ": " : " with --set: ") + e.what());
                }
                const nlohmann::json effective = engine::runConfigToJson(config);
                context.print({{"file", *file}, {"valid", true}, {"config", effective}}, effective.dump(2) + "\n");
                return 0;
            } catch (const engine::EngineError &e) {
                // An unreadable file is an invalid config too: the caller needs only one exit code.
                if (context.json)
                    context.print({{"file", *file}, {"valid", false}, {"error", e.what()}}, {});
                else
                    std::cerr << "lathe-cli: invalid run config: " << e.what() << '\n';
                return 2;
            }
        };
    });
}

} // namespace lathe::cli
