#pragma once

#include <CLI/App.hpp>

namespace lathe::cli {

// `bench …`: benchmarks that print JSON, each with a peer measured in the same run.
void addBenchVerbs(CLI::App &app);

} // namespace lathe::cli
