// `layerwise lut show`: a per-layer view of a LUT.
#include <algorithm>
#include <cstdio>

#include "env/lut.h"
#include "explorer/cli.h"

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
}

int run_lut(const std::vector<std::string>& argv) {
  Args args(argv, {}, {});
  const auto& pos = args.positional();
  if (pos.size() != 2 || pos[0] != "show") throw UsageError("usage: layerwise lut show <lut.json>");
  Lut lut;
  ok_or_throw(load_lut(pos[1], &lut));
  show(lut);
  return 0;
}

Registrar reg({"lut", "inspect a lookup table (lut show lut.json)",
               "usage: layerwise lut show <lut.json>\n\n"
               "Per layer: the number of usable implementations, the fastest one and its median\n"
               "latency, how much slower the slowest usable one is, and the fastest one's memory\n"
               "(packed weights + workspace + output).\n",
               run_lut});

}  // namespace
}  // namespace lw::cli
