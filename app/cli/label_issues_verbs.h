#pragma once

#include "cli_context.h"

#include <CLI/App.hpp>

namespace lathe::cli {

// `label-issues --folds-run DIR`: confident learning (cleanlab's find_label_issues) on the
// out-of-fold predictions of `lathe-cli train --folds K`, the examples whose label is probably
// wrong, most suspicious first.
void addLabelIssuesVerbs(CLI::App &app, CliContext &context);

} // namespace lathe::cli
