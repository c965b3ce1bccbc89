// `layerwise bench`: Ref-FP32, every single library and Layerwise's deployments, measured
// end to end on this device, interleaved; CSV + Markdown report (Layerwise against the runtimes users would pick instead).
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <sstream>

#include <nlohmann/json.hpp>

#include "explorer/measure/baselines.h"
#include "explorer/measure/bench.h"
#include "explorer/measure/in_network.h"
#include "explorer/cli/cli.h"
#include "explorer/cli/protocol_args.h"
#include "explorer/commands/model_arg.h"
#include "explorer/commands/stage_args.h"
#include "explorer/cli/progress.h"
#include "libs/core/files.h"
#include "libs/exec/backends.h"
#include "libs/ops/thread_pool.h"

namespace lw::cli {
namespace {

constexpr const char* kDefaultModels = "resnet50,mobilenetv2,mobilenetv3_large,squeezenet1_1,googlenet";

volatile std::sig_atomic_t g_interrupted = 0;

ProfileOptions profile_options(const Args& args) {
  ProfileOptions o;
  o.stop_rule = baselines_stop_rule();
  o.threads = {1, 2};  // both thread sets: the 2-thread study needs them, the 1-thread one ignores them
  o.protocol = profiling_protocol_from_args(args);  // `profile`'s, so a LUT from either is the same
  std::signal(SIGINT, [](int) { g_interrupted = 1; });
  o.should_stop = [] { return g_interrupted != 0; };
  return o;
}

std::vector<int> thread_caps(const Args& args) {
  std::vector<int> caps;
  for (const auto& t : split_list(args.get("threads", "1,2"))) {
    if (t != "1" && t != "2") throw UsageError("--threads: thread caps are 1 and 2, got '" + t + "'");
    caps.push_back(std::stoi(t));
  }
  return caps;
}

// A LUT whose native kernels or XNNPACK ran on another pool than this process's (its
// protocol's native_kernels_on, absent: our worker; xnnpack_on, absent: pthreadpool's own
// worker) still plans, but those figures and hand-offs were timed on that pool: say so rather
// than refuse (an A/B reads old LUTs on purpose).
void warn_if_pools_differ(const Lut& lut, const std::string& path) {
  const nlohmann::json j = nlohmann::json::parse(lut.protocol_json, nullptr, false);
  if (!j.is_object()) return;
  auto note = [&](const char* key, ThreadPoolId absent, ThreadPoolId here, const char* what, const char* hint) {
    const std::string there = j.value(key, to_string(absent));
    if (there != to_string(here))
      std::fprintf(stderr, "layerwise bench: note: %s timed %s on the '%s' pool, this process runs them on '%s'%s\n",
                   path.c_str(), what, there.c_str(), to_string(here), hint);
  };
  note("native_kernels_on", ThreadPoolId::kNative, native_kernels_pool(), "native kernels", " (LAYERWISE_NATIVE_POOL)");
  note("xnnpack_on", ThreadPoolId::kXnnpack, thread_pool_of(Library::kXnnpack, 2), "XNNPACK's 2-thread steps", "");
}

// Which of its figures the LUT plans with (--lut-statistic): the mean by default.
std::string lut_statistic(const Args& args) { return args.get("lut-statistic", "mean"); }

// Loads or profiles the LUT of every model first, so that no measurement runs beside profiling.
std::vector<Lut> luts_for(const std::vector<Network>& nets, const Args& args, ProgressLine& line) {
  const std::string statistic = lut_statistic(args);  // (refused before any profile runs)
  if (statistic != "mean" && statistic != "median" && statistic != "min")
    throw UsageError("--lut-statistic: mean, median or min");
  ProfileOptions po = profile_options(args);
  std::vector<Lut> luts(nets.size());
  for (size_t i = 0; i < nets.size(); ++i) {
    const Network& net = nets[i];
    po.progress = [&](const ProfileProgress& p) {
      line.update("profile " + net.name + " [" + std::to_string(p.layer) + "/" + std::to_string(p.layers) + "] " +
                      p.current,
                  p.total ? double(p.done) / p.total : 0, p.eta_s);
    };
    std::string path = args.get("lut-dir") + "/" + net.name + ".lut.json";
    bool profiled = false;
    ok_or_throw(lut_for_bench(net, default_registry(), path, po, &luts[i], &profiled, args.flag("reprofile")));
    if (profiled) {  // as `layerwise profile` does: the contenders timed in the network too
      InNetworkOptions in;
      in.registry = &default_registry();
      in.rounds = in_network_rounds_arg(args);
      InNetworkReport report;
      ok_or_throw(refine_and_save(net, in, path, &luts[i], &report));
    }
    if (statistic == "min") luts[i] = lut_with_min_latency(luts[i]);
    else if (statistic == "median") luts[i] = lut_with_median_latency(luts[i]);
    line.finish();
    std::fprintf(stderr, "%s %s\n", profiled ? "profiled" : "reusing", path.c_str());
    warn_if_pools_differ(luts[i], path);
  }
  return luts;
}

std::string preamble(const Args& args, const std::vector<Lut>& luts, double load_start) {
  std::ostringstream os;
  std::time_t now = std::time(nullptr);
  char when[64];
  std::strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", std::localtime(&now));
  os << "# layerwise bench, " << when << "\n\n"
     << "End-to-end latency (ms, median of " << args.get_int("repeats", kDefaultBenchRounds)
     << " interleaved rounds; each round runs every deployment once discarded, once plain (the figure), "
        "once with step timing (the overhead split)). Speed-ups: ref-fp32 / row and best single library / row. "
        "Load average (1 min) at start: "
     << load_start << ". GOMP_SPINCOUNT=" << (std::getenv("GOMP_SPINCOUNT") ? std::getenv("GOMP_SPINCOUNT") : "default")
     << ". Native kernels' 2-thread steps on " << (native_kernels_pool() == ThreadPoolId::kNative ? "our worker" : "libgomp's team")
     << ", XNNPACK's on libgomp's team. Our cpu1 worker, woken after OpenMP steps: scheduler slice " << kWakeSliceUs << " us "
     << (wake_slice_shortened() ? "(taken)" : "(not taken: this kernel keeps its default)")
     << ". Costs planned from the LUT's " << lut_statistic(args) << " latencies"
     << (lut_statistic(args) == "mean" ? " (medians in a LUT from before means were recorded)." : ".")
     << (args.flag("recheck") ? " Rechecked: the same cost model with every implementation a deployment uses timed again, "
                                "alone, a share after each round (predicted vs rechecked: the machine's drift since "
                                "profiling; rechecked vs measured: what the cost model misses)."
                              : "")
     << "\n\nLUT protocols:";
  for (const Lut& l : luts) os << " " << l.model_name << " " << l.protocol_json << ";";
  os << "\n";
  return os.str();
}

int run_bench(const std::vector<std::string>& argv) {
  Args args(argv,
            {"quiet", "warm-cache", "no-weight-age", "no-streamed-outputs", "cold-call-path", "recheck", "reprofile",
             "exhaustive"},
            {"models", "threads", "lut-dir", "repeats", "out", "md", "steps", "labels", "calibration",
             "calibration-method", "warmup", "runs", "max-runs", "cv", "max-seconds", "median-ci", "early-stop",
             "far-wait", "lut-statistic", "near-wait", "in-network", "computing-us"});
  if (!args.has("lut-dir")) throw UsageError("--lut-dir is required (see --help)");
  std::vector<Network> nets;
  for (const auto& m : split_list(args.get("models", kDefaultModels))) nets.push_back(load_model(m));
  BenchOptions bo;
  bo.registry = &default_registry();
  bo.rounds = args.get_int("repeats", kDefaultBenchRounds);
  bo.calibration_samples = args.get_int("calibration", kDefaultBenchCalibration);
  bo.calibration_method = calibration_method_arg(args);
  bo.labels = split_list(args.get("labels"));
  for (const std::string& l : bo.labels)  // (before minutes of profiling, not after)
    if (!parse_baseline(l)) throw UsageError("--labels: unknown deployment '" + l + "' (known: " + baseline_names() + ")");
  bo.near_wait_s = args.get_double("near-wait", 0);
  if (bo.rounds < 1) throw UsageError("--repeats must be >= 1");
  if (bo.near_wait_s < 0) throw UsageError("--near-wait must be >= 0 (0: off)");
  std::vector<int> caps = thread_caps(args);
  for (const Network& net : nets) ok_or_throw(check_bench_data(net, bo));
  ProgressLine line(args.flag("quiet"));
  double load_start = load_average();
  std::vector<Lut> luts = luts_for(nets, args, line);
  std::vector<BenchRow> rows;
  std::vector<BenchStep> steps;
  size_t done = 0, total = nets.size() * caps.size();
  std::vector<std::string> skipped_caps;
  bo.log = [&](const std::string& s) { line.update("bench " + s, double(done) / total, -1); };
  ProfileOptions recheck = profile_options(args);
  recheck.progress = [&](const ProfileProgress& p) {
    line.update("bench recheck [" + std::to_string(p.done) + "/" + std::to_string(p.total) + "] " + p.current,
                double(done) / total, -1);
  };
  if (args.flag("recheck")) bo.recheck = &recheck;
  for (size_t i = 0; i < nets.size(); ++i)
    for (int t : caps) {
      if (lut_has_thread_set(luts[i], t)) ok_or_throw(bench_network(nets[i], luts[i], t, bo, &rows, &steps));
      else skipped_caps.push_back(nets[i].name + ": its LUT has no " + std::to_string(t) + "-thread implementation");
      ++done;
    }
  line.finish();
  for (const std::string& s : skipped_caps)  // (a 2-thread block would repeat the 1-thread one)
    std::fprintf(stderr, "layerwise bench: %s: not benched at that cap (--reprofile profiles both thread sets)\n", s.c_str());
  if (rows.empty()) throw UsageError("nothing to bench at --threads " + args.get("threads", "1,2"));
  fill_speedups(&rows);
  std::string md = bench_markdown(rows, preamble(args, luts, load_start));
  if (args.has("steps")) md += bench_residuals_markdown(rows, steps);
  std::printf("%s", md.c_str());
  ok_or_throw(write_file_atomic(args.get("out", "bench.csv"), bench_csv(rows)));
  if (args.has("md")) ok_or_throw(write_file_atomic(args.get("md"), md));
  if (args.has("steps")) ok_or_throw(write_file_atomic(args.get("steps"), bench_steps_csv(steps)));
  return 0;
}

Registrar reg({"bench", "measure Ref-FP32, every single library and Layerwise's deployments end to end",
               "usage: layerwise bench --lut-dir DIR\n"
               "         [--models resnet50,mobilenetv2,mobilenetv3_large,squeezenet1_1,googlenet]\n"
               "         [--threads 1,2] [--repeats 15] [--labels ref-fp32,...,opt-int8] [--calibration 4]\n"
               "         [--calibration-method minmax|mse]\n"
               "         [--out bench.csv] [--md bench.md] [--steps steps.csv] [--lut-statistic mean|median|min] [--recheck] [--near-wait 0] [--quiet]\n"
               "         [--exhaustive] [--warmup 1] [--runs 5] [--max-runs 20] [--cv 0.05] [--median-ci 0.03]\n"
               "         [--max-seconds 0.5] [--early-stop 0.25] [--far-wait 120] [--warm-cache]\n"
               "         [--computing-us 500] [--cold-call-path] [--in-network 0] [--reprofile]\n\n"
               "Reuses DIR/<model>.lut.json when it matches the model and this device, else profiles it\n"
               "as `layerwise profile` does (every library, both thread sets, the protocol options above,\n"
               "the quick protocol unless --exhaustive: see `layerwise profile --help`; resumable; with\n"
               "--in-network R > 0 its contenders then timed in the network, R rounds, as `lut refine`);\n"
               "a reused LUT keeps the protocol it was profiled with, and a thread cap it has no\n"
               "implementation for (2, for a LUT of `profile --threads 1`) is left out with a note.\n"
               "A file there that does not\n"
               "read as a LUT is an error, never profiled over. --reprofile profiles anew all the same\n"
               "(when the report says the device drifted since profiling), the file replaced once the\n"
               "profile is complete. For every model and thread\n"
               "cap, plans ref-fp32, native, xnnpack, onednn, torch-nchw, torch-nhwc, opt-fp32, opt-int8 and\n"
               "opt-mixed (f32 + bf16 + int8)\n"
               "(explorer/measure/baselines.h) and measures them end to end, round-robin over --repeats rounds;\n"
               "reports medians, speed-ups vs ref-fp32 and vs the best single library, the LUT's\n"
               "prediction, conversion time and executor overhead. --steps writes every step's median\n"
               "beside the LUT's figure for it, and the report then ends with where each prediction\n"
               "misses by step class (caller steps, steps sharing cpu1, conversions, the rest).\n"
               "--lut-statistic median plans from each implementation's\n"
               "median instead of its mean (as before means were recorded), min from its minimum (more\n"
               "robust on a loaded machine). --recheck times every\n"
               "implementation the deployments use again, a share after each round, and predicts with those figures\n"
               "too (column rechecked; an implementation timed in the network is timed alone and carried\n"
               "by its own network / alone ratio): it tells the machine's drift since profiling from the cost\n"
               "model's own error. --near-wait S: in 2-thread blocks, before each round, wait for the\n"
               "two cores to be as near as in the profile (a cache line's round trip within 2x the\n"
               "LUT's), at most S seconds per block; rounds still far are run and counted far.\n",
               run_bench});

}  // namespace
}  // namespace lw::cli
