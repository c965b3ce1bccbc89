/// \file
/// The filter stage (QS-DNN §V-C), shared by `layerwise filter` and the experiment runner:
/// the search's solutions within a latency band of the fastest are measured on the device
/// (latency, accuracy or fidelity, peak memory) together with the reference deployments;
/// the constraints (explorer/pipeline/constraints.h) decide which are kept and
/// explorer/pipeline/choice.h which one the user gets. Written atomically: filtered.csv and
/// filter.json (which pareto and replay read back).
#pragma once
#include <string>
#include <vector>

#include "explorer/measure/evaluator.h"
#include "explorer/pipeline/constraints.h"
#include "libs/core/status.h"

namespace lw {

/// Solutions of `layerwise search` (solutions.csv: latency_ms,memory_bytes,"n1;n2;...") as
/// filter candidates named "<prefix>-<row>"; each must have one name per LUT layer.
Status read_solutions_csv(const std::string& path, const Lut& lut, const std::string& prefix,
                          std::vector<FilterCandidate>* out);

struct FilterResult {
  std::string model, metric;             // metric: "top1" or "fidelity"
  double reference_accuracy = 0;         // the ref-fp32 deployment's: the "accuracy drop" base
  FilterConstraints constraints;
  std::vector<FilterCandidate> candidates;  // every solution, measured or not, kept or not
  std::vector<Measurement> measured;        // the candidates measured (label = candidate id)
  std::vector<Measurement> references;      // ref-fp32, opt-fp32, all-int8 where the LUT has them
  /// Label of the measured deployment the user gets: the fastest of the kept candidates and
  /// the references meeting the constraints, all timed interleaved (explorer/pipeline/choice.h); ""
  /// when nothing meets them.
  std::string chosen;
  std::string chosen_why;  // why it won, for summary.md
  int tie_break_rounds = 0;  // interleaved rounds spent re-measuring close contenders
  const Measurement* find(const std::string& label) const;
};

/// Measures the band's candidates and the references (interleaved), applies the constraints,
/// picks the chosen one and writes <out_dir>/filtered.csv and <out_dir>/filter.json.
Status run_filter(Evaluator& ev, std::vector<FilterCandidate> candidates, const FilterConstraints& k,
                  const std::string& out_dir, FilterResult* out);

/// filter.json <-> FilterResult.
std::string filter_json(const FilterResult& r);
Status load_filter_result(const std::string& path, FilterResult* out);

}  // namespace lw
