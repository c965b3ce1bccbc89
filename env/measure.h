/// \file
/// The measurement protocol of the profiler (QS-DNN §V-A): discarded warm-up runs, then
/// timed runs until the coefficient of variation drops below a threshold or a run cap is
/// reached; the median is the figure the search uses. Only the callable is timed, so
/// weight packing and setup stay outside.
#pragma once
#include <functional>
#include <nlohmann/json.hpp>

#include "env/lut.h"
#include "libs/core/status.h"

namespace lw {

struct Protocol {
  int warmup = 1;             // discarded runs
  int runs = 20;              // timed runs at least
  double cv_threshold = 0.05; // keep measuring while stddev / mean is above this ...
  int max_runs = 100;         // ... up to this many timed runs
  /// Stop adding runs once this much time was spent on one measurement (seconds);
  /// big layers reach a stable median in fewer runs than the cap.
  double max_seconds = 2.0;

  nlohmann::json to_json() const;
  bool operator==(const Protocol& o) const;
};

/// Times `fn` under the protocol. A non-ok status from fn stops and is returned.
Status measure(const Protocol& p, const std::function<Status()>& fn, LatencyStats* out);

/// Fills a timing input with seeded values (f32 uniform in [-1, 1], other dtypes random
/// bytes). Never time on an unwritten buffer: large fresh allocations read as the kernel's
/// shared zero page, which stays in cache and makes memory-bound kernels look free.
void fill_random(Tensor& t, uint64_t seed);

/// Statistics of a sample of times (ms): median, min, p90 (nearest rank), cv (stddev/mean).
LatencyStats latency_stats(std::vector<double> ms);

}  // namespace lw
