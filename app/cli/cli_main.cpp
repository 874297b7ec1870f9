// lathe-cli: the headless face of Lathe. Errors go to stderr with a non-zero exit; with
// --json, results are one JSON document on stdout.
#include "engine/base/cpu_block_cache.h"
#include "cli_context.h"
#include "engine_verbs.h"

#ifdef LATHE_HAVE_WORKSPACE
#include "workspace_verbs.h"
#include <QCoreApplication>
#endif

#include <CLI/CLI.hpp>

#include <exception>
#include <iostream>

int main(int argc, char **argv)
{
    // Before any tensor: large CPU blocks are reused instead of mapped again (base/cpu_block_cache.h).
    lathe::engine::installCpuBlockCache(lathe::engine::defaultCpuBlockCacheBytes());
#ifdef LATHE_HAVE_WORKSPACE
    // Qt SQL finds its SQLite driver through the application object.
    QCoreApplication qtApp(argc, argv);
    QCoreApplication::setOrganizationName(QStringLiteral("Lathe"));
    QCoreApplication::setApplicationName(QStringLiteral("lathe"));
#endif
    lathe::cli::CliContext context;
    CLI::App app{"Lathe: train image classifiers from the command line", "lathe-cli"};
    app.set_version_flag("--version", std::string("lathe-cli ") + LATHE_VERSION);
    app.add_flag("--json", context.json, "Print results as JSON on stdout");
    app.require_subcommand(1);
    app.fallthrough();
    lathe::cli::addEngineVerbs(app, context);
#ifdef LATHE_HAVE_WORKSPACE
    lathe::cli::addWorkspaceVerbs(app, context);
#endif

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError &e) {
        return app.exit(e);
    }
    try {
        return context.action ? context.action() : 0;
    } catch (const std::exception &e) {
        std::cerr << "lathe-cli: error: " << e.what() << '\n';
        return 1;
    }
}
