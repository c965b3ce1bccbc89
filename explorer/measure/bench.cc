#include "explorer/measure/bench.h"

#include "env/device.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>

#include "env/cost.h"
#include "env/runtime_costs.h"
#include "env/speed_probe.h"
#include "explorer/measure/baselines.h"
#include "explorer/measure/deployment.h"
#include "explorer/measure/mixed_floor.h"
#include "explorer/measure/recheck.h"
#include "libs/data/fashion_mnist.h"
#include "libs/ops/thread_pool.h"

namespace lw {

namespace {

using Clock = std::chrono::steady_clock;

double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

double thread_cpu_ms() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

double median_of(std::vector<double> v) { return latency_stats(std::move(v)).median; }

double mean_of(const std::vector<double>& v) {
  double sum = 0;
  for (double x : v) sum += x;
  return v.empty() ? 0 : sum / double(v.size());
}

// A deployment being measured: its row, its executor and the samples of every round.
struct Trial {
  BenchRow row;
  std::vector<std::string> names;  // the LUT implementation of every layer
  std::unique_ptr<Executor> exec;
  std::vector<double> plain_ms, cpu_ms, timed_ms, overhead_ms;
  std::vector<std::vector<double>> step_ms;  // [step][round]
  std::vector<int> step_alone_rounds;        // [step]: rounds with a take-back (ExecStep::last_alone)
};

bool uses_int8(const std::vector<ImplDesc>& a) {
  for (const ImplDesc& d : a)
    if (d.dtype_in == DType::kI8 || d.dtype_out == DType::kI8) return true;
  return false;
}

// One torch thread count per deployment: at::set_num_threads costs milliseconds per switch
// (it rebuilds LibTorch's pthreadpool and clears oneDNN's primitive cache), which the LUT,
// timing each implementation alone, never sees. With both thread sets allowed, the
// baseline is solved twice, torch restricted to one set each time, and the cheaper kept.
Status one_torch_thread_count(const Lut& lut, const std::string& label, int max_threads, NamedDeployment* out) {
  if (max_threads < 2) return baseline_deployment(lut, label, max_threads, out);
  Status best = unsupported(label + ": no deployment");
  for (int t = 1; t <= max_threads; ++t) {
    Lut sub = restrict_lut(lut, [t](const LutLayer&, const Impl& m) { return m.library != "torch" || m.threads == t; });
    NamedDeployment nd;
    Status s = baseline_deployment(sub, label, max_threads, &nd);
    if (!s.is_ok()) {
      if (!best.is_ok()) best = s;
      continue;
    }
    if (!best.is_ok() || nd.predicted_ms < out->predicted_ms) *out = nd;
    best = Status::ok();
  }
  return best;
}

// Plans `label`; an unsupported baseline becomes a row with its reason, not an error.
Status plan_candidate(const Network& net, const Lut& lut, int max_threads, const std::string& label,
                      const BenchOptions& o, std::vector<QuantParams>* quant, Trial* c) {
  c->row.model = net.name;
  c->row.threads = max_threads;
  c->row.label = label;
  NamedDeployment nd;
  Status s = one_torch_thread_count(lut, label, max_threads, &nd);
  if (!s.is_ok()) {
    c->row.status = s.message();
    return s.code() == StatusCode::kUnsupported ? Status::ok() : s;
  }
  std::vector<ImplDesc> a;
  LW_RETURN_IF_ERROR(assignment_from_names(net, lut, nd.names, &a));
  if ((uses_int8(a) || label == to_string(Baseline::kOptMixed)) && quant->empty()) {
    std::vector<Tensor> samples;
    LW_RETURN_IF_ERROR(calibration_samples(net, o.calibration_samples, &samples));
    LW_RETURN_IF_ERROR(calibrate_network(net, *o.registry, samples, quant, o.calibration_method));
  }
  DeploymentOptions d;
  d.registry = o.registry;
  d.lut = &lut;
  d.quant = *quant;
  if (label == to_string(Baseline::kOptMixed)) {  // the mixed optimum that passes the accuracy floor
    MixedFloorResult f;
    auto planner = [&](const Lut& sub, NamedDeployment* out) { return one_torch_thread_count(sub, label, max_threads, out); };
    LW_RETURN_IF_ERROR(plan_mixed_under_floor(net, lut, planner, d, MixedFloor{}, &f));
    c->row.note = f.note;
    nd = f.deployment;
    LW_RETURN_IF_ERROR(assignment_from_names(net, lut, nd.names, &a));
  }
  c->row.predicted_ms = nd.predicted_ms;
  c->names = nd.names;
  if (!uses_int8(a)) d.quant.clear();
  LW_RETURN_IF_ERROR(plan_deployment(net, a, d, &c->exec));
  c->step_ms.assign(c->exec->steps().size(), {});
  c->step_alone_rounds.assign(c->exec->steps().size(), 0);
  return Status::ok();
}

// One round for one candidate: a discarded run (so the weights are as warm as in repeated
// inference, and the pools as the deployment leaves them, whatever ran before), a plain run
// (the reported figure) and a run with step timing (split into steps; its excess over the
// steps is the executor's overhead).
Status run_round(Trial& c, const Tensor& x, Tensor* y) {
  ScopedPin pin;  // once for the round's runs, not per run (libs/ops/thread_pool.h)
  Executor& e = *c.exec;
  release_all_pools();  // what the deployment before left spinning (the discarded run then leaves its own)
  LW_RETURN_IF_ERROR(e.run(x, y));
  double cpu0 = thread_cpu_ms();
  auto t0 = Clock::now();
  LW_RETURN_IF_ERROR(e.run(x, y));
  auto t1 = Clock::now();
  c.cpu_ms.push_back(thread_cpu_ms() - cpu0);
  c.plain_ms.push_back(ms_between(t0, t1));
  e.set_time_steps(true);
  t0 = Clock::now();
  Status s = e.run(x, y);
  t1 = Clock::now();
  e.set_time_steps(false);
  LW_RETURN_IF_ERROR(s);
  double sum = 0;
  for (size_t k = 0; k < e.steps().size(); ++k) {
    c.step_ms[k].push_back(e.steps()[k].last_ms);
    c.step_alone_rounds[k] += e.steps()[k].last_alone > 0;
    sum += e.steps()[k].last_ms;
  }
  const double timed = ms_between(t0, t1);
  c.timed_ms.push_back(timed);
  c.overhead_ms.push_back(timed - sum);
  return Status::ok();
}

void summarise(Trial& c) {
  LatencyStats st = latency_stats(c.plain_ms);
  BenchRow& r = c.row;
  r.measured_ms = st.median;
  r.min_ms = st.min;
  r.cv = st.cv;
  r.cpu_ms = median_of(c.cpu_ms);
  r.rounds = st.runs;
  r.timed_ms = median_of(c.timed_ms);
  r.overhead_ms = median_of(c.overhead_ms);
  r.overhead_pct = r.measured_ms > 0 ? 100 * r.overhead_ms / r.measured_ms : 0;
  const auto& info = c.exec->steps();
  r.steps = int(info.size());
  for (size_t k = 0; k < info.size(); ++k)
    if (info[k].conversion) {
      ++r.conversions;
      r.conversion_ms += median_of(c.step_ms[k]);
    }
  r.load_avg = load_average();
}

// The LUT's own figure for a step: the impl's median, or the converter's on that shape.
double lut_ms_of(const Lut& lut, const ExecStep& s) {
  if (s.layer < 0 || size_t(s.layer) >= lut.layers.size()) return -1;
  const LutLayer& l = lut.layers[s.layer];
  if (!s.conversion) {
    for (const Impl& m : l.impls)
      if (m.name == s.name) return m.latency_ms.cost_ms();
    return -1;
  }
  std::vector<std::vector<int64_t>> shapes;  // the converted tensor's (a layer's inputs may differ: SE mul)
  if (s.source >= 0 && size_t(s.source) < lut.layers.size()) shapes.push_back(lut.layers[s.source].out_shape);
  for (int p : l.inputs) shapes.push_back(lut.layers[p].out_shape);
  if (l.inputs.empty() || size_t(s.layer) + 1 == lut.layers.size()) shapes.push_back(l.out_shape);
  if (s.source >= 0) shapes.resize(1);
  for (const ConverterCosts& cc : lut.converters) {
    if (std::find(shapes.begin(), shapes.end(), cc.shape) == shapes.end()) continue;
    for (const auto& [name, ms] : cc.ms)
      if (name == s.name) return ms;
  }
  return -1;
}

// SQNR (dB) of every candidate's output against the first one's (ref-fp32 in label order):
// an int8 deployment is only worth its speed if its output stays close.
Status fill_sqnr(std::vector<Trial*>& live, const Tensor& x) {
  if (live.empty()) return Status::ok();
  Tensor ref, y;
  LW_RETURN_IF_ERROR(live[0]->exec->run(x, &ref));
  for (Trial* c : live) {
    LW_RETURN_IF_ERROR(c->exec->run(x, &y));
    double sig = 0, err = 0;
    for (int64_t i = 0; i < ref.shape().elements(); ++i) {
      double d = double(ref.f32()[i]) - y.f32()[i];
      sig += double(ref.f32()[i]) * ref.f32()[i];
      err += d * d;
    }
    c->row.sqnr_db = err > 0 ? 10 * std::log10(sig / err) : 999;
  }
  return Status::ok();
}

// The implementations every measured deployment runs, each once.
std::vector<std::pair<int, std::string>> implementations_of(const std::vector<Trial*>& live) {
  std::vector<std::pair<int, std::string>> which;
  for (const Trial* c : live)
    for (auto& w : layer_impls_of(*c->exec)) which.push_back(std::move(w));
  std::sort(which.begin(), which.end());
  which.erase(std::unique(which.begin(), which.end()), which.end());
  return which;
}

// Round r's share of the recheck: slice r of `which` timed again, alone, into `now`. Spread
// over the rounds, the recheck sees the same machine as the end-to-end runs: on a VM the
// host can slow both vCPUs' 2-thread work by 1.6x for tens of seconds at a time.
Status recheck_slice(const Network& net, const BenchOptions& o, const std::vector<std::pair<int, std::string>>& which,
                     int r, Lut* now) {
  const std::vector<std::pair<int, std::string>> slice = slice_of(which, r, o.rounds);
  if (slice.empty()) return Status::ok();
  return remeasure_impls(net, *o.registry, recheck_options(*o.recheck, *now), slice, now);
}

// Every measured deployment predicted by the same cost model from another LUT's figures
// (rechecked, or at today's speed) into `field` of its row.
Status predict_each(const Lut& lut, double BenchRow::*field, std::vector<Trial*>& live,
                    double (*cost)(const Problem&, const std::vector<int>&) = predict_latency_ms) {
  Problem p;
  LW_RETURN_IF_ERROR(compile_problem(lut, &p));
  for (Trial* c : live) {
    std::vector<int> idx = lut_indices(lut, c->names);
    if (std::count(idx.begin() + 1, idx.end(), -1)) return failed("recheck: a deployment left the LUT");
    c->row.*field = cost(p, idx);
  }
  return Status::ok();
}

// The median of a deployment's plain runs over the rounds the cores ran as close as in the
// profile (rounds_near), when there are kMinNearRounds of them: the figure a LUT profiled with
// close cores can predict. The median over every round stays the measurement.
void measure_near(const std::vector<bool>& near, Trial* c) {
  std::vector<double> ms;
  for (size_t r = 0; r < near.size() && r < c->plain_ms.size(); ++r)
    if (near[r]) ms.push_back(c->plain_ms[r]);
  c->row.near_rounds = int(ms.size());
  c->row.measured_near_ms = int(ms.size()) >= kMinNearRounds ? median_of(ms) : 0;
}

// The device's drift since profiling, from the probe timed before every round; and the
// cores' distance (the core link, probed before every round and after the last) against the
// profile's.
Status predict_at_speed(const Lut& lut, const SpeedSamples& now, double link_after, std::vector<Trial*>& live) {
  int far = 0;
  for (double ns : now.link_ns()) far += core_link_far(ns, lut.runtime.core_link_ns);
  const int rounds = live.empty() ? 0 : int(live[0]->plain_ms.size());
  const std::vector<bool> near = rounds_near(now.link_ns(), link_after, lut.runtime.core_link_ns, rounds);
  for (Trial* c : live) {
    c->row.core_link_ns = now.link_median();
    c->row.core_link_profile_ns = lut.runtime.core_link_ns;
    c->row.core_link_far_rounds = far;
    if (!near.empty()) measure_near(near, c);
  }
  if (!lut.runtime.has_speed()) return Status::ok();
  const std::vector<double> ms = now.medians(), k = speed_ratios(lut.runtime.speed_ms, ms);
  for (Trial* c : live) {
    c->row.speed_ratio_t1 = ms.size() > 0 && ms[0] > 0 ? k[0] : 0;
    c->row.speed_ratio_t2 = ms.size() > 1 && ms[1] > 0 ? k[1] : 0;
  }
  return predict_each(lut_at_speed(lut, ms), &BenchRow::at_speed_ms, live);
}

void collect_steps(const Lut& lut, const Lut* now, const Trial& c, std::vector<BenchStep>* steps) {
  const auto& info = c.exec->steps();
  for (size_t k = 0; k < info.size(); ++k) {
    BenchStep s;
    s.model = c.row.model;
    s.label = c.row.label;
    s.threads = c.row.threads;
    s.index = int(k);
    s.layer = info[k].layer;
    s.name = info[k].name;
    s.conversion = info[k].conversion;
    s.pool = info[k].pool < 0 ? "caller" : to_string(ThreadPoolId(info[k].pool));
    s.measured_ms = median_of(c.step_ms[k]);
    s.mean_ms = mean_of(c.step_ms[k]);
    s.rounds = int(c.step_ms[k].size());
    s.alone_rounds = c.step_alone_rounds[k];
    s.lut_ms = lut_ms_of(lut, info[k]);
    if (now && !s.conversion) s.recheck_ms = lut_ms_of(*now, info[k]);
    steps->push_back(std::move(s));
  }
}

}  // namespace

double load_average() {
  std::ifstream f("/proc/loadavg");
  double a = -1;
  if (!(f >> a)) return -1;
  return a;
}

bool lut_has_thread_set(const Lut& lut, int threads) {
  for (const LutLayer& l : lut.layers)
    for (const Impl& m : l.impls)
      if (m.threads == threads) return true;
  return false;
}

Status lut_for_bench(const Network& net, const Registry& registry, const std::string& path,
                     const ProfileOptions& profile, Lut* lut, bool* profiled, bool reprofile) {
  *profiled = false;
  const bool there = std::ifstream(path).good();
  if (there && reprofile)
    std::fprintf(stderr, "bench: %s: profiling anew (--reprofile; replaced once complete)\n", path.c_str());
  if (there && !reprofile) {
    Status s = load_lut(path, lut);
    // A file that does not read as a LUT (cut short, edited, from another version) stays for
    // its owner to look at: a new profile would write over it.
    if (!s.is_ok()) return Status(s.code(), s.message() + " (move it away to profile " + net.name + " anew)");
    const std::string why = lut_unusable_here(*lut, net, registry);
    if (why.empty()) {
      // A LUT from before the executor's copies were measured: measure them now (not saved).
      if (!lut->runtime.measured()) return measure_runtime_costs(net, profile.protocol, &lut->runtime);
      return Status::ok();
    }
    std::fprintf(stderr, "bench: %s: %s: profiling anew\n", path.c_str(), why.c_str());
  }
  ProfileOptions p = profile;
  p.out_path = path;
  *profiled = true;
  return profile_network(net, registry, p, lut);
}

Status check_bench_data(const Network& net, const BenchOptions& o) {
  if (data_source_for(net) != DataSource::kFashionMnist) return Status::ok();
  const std::vector<std::string>& labels = o.labels.empty() ? baseline_labels() : o.labels;
  auto has = [&labels](Baseline b) { return std::find(labels.begin(), labels.end(), to_string(b)) != labels.end(); };
  Status s = Status::ok();  // (checked splits stay decoded for bench_network's reads)
  if (has(Baseline::kOptInt8) || has(Baseline::kOptMixed) || has(Baseline::kAllInt8))
    s = load_fashion_mnist(Split::kTrain, nullptr);
  if (s.is_ok() && has(Baseline::kOptMixed)) s = load_fashion_mnist(Split::kTest, nullptr);
  return s.is_ok() ? s : Status(s.code(), net.name + ": " + s.message());
}

Status bench_network(const Network& net, const Lut& full_lut, int max_threads, const BenchOptions& o,
                     std::vector<BenchRow>* rows, std::vector<BenchStep>* steps) {
  if (!o.registry) return invalid_argument("bench: no registry");
  const std::vector<std::string>& labels = o.labels.empty() ? baseline_labels() : o.labels;
  // baseline_deployment caps the impls' thread sets but not the conversion chains, which
  // the profiler computed over every format: a quantise may detour through thread set 2.
  const Lut capped = cap_lut_threads(full_lut, max_threads, *o.registry);
  const Lut& lut = capped;
  std::vector<Trial> all(labels.size());
  std::vector<QuantParams> quant;
  std::vector<Trial*> live;
  for (size_t i = 0; i < labels.size(); ++i) {
    LW_RETURN_IF_ERROR(plan_candidate(net, lut, max_threads, labels[i], o, &quant, &all[i]));
    if (all[i].exec) live.push_back(&all[i]);
  }
  Tensor x = fidelity_inputs(net, 1)[0], y;
  Lut now = lut;  // the rechecked LUT (BenchOptions::recheck)
  const std::vector<std::pair<int, std::string>> recheck = o.recheck ? implementations_of(live)
                                                                      : std::vector<std::pair<int, std::string>>{};
  SpeedSamples speed;
  std::vector<int> sets;
  for (int t = 1; t <= max_threads; ++t) sets.push_back(t);
  std::vector<double> pairs;  // the pair probe before each round of a 2-thread block, then after the last
  double waited_s = 0;
  const bool wait_near = max_threads >= 2 && o.near_wait_s > 0 && lut.runtime.core_link_ns > 0;
  auto waiting = [&](double ns) {
    if (o.log) o.log(net.name + " t" + std::to_string(max_threads) + ": waiting for the cores to be near (" +
                     std::to_string(int(ns)) + " ns)");
  };
  for (int r = 0; r < o.rounds; ++r) {
    if (wait_near) wait_for_near_cores(lut.runtime.core_link_ns, o.near_wait_s, &waited_s, o.core_link_probe, waiting);
    speed.sample(sets, o.core_link_probe);
    if (max_threads >= 2) pairs.push_back(probe_core_pair_ratio(o.core_pair_probe));
    if (o.log) o.log(net.name + " t" + std::to_string(max_threads) + " round " + std::to_string(r + 1) + "/" +
                     std::to_string(o.rounds));
    // Rotate the order every round so no deployment always follows the same one.
    for (size_t k = 0; k < live.size(); ++k) {
      Trial& c = *live[(k + size_t(r)) % live.size()];
      Status s = run_round(c, x, &y);
      if (!s.is_ok()) return {s.code(), net.name + " " + c.row.label + ": " + s.message()};
    }
    if (o.recheck) LW_RETURN_IF_ERROR(recheck_slice(net, o, recheck, r, &now));
  }
  const double link_after = max_threads >= 2 ? probe_core_link_ns(o.core_link_probe) : 0;  // brackets the last round
  if (max_threads >= 2) pairs.push_back(probe_core_pair_ratio(o.core_pair_probe));
  const std::vector<bool> apart = rounds_between(pairs, [](double r) { return !cores_shared(r); });
  const int shared_rounds = int(std::count(apart.begin(), apart.end(), false));  // a shared reading next to them
  LW_RETURN_IF_ERROR(fill_sqnr(live, x));
  if (o.recheck) LW_RETURN_IF_ERROR(predict_each(now, &BenchRow::recheck_ms, live));
  LW_RETURN_IF_ERROR(predict_at_speed(lut, speed, link_after, live));
  LW_RETURN_IF_ERROR(predict_each(lut, &BenchRow::shared_write_ms, live, shared_lines_ms));
  LW_RETURN_IF_ERROR(predict_each(lut, &BenchRow::streamed_ms, live, streamed_ms));
  for (Trial& c : all) {
    if (c.exec) {
      c.row.near_wait_s = waited_s;
      c.row.shared_core_rounds = shared_rounds;
      summarise(c);
      collect_steps(lut, o.recheck ? &now : nullptr, c, steps);
    }
    rows->push_back(c.row);
  }
  return Status::ok();
}

}  // namespace lw
