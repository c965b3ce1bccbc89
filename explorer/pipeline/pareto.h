/// \file
/// Pareto fronts for the last stage of the pipeline (QS-DNN §V-C, Figs. 10–11): from the
/// filtered candidates, the latency–accuracy and latency–memory non-dominated sets, written
/// as CSV and plotted with gnuplot (PNG + SVG) with the reference points marked.
#pragma once
#include <string>
#include <vector>

#include "libs/core/status.h"

namespace lw {

struct ParetoPoint {
  std::string label;       // e.g. "ref-fp32", "opt-fp32", "all-int8", "chosen", "sol-17"
  double latency_ms = 0;   // lower is better
  double accuracy = 0;     // top-1 (or fidelity) in [0, 1]; higher is better
  double memory_bytes = 0; // peak memory; lower is better
};

enum class SecondAxis { kAccuracy, kMemory };

/// True when `a` is at least as good as `b` on both objectives and better on one.
bool dominates(const ParetoPoint& a, const ParetoPoint& b, SecondAxis axis);

/// Indices of the non-dominated candidates (minimise latency; maximise accuracy or minimise
/// memory), sorted by latency. Exact duplicates keep the first occurrence.
std::vector<size_t> pareto_front(const std::vector<ParetoPoint>& c, SecondAxis axis);

/// CSV with a header row and units: label,latency_ms,accuracy_pct,memory_MiB,on_front.
std::string pareto_csv(const std::vector<ParetoPoint>& c, SecondAxis axis);

/// Writes <stem>.csv, <stem>.png and <stem>.svg (gnuplot). Labelled candidates
/// ("ref-fp32", "opt-fp32", "all-int8", "chosen") are marked on the plot.
Status write_pareto(const std::vector<ParetoPoint>& c, SecondAxis axis, const std::string& stem,
                    const std::string& title);

struct FilterResult;

struct ParetoSummary {
  int points = 0;
  int accuracy_front = 0, memory_front = 0;      // sizes of the two fronts
  int mixed_on_accuracy_front = 0, mixed_on_memory_front = 0;
};

/// The fronts' points: every measured candidate (the chosen one labelled "chosen") and the
/// references, at measured latency, accuracy and peak memory.
std::vector<ParetoPoint> pareto_points(const FilterResult& r, std::vector<bool>* mixed);

/// Writes <out_dir>/pareto_accuracy.{csv,png,svg} and pareto_memory.{csv,png,svg}.
Status run_pareto(const FilterResult& r, const std::string& out_dir, ParetoSummary* summary);

}  // namespace lw
