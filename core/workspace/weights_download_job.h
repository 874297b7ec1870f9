#pragma once

#include "engine/models/model_zoo.h"
#include "workspace/job.h"

#include <QMetaType>
#include <QString>

#include <vector>

namespace lathe::workspace {

// Where downloaded and imported weights live unless the caller says otherwise:
// QStandardPaths::CacheLocation + "/weights".
QString defaultWeightsCacheDir();

// A verified weights file in the cache: what WeightsDownloadJob and WeightsImportJob return
// (Job::result().value<CachedWeights>()).
struct CachedWeights
{
    QString path;           // <cacheDir>/<catalog file name>
    QString sha256;         // the whole file's, lower-case hex
    qint64 bytes = 0;
    engine::ZooWeights weights;
    bool downloaded = false; // false: it was already in the cache, or was imported
    qint64 resumedFrom = 0;  // bytes a previous, interrupted download had left
};

// Copies a user's weights file into the cache under its catalog file name, hashing it on the
// way; the copy is kept only when its SHA-256 starts with a catalog entry's prefix
// (torch.hub's check), otherwise it is deleted and WorkspaceError says the file matches no
// catalog entry. Written to a temporary name, fsynced, then renamed. Throws WorkspaceError,
// EngineError (unreadable file) or engine::Cancelled.
CachedWeights importWeightsFile(const QString &path, const std::vector<engine::ZooWeights> &zoo,
                                const QString &cacheDir, const engine::TaskControl &control = {});

// Downloads one catalog weights file into the cache folder on the job's worker thread (its own
// event loop there; the GUI thread never waits). The bytes go to "<file>.part"; a .part left by
// an interrupted or cancelled download is continued with an HTTP Range request (a server that
// answers 200 instead of 206 sends the whole file, which then starts over). At the end the
// SHA-256 must start with the catalog's prefix, or the .part is deleted and the job fails
// naming the file and both prefixes; a good file is fsynced and renamed into place. A file
// already in the cache that verifies ends the job at once, without a request.
// Result: CachedWeights.
class WeightsDownloadJob : public Job
{
    Q_OBJECT

public:
    struct Params
    {
        engine::ZooWeights weights;
        QString cacheDir;            // empty: defaultWeightsCacheDir()
        int stallTimeoutMs = 60'000; // a transfer that receives nothing for this long fails
    };

    explicit WeightsDownloadJob(Params params, QObject *parent = nullptr);

    const Params &params() const { return m_params; }
    QString targetPath() const; // <cacheDir>/<file>
    QString partPath() const;   // <cacheDir>/<file>.part

protected:
    QVariant execute() override;

private:
    enum class Attempt { Done, StartOver };
    Attempt transfer(CachedWeights &out);

    const Params m_params;
    const QString m_cacheDir;
};

// importWeightsFile() on a worker thread. Result: CachedWeights.
class WeightsImportJob : public Job
{
    Q_OBJECT

public:
    struct Params
    {
        QString sourcePath;
        std::vector<engine::ZooWeights> zoo;
        QString cacheDir; // empty: defaultWeightsCacheDir()
    };

    explicit WeightsImportJob(Params params, QObject *parent = nullptr);

protected:
    QVariant execute() override;

private:
    const Params m_params;
};

} // namespace lathe::workspace

Q_DECLARE_METATYPE(lathe::workspace::CachedWeights)
