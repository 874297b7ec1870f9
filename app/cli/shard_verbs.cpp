#include "shard_verbs.h"

#include "engine/dataset/shard_converter.h"
#include "scan_verbs.h"

#include <CLI/CLI.hpp>

#include <iomanip>
#include <memory>
#include <sstream>

namespace lathe::cli {
namespace {

// The convert options shared by `convert` and `bench convert`.
void addConvertOptions(CLI::App *cmd, engine::ConvertOptions &options, double &shardMb)
{
    addScanOptions(cmd, options.scan);
    cmd->add_option("OUT_DIR", options.outDir, "New or empty folder for the shards")->required();
    cmd->add_option("--shard-size-mb", shardMb, "Target shard size in MiB")->capture_default_str()->check(
        CLI::PositiveNumber);
    cmd->add_option("--shard-records", options.shardRecords, "Records per shard (instead of a size)");
    cmd->add_option("--max-side", options.maxSide, "Re-encode images larger than this as JPEG (0: store as is)")
        ->capture_default_str()
        ->check(CLI::NonNegativeNumber);
    cmd->add_option("--quality", options.quality, "JPEG quality of re-encoded images")
        ->capture_default_str()
        ->check(CLI::Range(1, 100));
    cmd->add_option("--shuffle-seed", options.shuffleSeed, "Seed of the record order in the shards")
        ->capture_default_str();
}

nlohmann::json manifestJson(const std::string &outDir, const engine::DatasetManifest &m)
{
    nlohmann::json shards = nlohmann::json::array();
    std::uint64_t bytes = 0;
    for (const engine::ShardInfo &s : m.shards) {
        shards.push_back({{"file", s.file}, {"split", s.split}, {"records", s.records}, {"bytes", s.bytes},
                          {"sha256", s.sha256}});
        bytes += s.bytes;
    }
    nlohmann::json rejected = nlohmann::json::array();
    for (const engine::RejectedFile &r : m.rejected)
        rejected.push_back({{"path", r.path}, {"status", r.status}, {"reason", r.reason}});
    return {{"out_dir", outDir}, {"task", m.task},           {"classes", m.classes}, {"counts", m.counts},
            {"records", m.records}, {"bytes", bytes},        {"reencoded", m.reencoded}, {"shards", shards},
            {"rejected", rejected}};
}

// A multi-label dataset's records per label and split: unlike a single-label dataset's classes,
// its labels' counts do not add up to the records, so they are worth showing.
std::string multiLabelCounts(const nlohmann::json &doc)
{
    std::ostringstream out;
    out << "Multi-label: records per label (a record counts once for each of its labels)\n  " << std::left
        << std::setw(28) << "label" << std::right;
    for (const char *split : {"train", "val", "test"})
        out << std::setw(8) << split;
    out << '\n';
    const nlohmann::json &counts = doc["counts"];
    for (const auto &label : doc["classes"]) {
        const std::string name = label.get<std::string>();
        out << "  " << std::left << std::setw(28) << name << std::right;
        for (const char *split : {"train", "val", "test"})
            out << std::setw(8)
                << (counts.contains(split) && counts[split].contains(name) ? counts[split][name].get<std::uint64_t>()
                                                                           : 0);
        out << '\n';
    }
    return out.str();
}

std::string manifestText(const nlohmann::json &doc)
{
    std::ostringstream out;
    out << "Wrote " << doc["records"].get<std::uint64_t>() << " records in " << doc["shards"].size() << " shards ("
        << doc["bytes"].get<std::uint64_t>() << " bytes) to " << doc["out_dir"].get<std::string>() << '\n';
    for (const auto &s : doc["shards"])
        out << "  " << s["file"].get<std::string>() << "  " << s["records"].get<std::uint64_t>() << " records, "
            << s["bytes"].get<std::uint64_t>() << " bytes\n";
    if (doc["task"] == engine::kTaskMultiLabel)
        out << multiLabelCounts(doc);
    if (!doc["rejected"].empty()) {
        out << "Left out:\n";
        for (const auto &r : doc["rejected"])
            out << "  " << r["path"].get<std::string>() << ": " << r["reason"].get<std::string>() << '\n';
    }
    return out.str();
}

} // namespace

void addShardVerbs(CLI::App &app, CliContext &context)
{
    auto options = std::make_shared<engine::ConvertOptions>();
    auto shardMb = std::make_shared<double>(64.0);
    CLI::App *convert = app.add_subcommand(
        "convert", "Scan IMAGE_DIR and write its usable images as TFRecord shards (tf.train.Example, TF-slim keys) "
                   "with .idx files and dataset.json");
    addConvertOptions(convert, *options, *shardMb);
    convert->callback([&context, options, shardMb] {
        context.action = [&context, options, shardMb] {
            options->shardBytes = static_cast<std::uint64_t>(*shardMb * 1024 * 1024);
            const engine::ConvertResult r = engine::convertFolder(*options);
            const nlohmann::json doc = manifestJson(r.outDir, r.manifest);
            context.print(doc, manifestText(doc));
            return 0;
        };
    });

    auto dir = std::make_shared<std::string>();
    CLI::App *verify = app.add_subcommand(
        "verify", "Check a converted dataset: sizes, SHA-256, every record's CRCs, the .idx files, labels and counts "
                  "(exit 1 and every problem named on corruption)");
    verify->add_option("DATASET_DIR", *dir, "Folder with dataset.json")->required();
    verify->callback([&context, dir] {
        context.action = [&context, dir] {
            const engine::VerifyReport r = engine::verifyDataset(*dir);
            const std::string task = engine::readDatasetManifest(*dir).task; // verify has read it already
            const nlohmann::json doc = {{"dataset", *dir},      {"task", task},      {"ok", r.ok()},
                                        {"shards", r.shards},   {"records", r.records}, {"bytes", r.bytes},
                                        {"problems", r.problems}};
            std::ostringstream text;
            text << *dir << ": " << (task == engine::kTaskMultiLabel ? "multi-label, " : "") << r.shards << " shards, "
                 << r.records << " records, " << r.bytes << " bytes: "
                 << (r.ok() ? "OK" : std::to_string(r.problems.size()) + " problem(s)") << '\n';
            for (const std::string &p : r.problems)
                text << "  " << p << '\n';
            context.print(doc, text.str());
            return r.ok() ? 0 : 1;
        };
    });
}

} // namespace lathe::cli
