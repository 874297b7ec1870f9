// Lathe's TPE against Optuna's (tests/parity/optuna_tpe.py, the venv's optuna): the Parzen
// estimator point by point, and the whole sampler on the same objectives, ranges, trial budgets
// and 30 seeds, where Lathe's median best value must not be worse than Optuna's by more than a
// small tolerance.
#include "engine/tune/parzen_estimator.h"
#include "engine/tune/tpe_sampler.h"

#include "python_peer.h"
#include "synthetic_objectives.h"

#include <gtest/gtest.h>

#include <cstdio>

using namespace lathe;
using json = nlohmann::json;

// The same observations give the same density as Optuna's _ParzenEstimator (kernel widths, magic
// clip, the prior, the weight ramp past 25 observations, integer bins, categorical kernels).
TEST(TpeParity, ParzenEstimatorMatchesOptunas)
{
    int status = -1;
    const std::string out = test::runCommand(
        "'" + test::python() + "' '" + test::parityScript("optuna_tpe.py").string() + "' parzen", &status);
    ASSERT_EQ(status, 0) << out;
    const json cases = json::parse(out)["cases"];
    ASSERT_EQ(cases.size(), 16u);
    for (const json &c : cases) {
        engine::ParamSpec p;
        p.name = "x";
        const std::string type = c["type"];
        if (type == "choice") {
            p.type = engine::ParamType::Choice;
            p.values = c["choices"].get<std::vector<json>>();
        } else {
            p.type = type == "uniform" ? engine::ParamType::Uniform
                     : type == "log_uniform" ? engine::ParamType::LogUniform
                                             : engine::ParamType::IntUniform;
            p.low = c["low"];
            p.high = c["high"];
            p.log = c["log"];
        }
        const std::vector<double> observations = c["observations"];
        const engine::ParzenEstimator estimator(p, observations, 1.0);
        const std::vector<double> points = c["points"], expected = c["log_pdf"];
        for (std::size_t i = 0; i < points.size(); ++i)
            EXPECT_NEAR(estimator.logPdf(points[i]), expected[i], 1e-9 * std::max(1.0, std::abs(expected[i])))
                << type << " with " << observations.size() << " observations at " << points[i];
    }
}

TEST(TpeParity, NotWorseThanOptunasTpeOnTheMedianBest)
{
    const int seeds = 30;
    const test::PeerRun peer = test::runParityScript("optuna_tpe.py");
    ASSERT_EQ(peer.status, 0) << peer.output;
    const json optuna = json::parse(peer.output);
    ASSERT_EQ(optuna["seeds"], seeds);

    // The tolerance, per objective: a few percent of the gap between the objective's optimum and
    // a random point's typical value (quadratic ~17, Branin ~50, Hartmann ~0.3 away).
    const std::vector<std::pair<test::Objective, double>> cases{
        {test::quadratic(), 0.05}, {test::branin(), 0.05}, {test::hartmann6(), 0.1}};
    for (const auto &[o, tolerance] : cases) {
        const json &theirs = optuna["objectives"][o.name];
        ASSERT_EQ(theirs["trials"], o.trials) << o.name << ": optuna_tpe.py and synthetic_objectives.h disagree";
        const engine::TpeSampler tpe(o.space, {});
        std::vector<double> bests;
        for (int seed = 0; seed < seeds; ++seed)
            bests.push_back(test::bestOf(tpe, o, static_cast<std::uint64_t>(seed), o.trials));
        const double ours = test::median(bests);
        const double optunaMedian = theirs["median_best"].get<double>();
        std::printf("%-10s %3d trials, %d seeds: median best Lathe %.5f (mean %.5f), Optuna %s %.5f (mean %.5f), "
                    "tolerance %.3f\n",
                    o.name.c_str(), o.trials, seeds, ours, test::mean(bests),
                    optuna["optuna"].get<std::string>().c_str(), optunaMedian, theirs["mean_best"].get<double>(),
                    tolerance);
        EXPECT_LE(ours, optunaMedian + tolerance) << o.name;
    }
}
