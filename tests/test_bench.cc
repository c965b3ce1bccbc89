// layerwise bench on a real (tiny) LUT: every deployment is planned, measured and correct
// (f32 outputs match ref-fp32's), a thread cap of 1 keeps every step on one thread, and the
// speed-ups and reports are consistent with the measured figures.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <sched.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include "tests/tiny_profile.h"
#include "explorer/measure/baselines.h"
#include "explorer/measure/bench.h"
#include "explorer/measure/deployment.h"
#include "env/speed_probe.h"
#include "explorer/measure/mixed_floor.h"
#include "explorer/measure/recheck.h"
#include "libs/core/files.h"
#include "libs/exec/assignment.h"
#include "libs/exec/executor.h"
#include "libs/ops/thread_pool.h"
#include "libs/exec/backends.h"
#include "libs/zoo/zoo_builder.h"

using namespace lw;

namespace {
const testing::ProfiledNet& tiny() {
  static const testing::ProfiledNet t = [] {
    NetBuilder b("tiny_bench", Shape{1, 8, 14, 14});
    int x = b.act(b.conv(0, 16, 3), LayerKind::kRelu);
    int y = b.act(b.conv(x, 16, 3, 1, 1, 16), LayerKind::kRelu6);
    x = b.add(x, y);
    x = b.conv(x, 24, 1, 1, 0);
    b.fc(b.flatten(b.global_avg_pool(x)), 10);
    Network net = b.finish();
    init_random_weights(net, 5);
    return testing::profiled(std::move(net));
  }();
  return t;
}

std::vector<BenchRow> bench(int cap, std::vector<BenchStep>* steps, const Lut& lut = tiny().lut,
                            const ProfileOptions* recheck = nullptr) {
  BenchOptions o;
  o.recheck = recheck;
  o.registry = &default_registry();
  o.rounds = 3;
  o.calibration_samples = 2;
  std::vector<BenchRow> rows;
  Status s = bench_network(tiny().net, lut, cap, o, &rows, steps);
  REQUIRE_MESSAGE(s.is_ok(), s.message());
  fill_speedups(&rows);
  return rows;
}
}  // namespace

TEST_CASE("every deployment is measured, and the f32 ones compute what ref-fp32 computes") {
  for (int cap : {1, 2}) {
    CAPTURE(cap);
    std::vector<BenchStep> steps;
    std::vector<BenchRow> rows = bench(cap, &steps);
    REQUIRE(rows.size() == baseline_labels().size());
    for (const BenchRow& r : rows) {
      CAPTURE(r.label);
      REQUIRE(r.status == "ok");
      CHECK(r.rounds == 3);
      CHECK(r.measured_ms > 0);
      CHECK(r.min_ms <= r.measured_ms);
      CHECK(r.timed_ms > 0);  // the step-timed run, end to end: its steps and the overhead
      CHECK(r.steps >= r.conversions);
      if (r.label.find("int8") == std::string::npos && r.label != "opt-mixed") CHECK(r.sqnr_db > 60);  // f32 deployments only
    }
    CHECK(!steps.empty());
    for (const BenchStep& s : steps) {
      CHECK(s.mean_ms > 0);
      CHECK(parse_thread_pool(s.pool).has_value());
      if (s.threads == 1) CHECK(s.pool == "caller");
      CHECK(s.rounds == 3);
      CHECK(s.alone_rounds <= s.rounds);
      if (s.threads == 1) CHECK(s.alone_rounds == 0);  // no cpu1 half to take back
    }
    CHECK(bench_steps_csv(steps).rfind("model,threads,deployment,step,layer,name,conversion,measured_ms,lut_ms,"
                                       "recheck_ms,mean_ms,pool,rounds,alone_rounds\n", 0) == 0);
  }
}

TEST_CASE("a thread cap of 1 keeps every step, conversions included, on thread set 1") {
  std::vector<BenchStep> steps;
  bench(1, &steps);
  for (const BenchStep& s : steps) {
    CAPTURE(s.label);
    CAPTURE(s.name);
    CHECK(s.name.find("_t2") == std::string::npos);
  }
}

TEST_CASE("speed-ups are ratios of the measured medians") {
  std::vector<BenchStep> steps;
  std::vector<BenchRow> rows = bench(2, &steps);
  const BenchRow* ref = nullptr;
  const BenchRow* best = nullptr;
  for (const BenchRow& r : rows) {
    if (r.label == "ref-fp32") ref = &r;
    if (r.label == r.best_single) best = &r;
  }
  REQUIRE(ref);
  REQUIRE(best);
  for (const BenchRow& r : rows) {
    CAPTURE(r.label);
    CHECK(r.vs_ref == doctest::Approx(ref->measured_ms / r.measured_ms));
    CHECK(r.vs_best_single == doctest::Approx(best->measured_ms / r.measured_ms));
    for (const char* single : kBestSingleLabels)
      if (r.label == single) CHECK(r.measured_ms >= best->measured_ms);
  }
  std::string csv = bench_csv(rows);
  CHECK(std::count(csv.begin(), csv.end(), '\n') == int(rows.size()) + 1);
  std::string md = bench_markdown(rows, "# test");
  CHECK(md.find("| tiny_bench | 2 |") != std::string::npos);
}

