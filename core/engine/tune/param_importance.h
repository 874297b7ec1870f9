#pragma once

#include "engine/tune/study_state.h"

#include <string>
#include <vector>

// Which parameters of a study matter: the Tune page's importance chart.
//
// This is a main-effect variance decomposition (η²), a simplification of fANOVA's first-order
// terms, not fANOVA itself: each parameter is scored by the share of the metric's variance it
// explains on its own (one-way ANOVA, the correlation ratio η² = SS_between / SS_total, with the
// completed trials grouped by that parameter's value), and the scores are normalised to sum 1.
// fANOVA (Hutter et al. 2014, Optuna's default evaluator) fits a random forest and integrates
// its marginals; η² needs no model and no seed, but it neither separates interactions (a
// parameter that only matters together with another shares that variance with neither) nor
// corrects for chance: with few trials an irrelevant parameter still explains a little.
//
// Grouping: categorical parameters (choice, grid) by value; numeric ones in quantile bins of
// equal counts (about √n of them, 2 to 10; equal values stay in one bin), cut by rank, so a
// log-scale parameter bins exactly as it would in log space; a trial in which a conditional
// parameter is inactive counts as its own "absent" group.
namespace lathe::engine {

// Fewer completed trials than this give no importances.
inline constexpr int kImportanceMinTrials = 3;

struct ParamImportance
{
    std::string param;       // its name in the space, "optimizer.lr"
    double importance = 0;   // importances sum to 1 (all 0 when the values do not vary)
};

// Per-parameter importance over the study's completed trials (state Completed, Trial::value set
// and finite), one entry per parameter of the space, sorted by importance descending (ties in
// the space's order). Empty when fewer than kImportanceMinTrials completed trials.
std::vector<ParamImportance> paramImportance(const StudyState &state);

} // namespace lathe::engine
