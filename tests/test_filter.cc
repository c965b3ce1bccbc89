// The constraint filter on hand-made candidates.
#include <doctest/doctest.h>

#include "explorer/pipeline/constraints.h"

using namespace lw;

namespace {
FilterCandidate cand(const std::string& id, double ms, std::vector<std::string> impls) {
  FilterCandidate c;
  c.id = id;
  c.predicted_ms = ms;
  c.impls = std::move(impls);
  return c;
}
}  // namespace

TEST_CASE("the band keeps distinct assignments within 25 % of the fastest, fastest first") {
  std::vector<FilterCandidate> c = {cand("slow", 13.0, {"a"}), cand("fast", 10.0, {"b"}), cand("edge", 12.5, {"c"}),
                                    cand("dup", 11.0, {"b"}),  cand("mid", 11.0, {"d"})};
  FilterConstraints k;
  auto sel = select_in_band(c, k);
  std::vector<std::string> ids;
  for (size_t i : sel) ids.push_back(c[i].id);
  CHECK(ids == std::vector<std::string>{"fast", "mid", "edge"});
  k.max_candidates = 2;
  CHECK(select_in_band(c, k).size() == 2);
  k.latency_band_pct = 0;
  CHECK(select_in_band(c, k).size() == 1);
  CHECK(select_in_band({}, k).empty());
}

TEST_CASE("constraints reject accuracy drops and memory overruns with a reason") {
  std::vector<FilterCandidate> c = {cand("ok", 1, {"a"}), cand("lossy", 1, {"b"}), cand("big", 1, {"c"}),
                                    cand("unmeasured", 1, {"d"})};
  for (int i = 0; i < 3; ++i) c[i].measured = true;
  c[0].accuracy = 0.905;
  c[1].accuracy = 0.88;
  c[2].accuracy = 0.91;
  c[0].peak_memory_bytes = 1 << 20;
  c[1].peak_memory_bytes = 1 << 20;
  c[2].peak_memory_bytes = 8 << 20;
  FilterConstraints k;
  k.max_accuracy_drop_pct = 1.0;
  k.max_memory_bytes = 4 << 20;
  CHECK(apply_constraints(c, 0.91, k) == 1);
  CHECK(c[0].kept);
  CHECK_FALSE(c[1].kept);
  CHECK(c[1].rejected_because.find("accuracy drop 3.00 points") != std::string::npos);
  CHECK_FALSE(c[2].kept);
  CHECK(c[2].rejected_because.find("peak memory 8.00 MiB > 4.00 MiB") != std::string::npos);
  CHECK_FALSE(c[3].kept);
  // An accuracy gain is never a drop.
  k.max_accuracy_drop_pct = 0;
  CHECK(apply_constraints(c, 0.90, k) == 1);
  CHECK(c[0].kept);
  std::string csv = filter_csv(c);
  CHECK(csv.rfind("id,predicted_ms,measured_ms,accuracy_pct,peak_memory_MiB,kept,rejected_because\n", 0) == 0);
  CHECK(csv.find("ok,1.0000,0.0000,90.500,1.000,1,\"\"") != std::string::npos);
}
