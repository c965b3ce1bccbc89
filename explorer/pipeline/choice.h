/// \file
/// Which measured deployment the user gets (the filter's last step). Every contender — the
/// search's candidates, the certified optimum and the reference deployments alike — has
/// end-to-end times sampled in interleaved rounds, so all of them saw the same machine.
/// The fastest one that meets every constraint wins; when the two leading medians are within
/// measurement noise (a two-sided Mann-Whitney U test cannot tell them apart), both are timed
/// again, interleaved, until the difference is significant or a cap is reached; then it is a
/// tie, won by the more accurate, then by the smaller. The reason is kept for summary.md.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "libs/core/status.h"

namespace lw {

constexpr double kDefaultChoiceAlpha = 0.05;   // significance level of "faster"
constexpr int kDefaultChoiceStepRounds = 10;   // interleaved rounds added per re-measurement
constexpr int kDefaultChoiceMaxSamples = 60;   // per contender; beyond it a difference is a tie

struct Contender {
  std::string label;
  std::vector<double> samples_ms;  // end-to-end times from interleaved rounds
  double accuracy = 0;             // higher is better (top-1 or fidelity)
  double memory_bytes = 0;         // smaller is better
  bool eligible = false;           // meets every constraint
};

struct ChoiceOptions {
  double alpha = kDefaultChoiceAlpha;
  int step_rounds = kDefaultChoiceStepRounds;
  int max_samples = kDefaultChoiceMaxSamples;
};

struct Choice {
  int index = -1;            // into the contenders; -1 when none is eligible
  std::string why;           // one or two sentences for summary.md
  int extra_rounds = 0;      // interleaved re-measurement rounds spent deciding
};

/// Appends `rounds` interleaved samples to each of the contenders `which` (indices).
using Remeasure = std::function<Status(const std::vector<int>& which, int rounds)>;

/// Two-sided p-value of the Mann-Whitney U test (normal approximation, tie-corrected,
/// continuity-corrected) that `a` and `b` come from the same distribution. 1 when either is
/// empty or every value is equal.
double mann_whitney_p(const std::vector<double>& a, const std::vector<double>& b);

double median_of(std::vector<double> v);

/// Picks the winner among the eligible contenders as described above; `more` is called to
/// re-measure two contenders that are too close to call.
Status choose_measured_best(std::vector<Contender>& c, const ChoiceOptions& o, const Remeasure& more, Choice* out);

}  // namespace lw
