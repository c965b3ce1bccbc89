#include "explorer/pipeline/replay.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>

#include "env/cost.h"
#include "env/speed_probe.h"
#include "libs/core/files.h"
#include "explorer/measure/deployment.h"
#include "explorer/measure/recheck.h"
#include "libs/ir/network_json.h"
#include "libs/ops/thread_pool.h"

namespace lw {

namespace {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double cpu_ms_now() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

// End-to-end runs of a plain plan (wall and process CPU time per run) alternating in blocks
// with runs of a plan with per-step timing (each step's median): both see the same machine
// state, the clock reads never inflate the end-to-end figure, and within a block the runs
// follow each other as in deployment (interleaving single runs would let the two plans evict
// each other's caches: +85 % on a 0.25 ms network). CPU time tells waiting for a core (other
// processes on a shared machine) apart from running. The speed probe runs before every
// block, on the thread sets the LUT probed. A block runs the plain plan until it has both its
// share of the runs and its share of ReplayOptions::min_seconds, then the stepped plan as
// many times. `before_block` runs first in each block (the recheck's share).
using BlockHook = std::function<Status(int block, int blocks, const Executor& stepped)>;
Status timed_runs(Evaluator& ev, const std::vector<std::string>& names, const ReplayOptions& o,
                  const BlockHook& before_block, std::unique_ptr<Executor>* stepped, ReplayResult* r,
                  SpeedSamples* speed) {
  std::unique_ptr<Executor> plain;
  LW_RETURN_IF_ERROR(ev.plan(names, false, &plain));
  LW_RETURN_IF_ERROR(ev.plan(names, true, stepped));
  ScopedPin pin;  // once for all runs, as an application holding a runtime pin runs them
  const size_t steps = (*stepped)->steps().size();
  std::vector<std::vector<double>> t(steps);
  std::vector<double> wall, cpu;
  Tensor y;
  const int blocks = std::min(kReplayBlocks, o.runs);
  std::vector<int> sets;
  for (size_t k = 0; k < ev.lut().runtime.speed_ms.size(); ++k)
    if (ev.lut().runtime.speed_ms[k] > 0) sets.push_back(int(k + 1));
  const double share_ms = 1e3 * o.min_seconds / (2.0 * blocks);  // each plan's, per block
  for (int b = 0; b < blocks; ++b) {
    if (before_block) LW_RETURN_IF_ERROR(before_block(b, blocks, **stepped));
    speed->sample(sets);
    const int min_n = o.runs / blocks + (b < o.runs % blocks), max_n = std::max(min_n, kReplayMaxRuns / blocks);
    double timed_ms = 0;
    int n = 0;
    // The process CPU clock is a system call (~1.6 us on a KVM guest), and one right before a
    // timed run slowed that run by more (results/reference/caller-pin/): read it around the
    // block, not each run.
    const double c0 = cpu_ms_now();
    for (int k = 0; k < o.warmup + min_n || (timed_ms < share_ms && n < max_n); ++k) {
      const Tensor& x = ev.sample();
      const auto w0 = std::chrono::steady_clock::now();
      LW_RETURN_IF_ERROR(plain->run(x, &y));
      const double w = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - w0).count();
      if (k >= o.warmup) wall.push_back(w), timed_ms += w, ++n;
    }
    cpu.push_back((cpu_ms_now() - c0) / (o.warmup + n));  // per run, the block's mean
    for (int k = 0; k < o.warmup + n; ++k) {
      LW_RETURN_IF_ERROR((*stepped)->run(ev.sample(), &y));
      if (k >= o.warmup)
        for (size_t s = 0; s < steps; ++s) t[s].push_back((*stepped)->steps()[s].last_ms);
    }
  }
  r->end_to_end.latency = latency_stats(wall);
  r->cpu_median_ms = median(cpu);
  r->step_ms.resize(steps);
  for (size_t s = 0; s < steps; ++s) r->step_ms[s] = median(t[s]);
  return Status::ok();
}

// Per layer: the LUT's impl median and incoming conversion costs (the cost model's terms: a
// shared conversion on the first consumer, where the executor inserts its steps; the last
// layer's include the executor's input / output copies, Lut::runtime, which are no step)
// next to the measured steps.
std::vector<ReplayLayer> breakdown(const Evaluator& ev, const std::vector<std::string>& names, const Executor& ex,
                                   const std::vector<double>& step_ms, const Lut* rechecked) {
  const Lut& lut = ev.lut();
  const Problem& p = ev.problem();
  std::vector<int> a = lut_indices(lut, names);
  std::vector<ReplayLayer> rows(lut.layers.size());
  for (size_t i = 1; i < rows.size(); ++i) {
    rows[i].layer = int(i);
    rows[i].name = lut.layers[i].name;
    rows[i].impl = names[i];
    rows[i].lut_ms = lut.layers[i].impls[a[i]].latency_ms.cost_ms();
    if (rechecked) rows[i].recheck_ms = rechecked->layers[i].impls[a[i]].latency_ms.cost_ms();
  }
  for (int t = 1; t < p.n; ++t) rows[t].lut_conversion_ms = conversion_in_ms(p, a.data(), t, a[t]);
  for (size_t s = 0; s < ex.steps().size(); ++s) {
    const ExecStep& st = ex.steps()[s];
    if (st.layer < 1 || st.layer >= int(rows.size())) continue;
    ReplayLayer& r = rows[st.layer];
    if (st.conversion) {
      r.measured_conversion_ms += step_ms[s];
      ++r.conversions;
    } else {
      r.measured_ms += step_ms[s];
    }
  }
  rows.erase(rows.begin());  // the input
  return rows;
}

// The deployment predicted from the LUT rescaled to the speed probed during the replay.
Status predict_at_speed(const Evaluator& ev, const std::vector<std::string>& names, const SpeedSamples& speed,
                        ReplayResult* r) {
  const Lut& lut = ev.lut();
  if (!lut.runtime.has_speed()) return Status::ok();
  const std::vector<double> now = speed.medians();
  const Lut at = lut_at_speed(lut, now);
  Problem p;
  LW_RETURN_IF_ERROR(compile_problem(at, &p));
  r->predicted_at_speed_ms = predict_latency_ms(p, lut_indices(at, names));
  r->speed_ratio = speed_ratios(lut.runtime.speed_ms, now);
  const double measured = r->end_to_end.latency.median;
  if (r->predicted_at_speed_ms > 0) r->gap_at_speed_pct = 100 * (measured - r->predicted_at_speed_ms) / r->predicted_at_speed_ms;
  return Status::ok();
}

// The recheck's share before each block: slice `block` of the deployment's implementations
// timed again into `now` (the blocks spread it over the replay, as bench spreads it over rounds).
BlockHook recheck_hook(const Evaluator& ev, const ProfileOptions& base, Lut* now, int* timed) {
  std::vector<std::pair<int, std::string>> which;  // the stepped plan's implementations, listed at block 0
  return [&ev, options = recheck_options(base, *now), now, timed, which](int block, int blocks,
                                                                         const Executor& stepped) mutable {
    if (block == 0) which = layer_impls_of(stepped);
    const auto slice = slice_of(which, block, blocks);
    *timed += int(slice.size());
    if (slice.empty()) return Status::ok();
    return remeasure_impls(ev.network(), *ev.options().registry, options, slice, now);
  };
}

Status predict_rechecked(const Lut& now, const std::vector<std::string>& names, ReplayResult* r) {
  Problem p;
  LW_RETURN_IF_ERROR(compile_problem(now, &p));
  r->predicted_rechecked_ms = predict_latency_ms(p, lut_indices(now, names));
  const double predicted = r->end_to_end.predicted_ms, measured = r->end_to_end.latency.median;
  if (predicted > 0) r->drift_pct = 100 * (r->predicted_rechecked_ms - predicted) / predicted;
  if (r->predicted_rechecked_ms > 0)
    r->gap_rechecked_pct = 100 * (measured - r->predicted_rechecked_ms) / r->predicted_rechecked_ms;
  return Status::ok();
}

// Where the cores sat during the replay against the profile, and whether that matters (a
// step on 2 or more threads).
void record_core_link(const Lut& lut, const std::vector<std::string>& names, const SpeedSamples& speed,
                      ReplayResult* r) {
  const std::vector<int> idx = lut_indices(lut, names);
  for (size_t i = 1; i < idx.size() && i < lut.layers.size(); ++i)
    r->two_threads = r->two_threads || (idx[i] >= 0 && lut.layers[i].impls[size_t(idx[i])].threads >= 2);
  r->core_link_ns = speed.link_median();
  r->core_link_profile_ns = lut.runtime.core_link_ns;
  for (double ns : speed.link_ns()) r->core_link_moved_blocks += core_link_moved(ns, r->core_link_profile_ns);
}

}  // namespace

