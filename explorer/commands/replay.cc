// `layerwise replay`: the chosen deployment end to end against the LUT prediction.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <unistd.h>

#include "env/profiler.h"
#include "env/speed_probe.h"
#include "explorer/commands/pick_deployment.h"
#include "explorer/commands/stage_args.h"
#include "explorer/measure/baselines.h"
#include "explorer/pipeline/filter.h"
#include "explorer/pipeline/replay.h"

namespace lw::cli {
namespace {

void print_result(const ReplayResult& r) {
  const Measurement& m = r.end_to_end;
  std::printf("deployment  %s (%d int8 / %d bf16 / %d f32 layers)\n", m.label.c_str(), m.int8_layers, m.bf16_layers,
              m.f32_layers);
  std::printf("latency     predicted %.3f ms (LUT), measured median %.3f ms (min %.3f, p90 %.3f, %d runs): %+.1f %%\n",
              m.predicted_ms, m.latency.median, m.latency.min, m.latency.p90, m.latency.runs, r.gap_pct);
  std::printf("            sum of per-step medians %.3f ms (interleaved runs with per-step timing); process CPU\n"
              "            time per run %.3f ms (median); 1-min load average %.2f on %ld CPUs\n",
              r.steps_sum_ms, r.cpu_median_ms, r.load_average, sysconf(_SC_NPROCESSORS_ONLN));
  if (r.predicted_rechecked_ms > 0)
    std::printf("rechecked   %.3f ms from its %d implementations timed again, alone, during the replay: the device\n"
                "            drifted %+.1f %% since profiling; measured vs rechecked %+.1f %% (what the cost model misses)\n",
                r.predicted_rechecked_ms, r.rechecked_impls, r.drift_pct, r.gap_rechecked_pct);
  const RecheckVerdict v = r.predicted_rechecked_ms > 0 ? recheck_verdict(r.drift_pct, r.gap_pct, r.gap_rechecked_pct)
                                                        : RecheckVerdict::kSteady;
  if (v == RecheckVerdict::kStale)
    std::printf("            more than 10 %%, and nearer the measurement: the LUT has gone stale here; profile again "
                "(`layerwise profile`)\n");
  if (v == RecheckVerdict::kMovedAlone)
    std::printf("            more than 10 %%, but the measurement stayed nearer the LUT: no sign that a new profile\n"
                "            would predict it better\n");
  std::printf("memory      predicted %.2f MiB, planned %.2f MiB (arena %.2f + workspace %.2f + weights %.2f), heap measured %.2f MiB\n",
              m.predicted_memory_bytes / 1048576.0, m.memory.peak_bytes() / 1048576.0, m.memory.arena_bytes / 1048576.0,
              m.memory.workspace_bytes / 1048576.0, m.memory.weight_bytes / 1048576.0,
              m.memory.measured_heap_bytes / 1048576.0);
  std::printf("accuracy    %s\n", m.accuracy.label().c_str());
  if (r.core_link_ns > 0)
    std::printf("cores       0 and 1 a cache line's round trip apart: %.0f ns now, %.0f ns in the profile%s\n", r.core_link_ns,
                r.core_link_profile_ns,
                two_thread_steps_moved(r.two_threads, r.core_link_ns, r.core_link_profile_ns)
                    ? " (placed otherwise: the 2-thread steps run at this placement's speed, not the LUT's)"
                    : "");
  std::vector<ReplayLayer> l = r.layers;
  auto dev = [](const ReplayLayer& x) {
    return std::fabs(x.measured_ms + x.measured_conversion_ms - x.lut_ms - x.lut_conversion_ms);
  };
  std::sort(l.begin(), l.end(), [&](auto& a, auto& b) { return dev(a) > dev(b); });
  std::printf("largest per-layer differences (measured - LUT, layer + incoming conversions%s):\n",
              r.predicted_rechecked_ms > 0 ? "; the layer rechecked" : "");
  for (size_t i = 0; i < std::min<size_t>(5, l.size()); ++i) {
    std::printf("  %-28s %8.3f vs %8.3f ms", l[i].name.c_str(), l[i].measured_ms, l[i].lut_ms);
    if (r.predicted_rechecked_ms > 0) std::printf(" (%8.3f)", l[i].recheck_ms);
    std::printf("  conv %6.3f vs %6.3f ms (%d)  %s\n", l[i].measured_conversion_ms, l[i].lut_conversion_ms,
                l[i].conversions, l[i].impl.c_str());
  }
}

int run_replay_cmd(const std::vector<std::string>& argv) {
  auto names = eval_option_names();
  names.insert({"filter", "pick", "solutions", "baseline", "runs", "warmup", "min-seconds", "out"});
  Args args(argv, {"quiet", "recheck"}, names);
  ReplayOptions o;
  o.runs = args.get_int("runs", o.runs);
  o.warmup = args.get_int("warmup", o.warmup);
  o.min_seconds = args.get_double("min-seconds", o.min_seconds);
  if (o.runs < 1 || o.warmup < 0 || !(o.min_seconds >= 0))
    throw UsageError("--runs must be >= 1, --warmup and --min-seconds >= 0");
  StageSetup s;
  setup_stage(args, &s);
  auto [label, impls] = pick_deployment(args, s.lut);
  start_evaluator(args, kDefaultTimingRuns, &s);
  std::string out = args.get("out");
  if (out.empty()) {
    std::string from = args.get("filter", args.get("solutions"));
    out = from.empty() ? "." : std::filesystem::path(from).parent_path().string();
    if (out.empty()) out = ".";
  }
  ProfileOptions recheck;  // the default protocol, as bench --recheck's
  recheck.progress = [&](const ProfileProgress& p) {
    s.line->update("replay recheck [" + std::to_string(p.done) + "/" + std::to_string(p.total) + "] " + p.current,
                   p.total > 0 ? double(p.done) / p.total : 0, -1);
  };
  if (args.flag("recheck")) o.recheck = &recheck;
  ReplayResult r;
  ok_or_throw(run_replay(*s.evaluator, label, impls, o, out, &r));
  s.line->finish();
  print_result(r);
  std::printf("wrote %s/replay.json\n", out.c_str());
  return 0;
}

Registrar reg({"replay", "run the chosen deployment end to end and compare with the LUT prediction",
               std::string("usage: layerwise replay --model M --lut L\n"
                           "         (--filter DIR/filter.json [--pick chosen|ref-fp32|opt-fp32|all-int8|<id>]\n"
                           "          | --solutions DIR/solutions.csv | --baseline <label>)\n"
                           "         [--runs 20] [--min-seconds 1] [--warmup 3] [--recheck] [--out DIR] [eval options]\n\n"
                           "Runs the deployment --runs times after --warmup discarded runs (threads pinned as in the\n"
                           "profiler), and more until those runs took --min-seconds / 2 (a small network's 20 runs\n"
                           "last milliseconds, which one stall of a shared host can fill). Reports the median\n"
                           "end-to-end latency against the LUT prediction, the peak memory (predicted, planned,\n"
                           "measured heap), the accuracy (or fidelity), and a per-layer breakdown from a second\n"
                           "pass with per-step timing, as many runs. --solutions replays the\n"
                           "solution of lowest predicted latency; --baseline one of ref-fp32, native, xnnpack,\n"
                           "onednn, torch-nchw, torch-nhwc, opt-fp32, opt-int8, opt-mixed, all-int8. --recheck also\n"
                           "times each implementation of the deployment again, alone, a share before each block, and\n"
                           "predicts it from those figures: rechecked vs predicted is the device's drift since the\n"
                           "profile (re-profile when it is large), measured vs rechecked what the cost model misses\n"
                           "(per layer too). Writes DIR/replay.json.\n\n"
                           "eval options:\n") +
                   kEvalOptionsHelp,
               run_replay_cmd});

}  // namespace
}  // namespace lw::cli
