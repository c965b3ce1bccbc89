#include "explorer/pipeline/constraints.h"

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <set>
#include <sstream>

namespace lw {

std::vector<size_t> select_in_band(const std::vector<FilterCandidate>& c, const FilterConstraints& k) {
  std::vector<size_t> idx(c.size());
  std::iota(idx.begin(), idx.end(), 0);
  std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return c[a].predicted_ms < c[b].predicted_ms; });
  std::vector<size_t> out;
  if (idx.empty()) return out;
  double limit = c[idx[0]].predicted_ms * (1 + k.latency_band_pct / 100);
  std::set<std::vector<std::string>> seen;
  for (size_t i : idx) {
    if (c[i].predicted_ms > limit || int(out.size()) >= k.max_candidates) break;
    if (seen.insert(c[i].impls).second) out.push_back(i);
  }
  return out;
}

int apply_constraints(std::vector<FilterCandidate>& c, double reference_accuracy, const FilterConstraints& k) {
  int kept = 0;
  for (auto& x : c) {
    x.kept = false;
    x.rejected_because.clear();
    char why[160] = "";
    if (!x.measured) {
      std::snprintf(why, sizeof why, "not measured (outside the latency band or the candidate cap)");
    } else if (100 * (reference_accuracy - x.accuracy) > k.max_accuracy_drop_pct) {
      std::snprintf(why, sizeof why, "accuracy drop %.2f points > %.2f", 100 * (reference_accuracy - x.accuracy),
                    k.max_accuracy_drop_pct);
    } else if (k.max_memory_bytes && x.peak_memory_bytes > *k.max_memory_bytes) {
      std::snprintf(why, sizeof why, "peak memory %.2f MiB > %.2f MiB", x.peak_memory_bytes / 1048576.0,
                    *k.max_memory_bytes / 1048576.0);
    }
    x.rejected_because = why;
    x.kept = x.rejected_because.empty();
    kept += x.kept;
  }
  return kept;
}

std::string filter_csv(const std::vector<FilterCandidate>& c) {
  std::ostringstream out;
  out << "id,predicted_ms,measured_ms,accuracy_pct,peak_memory_MiB,kept,rejected_because\n";
  for (const auto& x : c) {
    char line[512];
    std::snprintf(line, sizeof line, "%s,%.4f,%.4f,%.3f,%.3f,%d,\"%s\"\n", x.id.c_str(), x.predicted_ms,
                  x.measured ? x.measured_ms : 0.0, x.measured ? 100 * x.accuracy : 0.0,
                  x.measured ? x.peak_memory_bytes / 1048576.0 : 0.0, x.kept ? 1 : 0, x.rejected_because.c_str());
    out << line;
  }
  return out.str();
}

}  // namespace lw