Status run_replay(Evaluator& ev, const std::string& label, const std::vector<std::string>& names,
                  const ReplayOptions& o, const std::string& out_dir, ReplayResult* out) {
  if (o.runs < 1 || o.warmup < 0 || !(o.min_seconds >= 0))
    return invalid_argument("replay: runs must be >= 1, warm-up and min_seconds >= 0");
  ReplayResult r;
  r.min_seconds = o.min_seconds;
  Protocol once{0, 1, 0.0, 1, 1e9};  // accuracy and memory; the timing is done below
  LW_RETURN_IF_ERROR(ev.measure(label, names, &r.end_to_end, &once));
  std::unique_ptr<Executor> ex;
  SpeedSamples speed;
  Lut now = o.recheck ? ev.lut() : Lut{};
  const BlockHook hook = o.recheck ? recheck_hook(ev, *o.recheck, &now, &r.rechecked_impls) : BlockHook{};
  LW_RETURN_IF_ERROR(timed_runs(ev, names, o, hook, &ex, &r, &speed));
  const Measurement& m = r.end_to_end;
  r.gap_pct = m.predicted_ms > 0 ? 100 * (m.latency.median - m.predicted_ms) / m.predicted_ms : 0;
  LW_RETURN_IF_ERROR(predict_at_speed(ev, names, speed, &r));
  record_core_link(ev.lut(), names, speed, &r);
  for (double s : r.step_ms) r.steps_sum_ms += s;
  if (o.recheck) LW_RETURN_IF_ERROR(predict_rechecked(now, names, &r));
  r.layers = breakdown(ev, names, *ex, r.step_ms, o.recheck ? &now : nullptr);
  r.steps = ex->steps();
  double load[1] = {-1};
  if (getloadavg(load, 1) == 1) r.load_average = load[0];
  std::error_code ec;
  std::filesystem::create_directories(out_dir, ec);
  if (ec) return io_error("cannot create " + out_dir + ": " + ec.message());
  LW_RETURN_IF_ERROR(write_file_atomic(out_dir + "/replay.json", replay_json(ev.network().name, r)));
  *out = std::move(r);
  return Status::ok();
}

