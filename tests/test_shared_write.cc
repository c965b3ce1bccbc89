// Shared lines in the one cost model (issue 16 item 3, env/cost.h): where a 1-thread and a
// 2-thread step of a 2-thread deployment meet, at the LUT's runtime.shared_write_us_per_kb and
// shared_read_us_per_kb: (1) a caller step's output read on cpu1 pays half at both rates (once
// per producer however many read it), (2) an activation in place on the caller over cpu1's
// output half at the write rate, (3) a cpu1 step's output read on the caller half at the read
// rate (once per producer). A hand-made network where the charges are counted by hand; random
// DAGs where exact == ILP == an independent brute force and the charges move the optimum; the
// LUT's JSON round trip; the probe that measures the rates.
#include <doctest/doctest.h>

#include "env/runtime_costs.h"
#include "tests/agent_fixtures.h"
#include "tests/handoff_fixtures.h"

using namespace lw;
using namespace lw::testing;

namespace {

Impl step(const char* name, int format, int threads, double ms, int64_t out_bytes, const char* library = "onednn") {
  Impl m = impl(name, format, format, ms, library);
  m.threads = threads;
  m.memory_bytes.output = out_bytes;
  return m;
}

// The charges of an assignment, apart from env/cost.cc: the pool that wrote each layer's output
// (a fused pseudo-impl's: the step before it), then per step in layer order the three cases.
double lut_shared_lines(const Lut& lut, const std::vector<int>& a) {
  const double w = lut.runtime.shared_write_us_per_kb, rd = lut.runtime.shared_read_us_per_kb;
  if (lut.runtime.handoffs.empty() || (w <= 0 && rd <= 0)) return 0.0;
  const int n = int(lut.layers.size()), caller = pool_index("caller");
  auto half = [&](const Impl& m, double rate) { return 0.5 * double(m.memory_bytes.output) / 1024.0 * rate / 1000.0; };
  std::vector<int> writer(n, caller), last(n);
  std::vector<bool> read_on_cpu1(n, false), read_on_caller(n, false);
  for (int j = 0; j < n; ++j) last[j] = j;
  for (int c = 0; c < n; ++c)
    for (int p : lut.layers[c].inputs) last[p] = std::max(last[p], c);
  double total = 0;
  for (int i = 1; i < n; ++i) {
    const Impl& m = lut.layers[i].impls[a[i]];
    if (m.library == "fused") {
      writer[i] = writer[i - 1];
      continue;
    }
    writer[i] = pool_of(m);
    const std::vector<int>& in = lut.layers[i].inputs;
    const LayerKind k = lut.layers[i].kind;
    const bool activation = k == LayerKind::kRelu || k == LayerKind::kRelu6 || k == LayerKind::kHardSwish ||
                            k == LayerKind::kHardSigmoid || k == LayerKind::kSigmoid || k == LayerKind::kGelu;
    if (writer[i] == caller) {
      if (activation && !in.empty() && last[in[0]] == i && writer[in[0]] != caller) total += half(m, w);
      for (int j : in) {
        if (writer[j] != caller && !read_on_caller[j]) total += half(lut.layers[j].impls[a[j]], rd);
        read_on_caller[j] = true;
      }
      continue;
    }
    for (int j : in) {
      if (writer[j] == caller && !read_on_cpu1[j]) total += half(lut.layers[j].impls[a[j]], w + rd);
      read_on_cpu1[j] = true;
    }
  }
  return total;
}

double lut_cost(const Lut& lut, const std::vector<int>& a) {
  return lut_latency(lut, a) + lut_handoffs(lut, a) + lut_shared_lines(lut, a);
}

double brute_with_shared_lines(const Lut& lut, std::vector<int>* best) {
  double opt = kInf;
  for_each_assignment(lut, [&](const std::vector<int>& a) {
    const double l = lut_cost(lut, a);
    if (l < opt) opt = l, *best = a;
  });
  return opt;
}

}  // namespace

