#include "engine/training/process_meeting.h"

#include "engine/base/engine_error.h"
#include "engine/base/file_io.h"
#include "engine/run/checkpoint_io.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

namespace lathe::engine {
namespace {

using json = nlohmann::json;

// Fields that may differ between the processes of one run: where each finds its data, its
// devices and threads, how it was launched.
bool mayDiffer(const std::string &path)
{
    for (const char *local : {"devices", "data.shards", "data.workers", "data.cache_mb", "distributed.nnodes",
                              "distributed.node_rank", "distributed.master", "distributed.timeout_seconds"})
        if (path == local)
            return true;
    return false;
}

void flatten(const json &j, const std::string &prefix, std::map<std::string, json> &out)
{
    if (j.is_object() && !j.empty()) {
        for (auto it = j.begin(); it != j.end(); ++it)
            flatten(it.value(), prefix.empty() ? it.key() : prefix + "." + it.key(), out);
        return;
    }
    out[prefix] = j;
}

// The first field (in path order) whose value differs, "" when none.
std::string firstDifference(const json &mine, const json &leaders)
{
    std::map<std::string, json> a;
    std::map<std::string, json> b;
    flatten(mine, "", a);
    flatten(leaders, "", b);
    for (const auto &entry : b) {
        if (mayDiffer(entry.first))
            continue;
        const auto it = a.find(entry.first);
        const json mineValue = it == a.end() ? json() : it->second;
        if (mineValue != entry.second)
            return entry.first + " is " + mineValue.dump() + " here but " + entry.second.dump() + " on rank 0";
    }
    for (const auto &entry : a)
        if (!mayDiffer(entry.first) && !b.count(entry.first))
            return entry.first + " is " + entry.second.dump() + " here but not set on rank 0";
    return {};
}

json shardChecksums(const DatasetManifest &m)
{
    json shards = json::array();
    for (const ShardInfo &s : m.shards)
        shards.push_back({{"file", s.file}, {"sha256", s.sha256}});
    return shards;
}

std::string compareShards(const json &mine, const json &leaders, const std::string &dataDir)
{
    std::map<std::string, std::string> own;
    for (const json &s : mine)
        own[s.at("file").get<std::string>()] = s.at("sha256").get<std::string>();
    for (const json &s : leaders) {
        const std::string file = s.at("file").get<std::string>();
        const auto it = own.find(file);
        if (it == own.end())
            return "shard " + file + " of rank 0's dataset is not in " + dataDir + "/dataset.json";
        if (it->second != s.at("sha256").get<std::string>())
            return "shard " + file + " differs from rank 0's (SHA-256 " + it->second.substr(0, 12) + "… here, " +
                   s.at("sha256").get<std::string>().substr(0, 12) + "… on rank 0): every machine needs the same "
                                                                         "converted dataset";
        own.erase(it);
    }
    if (!own.empty())
        return "shard " + own.begin()->first + " of " + dataDir + " is not in rank 0's dataset";
    return {};
}

std::string readBytes(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw EngineError(path + ": cannot be read to send it to the other processes: " + errnoText());
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
}

// Rank 0: the checkpoint it resumes from, file by file.
json publishCheckpoint(RankRendezvous &r, const CheckpointData &ckpt)
{
    const fs::path folder = fs::path(ckpt.sidecarPath).parent_path();
    json files = json::array({fs::path(ckpt.sidecarPath).filename().string()});
    for (const char *kind : {"model", "state"})
        if (ckpt.meta.contains("files") && ckpt.meta["files"].contains(kind))
            files.push_back(ckpt.meta["files"][kind]["name"].get<std::string>());
    for (const json &name : files)
        r.set("leader/file/" + name.get<std::string>(), readBytes((folder / name.get<std::string>()).string()));
    return files;
}

// A follower: rank 0's checkpoint, written to a private folder, loaded with its checksums
// verified, and the folder removed.
CheckpointData fetchCheckpoint(RankRendezvous &r, const json &files, int processIndex)
{
    const fs::path folder =
        fs::temp_directory_path() / ("lathe-resume-" + std::to_string(::getpid()) + "-" + std::to_string(processIndex));
    fs::create_directories(folder);
    try {
        for (const json &name : files)
            writeFileAtomically((folder / name.get<std::string>()).string(), r.get("leader/file/" + name.get<std::string>()));
        CheckpointData data = loadCheckpoint((folder / files.at(0).get<std::string>()).string(), /*verify=*/true);
        std::error_code ec;
        fs::remove_all(folder, ec);
        return data;
    } catch (...) {
        std::error_code ec;
        fs::remove_all(folder, ec);
        throw;
    }
}

std::string verdictKey(int processIndex)
{
    return "verdict/" + std::to_string(processIndex);
}

} // namespace

void connectProcesses(RunSetup &s)
{
    if (s.rendezvous || !s.launch.multiProcess())
        return;
    s.rendezvous = RankRendezvous::tcp(s.launch);
}

json leaderConfig(RunSetup &s)
{
    connectProcesses(s);
    const std::string text = s.rendezvous->get("leader/config");
    return json::parse(text);
}

void meetProcesses(RunSetup &s, bool resuming)
{
    if (!s.launch.multiProcess())
        return;
    connectProcesses(s);
    RankRendezvous &r = *s.rendezvous;
    const int me = s.launch.processIndex;
    if (me == 0) {
        r.set("leader/config", runConfigToJson(s.config).dump());
        r.set("leader/shards", shardChecksums(s.manifest).dump());
        r.set("leader/resume", resuming && s.resumeFrom ? publishCheckpoint(r, *s.resumeFrom).dump()
                                                        : json(resuming ? "none" : "no").dump());
        for (int p = 1; p < s.launch.processes; ++p) {
            const std::string verdict = r.get(verdictKey(p));
            if (!verdict.empty())
                throw EngineError("distributed: process " + std::to_string(p) + " refused to join: " + verdict);
        }
        return;
    }
    std::string verdict;
    try {
        const json leaderResume = json::parse(r.get("leader/resume"));
        const bool leaderResumes = !(leaderResume.is_string() && leaderResume.get<std::string>() == "no");
        if (leaderResumes != resuming) {
            verdict = resuming ? "this process resumes (--resume) but rank 0's process starts a new run"
                               : "rank 0's process resumes the run (--resume) but this one starts a new run";
        } else {
            verdict = resuming ? std::string() : firstDifference(runConfigToJson(s.config), json::parse(r.get("leader/config")));
            if (!verdict.empty())
                verdict = "the run config differs: " + verdict;
        }
        if (verdict.empty())
            verdict = compareShards(shardChecksums(s.manifest), json::parse(r.get("leader/shards")), s.config.data.shards);
        if (verdict.empty() && leaderResume.is_array())
            s.resumeFrom = fetchCheckpoint(r, leaderResume, me);
    } catch (const std::exception &e) {
        verdict = e.what();
    }
    r.set(verdictKey(me), verdict);
    if (!verdict.empty())
        throw EngineError("distributed: " + s.launch.describe() + ": " + verdict);
}

void announceStart(RunSetup &s)
{
    if (s.launch.multiProcess() && s.launch.processIndex == 0)
        s.rendezvous->set("start", "");
}

void awaitStart(RunSetup &s)
{
    if (s.launch.multiProcess() && s.launch.processIndex != 0)
        s.rendezvous->get("start");
}

void reportStartFailure(RunSetup &s, const std::string &reason)
{
    if (!s.launch.multiProcess())
        return;
    try {
        if (!s.rendezvous) {
            // Not connected yet: a follower tries briefly (rank 0's process may be gone too).
            DistributedLaunch brief = s.launch;
            brief.timeoutSeconds = std::min(brief.timeoutSeconds, 5);
            s.rendezvous = RankRendezvous::tcp(brief);
        }
        if (s.launch.processIndex == 0)
            s.rendezvous->abort(reason);
        else
            s.rendezvous->set(verdictKey(s.launch.processIndex), reason);
    } catch (const std::exception &) {
        // Nobody to tell: the others find out through their own timeout.
    }
}

} // namespace lathe::engine