std::string replay_json(const std::string& model, const ReplayResult& r) {
  using nlohmann::json;
  const Measurement& m = r.end_to_end;
  json j{{"format", "layerwise-replay/1"}, {"model", model}, {"label", m.label}};
  j["latency_ms"] = {{"predicted", m.predicted_ms}, {"median", m.latency.median}, {"min", m.latency.min},
                     {"p90", m.latency.p90}, {"cv", m.latency.cv}, {"runs", m.latency.runs}, {"min_seconds", r.min_seconds},
                     {"gap_pct", r.gap_pct}, {"sum_of_step_medians", r.steps_sum_ms},
                     {"process_cpu_median", r.cpu_median_ms}};
  if (r.predicted_at_speed_ms > 0) {
    j["latency_ms"]["predicted_at_speed"] = r.predicted_at_speed_ms;
    j["latency_ms"]["gap_at_speed_pct"] = r.gap_at_speed_pct;
    json ratio = json::object();
    for (size_t k = 0; k < r.speed_ratio.size(); ++k) ratio["t" + std::to_string(k + 1)] = r.speed_ratio[k];
    j["speed_now_vs_profile"] = ratio;
  }
  if (r.predicted_rechecked_ms > 0) {
    j["latency_ms"]["predicted_rechecked"] = r.predicted_rechecked_ms;
    j["latency_ms"]["drift_pct"] = r.drift_pct;
    j["latency_ms"]["gap_rechecked_pct"] = r.gap_rechecked_pct;
    j["latency_ms"]["rechecked_implementations"] = r.rechecked_impls;
  }
  if (r.core_link_ns > 0)
    j["core_link_ns"] = {{"replay", r.core_link_ns}, {"profile", r.core_link_profile_ns},
                         {"moved_blocks", r.core_link_moved_blocks}, {"two_threads", r.two_threads}};
  j["load_average_1min"] = r.load_average;
  j["memory_bytes"] = {{"predicted", m.predicted_memory_bytes}, {"planned_peak", m.memory.peak_bytes()},
                       {"arena", m.memory.arena_bytes}, {"workspace", m.memory.workspace_bytes},
                       {"weights", m.memory.weight_bytes}, {"measured_heap", m.memory.measured_heap_bytes}};
  j["accuracy"] = {{"metric", m.accuracy.metric}, {"images", m.accuracy.images}, {"top1", m.accuracy.top1},
                   {"label", m.accuracy.label()}};
  if (m.accuracy.metric == "fidelity") j["accuracy"]["sqnr_db"] = m.accuracy.sqnr_db;
  j["precision"] = {{"int8_layers", m.int8_layers}, {"bf16_layers", m.bf16_layers}, {"f32_layers", m.f32_layers}};
  json layers = json::array();
  for (const ReplayLayer& l : r.layers) {
    layers.push_back({{"layer", l.name}, {"impl", l.impl}, {"lut_ms", l.lut_ms}, {"measured_ms", l.measured_ms},
                      {"lut_conversion_ms", l.lut_conversion_ms}, {"measured_conversion_ms", l.measured_conversion_ms},
                      {"conversions", l.conversions}});
    if (r.predicted_rechecked_ms > 0) layers.back()["recheck_ms"] = l.recheck_ms;
  }
  j["layers"] = layers;
  json steps = json::array();
  for (size_t i = 0; i < r.steps.size() && i < r.step_ms.size(); ++i)
    steps.push_back({{"name", r.steps[i].name}, {"layer", r.steps[i].layer}, {"conversion", r.steps[i].conversion},
                     {"median_ms", r.step_ms[i]}});
  j["steps"] = steps;
  return j.dump(1) + "\n";
}

}  // namespace lw