TEST_CASE("a recheck times the implementations again: a stale LUT's prediction is corrected, the LUT's kept") {
  // A LUT ten times too slow (a machine that got faster since profiling): the rechecked
  // prediction must come back to the real timings, the prediction itself keeps the LUT's.
  Lut stale = tiny().lut;
  for (LutLayer& l : stale.layers)
    for (Impl& m : l.impls) m.latency_ms.scale(10);
  // A median that one preemption cannot move. A recheck times with the LUT's run counts
  // (recheck_options), so they are set in the LUT: set in the options, they went unused and
  // the recheck took the tiny LUT's 2 runs (CI, 2026-12-07: one step 4x its real time).
  nlohmann::json protocol = nlohmann::json::parse(stale.protocol_json);
  protocol["runs"] = protocol["max_runs"] = 5;
  stale.protocol_json = protocol.dump();
  const ProfileOptions recheck = testing::quick_profile_options();
  REQUIRE(recheck_options(recheck, stale).protocol.runs == 5);
  std::vector<BenchStep> steps, fresh_steps;
  std::vector<BenchRow> rows = bench(2, &steps, stale, &recheck), fresh = bench(2, &fresh_steps);
  REQUIRE(rows.size() == fresh.size());
  for (size_t k = 0; k < rows.size(); ++k) {
    const BenchRow& r = rows[k];
    CAPTURE(r.label);
    REQUIRE(r.status == "ok");
    CHECK(fresh[k].recheck_ms == 0);  // not asked for
    CHECK(r.recheck_ms > 0);
    CHECK(r.recheck_ms < r.predicted_ms);  // (conversions and hand-offs were not made stale)
  }
  double lut_sum = 0, recheck_sum = 0;
  for (const BenchStep& s : steps) {
    CAPTURE(s.name);
    if (s.conversion) {
      CHECK(s.recheck_ms == -1);
      continue;
    }
    CHECK(s.recheck_ms > 0);
    lut_sum += s.lut_ms;
    recheck_sum += s.recheck_ms;
  }
  CHECK(lut_sum > 0);
  INFO("stale LUT sum " << lut_sum << " ms, rechecked " << recheck_sum << " ms");
  CHECK(recheck_sum < lut_sum / 3);
  for (const BenchStep& s : fresh_steps) CHECK(s.recheck_ms == -1);
  CHECK(bench_csv(rows).find(",recheck_ms,") != std::string::npos);
}

TEST_CASE("a recheck refuses what the LUT or the registry does not hold, and replaces only what it names") {
  const Network& net = tiny().net;
  const ProfileOptions o = testing::quick_profile_options();
  Lut lut = tiny().lut;
  CHECK(remeasure_impls(net, default_registry(), o, {{1, "no_such_impl"}}, &lut).code() == StatusCode::kInvalidArgument);
  CHECK(remeasure_impls(net, default_registry(), o, {{99, lut.layers[1].impls[0].name}}, &lut).code() ==
        StatusCode::kInvalidArgument);
  const Impl* target = nullptr;
  for (const Impl& m : lut.layers[1].impls)
    if (m.ok() && !target) target = &m;
  REQUIRE(target);
  const std::string name = target->name;
  for (Impl& m : lut.layers[1].impls) m.latency_ms.median = m.latency_ms.mean = 1e6;  // an impossible figure
  REQUIRE(remeasure_impls(net, default_registry(), o, {{1, name}}, &lut).is_ok());
  for (const Impl& m : lut.layers[1].impls) {
    CAPTURE(m.name);
    if (m.name == name) CHECK((m.latency_ms.median > 0 && m.latency_ms.median < 1e3));
    else CHECK(m.latency_ms.median == 1e6);
  }
}

TEST_CASE("capping a LUT at one thread removes thread-set-2 detours from conversion chains") {
  // Make every converter touching thread set 2 free, so the profiler-style chains detour
  // through it wherever a conversion is needed.
  Lut lut = tiny().lut;
  for (ConverterCosts& cc : lut.converters)
    for (auto& [name, ms] : cc.ms)
      if (name.find("_t2") != std::string::npos) ms = 0;
      else ms += 1;
  Lut uncapped = cap_lut_threads(lut, 2, default_registry());
  int detours = 0;
  for (const Conversion& c : uncapped.conversions)
    if (lut.formats[c.from_format].threads == 1 && lut.formats[c.to_format].threads == 1)
      for (const std::string& step : c.chain) detours += step.find("_t2") != std::string::npos;
  REQUIRE(detours > 0);  // otherwise this test shows nothing
  Lut capped = cap_lut_threads(lut, 1, default_registry());
  REQUIRE(!capped.conversions.empty());
  for (const Conversion& c : capped.conversions) {
    CHECK(capped.formats[c.from_format].threads == 1);
    CHECK(c.chain_ms >= 1);  // every remaining converter costs at least 1
    for (const std::string& step : c.chain) CHECK(step.find("_t2") == std::string::npos);
  }
  for (const LutLayer& l : capped.layers)
    for (const Impl& m : l.impls) CHECK(m.threads == 1);
  // bench leaves out the 2-thread block of a LUT without 2-thread implementations.
  CHECK(lut_has_thread_set(lut, 1));
  CHECK(lut_has_thread_set(lut, 2));
  CHECK(lut_has_thread_set(capped, 1));
  CHECK_FALSE(lut_has_thread_set(capped, 2));
}

