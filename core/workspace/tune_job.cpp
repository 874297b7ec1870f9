#include "workspace/tune_job.h"

#include "engine/run/run_config.h"
#include "engine/run/run_events.h"
#include "engine/tune/search_space.h"
#include "engine/tune/study_runner.h"

#include <QFileInfo>
#include <QMutexLocker>

#include <algorithm>
#include <memory>

namespace lathe::workspace {
namespace {

using json = nlohmann::json;

std::unique_ptr<engine::Study> openOrCreate(const TuneJob::Params &p)
{
    const std::string folder = p.studyDir.toStdString();
    if (p.resume)
        return engine::Study::open(folder);
    const engine::SearchSpace space = engine::parseSearchSpace(p.space);
    engine::StrategyConfig strategy = engine::strategyFromName(p.strategy.toStdString());
    strategy.seed = p.seed;
    strategy.samplerOptions = p.samplerOptions;
    // The base config as a run would take it: checked, with every default written out.
    const engine::RunConfig base = engine::parseRunConfig(p.baseConfig);
    return engine::createStudy(folder, engine::runConfigToJson(base), space, strategy);
}

} // namespace

TuneJob::TuneJob(Params params, QObject *parent)
    : Job(params.resume ? tr("Continuing study %1").arg(QFileInfo(params.studyDir).fileName())
                        : tr("Study %1").arg(QFileInfo(params.studyDir).fileName()),
          parent)
    , m_params(std::move(params))
{
    qRegisterMetaType<TuneResult>();
    m_sinceAnnounce.start();
}

engine::StudyState TuneJob::snapshot() const
{
    QMutexLocker lock(&m_mutex);
    return m_state;
}

QHash<int, TrialProgress> TuneJob::runningProgress() const
{
    QMutexLocker lock(&m_mutex);
    return m_progress;
}

QString TuneJob::lastLog() const
{
    QMutexLocker lock(&m_mutex);
    return m_log;
}

void TuneJob::pause()
{
    if (m_pause.set(true))
        Q_EMIT pausedChanged(true);
}

void TuneJob::resumeStudy()
{
    if (m_pause.set(false))
        Q_EMIT pausedChanged(false);
}

bool TuneJob::isPaused() const
{
    return m_pause.isPaused();
}

void TuneJob::onStudyEvent(const engine::Study &study, const json &event)
{
    namespace key = engine::event_key;
    const std::string type = event.value("type", std::string());
    const int trial = event.value("trial", -1);
    bool announce = true;
    {
        QMutexLocker lock(&m_mutex);
        if (type == "trial_event") {
            // The trial's own run: steps move its progress; the rest is in study.json already.
            const json &run = event["event"];
            const std::string runType = run.value(key::kType, std::string());
            if (runType != engine::event_type::kStep)
                return;
            TrialProgress &p = m_progress[trial];
            p.epoch = run.value(key::kEpoch, 0) + 1;
            p.step = run.value(key::kStep, qint64(0));
            p.totalSteps = run.value(key::kTotalSteps, qint64(0));
            p.loss = run.value(key::kLoss, 0.0);
            const qint64 now = m_sinceAnnounce.elapsed();
            announce = now - m_lastAnnounceMs >= kProgressIntervalMs;
        } else {
            if (type == "trial_started")
                m_progress.insert(trial, TrialProgress{});
            else if (type == "trial_ended")
                m_progress.remove(trial);
            else if (type == "study_log")
                m_log = QString::fromStdString(event.value("message", std::string()));
            m_state = study.state();
        }
        if (announce)
            m_lastAnnounceMs = m_sinceAnnounce.elapsed();
    }
    if (type == "trial_ended" || type == "trial_started") {
        const engine::StudyState state = snapshot();
        int ended = 0;
        for (const engine::Trial &t : state.trials)
            ended += t.state != engine::TrialState::Running;
        const int budget = state.space.budget.trials;
        reportProgress(budget > 0 ? double(ended) / budget : 0.0,
                       budget > 0 ? tr("%1 of %2 trials ended").arg(ended).arg(budget)
                                  : tr("%n trial(s) ended", nullptr, ended));
    }
    if (announce)
        Q_EMIT studyChanged();
}

QVariant TuneJob::execute()
{
    reportProgress(0, tr("Opening the study…"));
    std::unique_ptr<engine::Study> study = openOrCreate(m_params);
    {
        QMutexLocker lock(&m_mutex);
        m_state = study->state();
    }
    Q_EMIT studyChanged();

    engine::StudyRunOptions options;
    options.parallel = std::max(1, m_params.parallel);
    options.cancel = taskControl().cancel;
    options.pause = m_pause.token();
    const engine::Study &s = *study;
    options.onEvent = [this, &s](const json &event) { onStudyEvent(s, event); };
    const json ended = engine::runStudy(*study, options);
    {
        QMutexLocker lock(&m_mutex);
        m_state = study->state();
        m_progress.clear();
    }
    Q_EMIT studyChanged();
    checkCancel(); // a stopped study ends with cancelled(), as other jobs do

    TuneResult result;
    result.studyDir = m_params.studyDir;
    result.status = QString::fromStdString(ended.value("status", std::string()));
    result.trials = ended.value("trials", 0);
    if (ended.contains("best_trial") && ended["best_trial"].is_number())
        result.bestTrial = ended["best_trial"].get<int>();
    if (ended.contains("best_value") && ended["best_value"].is_number())
        result.bestValue = ended["best_value"].get<double>();
    reportProgress(1.0);
    return QVariant::fromValue(result);
}

} // namespace lathe::workspace
