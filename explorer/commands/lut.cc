// `layerwise lut show`: a per-layer view of a LUT.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "env/lut.h"
#include "env/profiler.h"
#include "env/runtime_costs.h"
#include "env/speed_probe.h"
#include "explorer/cli/cli.h"
#include "explorer/cli/progress.h"
#include "explorer/commands/model_arg.h"
#include "explorer/measure/in_network.h"
#include "libs/exec/backends.h"

namespace lw::cli {
namespace {

void show(const Lut& lut) {
  std::printf("LUT of %s (hash %s)\n", lut.model_name.c_str(), lut.model_hash.c_str());
  std::printf("%-40s %-15s %5s  %-50s %10s %8s %10s\n", "layer", "kind", "impls", "fastest", "ms", "worst/x",
              "mem_KiB");
  double sum_fastest = 0;
  for (size_t i = 1; i < lut.layers.size(); ++i) {
    const LutLayer& l = lut.layers[i];
    const Impl* best = nullptr;
    double worst = 0;
    int ok = 0;
    for (const Impl& impl : l.impls) {
      if (!impl.ok()) continue;
      ++ok;
      worst = std::max(worst, impl.latency_ms.median);
      if (!best || impl.latency_ms.median < best->latency_ms.median) best = &impl;
    }
    if (!best) continue;
    double ms = best->latency_ms.median;
    sum_fastest += ms;
    const MemoryBytes& m = best->memory_bytes;
    std::printf("%-40.40s %-15s %5d  %-50.50s %10.4f %8.1f %10.1f\n", l.name.c_str(), to_string(l.kind), ok,
                best->name.c_str(), ms, ms > 0 ? worst / ms : 1.0, (m.weights + m.workspace + m.output) / 1024.0);
  }
  std::printf("\nsum of per-layer fastest: %.3f ms (a lower bound: conversions between formats not counted)\n",
              sum_fastest);
  std::printf("runtime: input copy %.4f ms, output copy %.4f ms%s\n", lut.runtime.input_copy_ms,
              lut.runtime.output_copy_ms, lut.runtime.measured() ? "" : " (not measured: charged as 0)");
  std::printf("thread-pool hand-offs (ms): %s", handoffs_table(lut.runtime).c_str());
  std::printf("speed probe while profiling (env/speed_probe.h):");
  for (size_t t = 0; t < lut.runtime.speed_ms.size(); ++t)
    if (lut.runtime.speed_ms[t] > 0) std::printf(" %zu thread(s) %.4f ms", t + 1, lut.runtime.speed_ms[t]);
  std::printf("%s\n", lut.runtime.has_speed() ? "" : " none (a LUT from before the probe)");
  if (lut.runtime.core_link_ns > 0)
    std::printf("core link while profiling (a cache line's round trip cpu0 <-> cpu1): %.0f ns\n", lut.runtime.core_link_ns);
  if (lut.runtime.has_shared_lines())
    std::printf("lines shared with cpu1 (charged where 1-thread and 2-thread steps meet), us per KiB: a write over lines "
                "cpu1 read %.4f, a read of lines cpu1 wrote %.4f\n",
                lut.runtime.shared_write_us_per_kb, lut.runtime.shared_read_us_per_kb);
  std::vector<double> ratio;  // network / alone of the implementations `lut refine` timed
  for (const LutLayer& l : lut.layers)
    for (const Impl& m : l.impls)
      if (m.alone_ms && m.alone_ms->median > 0) ratio.push_back(m.latency_ms.median / m.alone_ms->median);
  if (ratio.empty()) return;
  std::nth_element(ratio.begin(), ratio.begin() + ratio.size() / 2, ratio.end());
  std::printf("timed in the network (lut refine): %zu implementations, median network / alone %.2f\n", ratio.size(),
              ratio[ratio.size() / 2]);
}

// Measurement noise between two LUTs of the same model: relative difference of every
// implementation's median that both measured as ok (layers matched by name, impls by name).
std::vector<double> differences(const Lut& a, const Lut& b) {
  std::vector<double> rel;
  for (size_t i = 1; i < std::min(a.layers.size(), b.layers.size()); ++i) {
    if (a.layers[i].name != b.layers[i].name) throw UsageError("the LUTs describe different networks");
    for (const Impl& x : a.layers[i].impls)
      for (const Impl& y : b.layers[i].impls)
        if (x.name == y.name && x.ok() && y.ok() && x.latency_ms.median > 0 && y.latency_ms.median > 0)
          rel.push_back(std::abs(x.latency_ms.median - y.latency_ms.median) / std::min(x.latency_ms.median, y.latency_ms.median));
  }
  if (rel.empty()) throw UsageError("no implementation measured in both LUTs");
  std::sort(rel.begin(), rel.end());
  return rel;
}

void print_quantiles(const std::vector<double>& rel) {
  auto q = [&](double f) { return 100 * rel[std::min(rel.size() - 1, size_t(f * rel.size()))]; };
  std::printf("median %.1f %%, p75 %.1f %%, p90 %.1f %%, max %.1f %%\n", q(0.5), q(0.75), q(0.9), 100 * rel.back());
}

// With the speed probe in both LUTs, also the difference once b is brought to a's device
// speed: what remains is the layers' own noise, not the host's drift between the profiles.
void diff(const Lut& a, const Lut& b) {
  const std::vector<double> rel = differences(a, b);
  std::printf("%zu implementation medians in both LUTs; relative difference |a-b|/min(a,b):\n", rel.size());
  print_quantiles(rel);
  if (!a.runtime.has_speed() || !b.runtime.has_speed()) {
    std::printf("(no speed probe in %s: the device's drift between the profiles is not told apart)\n",
                a.runtime.has_speed() ? "b" : "a");
    return;
  }
  const std::vector<double> k = speed_ratios(a.runtime.speed_ms, b.runtime.speed_ms);
  std::printf("speed probe b / a:");
  for (size_t t = 0; t < k.size(); ++t) std::printf(" %.3f (%zu thread(s))", k[t], t + 1);
  std::printf("\nwith b brought to a's speed: ");
  print_quantiles(differences(a, lut_at_speed(b, a.runtime.speed_ms)));
}

// `lut refine`: the contenders timed inside network inferences (explorer/measure/in_network.h),
// written back over the LUT (atomically; --out elsewhere).
int refine(const Args& args, const std::string& path) {
  Lut lut;
  ok_or_throw(load_lut(path, &lut));
  const Registry& registry = default_registry();
  Network net = load_model(args.get("model", lut.model_name));
  const std::string unusable = lut_unusable_here(lut, net, registry);
  if (!unusable.empty()) throw UsageError(path + ": " + unusable);
  InNetworkOptions o;
  o.registry = &registry;
  o.rounds = args.get_int("rounds", kDefaultInNetworkRounds);
  o.contender_margin = args.get_double("margin", kDefaultContenderMargin);
  if (o.rounds < 3) throw UsageError("--rounds: at least 3");
  if (!(o.contender_margin >= 0)) throw UsageError("--margin: expected a number >= 0");
  ProgressLine line(args.flag("quiet"));
  o.progress = counted_progress(line, "lut refine " + lut.model_name);
  InNetworkReport report;
  ok_or_throw(refine_in_network(net, o, &lut, &report));
  line.finish();
  const std::string out = args.get("out", path);
  ok_or_throw(save_lut(lut, out));
  std::printf("%s: %d implementations timed in %d network deployments (%.0f s), written to %s\n",
              lut.model_name.c_str(), report.refined, report.deployments, report.seconds, out.c_str());
  std::printf("%-28s %8s %14s\n", "library dtype threads", "impls", "network/alone");
  for (const auto& [lib, r] : report.ratio_by_library) std::printf("%-28s %8d %14.3f\n", lib.c_str(), r.second, r.first);
  for (const std::string& f : report.failed) std::printf("not run (kept alone): %s\n", f.c_str());
  return 0;
}

int run_lut(const std::vector<std::string>& argv) {
  Args args(argv, {"quiet"}, {"model", "rounds", "margin", "out"});
  const auto& pos = args.positional();
  if (pos.size() == 2 && pos[0] == "refine") return refine(args, pos[1]);
  if (pos.size() == 2 && pos[0] == "show") {
    Lut lut;
    ok_or_throw(load_lut(pos[1], &lut));
    show(lut);
    return 0;
  }
  if (pos.size() == 3 && pos[0] == "diff") {
    Lut a, b;
    ok_or_throw(load_lut(pos[1], &a));
    ok_or_throw(load_lut(pos[2], &b));
    diff(a, b);
    return 0;
  }
  throw UsageError("usage: layerwise lut show <lut.json> | layerwise lut diff <a.json> <b.json> | layerwise lut refine <lut.json>");
}

Registrar reg({"lut", "inspect a lookup table (lut show | lut diff), or time it inside the network (lut refine)",
               "usage: layerwise lut show <lut.json>\n       layerwise lut diff <a.json> <b.json>\n"
               "       layerwise lut refine <lut.json> [--model NAME|PATH] [--rounds 10] [--margin 1.0] [--out FILE] [--quiet]\n\n"
               "refine: QS-DNN's in-network timing (explorer/measure/in_network.h). Per thread set, one\n"
               "deployment per implementation signature (library, layouts, dtype, algorithm, fusion)\n"
               "on every layer where it is a contender (alone within (1 + margin) x the layer's fastest),\n"
               "the rest filled with the cheapest; every step of --rounds inferences is timed and each\n"
               "implementation that ran gets the median of its in-network times as its latency (the\n"
               "figure timed alone stays as alone_latency_ms). Must run on the device that profiled it;\n"
               "--model defaults to the LUT's model name (zoo). Prints network/alone per library.\n\n"
               "diff: the measurement noise between two profiles of the same model (median, p75, p90\n"
               "and max relative difference of the implementation medians both measured); with the\n"
               "speed probe in both, also the device's speed ratio and the difference once b is\n"
               "rescaled to a's speed (what the layers differ by beyond the host's drift).\n\n"
               "show: "
               "Per layer: the number of usable implementations, the fastest one and its median\n"
               "latency, how much slower the slowest usable one is, and the fastest one's memory\n"
               "(packed weights + workspace + output); then the runtime costs and the speed probe.\n",
               run_lut});

}  // namespace
}  // namespace lw::cli
