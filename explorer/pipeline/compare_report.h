/// \file
/// `layerwise compare` output: Table III over several seeds (mean and worst gap to the
/// optimum, states considered until the agent's answer is within 0.5 % for good, wall and CPU
/// time) and the learning curves as CSV + gnuplot PNG/SVG.
#pragma once
#include <string>
#include <vector>

#include "agents/agent.h"

namespace lw::cli {

constexpr double kNearOptimumPct = 0.5;  // "states until within 0.5 % of the optimum"

struct CompareRow {
  std::string label;
  std::vector<uint64_t> seeds;
  std::vector<SearchResult> runs;  // one per seed
};

/// States considered until the answer the agent would report is within kNearOptimumPct of
/// `optimum` and stays there; -1 when its final answer is not. The answer of an episodic
/// agent is its best episode so far, or its latest greedy rollout where the result is one
/// (SearchResult::greedy_answer).
int64_t states_until_near(const SearchResult& r, double optimum);
/// The table as CSV (csv = true) or as aligned text for the console.
std::string compare_table(const std::vector<CompareRow>& rows, double optimum, int layers, bool csv);
/// agent,seed,episode,states,best_latency_ms,greedy_ms,gap_pct (gap of the reported answer).
std::string curves_csv(const std::vector<CompareRow>& rows, double optimum);
/// Draws <stem>.csv (curves_csv of `rows`) into <stem>.png and <stem>.svg with gnuplot.
Status plot_curves(const std::vector<CompareRow>& rows, const std::string& stem, const std::string& model);

}  // namespace lw::cli
