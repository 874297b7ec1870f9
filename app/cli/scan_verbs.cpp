#include "scan_verbs.h"

#include "engine/dataset/folder_scan.h"

#include <CLI/CLI.hpp>

#include <iomanip>
#include <map>
#include <memory>
#include <sstream>

namespace lathe::cli {
namespace {

} // namespace

void addScanOptions(CLI::App *cmd, engine::ScanOptions &options)
{
    cmd->add_option("IMAGE_DIR", options.root,
                    "Folder with one sub-folder per class (optionally under train/val/test); with --labels, the "
                    "folder the labels file's paths are relative to")
        ->required();
    cmd->add_option("--max-pixels", options.maxPixels, "Refuse images with more pixels than this")->capture_default_str();
    cmd->add_option("--val,--val-fraction", options.valFraction, "Validation fraction when the folder has no splits")->capture_default_str();
    cmd->add_option("--test,--test-fraction", options.testFraction, "Test fraction when the folder has no splits")->capture_default_str();
    cmd->add_option("--seed", options.seed, "Seed of the split assignment")->capture_default_str();
    cmd->add_option("--threads", options.threads, "Worker threads (0: all cores)")->capture_default_str();
    cmd->add_option("--labels", options.labelsFile,
                    "Multi-label: a labels file (CSV path,labels or JSON lines) listing the images of IMAGE_DIR "
                    "and their labels, instead of class folders");
}

namespace {

nlohmann::json scanJson(const engine::ScanResult &r)
{
    // class -> split -> usable images (multi-label: the images that carry the label)
    std::map<std::string, std::map<std::string, int>> counts;
    for (const std::string &cls : r.classes)
        counts[cls] = {{"train", 0}, {"val", 0}, {"test", 0}};
    nlohmann::json rejected = nlohmann::json::array();
    for (const engine::ScannedImage &i : r.images) {
        if (i.status == engine::ImageStatus::Ok && r.multiLabel)
            for (const std::string &label : i.labels)
                ++counts[label][i.split];
        else if (i.status == engine::ImageStatus::Ok)
            ++counts[i.className][i.split];
        else
            rejected.push_back({{"path", i.relPath}, {"status", engine::statusName(i.status)}, {"reason", i.reason}});
    }
    nlohmann::json nearDuplicates = nlohmann::json::array();
    for (const auto &group : r.nearDuplicates) {
        nlohmann::json paths = nlohmann::json::array();
        for (int i : group)
            paths.push_back(r.images[i].relPath);
        nearDuplicates.push_back(paths);
    }
    return {{"root", r.root},
            {"task", r.multiLabel ? "multi_label" : "single_label"},
            {"folder_splits", r.folderSplits},
            {"files", r.images.size()},
            {"ok", r.count(engine::ImageStatus::Ok)},
            {"rejected_count", r.count(engine::ImageStatus::Rejected)},
            {"duplicate_count", r.count(engine::ImageStatus::Duplicate)},
            {"classes", counts},
            {"rejected", rejected},
            {"near_duplicates", nearDuplicates}};
}

std::string scanText(const nlohmann::json &doc)
{
    std::ostringstream out;
    out << doc["root"].get<std::string>() << ": " << doc["files"].get<std::size_t>() << " files, "
        << doc["ok"].get<int>() << " usable, " << doc["rejected_count"].get<int>() << " rejected, "
        << doc["duplicate_count"].get<int>() << " duplicates"
        << (doc["folder_splits"].get<bool>() ? " (splits from folders)" : " (splits assigned by hash)") << "\n";
    const bool multiLabel = doc["task"] == "multi_label";
    if (multiLabel)
        out << "Multi-label: " << doc["classes"].size() << " labels; an image counts once for each of its labels\n";
    out << '\n' << std::left << std::setw(28) << (multiLabel ? "label" : "class") << std::right << std::setw(8) << "train" << std::setw(8) << "val"
        << std::setw(8) << "test" << '\n';
    for (const auto &[cls, splits] : doc["classes"].items())
        out << std::left << std::setw(28) << cls << std::right << std::setw(8) << splits["train"].get<int>()
            << std::setw(8) << splits["val"].get<int>() << std::setw(8) << splits["test"].get<int>() << '\n';
    if (!doc["rejected"].empty()) {
        out << "\nRejected and duplicate files:\n";
        for (const auto &r : doc["rejected"])
            out << "  " << r["path"].get<std::string>() << ": " << r["reason"].get<std::string>() << '\n';
    }
    if (!doc["near_duplicates"].empty())
        out << '\n' << doc["near_duplicates"].size() << " groups of near-duplicate images (kept; see --json)\n";
    return out.str();
}

} // namespace

void addScanVerb(CLI::App &app, CliContext &context)
{
    auto options = std::make_shared<engine::ScanOptions>();
    CLI::App *scan = app.add_subcommand("scan", "Validate an image folder: class counts and rejected files with reasons "
                                                "(exit 0 even when files were rejected)");
    addScanOptions(scan, *options);
    scan->callback([&context, options] {
        context.action = [&context, options] {
            const nlohmann::json doc = scanJson(engine::scanFolder(*options));
            context.print(doc, scanText(doc));
            return 0;
        };
    });
}

} // namespace lathe::cli
