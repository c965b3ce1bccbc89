/// \file
/// The constraint filter (QS-DNN §V-C): the search predicts latency from the LUT, but the
/// accuracy of a deployment (int8, Winograd) and its real peak memory are only known by
/// running it. Keep the candidates within a latency band of the fastest, measure them on the
/// device, drop those that break the constraints.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace lw {

struct FilterCandidate {
  std::string id;                  // e.g. "qlearning-s1-0007"
  std::vector<std::string> impls;  // implementation name per layer (the assignment)
  double predicted_ms = 0;
  double predicted_memory_bytes = 0;
  // Filled by measurement on the device:
  bool measured = false;
  double measured_ms = 0;
  double accuracy = 0;             // top-1 (trained models) or fidelity (random-weight models)
  double peak_memory_bytes = 0;
  // Filled by apply_constraints:
  bool kept = false;
  std::string rejected_because;
};

struct FilterConstraints {
  double latency_band_pct = 25;          // keep predicted_ms <= fastest * (1 + band/100)
  int max_candidates = 16;               // measure at most this many (fastest first)
  double max_accuracy_drop_pct = 1.0;    // vs the f32 reference accuracy, in points
  std::optional<double> max_memory_bytes;
};

/// Indices of the candidates to measure: distinct assignments within the band, fastest first,
/// at most max_candidates.
std::vector<size_t> select_in_band(const std::vector<FilterCandidate>& c, const FilterConstraints& k);

/// Marks measured candidates kept or rejected (with the reason) against the reference
/// accuracy; returns how many were kept.
int apply_constraints(std::vector<FilterCandidate>& c, double reference_accuracy, const FilterConstraints& k);

/// filtered.csv: id,predicted_ms,measured_ms,accuracy_pct,peak_memory_MiB,kept,rejected_because
std::string filter_csv(const std::vector<FilterCandidate>& c);

}  // namespace lw
