// Pareto fronts on hand-made inputs.
#include <doctest/doctest.h>

#include <filesystem>
#include <unistd.h>

#include "explorer/pipeline/pareto.h"

using namespace lw;

namespace {
std::vector<std::string> labels(const std::vector<ParetoPoint>& c, const std::vector<size_t>& idx) {
  std::vector<std::string> out;
  for (size_t i : idx) out.push_back(c[i].label);
  return out;
}
}  // namespace

TEST_CASE("latency-accuracy front keeps exactly the non-dominated points") {
  std::vector<ParetoPoint> c = {
      {"slow-exact", 10.0, 0.92, 100}, {"fast-int8", 4.0, 0.90, 50}, {"dominated", 6.0, 0.89, 80},
      {"mid", 5.0, 0.91, 90},          {"tie-late", 5.0, 0.91, 90},  {"fastest-bad", 3.0, 0.50, 40},
      {"same-lat-worse", 4.0, 0.85, 10},
  };
  auto front = pareto_front(c, SecondAxis::kAccuracy);
  CHECK(labels(c, front) == std::vector<std::string>{"fastest-bad", "fast-int8", "mid", "slow-exact"});
}

TEST_CASE("latency-memory front minimises both") {
  std::vector<ParetoPoint> c = {{"a", 1, 0, 100}, {"b", 2, 0, 50}, {"c", 3, 0, 60}, {"d", 4, 0, 10}, {"e", 1, 0, 120}};
  auto front = pareto_front(c, SecondAxis::kMemory);
  CHECK(labels(c, front) == std::vector<std::string>{"a", "b", "d"});
}

TEST_CASE("the sweep agrees with brute-force dominance on random sets") {
  uint32_t state = 12345;
  auto next = [&] { state = state * 1664525u + 1013904223u; return (state >> 8) % 50; };
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<ParetoPoint> c;
    for (int i = 0, n = 1 + int(next() % 30); i < n; ++i)
      c.push_back({"p" + std::to_string(i), double(next()), next() / 50.0, double(next())});
    for (SecondAxis axis : {SecondAxis::kAccuracy, SecondAxis::kMemory}) {
      auto front = pareto_front(c, axis);
      std::vector<bool> on(c.size(), false);
      for (size_t i : front) on[i] = true;
      for (size_t i = 0; i < c.size(); ++i) {
        bool dominated = false, duplicate_before = false;
        for (size_t j = 0; j < c.size(); ++j) {
          dominated |= dominates(c[j], c[i], axis);
          bool same = c[j].latency_ms == c[i].latency_ms &&
                      (axis == SecondAxis::kAccuracy ? c[j].accuracy == c[i].accuracy : c[j].memory_bytes == c[i].memory_bytes);
          duplicate_before |= same && j < i;
        }
        CAPTURE(trial);
        CHECK(on[i] == (!dominated && !duplicate_before));
      }
    }
  }
}

TEST_CASE("an empty or single candidate set") {
  CHECK(pareto_front({}, SecondAxis::kMemory).empty());
  CHECK(pareto_front({{"x", 1, 1, 1}}, SecondAxis::kAccuracy).size() == 1);
}

TEST_CASE("CSV has a header with units and marks the front") {
  std::vector<ParetoPoint> c = {{"ref-fp32", 10, 0.9, 1048576}, {"chosen", 5, 0.9, 2097152}};
  std::string csv = pareto_csv(c, SecondAxis::kAccuracy);
  CHECK(csv.rfind("label,latency_ms,accuracy_pct,memory_MiB,on_front\n", 0) == 0);
  CHECK(csv.find("ref-fp32,10.0000,90.000,1.000,0") != std::string::npos);
  CHECK(csv.find("chosen,5.0000,90.000,2.000,1") != std::string::npos);
}

TEST_CASE("write_pareto produces CSV, PNG and SVG") {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("lw_pareto_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::vector<ParetoPoint> c = {{"ref-fp32", 10, 0.90, 3e6}, {"opt-fp32", 6, 0.90, 2e6}, {"all-int8", 3, 0.86, 1e6},
                              {"chosen", 4, 0.895, 1.5e6}, {"sol-1", 7, 0.88, 2.5e6}};
  std::string stem = (dir / "pareto_latency_accuracy").string();
  Status s = write_pareto(c, SecondAxis::kAccuracy, stem, "test front");
  REQUIRE_MESSAGE(s.is_ok(), s.to_string());
  for (const char* ext : {".csv", ".png", ".svg"}) {
    CAPTURE(ext);
    CHECK(fs::file_size(stem + ext) > 100);
  }
  fs::remove_all(dir);
}
