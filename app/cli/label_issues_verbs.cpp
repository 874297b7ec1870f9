#include "label_issues_verbs.h"

#include "engine/inference/label_issues.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdint>
#include <iomanip>
#include <memory>
#include <sstream>

namespace lathe::cli {
namespace {

std::string classNames(const std::vector<std::string> &classes, const std::vector<int> &set)
{
    if (set.empty())
        return "(none)";
    std::string out;
    for (int c : set)
        out += (out.empty() ? "" : ",") + classes[std::size_t(c)];
    return out;
}

// The text table: rank, filename, given, suggested, score; at most top rows (0: all).
std::string table(const std::vector<std::vector<std::string>> &rows, std::size_t total, std::size_t examples,
                  const std::string &rankBy)
{
    std::ostringstream out;
    out << total << " label issue" << (total == 1 ? "" : "s") << " among " << examples << " examples (ranked by "
        << rankBy << ", lowest label quality first)\n";
    if (rows.empty())
        return out.str();
    const std::vector<std::string> header = {"rank", "filename", "given", "suggested", "score"};
    std::vector<std::size_t> width(header.size());
    for (std::size_t c = 0; c < header.size(); ++c) {
        width[c] = header[c].size();
        for (const auto &row : rows)
            width[c] = std::max(width[c], std::min<std::size_t>(row[c].size(), 60));
    }
    const auto line = [&](const std::vector<std::string> &cells) {
        for (std::size_t c = 0; c < cells.size(); ++c) {
            const std::string cell = cells[c].substr(0, 60);
            out << (c ? "  " : "") << (c == 0 || c == 4 ? std::right : std::left) << std::setw(int(width[c])) << cell;
        }
        out << '\n';
    };
    line(header);
    for (const auto &row : rows)
        line(row);
    if (rows.size() < total)
        out << "(" << total - rows.size() << " more: raise --top, or --json for all)\n";
    return out.str();
}

std::string fixed(double v)
{
    std::ostringstream out;
    out << std::fixed << std::setprecision(4) << v;
    return out.str();
}

int runLabelIssues(const CliContext &context, const std::string &dir, const std::string &rankByName, std::size_t top)
{
    const engine::LabelQualityScore rankBy = engine::labelQualityScoreFromName(rankByName);
    const engine::FoldsRun run = engine::readFoldsRun(dir);
    const std::size_t shown = top == 0 ? SIZE_MAX : top;
    nlohmann::json issues = nlohmann::json::array();
    std::vector<std::vector<std::string>> rows;
    nlohmann::json doc = {{"folds_run", dir}, {"task", run.task}, {"rank_by", rankByName},
                          {"classes", run.classes}, {"examples", run.rows.size()}};
    std::size_t total = 0;
    if (run.task == "single_label") {
        const engine::LabelIssueReport r = engine::findLabelIssuesInRun(run, rankBy);
        total = r.issues.size();
        for (const engine::LabelIssue &issue : r.issues) {
            const engine::OutOfFoldRow &row = run.rows[issue.index];
            issues.push_back({{"index", issue.index}, {"filename", row.filename}, {"sha256", row.sha256},
                              {"fold", row.fold}, {"given", issue.givenLabel}, {"suggested", issue.suggestedLabel},
                              {"given_class", run.classes[std::size_t(issue.givenLabel)]},
                              {"suggested_class", run.classes[std::size_t(issue.suggestedLabel)]},
                              {"score", issue.score}});
            if (rows.size() < shown)
                rows.push_back({std::to_string(rows.size() + 1), row.filename,
                                run.classes[std::size_t(issue.givenLabel)],
                                run.classes[std::size_t(issue.suggestedLabel)], fixed(issue.score)});
        }
        doc["confident_joint"] = r.confidentJoint;
        doc["thresholds"] = r.thresholds;
    } else {
        const engine::MultiLabelIssueReport r = engine::findMultiLabelIssuesInRun(run, rankBy);
        total = r.issues.size();
        for (const engine::MultiLabelIssue &issue : r.issues) {
            const engine::OutOfFoldRow &row = run.rows[issue.index];
            issues.push_back({{"index", issue.index}, {"filename", row.filename}, {"sha256", row.sha256},
                              {"fold", row.fold}, {"given", issue.givenLabels}, {"suggested", issue.suggestedLabels},
                              {"flagged", issue.flaggedClasses}, {"score", issue.score}});
            if (rows.size() < shown)
                rows.push_back({std::to_string(rows.size() + 1), row.filename,
                                classNames(run.classes, issue.givenLabels),
                                classNames(run.classes, issue.suggestedLabels), fixed(issue.score)});
        }
        doc["confident_joint"] = r.confidentJoints;
        doc["thresholds"] = r.thresholds;
    }
    doc["count"] = total;
    doc["issues"] = issues;
    context.print(doc, table(rows, total, run.rows.size(), rankByName));
    return 0;
}

} // namespace

void addLabelIssuesVerbs(CLI::App &app, CliContext &context)
{
    struct Args
    {
        std::string dir;
        std::string rankBy = "self_confidence";
        std::size_t top = 20;
    };
    auto args = std::make_shared<Args>();
    CLI::App *cmd = app.add_subcommand(
        "label-issues", "Find probably mislabelled examples by confident learning (cleanlab's find_label_issues) in "
                        "the out-of-fold predictions of lathe-cli train --folds K");
    cmd->add_option("--folds-run", args->dir, "Folder with folds.json and oof_predictions.jsonl")
        ->required()
        ->check(CLI::ExistingDirectory);
    cmd->add_option("--rank-by", args->rankBy, "Label quality score the issues are ranked by")
        ->capture_default_str()
        ->check(CLI::IsMember({"self_confidence", "normalized_margin"}));
    cmd->add_option("--top", args->top, "Issues shown in the table (0: all; --json always lists all)")
        ->capture_default_str();
    cmd->callback([&context, args] {
        context.action = [&context, args] { return runLabelIssues(context, args->dir, args->rankBy, args->top); };
    });
}

} // namespace lathe::cli