namespace {
// From the names, apart from the executor: a layer step's pool is its library's (oneDNN's,
// LibTorch's and XNNPACK's: libgomp's team; the native kernels' and OpenBLAS's:
// native_kernels_pool()); a 2-thread conversion runs on the pool of the layer step that
// reads it (the last one's for the network output).
std::string pool_of(const std::vector<ExecStep>& steps, size_t k) {
  size_t r = k;
  while (r < steps.size() && steps[r].conversion) ++r;
  if (r == steps.size())
    for (r = k; steps[r].conversion && r > 0;) --r;
  const std::string& name = steps[r].name;
  for (const char* lib : {"xnnpack", "torch", "onednn"})
    if (name.find(std::string("_") + lib + "_") != std::string::npos) return "openmp";
  return to_string(native_kernels_pool());
}
}  // namespace

TEST_CASE("2-thread steps park their pool's workers exactly where the next 2-thread step changes pool") {
  // Native kernels on our own worker: two pools alternate (XNNPACK's steps are on libgomp's
  // team, and by default the native kernels' too).
  ScopedNativeKernelsPool own(ThreadPoolId::kNative);
  const Network& net = tiny().net;
  std::vector<ImplDesc> mixed, native;
  REQUIRE(library_assignment(net, default_registry(), Library::kXnnpack, 2, &mixed).is_ok());
  REQUIRE(library_assignment(net, default_registry(), Library::kNative, 1, &native).is_ok());
  PlanOptions po;
  po.registry = &default_registry();
  std::unique_ptr<Executor> a, b;
  REQUIRE(Executor::plan(net, mixed, po, &a).is_ok());
  REQUIRE(Executor::plan(net, native, po, &b).is_ok());
  std::vector<size_t> t2;
  for (size_t k = 0; k < a->steps().size(); ++k)
    if (a->steps()[k].name.find("_t2") != std::string::npos && a->steps()[k].name.rfind("_t2") + 3 == a->steps()[k].name.size())
      t2.push_back(k);
  int parks = 0;
  for (size_t k = 0; k < a->steps().size(); ++k) {
    const ExecStep& s = a->steps()[k];
    CAPTURE(s.name);
    auto it = std::find(t2.begin(), t2.end(), k);
    if (it == t2.end()) {
      CHECK(!s.parks_pool);
      continue;
    }
    const size_t next = *(it + 1 == t2.end() ? t2.begin() : it + 1);
    CHECK(s.parks_pool == (pool_of(a->steps(), next) != pool_of(a->steps(), k)));
    parks += s.parks_pool;
  }
  REQUIRE(parks > 0);  // the tiny net alternates xnnpack and native (flatten, conversions)
  // Parked workers wake for the next job: repeated runs still compute the same output.
  Tensor x = fidelity_inputs(net, 1)[0], ya, yb;
  REQUIRE(b->run(x, &yb).is_ok());
  for (int r = 0; r < 5; ++r) {
    REQUIRE(a->run(x, &ya).is_ok());
    for (int64_t i = 0; i < yb.shape().elements(); ++i) CHECK(ya.f32()[i] == doctest::Approx(yb.f32()[i]).epsilon(1e-3));
  }
}

TEST_CASE("a 2-thread deployment keeps LibTorch on one thread count") {
  std::vector<BenchStep> steps;
  bench(2, &steps);
  std::map<std::string, std::set<char>> torch_threads;  // deployment -> thread sets of its torch steps
  for (const BenchStep& s : steps)
    if (!s.conversion && s.name.find("_torch_") != std::string::npos) torch_threads[s.label].insert(s.name.back());
  REQUIRE(torch_threads.count("torch-nchw"));
  for (const auto& kv : torch_threads) {
    // Named copies: clang 14 cannot capture structured bindings in doctest's INFO lambdas.
    const auto& label = kv.first;
    const auto& sets = kv.second;
    CAPTURE(label);
    CHECK(sets.size() == 1);
  }
}

TEST_CASE("planning from minima replaces every usable implementation's median by its minimum") {
  Lut m = lut_with_min_latency(tiny().lut);
  int changed = 0;
  for (size_t i = 0; i < m.layers.size(); ++i)
    for (size_t k = 0; k < m.layers[i].impls.size(); ++k) {
      const Impl &a = tiny().lut.layers[i].impls[k], &b = m.layers[i].impls[k];
      if (!a.ok() || a.latency_ms.min <= 0) continue;
      CHECK(b.latency_ms.median == a.latency_ms.min);
      changed += a.latency_ms.median != a.latency_ms.min;
    }
  CHECK(changed > 0);
}

TEST_CASE("planning from medians drops the means a profiled LUT records") {
  Lut m = lut_with_median_latency(tiny().lut);
  int had_mean = 0;
  for (size_t i = 0; i < m.layers.size(); ++i)
    for (size_t k = 0; k < m.layers[i].impls.size(); ++k) {
      const Impl &a = tiny().lut.layers[i].impls[k], &b = m.layers[i].impls[k];
      had_mean += a.ok() && a.latency_ms.mean > 0;
      CHECK(b.latency_ms.cost_ms() == a.latency_ms.median);
      CHECK(b.latency_ms.median == a.latency_ms.median);
    }
  CHECK(had_mean > 0);  // (the profiler records them)
}

TEST_CASE("parallel_for covers every index exactly once whoever runs the worker's half") {
  // The caller takes the worker's half back when the worker has not started it (parked,
  // or kept off cpu1); either way each index runs once and nothing runs after the return.
  std::vector<int> hits(10007);
  for (int rep = 0; rep < 2000; ++rep) {
    if (rep % 3 == 0) park_thread_set_worker();
    std::fill(hits.begin(), hits.end(), 0);
    int64_t n = 1 + rep * 5 % int64_t(hits.size());
    parallel_for(2, n, 1 + rep % 7, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) ++hits[i];
    });
    int wrong = 0;
    for (int64_t i = 0; i < n; ++i) wrong += hits[i] != 1;
    REQUIRE(wrong == 0);
  }
}