TEST_CASE("shared writes: a caller step read by two cpu1 steps pays once; an activation in place on cpu1's output pays") {
  // input -> c1 -> {c2, c3} -> r4 (relu of c3, its last reader) -> add(c2, r4): one format per
  // thread set (conversions between them 0.001 ms), 1 KiB of output per f32 step.
  Lut lut;
  lut.model_name = "shared";
  lut.formats = {{Layout::kNHWC, DType::kF32, 1}, {Layout::kNHWC, DType::kF32, 2}};
  lut.layers.push_back(layer("input", LayerKind::kInput, {}, {step("in", 0, 1, 0, 2048, "input")}));
  lut.layers.push_back(layer("c1", LayerKind::kConv2d, {0}, {step("c1_t1", 0, 1, 1.0, 1024), step("c1_t2", 1, 2, 0.6, 1024)}));
  lut.layers.push_back(layer("c2", LayerKind::kConv2d, {1}, {step("c2_t1", 0, 1, 1.0, 1024), step("c2_t2", 1, 2, 0.6, 1024)}));
  lut.layers.push_back(layer("c3", LayerKind::kConv2d, {1}, {step("c3_t1", 0, 1, 1.0, 1024), step("c3_t2", 1, 2, 0.6, 1024)}));
  lut.layers.push_back(layer("r4", LayerKind::kRelu, {3}, {step("r4_t1", 0, 1, 0.1, 1024), step("r4_t2", 1, 2, 0.1, 1024)}));
  lut.layers.push_back(layer("add", LayerKind::kAdd, {2, 4}, {step("add_t1", 0, 1, 0.1, 1024), step("add_t2", 1, 2, 0.1, 1024)}));
  for (int p = 0; p < 6; ++p)
    for (int c : {p + 1, p + 2, -1})
      for (int f = 0; f < 2; ++f) lut.conversions.push_back({p, c, f, 1 - f, -1, 0.001, {"to"}});
  set_handoff(lut, "caller", "openmp", 0.0);  // hand-offs measured (all 0): shared writes apply
  const std::vector<int> mixed = {0, 0, 1, 1, 0, 1};  // c1 on the caller read by c2 and c3 on cpu1; r4 in place on c3's
  Problem plain;
  REQUIRE(compile_problem(lut, &plain).is_ok());
  CHECK_FALSE(plain.has_shared_lines());  // a LUT without the rate charges none

  lut.runtime.shared_write_us_per_kb = 100;  // (far above a real host's, to dwarf rounding)
  Problem p;
  REQUIRE(compile_problem(lut, &p).is_ok());
  REQUIRE(p.has_shared_lines());
  const double half_kib = 0.5 * 100 / 1000.0;  // ms for half of 1 KiB
  CHECK(shared_lines_in_ms(p, mixed.data(), 1, 0) == 0.0);
  CHECK(shared_lines_in_ms(p, mixed.data(), 2, 1) == doctest::Approx(half_kib));  // c2 reads c1 first
  CHECK(shared_lines_in_ms(p, mixed.data(), 3, 1) == 0.0);                         // c3: c1 is paid for
  CHECK(shared_lines_in_ms(p, mixed.data(), 4, 0) == doctest::Approx(half_kib));  // r4 over c3's output
  CHECK(shared_lines_in_ms(p, mixed.data(), 5, 1) == doctest::Approx(half_kib));  // add reads r4's
  CHECK(predict_latency_ms(p, mixed) == doctest::Approx(predict_latency_ms(plain, mixed) + 3 * half_kib));
  CHECK(shared_lines_ms(p, mixed) == doctest::Approx(3 * half_kib));  // (what bench reports apart)
  CHECK(shared_lines_ms(plain, mixed) == 0.0);
  CHECK(predict_latency_ms(p, mixed) == doctest::Approx(lut_cost(lut, mixed)));
  // The input copy is the caller's write too: a first step on cpu1 pays for half of its 2 KiB.
  const std::vector<int> all_t2 = {0, 1, 1, 1, 1, 1};
  CHECK(predict_latency_ms(p, all_t2) == doctest::Approx(predict_latency_ms(plain, all_t2) + 2 * half_kib));
  // 1-thread deployments pay nothing.
  const std::vector<int> all_t1 = {0, 0, 0, 0, 0, 0};
  CHECK(predict_latency_ms(p, all_t1) == doctest::Approx(predict_latency_ms(plain, all_t1)));

  // With the read rate too: a step on cpu1 reading a caller step's output pays both halves; a
  // caller step reading a cpu1 step's output pays the read half, once per producer.
  lut.runtime.shared_read_us_per_kb = 10;
  Problem pr;
  REQUIRE(compile_problem(lut, &pr).is_ok());
  const double half_read = 0.5 * 10 / 1000.0;
  CHECK(shared_lines_in_ms(pr, mixed.data(), 2, 1) == doctest::Approx(half_kib + half_read));  // (1)
  CHECK(shared_lines_in_ms(pr, mixed.data(), 4, 0) == doctest::Approx(half_kib + half_read));  // (2) + (3)
  CHECK(shared_lines_ms(pr, mixed) == doctest::Approx(3 * half_kib + 3 * half_read));
  // c1 on cpu1 reads the input (2 KiB) and is read by c2 and c3 on the caller: its read half once.
  const std::vector<int> c1_on_cpu1 = {0, 1, 0, 0, 0, 0};
  CHECK(shared_lines_in_ms(pr, c1_on_cpu1.data(), 2, 0) == doctest::Approx(half_read));
  CHECK(shared_lines_in_ms(pr, c1_on_cpu1.data(), 3, 0) == 0.0);
  CHECK(shared_lines_ms(pr, c1_on_cpu1) == doctest::Approx(2 * (half_kib + half_read) + half_read));
  CHECK(predict_latency_ms(pr, c1_on_cpu1) == doctest::Approx(lut_cost(lut, c1_on_cpu1)));
  CHECK(predict_latency_ms(pr, all_t1) == doctest::Approx(predict_latency_ms(plain, all_t1)));
  lut.runtime.shared_read_us_per_kb = 0;

  std::vector<int> brute;
  const double want = brute_with_shared_lines(lut, &brute);
  DeploymentEnv env(p);
  for (std::string agent : {"exact", "ilp", "qlearning"}) {
    CAPTURE(agent);
    const SearchResult r = run_search(agent, env, 1, 300);
    CHECK(r.best_latency_ms == predict_latency_ms(p, r.best));
    CHECK(r.best_latency_ms == doctest::Approx(want).epsilon(1e-9));
  }
  env.reset();
  double ret = 0;
  for (int t = 0; t < p.n; ++t) ret += env.step(brute[t]).reward;
  CHECK(-ret == doctest::Approx(want).epsilon(1e-12));
}

