// The LUT as bench plans from it: capped to a thread count (its converters and conversion
// chains with it), or with each implementation's minimum or median as its cost.
#include <map>
#include <memory>

#include "env/conversion_costs.h"
#include "explorer/measure/baselines.h"
#include "explorer/measure/bench.h"
#include "libs/exec/conversion_graph.h"

namespace lw {

namespace {

bool above(const Format& f, int max_threads) { return f.threads > max_threads; }

// Converters over formats above the cap go; an unknown name (another registry) stays.
void drop_converters_above(const Registry& reg, int max_threads, Lut* lut) {
  std::map<std::string, ConversionDesc> by_name;
  for (const ConversionEntry& e : reg.conversions()) by_name[e.desc.name()] = e.desc;
  for (ConverterCosts& cc : lut->converters) {
    std::vector<std::pair<std::string, double>> kept;
    for (const auto& [name, ms] : cc.ms) {
      auto it = by_name.find(name);
      if (it == by_name.end() || (!above(it->second.from, max_threads) && !above(it->second.to, max_threads)))
        kept.emplace_back(name, ms);
    }
    cc.ms = std::move(kept);
  }
}

}  // namespace

Lut lut_with_min_latency(const Lut& lut) {
  Lut r = lut;
  for (LutLayer& l : r.layers)
    for (Impl& m : l.impls)
      if (m.ok() && m.latency_ms.min > 0) m.latency_ms.median = m.latency_ms.mean = m.latency_ms.min;
  return r;
}

Lut lut_with_median_latency(const Lut& lut) {
  Lut r = lut;
  for (LutLayer& l : r.layers)
    for (Impl& m : l.impls) m.latency_ms.mean = 0;
  return r;
}

Lut cap_lut_threads(const Lut& lut, int max_threads, const Registry& reg) {
  Lut r = restrict_lut(lut, [&](const LutLayer&, const Impl& m) { return m.threads <= max_threads; });
  drop_converters_above(reg, max_threads, &r);
  ConversionCostFn cost = lut_conversion_cost(r);
  std::map<std::string, std::unique_ptr<ConversionGraph>> graphs;  // one per tensor shape
  std::vector<Conversion> kept;
  for (Conversion c : r.conversions) {
    const Format &from = r.formats[c.from_format], &to = r.formats[c.to_format];
    if (above(from, max_threads) || above(to, max_threads)) continue;
    const std::vector<int64_t>& d = r.layers[c.producer].out_shape;
    Shape shape{int(d[0]), int(d[1]), int(d[2]), int(d[3])};
    auto& g = graphs[shape.to_string()];
    if (!g) g = std::make_unique<ConversionGraph>(reg, shape, cost);
    c.chain_ms = g->cost(from, to);
    if (!(c.chain_ms < kNoPath)) continue;
    c.chain.clear();
    for (const ConversionDesc& step : g->chain(from, to)) c.chain.push_back(step.name());
    c.direct_ms = c.chain.size() == 1 ? c.chain_ms : -1;
    kept.push_back(std::move(c));
  }
  r.conversions = std::move(kept);
  return r;
}

}  // namespace lw