TEST_CASE("on_each_cpu runs each CPU's share on that CPU, the worker parked before or not") {
  // parallel_for's caller takes a parked worker's share back; the cold preparation must not.
  ScopedPin pin;  // the caller on cpu0, as the profiler's
  for (int rep = 0; rep < 200; ++rep) {
    if (rep % 2 == 0) park_thread_set_worker();
    // Both shares run at once: the count must be atomic (a plain int lost one in CI).
    int cpu_of[2] = {-2, -2};
    std::atomic<int> calls{0};
    on_each_cpu(2, [&](int64_t b, int64_t e) {
      for (int64_t k = b; k < e; ++k) cpu_of[k] = sched_getcpu(), ++calls;
    });
    REQUIRE(calls.load() == 2);
    if (available_thread_set_cpus() > 1) {
      CHECK(cpu_of[0] == thread_set_cpu(0));
      CHECK(cpu_of[1] == thread_set_cpu(1));
    }
  }
  int calls = 0;
  on_each_cpu(1, [&](int64_t b, int64_t e) { calls += int(e - b); });
  CHECK(calls == 1);
}

// opt-mixed keeps its accuracy floor: at the default floor what it returns was checked and
// passes; under a floor only f32 can reach (90 dB: bf16 and int8 lose far more) every
// reduced-precision layer is promoted and the deployment is no faster in the LUT.
TEST_CASE("opt-mixed: the deployment kept passes the floor, and a floor only f32 reaches promotes to f32") {
  // Reduced precision made cheap in the LUT so that the optimum uses it on this tiny net
  // (the kernels that run are the real ones). Format conversions are made cheap too: the
  // quantise and dequantise steps around a reduced layer are native code, which a sanitizer
  // build slows several times, and on a slower machine they alone kept the optimum in f32.
  testing::ProfiledNet t{tiny().net, tiny().lut};
  for (LutLayer& l : t.lut.layers)
    for (Impl& m : l.impls)
      if (m.dtype != DType::kF32) m.latency_ms.scale(0.01);
  for (Conversion& c : t.lut.conversions) {
    c.chain_ms *= 0.01;
    if (c.direct_ms > 0) c.direct_ms *= 0.01;
  }
  for (ConverterCosts& c : t.lut.converters)
    for (auto& named : c.ms) named.second *= 0.01;
  DeploymentOptions d;
  d.registry = &default_registry();
  d.lut = &t.lut;
  std::vector<Tensor> samples;
  REQUIRE(calibration_samples(t.net, 2, &samples).is_ok());
  REQUIRE(calibrate_network(t.net, default_registry(), samples, &d.quant).is_ok());
  auto planner = [](const Lut& sub, NamedDeployment* out) { return baseline_deployment(sub, "opt-mixed", 2, out); };
  NamedDeployment fastest;
  REQUIRE(planner(t.lut, &fastest).is_ok());
  int reduced = 0;  // layers of the unconstrained optimum below f32
  for (size_t i = 1; i < t.lut.layers.size(); ++i)
    for (const Impl& m : t.lut.layers[i].impls)
      if (m.name == fastest.names[i]) reduced += m.dtype != DType::kF32;
  REQUIRE(reduced > 0);  // (else the test shows nothing)

  MixedFloorResult f;
  Status s = plan_mixed_under_floor(t.net, t.lut, planner, d, MixedFloor{}, &f);
  REQUIRE_MESSAGE(s.is_ok(), s.message());
  MESSAGE("default floor: " << f.note);
  CHECK(f.metric_name == "sqnr_db");
  CHECK(f.metric >= kMixedMinSqnrDb);
  if (f.unconstrained_metric >= kMixedMinSqnrDb) CHECK(f.deployment.names == fastest.names);

  MixedFloor strict;
  strict.min_sqnr_db = 90;
  s = plan_mixed_under_floor(t.net, t.lut, planner, d, strict, &f);
  REQUIRE_MESSAGE(s.is_ok(), s.message());
  MESSAGE("90 dB floor: " << f.note);
  CHECK(f.metric >= 90);
  CHECK(f.unconstrained_metric < 90);
  CHECK(f.promoted >= 1);
  CHECK(f.deployment.predicted_ms >= fastest.predicted_ms - 1e-9);
  for (size_t i = 1; i < t.lut.layers.size(); ++i)
    for (const Impl& m : t.lut.layers[i].impls)
      if (m.name == f.deployment.names[i]) CHECK_MESSAGE(m.dtype == DType::kF32, m.name);
}

TEST_CASE("release_all_pools parks every registered pool (bench and the filter call it before each deployment)") {
  // Two unused pool ids with counting releases: every registered release runs once per call.
  static int calls[2] = {0, 0};
  register_pool_release(14, [] { ++calls[0]; });
  register_pool_release(15, [] { ++calls[1]; });
  release_all_pools();
  release_all_pools();
  CHECK(calls[0] == 2);
  CHECK(calls[1] == 2);
  register_pool_release(14, nullptr);
  register_pool_release(15, nullptr);
  release_all_pools();
  CHECK(calls[0] == 2);
}