// Random DAGs with pools (as test_handoff's), fused layers, fan-out and activations, and a rate
// at which half an output costs about as much as a step.
TEST_CASE("shared writes: exact == ILP == brute force on 150 random DAGs, and they move optima") {
  ScopedNativeKernelsPool set(ThreadPoolId::kOpenmp);
  int solved = 0, moved = 0;
  for (uint64_t seed = 0; solved < 150; ++seed) {
    Rng r(seed * 104729 + 7);
    Lut lut = pooled_dag_lut(seed, r);
    add_random_handoffs(lut, r, 20, 0.5);
    std::vector<int> before;
    const double without = brute_with_handoffs(lut, &before);
    lut.runtime.shared_write_us_per_kb = 500 + 1500 * r.uniform();  // outputs of 1-5 KB: 0.25-6 ms
    lut.runtime.shared_read_us_per_kb = seed % 3 == 0 ? 0.0 : 200 + 800 * r.uniform();  // (some LUTs without)
    std::vector<int> brute;
    const double want = brute_with_shared_lines(lut, &brute);
    CAPTURE(seed);
    if (!check_exact_and_ilp(lut, want, lut_cost)) continue;
    moved += without < kInf && lut_cost(lut, before) > want + 1e-9;
    ++solved;
  }
  MESSAGE("solved " << solved << ", optimum moved by the shared lines " << moved);
  CHECK(moved >= 10);  // (25 of the 150: the charges really change answers)
}

TEST_CASE("shared writes: the LUT's runtime object round-trips the rate; an old LUT has none; a bad one fails") {
  Lut lut = fig2_lut();
  Lut back;
  REQUIRE(lut_from_json(lut_to_json(lut), "old.json", &back).is_ok());
  CHECK(back.runtime.shared_write_us_per_kb == 0.0);
  lut.runtime.shared_write_us_per_kb = 0.118;
  std::string text = lut_to_json(lut);
  REQUIRE(lut_from_json(text, "new.json", &back).is_ok());
  CHECK(back.runtime.shared_write_us_per_kb == 0.118);
  CHECK(back.runtime.shared_read_us_per_kb == 0.0);
  lut.runtime.shared_read_us_per_kb = 0.031;
  REQUIRE(lut_from_json(lut_to_json(lut), "new.json", &back).is_ok());
  CHECK(back.runtime.shared_read_us_per_kb == 0.031);
  text.replace(text.find("0.118"), 5, "-0.12");
  const Status s = lut_from_json(text, "bad.json", &back);
  CHECK_FALSE(s.is_ok());
  CHECK(s.message().find("bad.json") != std::string::npos);
  CHECK(s.message().find("/runtime/shared_write_us_per_kb") != std::string::npos);
}

TEST_CASE("shared lines: the probe measures both rates where there are two CPUs, and says unsupported where one") {
  RuntimeCosts rc;
  const Status s = measure_shared_lines(5, &rc);
  if (available_thread_set_cpus() < 2) {
    CHECK(s.code() == StatusCode::kUnsupported);
    return;
  }
  REQUIRE(s.is_ok());
  for (double rate : {rc.shared_write_us_per_kb, rc.shared_read_us_per_kb}) {
    CHECK(rate >= 0.0);
    CHECK(rate < 100.0);  // 100 us per KiB: 0.1 s for a MiB, no cache does that
  }
  MESSAGE("shared lines: a write " << rc.shared_write_us_per_kb << ", a read " << rc.shared_read_us_per_kb << " us per KiB");
}
