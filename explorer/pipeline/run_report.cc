#include "explorer/pipeline/run_report.h"

#include "env/speed_probe.h"
#include "explorer/measure/baselines.h"

#include <cstdio>
#include <sstream>

namespace lw {

namespace {

// What a stale LUT's line asks for (a cached LUT is reused until told otherwise).
constexpr const char* kProfileAgain = " profile again (`layerwise run` with `--reprofile`).";

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

// How old a reused LUT is: a device drifts over hours (a VM moved, other load), so a reader
// weighs an old LUT's predictions with that in mind.
std::string lut_age(double seconds) {
  if (seconds < 0) return "";
  if (seconds < 3600) return ", profiled " + fmt("%.0f min", seconds / 60) + " before this run";
  if (seconds < 2 * 86400) return ", profiled " + fmt("%.1f h", seconds / 3600) + " before this run";
  return ", profiled " + fmt("%.0f days", seconds / 86400) + " before this run";
}

const MeasuredPoint* point(const RunSummary& s, const std::string& label) {
  for (const auto& p : s.points)
    if (p.label == label) return &p;
  return nullptr;
}

std::string accuracy_cell(const MeasuredPoint& p) {
  if (p.accuracy < 0) return "–";
  return fmt("%.2f %%", 100 * p.accuracy) + (p.accuracy_metric == "fidelity" ? " (fidelity)" : "");
}

// The speed-up base: Ref-FP32, or Opt-FP32 when the LUT cannot plan Ref-FP32 (no OpenBLAS
// convolution among the profiled libraries), as for the accuracy base, so the column is never
// empty.
const MeasuredPoint* speedup_base(const RunSummary& s) {
  for (Baseline b : {Baseline::kRefFp32, Baseline::kOptFp32})
    if (const MeasuredPoint* p = point(s, to_string(b)); p && p->measured_ms > 0) return p;
  return nullptr;
}

void deployments_table(const RunSummary& s, std::ostringstream& o) {
  const MeasuredPoint* ref = speedup_base(s);
  o << "| deployment | predicted ms | measured ms | speed-up vs " << (ref ? ref->label : "ref-fp32")
    << " | accuracy | peak memory MiB |\n"
    << "|---|---|---|---|---|---|\n";
  for (const auto& p : s.points) {
    std::string speedup = ref && p.measured_ms > 0 ? fmt("%.2fx", ref->measured_ms / p.measured_ms) : "–";
    o << "| " << p.label << " | " << fmt("%.3f", p.predicted_ms) << " | " << fmt("%.3f", p.measured_ms) << " | "
      << speedup << " | " << accuracy_cell(p) << " | " << fmt("%.2f", p.peak_memory_bytes / 1048576.0) << " |\n";
  }
}

void search_table(const RunSummary& s, std::ostringstream& o) {
  o << "| agent | seed | best predicted ms | gap to optimum | states considered | wall ms | episodes | distinct |\n"
    << "|---|---|---|---|---|---|---|---|\n";
  for (const auto& a : s.searches) {
    double gap = s.exact_optimum_ms > 0 ? 100 * (a.best_latency_ms / s.exact_optimum_ms - 1) : 0;
    o << "| " << a.agent << " | " << a.seed << " | " << fmt("%.4f", a.best_latency_ms) << " | "
      << fmt("%.2f %%", gap) << " | " << a.states << " | " << fmt("%.1f", a.wall_ms) << " | " << a.episodes << " | "
      << a.distinct << " |\n";
  }
  o << "\nCertified optimum of the LUT (exact solver): " << fmt("%.4f", s.exact_optimum_ms) << " ms.\n";
}

void chosen_table(const RunSummary& s, std::ostringstream& o) {
  if (!s.lut || s.chosen.size() != s.lut->layers.size()) return;
  o << "| layer | kind | implementation |\n|---|---|---|\n";
  for (size_t i = 1; i < s.chosen.size(); ++i)
    o << "| " << s.lut->layers[i].name << " | " << to_string(s.lut->layers[i].kind) << " | `" << s.chosen[i] << "` |\n";
}

}  // namespace

std::string summary_markdown(const RunSummary& s) {
  std::ostringstream o;
  o << "# Layerwise run: " << s.model << "\n\n";
  o << "Run directory: `" << s.run_dir << "`  \nLUT: `" << s.lut_path << "` ("
    << (s.lut_reused ? "reused" + lut_age(s.lut_age_s) : "profiled in " + fmt("%.0f s", s.profile_s)) << ")\n\n";
  o << "## Deployments measured on this device\n\n";
  deployments_table(s, o);
  o << "\nEvery row was timed in the same interleaved window (the filter's), so the rows compare.\n";
  if (const MeasuredPoint* ref = speedup_base(s); ref && ref->label != to_string(Baseline::kRefFp32))
    o << "No ref-fp32 row: it runs convolutions as OpenBLAS im2col GEMMs, and `openblas` is not among the "
         "profiled libraries (`device.libraries`); speed-ups are against "
      << ref->label << ".\n";
  if (!s.chosen.empty()) {
    o << "\n**Why the chosen deployment:** " << s.chosen_why << ".\n";
    o << "\nReplay of the chosen deployment (a later run): " << fmt("%.3f ms", s.replay_ms) << ", "
      << fmt("%+.1f %%", s.replay_gap_pct) << " vs the LUT prediction (replay.json has the per-layer breakdown).\n";
    if (s.replay_speed_t1 > 0)
      o << "The speed probe took " << fmt("%.2fx", s.replay_speed_t1) << " (1 thread)"
        << (s.replay_speed_t2 > 0 ? " and " + fmt("%.2fx", s.replay_speed_t2) + " (2 threads)" : std::string())
        << " its time at profiling (> 1: the device is slower now); at that speed the prediction is off by "
        << fmt("%+.1f %%", s.replay_gap_at_speed_pct) << "."
        << (speed_drifted(s.replay_speed_t1) || speed_drifted(s.replay_speed_t2)
                ? std::string(" The device has drifted by more than 10 % since profiling:") + kProfileAgain
                : std::string())
        << "\n";
    if (s.replay_rechecked_ms > 0) {
      o << "Its implementations timed again, alone, during the replay predict " << fmt("%.3f ms", s.replay_rechecked_ms)
        << ": the device drifted " << fmt("%+.1f %%", s.replay_drift_pct) << " since profiling, and the replay is "
        << fmt("%+.1f %%", s.replay_gap_rechecked_pct) << " off that (what the cost model misses).";
      const RecheckVerdict v = recheck_verdict(s.replay_drift_pct, s.replay_gap_pct, s.replay_gap_rechecked_pct);
      if (v == RecheckVerdict::kStale) o << " The LUT has gone stale on this device:" << kProfileAgain;
      if (v == RecheckVerdict::kMovedAlone)
        o << " The replay stayed nearer the LUT than these: no sign that a new profile would predict it better.";
      o << "\n";
    }
    if (two_thread_steps_moved(s.replay_two_threads, s.replay_core_link_ns, s.replay_core_link_profile_ns))
      o << "Cores 0 and 1 sat " << fmt("%.0f ns", s.replay_core_link_ns) << " apart (a cache line's round trip) during the replay, "
        << fmt("%.0f ns", s.replay_core_link_profile_ns)
        << " in the profile: the host placed them differently, and the deployment's 2-thread steps run at that placement's "
           "speed, not the LUT's (results/reference/far-cores/).\n";
  }
  o << "\n## Search\n\n";
  search_table(s, o);
  o << "\n## Chosen implementation per layer\n\n";
  chosen_table(s, o);
  return o.str();
}

void print_summary(const RunSummary& s) {
  std::printf("\n%s", summary_markdown(s).c_str());
}

}  // namespace lw