TEST_CASE("bench: a LUT file that does not read is an error naming it, and is not profiled over") {
  const std::string path = "/tmp/lw_bench_cut_" + std::to_string(::getpid()) + ".lut.json";
  const std::string text = lut_to_json(tiny().lut);
  REQUIRE(write_file_atomic(path, text.substr(0, text.size() / 2)).is_ok());
  Lut lut;
  bool profiled = true;
  Status s = lut_for_bench(tiny().net, default_registry(), path, testing::quick_profile_options(), &lut, &profiled);
  CHECK_FALSE(s.is_ok());
  CHECK(s.message().find(path) != std::string::npos);
  CHECK(s.message().find("move it away") != std::string::npos);
  CHECK_FALSE(profiled);
  std::string now;
  REQUIRE(read_file(path, &now).is_ok());
  CHECK(now == text.substr(0, text.size() / 2));
  std::remove(path.c_str());
}

TEST_CASE("bench --reprofile: a LUT that matches is profiled anew and replaced") {
  const std::string path = "/tmp/lw_bench_reprofile_" + std::to_string(::getpid()) + ".lut.json";
  const std::string text = lut_to_json(tiny().lut);
  REQUIRE(write_file_atomic(path, text).is_ok());
  Lut lut;
  bool profiled = true;
  REQUIRE(
      lut_for_bench(tiny().net, default_registry(), path, testing::quick_profile_options(), &lut, &profiled).is_ok());
  CHECK_FALSE(profiled);  // without it the matching LUT is reused as it is
  REQUIRE(lut_for_bench(tiny().net, default_registry(), path, testing::quick_profile_options(), &lut, &profiled, true)
              .is_ok());
  CHECK(profiled);
  std::string now;
  REQUIRE(read_file(path, &now).is_ok());
  CHECK(now != text);  // (fresh timings)
  Lut back;
  CHECK(lut_from_json(now, path, &back).is_ok());
  std::remove(path.c_str());
}

TEST_CASE("the speed probe: the profile keeps its median per thread set, and a LUT rescaled to another speed") {
  const Lut& lut = tiny().lut;  // profiled on thread sets 1 and 2 (tests/tiny_profile.h)
  REQUIRE(lut.runtime.speed_ms.size() == size_t(std::min(2, available_thread_set_cpus())));
  for (double ms : lut.runtime.speed_ms) CHECK(ms > 0);
  CHECK(probe_speed_ms(3) == 0);  // no such thread set: no figure, never a made-up one
  Lut back;
  REQUIRE(lut_from_json(lut_to_json(lut), "speed.json", &back).is_ok());
  CHECK(back.runtime.speed_ms == lut.runtime.speed_ms);
  std::string text = lut_to_json(lut);
  text.replace(text.find("\"t1\""), 4, "\"t0\"");
  const Status bad = lut_from_json(text, "bad-speed.json", &back);
  CHECK(bad.message().find("bad-speed.json") != std::string::npos);
  CHECK(bad.message().find("/runtime/speed_ms/t0") != std::string::npos);

  // Profiled at 1.0 / 2.0 ms, now 1.5 / 1.0: thread set 1 runs 1.5x slower, 2 twice as fast.
  Lut then = lut;
  then.runtime.speed_ms = {1.0, 2.0};
  const Lut now = lut_at_speed(then, {1.5, 1.0});
  for (size_t i = 0; i < then.layers.size(); ++i)
    for (size_t k = 0; k < then.layers[i].impls.size(); ++k) {
      const Impl &a = then.layers[i].impls[k], &b = now.layers[i].impls[k];
      CAPTURE(a.name);
      const double f = a.threads == 1 ? 1.5 : 0.5;
      CHECK(b.latency_ms.median == doctest::Approx(a.latency_ms.median * f));
      CHECK(b.latency_ms.min == doctest::Approx(a.latency_ms.min * f));
    }
  REQUIRE(!then.conversions.empty());
  for (size_t c = 0; c < then.conversions.size(); ++c) {
    const Conversion& a = then.conversions[c];
    const int t = std::max(then.formats[a.from_format].threads, then.formats[a.to_format].threads);
    CHECK(now.conversions[c].chain_ms == doctest::Approx(a.chain_ms * (t == 1 ? 1.5 : 0.5)));
  }
  CHECK(now.runtime.input_copy_ms == doctest::Approx(then.runtime.input_copy_ms * 1.5));
  REQUIRE(now.runtime.handoffs.size() == then.runtime.handoffs.size());
  for (size_t i = 0; i < now.runtime.handoffs.size(); ++i) CHECK(now.runtime.handoffs[i].ms == then.runtime.handoffs[i].ms);
  Lut old = lut;  // a LUT from before the probe: nothing to rescale by
  old.runtime.speed_ms.clear();
  CHECK(lut_at_speed(old, {1.5, 1.0}).layers[1].impls[0].latency_ms.median == old.layers[1].impls[0].latency_ms.median);
}

