// `layerwise profile`: measure every implementation of every layer on this device → LUT.
#include <csignal>
#include <cstdio>
#include <sstream>

#include "env/profiler.h"
#include "env/runtime_costs.h"
#include "env/speed_probe.h"
#include "explorer/cli/cli.h"
#include "explorer/cli/protocol_args.h"
#include "explorer/commands/model_arg.h"
#include "explorer/measure/baselines.h"
#include "explorer/measure/in_network.h"
#include "explorer/cli/progress.h"
#include "libs/exec/backends.h"

namespace lw::cli {
namespace {

volatile std::sig_atomic_t g_interrupted = 0;

ProfileOptions options_from(const Args& args) {
  ProfileOptions o;
  for (const auto& name : split_list(args.get("libs"))) {
    auto lib = parse_library(name);
    if (!lib) throw UsageError("--libs: unknown library '" + name + "'");
    o.libraries.push_back(*lib);
  }
  if (args.has("threads")) {
    o.threads.clear();
    for (const auto& t : split_list(args.get("threads"))) {
      if (t != "1" && t != "2") throw UsageError("--threads: thread sets are 1 (cpu0) and 2 (cpu0-1), got '" + t + "'");
      o.threads.push_back(std::stoi(t));
    }
  }
  o.protocol = profiling_protocol_from_args(args);
  o.reuse_identical_layers = !args.flag("no-reuse");
  o.audit_early_stop = args.flag("audit-early-stop");
  o.stop_rule = baselines_stop_rule();
  return o;
}

// Where the time went: the figures to look at before changing the protocol.
void print_spent(const ProfileSpent& sp) {
  std::printf("time spent (s): %.1f in all, %.1f conversions, %.1f runtime copies\n", sp.total_s, sp.conversions_s,
              sp.runtime_s);
  std::printf("  %-22s %8s %8s %8s %8s %8s %8s %8s\n", "", "total", "create", "measure", "timed %", "impls", "runs",
              "skipped");
  for (const auto* group : {&sp.by_library, &sp.by_kind, &sp.by_threads})
    for (const auto& [key, s] : *group)
      std::printf("  %-22s %8.1f %8.1f %8.1f %8.2f %8lld %8lld %8lld\n", key.c_str(), s.total_s(), s.create_s,
                  s.measure_s, s.measure_s > 0 ? 100 * s.timed_s / s.measure_s : 0.0, (long long)s.measured,
                  (long long)s.runs, (long long)s.skipped);
  std::printf("  (timed %%: the timed runs' share of measure; the rest prepares each run as in the network,\n"
              "  README \"Profiling\")\n");
  if (!sp.retimed_far.empty() || sp.far_kept > 0) {
    std::printf("timed again with the cores near and apart (their layer was timed with them far apart, or with the "
                "two computing as one core: pair ratio > %.1f; nearest %.0f ns; %.1f s waiting, %.1f s timing; ms, "
                "first -> again):\n",
                kCoresShared, sp.nearest_link_ns, sp.far_wait_s, sp.retimed_far_s);
    for (const ProfileSpent::Retimed& r : sp.retimed_far)
      std::printf("  %-14s %-56s %4.0f ns  pair %4.2f  %8.4f -> %8.4f\n", r.layer.c_str(), r.impl.c_str(), r.link_ns,
                  r.pair_ratio, r.first_ms, r.again_ms);
    if (sp.far_kept > 0)
      std::printf("  %d implementation(s) kept as first timed: the cores stayed far or on one core past the wait "
                  "(--far-wait)\n",
                  sp.far_kept);
  }
  if (sp.shared_retried > 0 || sp.shared_kept > 0)
    std::printf("2-thread timings taken again at once: %d (the two cores computed as one around them: pair ratio > "
                "%.1f); %d still so at the last of 3 tries\n",
                sp.shared_retried, kCoresShared, sp.shared_kept);
  for (const std::string& stage : sp.far_stages_again)
    std::printf("%s timed again: the cores were far apart while they were timed\n", stage.c_str());
  if (sp.aged.empty()) return;
  std::printf("timed again with the weights an inference old (%.1f s; ms, first -> aged):\n", sp.aged_s);
  for (const ProfileSpent::Aged& a : sp.aged)
    std::printf("  %-14s %-56s age %6.2f  %8.4f -> %8.4f\n", a.layer.c_str(), a.impl.c_str(), a.age_ms, a.fresh_ms,
                a.aged_ms);
}

// --runtime-only: measures what the executor adds to the steps (input/output copies, thread-pool
// hand-offs) into an existing LUT, without profiling a layer again (seconds instead of minutes).
int run_runtime_only(const Args& args, const Network& net) {
  const std::string in = args.has("lut") ? args.get("lut") : args.get("out");
  Lut lut;
  ok_or_throw(load_lut(in, &lut));
  if (lut.model_hash != model_hash(net)) throw UsageError(in + ": a LUT of another model than " + net.name);
  const Registry& registry = default_registry();  // registers the pools' jobs
  (void)registry;
  start_thread_sets();
  ok_or_throw(measure_runtime_costs(net, options_from(args).protocol, &lut.runtime));
  if (available_thread_set_cpus() > 1) {
    ok_or_throw(measure_handoff_costs(kHandoffRounds, &lut.runtime));
    ok_or_throw(measure_shared_lines(kSharedLinesRounds, &lut.runtime));
  } else {
    std::printf("one CPU for the thread sets: no thread-pool hand-offs or shared lines to measure\n");
  }
  ok_or_throw(save_lut(lut, args.get("out")));
  std::printf("runtime costs of %s: input copy %.4f ms, output copy %.4f ms; hand-offs (ms):\n", net.name.c_str(),
              lut.runtime.input_copy_ms, lut.runtime.output_copy_ms);
  std::printf("%s", handoffs_table(lut.runtime).c_str());
  std::printf("a write over lines cpu1 read: %.4f us per KiB more; a read of lines cpu1 wrote: %.4f\n",
              lut.runtime.shared_write_us_per_kb, lut.runtime.shared_read_us_per_kb);
  std::printf("wrote %s\n", args.get("out").c_str());
  return 0;
}

int run_profile(const std::vector<std::string>& argv) {
  Args args(argv, {"quiet", "no-reuse", "warm-cache", "no-weight-age", "no-streamed-outputs", "cold-call-path", "exhaustive", "audit-early-stop", "runtime-only"},
            {"model", "libs", "threads", "warmup", "runs", "max-runs", "cv", "max-seconds", "median-ci", "early-stop",
             "far-wait", "computing-us", "out", "lut", "in-network"});
  if (!args.has("model") || !args.has("out")) throw UsageError("--model and --out are required (see --help)");
  Network net = load_model(args.get("model"));
  if (args.flag("runtime-only")) return run_runtime_only(args, net);
  ProfileOptions o = options_from(args);
  o.out_path = args.get("out");
  ProgressLine line(args.flag("quiet"));
  o.progress = [&](const ProfileProgress& p) {
    line.update("profile " + net.name + " [" + std::to_string(p.layer) + "/" + std::to_string(p.layers) + "] " +
                    p.current,
                p.total ? double(p.done) / p.total : 0, p.eta_s);
  };
  // Ctrl-C finishes the current layer, flushes the checkpoint and exits; rerun to resume.
  std::signal(SIGINT, [](int) { g_interrupted = 1; });
  o.should_stop = [] { return g_interrupted != 0; };
  const Registry& registry = default_registry();
  ProfileSpent spent;
  o.spent = &spent;
  Lut lut;
  auto t0 = std::chrono::steady_clock::now();
  ok_or_throw(profile_network(net, registry, o, &lut));
  line.finish();
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  int64_t ok = 0, skipped = 0;
  for (const auto& l : lut.layers)
    for (const auto& i : l.impls) {
      ok += i.ok();
      skipped += i.status == ImplStatus::kSkipped;
    }
  std::printf("profiled %s: %zu layers, %lld implementations (%lld usable, %lld stopped early), %zu conversion "
              "records in %s\n",
              net.name.c_str(), lut.layers.size() - 1, (long long)lut.impl_count(), (long long)ok, (long long)skipped,
              lut.conversions.size(), format_duration(s).c_str());
  print_spent(spent);
  InNetworkOptions in;
  in.registry = &registry;
  in.rounds = in_network_rounds_arg(args);
  in.progress = counted_progress(line, "profile " + net.name + ": in the network");
  InNetworkReport report;
  ok_or_throw(refine_and_save(net, in, o.out_path, &lut, &report));
  line.finish();
  if (in.rounds > 0)
    std::printf("in the network: %d implementations timed in %d deployments (%s); network / alone: %s\n",
                report.refined, report.deployments, format_duration(report.seconds).c_str(),
                ratios_line(report).c_str());
  for (const std::string& f : report.failed) std::printf("in the network: not run (kept alone): %s\n", f.c_str());
  std::printf("wrote %s\n", o.out_path.c_str());
  return 0;
}

Registrar reg({"profile", "measure every implementation of every layer on this device (LUT)",
               "usage: layerwise profile --model <zoo name | network.json> --out lut.json\n"
               "         [--libs native,openblas,xnnpack,torch,onednn] [--threads 1,2]\n"
               "         [--exhaustive] [--warmup 1] [--runs 5] [--max-runs 20] [--cv 0.05]\n"
               "         [--median-ci 0.03] [--max-seconds 0.5] [--early-stop 0.25] [--audit-early-stop]\n"
               "         [--warm-cache] [--no-weight-age] [--no-streamed-outputs] [--cold-call-path] [--computing-us 500]\n"
               "         [--far-wait 120] [--in-network 0] [--no-reuse] [--quiet]\n"
               "       layerwise profile --model <m> --runtime-only [--lut in.json] --out lut.json\n\n"
               "Measures latency (median, min, p90, CV over timed runs after a discarded warm-up;\n"
               "at least --runs, then until the CV is below --cv or the median's 95 % confidence\n"
               "interval is within +-median-ci, or --max-runs / --max-seconds is reached) and\n"
               "memory of every implementation, and every format conversion on every edge. An\n"
               "implementation whose fastest run exceeds (1 + early-stop) x the median of one with\n"
               "the same formats and fusion and no more memory cannot be chosen by any search: it\n"
               "is stopped after 3 runs, looked at again at the end of the layer, and recorded\n"
               "'skipped' with the reason (--audit-early-stop: measured to the end all the same,\n"
               "to check on one LUT what the stops cost). --exhaustive uses\n"
               "the paper's protocol instead (at least 20 runs, CV rule only, --max-seconds 2, no\n"
               "early stop); the flags after it still apply. Each\n"
               "layer is flushed to <out>.partial as it is measured: run the same command again\n"
               "after an interruption to continue. Identical layers share measurements unless\n"
               "--no-reuse. Every run starts with this core's L1/L2 evicted and only the layer's\n"
               "inputs read back, as inside a network (weights come from the shared cache);\n"
               "--warm-cache times back-to-back runs instead (faster, optimistic for big layers).\n"
               "Before that eviction the thread set's cores compute (GEMMs on private buffers) for\n"
               "--computing-us microseconds, as the steps before a layer keep them in the network\n"
               "(after the preparation's reads alone a small conv ran up to 2x slower; 0: none).\n"
               "Layers that read their weights once per inference (1x1 output map: batch-1\n"
               "classifiers, squeeze-excite convs) are timed again at the end with the caller\n"
               "idle one inference before each run, as old as their weights are in the network\n"
               "(on a shared host other tenants evict the L3 within milliseconds); so are the\n"
               "implementations of any layer whose packed weights fill a quarter of the shared\n"
               "cache or more (Winograd F(6x6) on ResNet-50's 3x3 256->256: 16.8 MB, 0.73 ms\n"
               "a flush old, 1.15 aged and in the network); --no-weight-age keeps the first timing.\n"
               "Where each 1-thread implementation leaves its output is read right after its runs\n"
               "(some store around the caches: oneDNN's f32 3x3 convs), and steps without weights\n"
               "and converters are timed again with their input in memory; the cost model charges\n"
               "the difference where such a producer feeds them (--no-streamed-outputs: neither).\n"
               "Before each cold run the implementation's library runs a tiny problem of its own\n"
               "(LibTorch's dispatcher), as the steps before leave its code warm in the network while\n"
               "its data stays cold (--cold-call-path: not).\n"
               "With thread set 2 the cores' distance (a cache line's round trip) is probed between\n"
               "layers; the 2-thread implementations of a layer timed while the host had put them\n"
               "more than 2x farther apart than the profile's nearest are timed again at the end,\n"
               "once they are near, waiting at most --far-wait seconds in all (0: keep them).\n"
               "So are those of a layer next to which a pair probe (multiply-adds on both cores at\n"
               "once against one alone) read the two computing as one core (the host running both\n"
               "vCPUs on one core), and a 2-thread implementation with such a probe before or after\n"
               "its runs is timed again as soon as the probe reads two cores (three tries).\n"
               "With thread set 2 the LUT's runtime object also gets the measured hand-off between\n"
               "every two thread pools (caller, native with OpenBLAS, xnnpack, openmp), which the cost\n"
               "model charges between consecutive steps on different pools, and what a write on cpu0\n"
               "pays per KiB of lines cpu1 read (charged to a 1-thread step whose output a 2-thread\n"
               "step reads, or that works in place on a 2-thread step's). --runtime-only measures\n"
               "only these runtime costs (copies, hand-offs, shared writes) into an existing LUT (--lut, default\n"
               "--out) and writes it to --out: seconds, not a profile.\n"
               "--in-network R: last, time the contenders inside network inferences, QS-DNN's way, R\n"
               "rounds per deployment (`lut refine`; default 0: the figures timed alone).\n",
               run_profile});

}  // namespace
}  // namespace lw::cli