TEST_CASE("bench predicts at the speed it probes between rounds") {
  // At a thread cap of 1 every step and copy runs on thread set 1, so the prediction at
  // today's speed is the LUT's prediction times the probe's ratio for that set.
  std::vector<BenchStep> steps;
  for (const BenchRow& r : bench(1, &steps)) {
    CAPTURE(r.label);
    REQUIRE(r.status == "ok");
    CHECK(r.speed_ratio_t1 > 0);
    CHECK(r.speed_ratio_t2 == 0);  // thread set 2 was not probed under a cap of 1
    CHECK(r.at_speed_ms == doctest::Approx(r.predicted_ms * r.speed_ratio_t1));
  }
  Lut old = tiny().lut;
  old.runtime.speed_ms.clear();
  for (const BenchRow& r : bench(2, &steps, old)) {
    CHECK(r.at_speed_ms == 0);
    CHECK(r.speed_ratio_t1 == 0);
  }
  const std::vector<BenchRow> two = bench(2, &steps);
  CHECK((two[0].speed_ratio_t2 > 0) == (available_thread_set_cpus() > 1));
  CHECK(bench_csv(two).find(",at_speed_ms,speed_ratio_t1,speed_ratio_t2,") != std::string::npos);
  CHECK(bench_markdown(two, "# t").find("speed probe, now / then") != std::string::npos);
  std::vector<BenchRow> drift = two;  // the report asks for a new profile past 10 % either way
  for (double k : {1.05, 0.95, 1.2, 0.85}) {
    CAPTURE(k);
    for (BenchRow& r : drift) r.speed_ratio_t1 = k, r.speed_ratio_t2 = 1;
    CHECK((bench_markdown(drift, "# t").find("more than 10 % off: profile again (--reprofile)") != std::string::npos) ==
          (std::abs(k - 1) > 0.1));
  }
}

TEST_CASE("the core link: probed with the speed on two CPUs, kept by the LUT, reported by bench") {
  const double ns = probe_core_link_ns();
  if (available_thread_set_cpus() < 2) {
    CHECK(ns == 0);  // no second CPU: no figure, never a made-up one
  } else {
    CHECK(ns > 1);    // a round trip between two cores costs at least a few cycles,
    CHECK(ns < 1e6);  // and far less than a scheduler slice
  }
  CHECK(!core_link_far(0, 60));
  CHECK(!core_link_far(110, 60));
  CHECK(core_link_far(340, 60));
  CHECK(!core_link_far(340, 0));  // a LUT from before the probe
  CHECK(core_link_moved(340, 60));  // either way
  CHECK(core_link_moved(60, 340));
  CHECK(!core_link_moved(110, 60));
  CHECK(!core_link_moved(60, 110));
  CHECK(!core_link_moved(0, 340));
  CHECK(two_thread_steps_moved(true, 340, 60));
  CHECK(!two_thread_steps_moved(false, 340, 60));  // 1-thread steps: the distance does not matter
  CHECK(!two_thread_steps_moved(true, 110, 60));

  const Lut& lut = tiny().lut;  // profiled on thread sets 1 and 2
  CHECK((lut.runtime.core_link_ns > 0) == (available_thread_set_cpus() > 1));
  Lut withlink = lut, back;
  withlink.runtime.core_link_ns = 61.5;
  REQUIRE(lut_from_json(lut_to_json(withlink), "link.json", &back).is_ok());
  CHECK(back.runtime.core_link_ns == 61.5);
  std::string text = lut_to_json(withlink);
  text.replace(text.find("61.5"), 4, "-1");
  const Status bad = lut_from_json(text, "bad-link.json", &back);
  CHECK(bad.message().find("bad-link.json") != std::string::npos);
  CHECK(bad.message().find("/runtime/core_link_ns") != std::string::npos);

  std::vector<BenchStep> steps;
  for (const BenchRow& r : bench(1, &steps)) CHECK(r.core_link_ns == 0);  // thread set 2 not probed under a cap of 1
  std::vector<BenchRow> two = bench(2, &steps, withlink);
  for (const BenchRow& r : two) {
    CHECK((r.core_link_ns > 0) == (available_thread_set_cpus() > 1));
    CHECK(r.core_link_profile_ns == 61.5);
    CHECK(r.core_link_far_rounds >= 0);
    CHECK(r.core_link_far_rounds <= r.rounds);
  }
  for (BenchRow& r : two) r.core_link_ns = 60, r.core_link_far_rounds = 0, r.shared_core_rounds = 0;  // (a host spell would add its clause)
  const std::string near = bench_markdown(two, "# t");
  CHECK(near.find("Cores 0 and 1, a cache line's round trip: 60 ns during the rounds (median), 62 ns in the profile\n") !=
        std::string::npos);
  for (BenchRow& r : two) r.core_link_far_rounds = 3;
  CHECK(bench_markdown(two, "# t").find("more than 2x farther in 3 of ") != std::string::npos);
  CHECK(bench_csv(two).find(
            ",core_link_ns,core_link_profile_ns,core_link_far_rounds,timed_ms,near_rounds,measured_near_ms,near_wait_s,"
            "shared_write_ms,shared_core_rounds,streamed_ms\n") !=
        std::string::npos);
  for (const BenchRow& r : two) {
    CHECK(r.near_rounds >= 0);
    CHECK(r.near_rounds <= r.rounds);
    CHECK((r.measured_near_ms > 0) == (r.near_rounds >= kMinNearRounds));
  }
  // The near rounds' line: a figure per deployment against its prediction, or too few.
  for (BenchRow& r : two) r.near_rounds = 4, r.measured_near_ms = 1.1 * r.predicted_ms;
  const std::string md = bench_markdown(two, "# t");
  CHECK(md.find("Over the 4 rounds with the cores as close as in the profile") != std::string::npos);
  CHECK(md.find(two[0].label + " ") != std::string::npos);
  CHECK(md.find("(+10.0 % vs predicted)") != std::string::npos);
  for (BenchRow& r : two) r.near_rounds = 2, r.measured_near_ms = 0;
  CHECK(bench_markdown(two, "# t").find("Only 2 round(s) ran with the cores as close") != std::string::npos);
  for (BenchRow& r : two) r.core_link_far_rounds = 0;
  CHECK(bench_markdown(two, "# t").find("as close as in the profile") == std::string::npos);
}

TEST_CASE("rounds_between: a round between two probes for which the test holds") {
  auto apart = [](double ratio) { return !cores_shared(ratio); };
  CHECK(rounds_between({1.0, 1.0, 1.9, 1.0, 1.0}, apart) == std::vector<bool>{true, false, false, true});
  CHECK(rounds_between({1.9, 1.0}, apart) == std::vector<bool>{false});
  CHECK(rounds_between({1.0}, apart).empty());  // no round without a probe after it
  CHECK(rounds_between({}, apart).empty());
}

TEST_CASE("rounds_near: a round counts when the probes before and after it are both near") {
  // Profile 100 ns: 2x farther is far. Probes before rounds 0..3, then the one after the last.
  const std::vector<double> before = {90, 110, 350, 120};
  CHECK(rounds_near(before, 95, 100, 4) == std::vector<bool>{true, false, false, true});
  CHECK(rounds_near(before, 400, 100, 4) == std::vector<bool>{true, false, false, false});
  CHECK(rounds_near({90, 0}, 95, 100, 2) == std::vector<bool>{false, false});  // a probe that did not run
  CHECK(rounds_near(before, 95, 0, 4).empty());    // a LUT from before the probe
  CHECK(rounds_near(before, 0, 100, 4).empty());   // no probe after the last round
  CHECK(rounds_near({90, 110}, 95, 100, 3).empty());  // fewer probes than rounds
  CHECK(rounds_near({}, 95, 100, 0).empty());
}

// Ref-FP32 and opt-fp32 over three rounds: the probe tests' bench.
BenchOptions three_rounds_options() {
  BenchOptions o;
  o.registry = &default_registry();
  o.rounds = 3;
  o.calibration_samples = 2;
  o.labels = {to_string(Baseline::kRefFp32), to_string(Baseline::kOptFp32)};
  return o;
}

TEST_CASE("bench --near-wait: a 2-thread block's rounds wait for the cores to be as near as in the profile") {
  if (available_thread_set_cpus() < 2) return;  // no thread set 2: nothing to wait for
  Lut withlink = tiny().lut;
  withlink.runtime.core_link_ns = 100;
  // The host keeps the cores 400 ns apart for the first two probes, 100 ns after.
  auto run = [&](double wait_s) {
    auto calls = std::make_shared<int>(0);
    BenchOptions o = three_rounds_options();
    o.near_wait_s = wait_s;
    o.core_link_probe = [calls] { return (*calls)++ < 2 ? 400.0 : 100.0; };
    std::vector<BenchRow> rows;
    std::vector<BenchStep> steps;
    Status s = bench_network(tiny().net, withlink, 2, o, &rows, &steps);
    REQUIRE_MESSAGE(s.is_ok(), s.message());
    return rows;
  };
  const std::vector<BenchRow> waited = run(5);
  REQUIRE(waited.size() == 2);
  for (const BenchRow& r : waited) {
    CAPTURE(r.label);
    REQUIRE(r.status == "ok");
    CHECK(r.near_wait_s >= 0.9);  // two pauses of 0.5 s before the first round
    CHECK(r.near_wait_s < 5);
    CHECK(r.core_link_far_rounds == 0);
    CHECK(r.near_rounds == 3);
  }
  CHECK(bench_markdown(waited, "# t").find("s before rounds for them to be near") != std::string::npos);
  for (const BenchRow& r : run(0)) {  // off: the first two rounds run far
    CAPTURE(r.label);
    CHECK(r.near_wait_s == 0);
    CHECK(r.core_link_far_rounds == 2);
    CHECK(r.near_rounds == 1);
  }
}

TEST_CASE("bench: the rounds of a 2-thread block next to a pair probe that read the two cores as one are counted") {
  if (available_thread_set_cpus() < 2) return;  // no thread set 2: nothing is probed
  // Probes: before rounds 1, 2 and 3, then after the last; the second reads one core, so
  // rounds 1 and 2 (it sits between them) ran next to a shared-core spell.
  auto run = [&](std::function<double(int)> pair) {
    auto calls = std::make_shared<int>(0);
    BenchOptions o = three_rounds_options();
    o.core_link_probe = [] { return 100.0; };
    o.core_pair_probe = [calls, pair] { return pair((*calls)++); };
    std::vector<BenchRow> rows;
    std::vector<BenchStep> steps;
    Status s = bench_network(tiny().net, tiny().lut, 2, o, &rows, &steps);
    REQUIRE_MESSAGE(s.is_ok(), s.message());
    return rows;
  };
  const std::vector<BenchRow> rows = run([](int call) { return call == 1 ? 1.9 : 1.0; });
  REQUIRE(rows.size() == 2);
  for (const BenchRow& r : rows) CHECK(r.shared_core_rounds == 2);
  const std::string md = bench_markdown(rows, "# t");
  CHECK(md.find("the two computing as one core (pair probe > 1.5) next to 2 of 3 rounds") != std::string::npos);
  CHECK(bench_csv(rows).find(",2,0.0000\n") != std::string::npos);  // (shared_core_rounds, streamed_ms)
  for (const BenchRow& r : run([](int) { return 1.0; })) CHECK(r.shared_core_rounds == 0);
  for (const BenchRow& r : run([](int call) { return call == 3 ? 2.0 : 1.0; })) CHECK(r.shared_core_rounds == 1);  // after the last
}

TEST_CASE("step residuals: each deployment's step means summed by class against the LUT, the rest end to end") {
  auto step = [](const char* label, int threads, bool conversion, const char* pool, double mean, double lut) {
    BenchStep s;
    s.model = "m";
    s.label = label;
    s.threads = threads;
    s.conversion = conversion;
    s.pool = pool;
    s.mean_ms = mean;
    s.measured_ms = 99;  // the median: not what is summed
    s.lut_ms = lut;
    return s;
  };
  std::vector<BenchStep> steps = {
      step("opt-fp32", 2, false, "caller", 0.30, 0.10),  // a 1-thread step of a 2-thread deployment
      step("opt-fp32", 2, false, "openmp", 2.00, 1.90),
      step("opt-fp32", 2, false, "caller", 0.20, 0.10),
      step("opt-fp32", 2, true, "openmp", 0.05, 0.04),
      step("opt-int8", 2, false, "openmp", 1.00, 1.00),
      step("opt-int8", 2, false, "caller", 0.50, -1),  // no LUT figure: counted, not summed
  };
  const std::vector<StepResiduals> r = step_residuals(steps);
  REQUIRE(r.size() == 2);
  CHECK(r[0].label == "opt-fp32");
  CHECK(r[0].caller.steps == 2);
  CHECK(r[0].caller.measured_ms == doctest::Approx(0.50));
  CHECK(r[0].caller.lut_ms == doctest::Approx(0.20));
  CHECK(r[0].pool.steps == 1);
  CHECK(r[0].pool.measured_ms == doctest::Approx(2.00));
  CHECK(r[0].conversions.steps == 1);
  CHECK(r[0].conversions.lut_ms == doctest::Approx(0.04));
  CHECK(r[0].measured_ms() == doctest::Approx(2.55));
  CHECK(r[0].lut_ms() == doctest::Approx(2.14));
  CHECK(r[0].without_lut == 0);
  CHECK(r[1].label == "opt-int8");
  CHECK(r[1].without_lut == 1);
  CHECK(r[1].caller.steps == 0);

  BenchRow row;
  row.model = "m";
  row.threads = 2;
  row.label = "opt-fp32";
  row.status = "ok";
  row.predicted_ms = 2.20;
  row.shared_write_ms = 0.025;  // of the 0.06 the LUT figures leave: with the streamed inputs the rest charged is 0.025
  row.streamed_ms = 0.010;
  row.measured_ms = 2.70;
  const std::string md = bench_residuals_markdown({row}, steps);
  CHECK(md.find("| m | 2 | opt-fp32 | 2.200 | 2.700 | 2: 0.500 / 0.200 (+150 %) | 0.025 | 0.010 | 1: 2.000 / 1.900 (+5 %) | "
                "1: 0.050 / 0.040 (+25 %) | 0.150 / 0.025 |") != std::string::npos);
  CHECK(md.find("| m | 2 | opt-int8 | - | - |") != std::string::npos);  // no row, and a step without a figure
  CHECK(bench_residuals_markdown({row}, {}).empty());
}

TEST_CASE("a recheck computes before its runs as long as the LUT's profile did (none in older LUTs)") {
  ProfileOptions base;
  Lut lut;
  lut.protocol_json = R"({"cache":"cold-private-dirty","cores_before_run":"computing","computing_us":250})";
  CHECK(recheck_options(base, lut).protocol.computing_us == 250);
  lut.protocol_json = R"({"cache":"cold-private-dirty"})";
  CHECK(recheck_options(base, lut).protocol.computing_us == 0);
  CHECK(recheck_options(base, lut).protocol.big_weights_share == 0);  // nor aged its big weights
  lut.protocol_json = R"({"cache":"cold-private-dirty","weights_aged_from_shared_cache":0.5})";
  CHECK(recheck_options(base, lut).protocol.big_weights_share == 0.5);
}

TEST_CASE("a recheck times with the LUT's run counts, not the command's") {
  ProfileOptions quick;
  quick.protocol = quick_protocol();
  Lut lut;
  Protocol exhaustive;  // the paper's counts, no median_ci
  exhaustive.warmup = 2;
  lut.protocol_json = exhaustive.to_json().dump();
  const Protocol p = recheck_options(quick, lut).protocol;
  CHECK(p.warmup == 2);
  CHECK(p.runs == exhaustive.runs);
  CHECK(p.max_runs == exhaustive.max_runs);
  CHECK(p.max_seconds == exhaustive.max_seconds);
  CHECK(p.cv_threshold == exhaustive.cv_threshold);
  CHECK(p.median_ci == 0);
  // ... and a quick LUT rechecked by an exhaustive command keeps the quick counts
  ProfileOptions paper;
  lut.protocol_json = quick_protocol().to_json().dump();
  const Protocol q = recheck_options(paper, lut).protocol;
  CHECK(q.runs == quick_protocol().runs);
  CHECK(q.max_runs == quick_protocol().max_runs);
  CHECK(q.max_seconds == quick_protocol().max_seconds);
  CHECK(q.median_ci == quick_protocol().median_ci);
}
