#include "env/conversion_costs.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include "env/measure.h"
#include "libs/exec/conversion_graph.h"
#include "libs/ops/thread_pool.h"

namespace lw {

namespace {
constexpr QuantParams kTimingQuant{0.05f, 0};
}  // namespace

namespace {

int format_index(const Lut& lut, const Format& f) {
  for (size_t i = 0; i < lut.formats.size(); ++i)
    if (lut.formats[i] == f) return int(i);
  return -1;
}

// A second figure, compared as a difference: fewer runs than the first.
constexpr int kConverterInMemoryRuns = 5;

Status time_conversion(const Registry& reg, const ConversionDesc& d, const Shape& shape, const Protocol& protocol,
                       double* ms, double* in_memory_ms) {
  std::unique_ptr<Primitive> prim;
  LW_RETURN_IF_ERROR(reg.create_conversion(d, shape, kTimingQuant, &prim));
  Tensor in = Tensor::create(shape, d.from.dtype, d.from.layout);
  fill_random(in, 29);  // an unwritten input reads as the zero page: conversions looked ~free
  // Out of place, so a thread-set change is timed as the copy it is where its input lives on;
  // where it dies there the executor runs it in place (0.0001-0.0004 ms against the copy's
  // 0.0006-0.024 in SqueezeNet's 2-thread deployments). Timed in place, the search mixed thread
  // sets more, and GoogLeNet's deployments ran 3-4 % slower: the copy stands in for mixing costs
  // the model lacks (results/reference/thread-change/).
  Tensor out = Tensor::create(prim->output_shape(), prim->output_dtype(), d.to.layout);
  std::vector<uint8_t> ws(prim->workspace_bytes() + 64);
  LW_RETURN_IF_ERROR(prim->setup({in.data()}, out.data(), ws.data()));
  ScopedPin pin;
  LatencyStats stats;
  WarmSet warm;
  warm.threads = std::max(d.from.threads, d.to.threads);
  warm.buffers = {{in.data(), in.bytes()}};
  warm.input_writers = d.from.threads;
  warm.start_as_in_network(protocol, out.data(), out.bytes(), conversion_pool(d));
  LW_RETURN_IF_ERROR(measure(protocol, [&] { return prim->run(); }, &stats, &warm));
  *ms = stats.cost_ms();
  // Streamed outputs (env/cost.h): the same with the input in memory, as a producer that
  // streams its output leaves it (a converter reads as fast as it copies).
  // Only from 1-thread formats: the profiler reads where 1-thread steps leave their outputs.
  if (in_memory_ms && protocol.cold_cache && protocol.streamed_outputs && d.from.threads == 1 &&
      in.bytes() >= kStreamProbeMinBytes) {
    warm.buffers_in_memory = true;
    Protocol p = protocol;
    p.runs = std::min(p.runs, 3);
    p.max_runs = std::min(p.max_runs, kConverterInMemoryRuns);
    LW_RETURN_IF_ERROR(measure(p, [&] { return prim->run(); }, &stats, &warm));
    *in_memory_ms = std::max(0.0, stats.cost_ms() - *ms);
  }
  return Status::ok();
}

// Direct conversion costs on one tensor shape, measured, as the graph's edge weights.
// `in_memory` gets each converter's extra with its input in memory (time_conversion).
Status measured_graph(const Registry& reg, Lut& lut, const Shape& shape, const Protocol& protocol,
                      std::unique_ptr<ConversionGraph>* out, std::map<std::string, double>* in_memory) {
  std::map<std::string, double> ms;
  ConverterCosts record;
  record.shape = {shape.n, shape.c, shape.h, shape.w};
  for (const ConversionEntry& e : reg.conversions()) {
    if (format_index(lut, e.desc.from) < 0 || format_index(lut, e.desc.to) < 0) continue;
    LW_RETURN_IF_ERROR(time_conversion(reg, e.desc, shape, protocol, &ms[e.desc.name()], &(*in_memory)[e.desc.name()]));
    record.ms.emplace_back(e.desc.name(), ms[e.desc.name()]);
  }
  lut.converters.push_back(std::move(record));
  *out = std::make_unique<ConversionGraph>(reg, shape, [&ms](const ConversionDesc& d, const Shape&) {
    auto it = ms.find(d.name());
    return it == ms.end() ? kNoPath : it->second;
  });
  return Status::ok();
}

// Formats a layer's impls produce (output) or accept (input). A fused producer feeds only
// what it absorbs and a fused consumer reads only its producer, always in the same format,
// so neither needs a conversion on that side; but an absorbed add reads its residual,
// converted into its format.
std::set<int> formats_of(const LutLayer& l, bool output) {
  std::set<int> s;
  for (const Impl& i : l.impls) {
    if (!i.ok() || (output ? i.fused_activation : i.is_fused_consumer() && l.kind != LayerKind::kAdd)) continue;
    s.insert(output ? i.out_format : i.in_format);
  }
  return s;
}

// A graph of one tensor shape's measured converters, and their extras with the input in memory.
struct ShapeConverters {
  std::unique_ptr<ConversionGraph> graph;
  std::map<std::string, double> in_memory;
};

void add_edge(const Lut& lut, const ShapeConverters& sc, int p, int c, const std::set<int>& to,
              std::vector<Conversion>* out) {
  const ConversionGraph& g = *sc.graph;
  for (int f : formats_of(lut.layers[p], true))
    for (int t : to) {
      const Format &from = lut.formats[f], &dest = lut.formats[t];
      double cost = g.cost(from, dest);
      if (f == t || cost == kNoPath) continue;
      Conversion cv;
      cv.producer = p;
      cv.consumer = c;
      cv.from_format = f;
      cv.to_format = t;
      cv.chain_ms = cost;
      for (const ConversionDesc& d : g.chain(from, dest)) cv.chain.push_back(d.name());
      if (cv.chain.size() == 1) cv.direct_ms = cost;
      // The chain's first converter reads the producer's output; the rest read its copies.
      if (auto it = cv.chain.empty() ? sc.in_memory.end() : sc.in_memory.find(cv.chain[0]); it != sc.in_memory.end())
        cv.input_in_memory_ms = it->second;
      out->push_back(std::move(cv));
    }
}

}  // namespace

Status measure_conversions(const Network& net, const Registry& reg, const Protocol& protocol, Lut* lut,
                           const std::function<void()>& before_each_shape) {
  lut->converters.clear();
  std::map<std::string, ShapeConverters> graphs;  // one per tensor shape
  auto table_for = [&](const Shape& s, const ShapeConverters** g) -> Status {
    ShapeConverters& slot = graphs[s.to_string()];
    if (!slot.graph) {
      if (before_each_shape) before_each_shape();
      LW_RETURN_IF_ERROR(measured_graph(reg, *lut, s, protocol, &slot.graph, &slot.in_memory));
    }
    *g = &slot;
    return Status::ok();
  };
  std::vector<Conversion> out;
  for (size_t c = 1; c < net.layers.size(); ++c)
    for (int p : net.layers[c].inputs) {
      const ShapeConverters* t = nullptr;
      LW_RETURN_IF_ERROR(table_for(net.layers[p].out, &t));
      add_edge(*lut, *t, p, int(c), formats_of(lut->layers[c], false), &out);
    }
  int last = int(net.layers.size()) - 1;
  const ShapeConverters* t = nullptr;
  LW_RETURN_IF_ERROR(table_for(net.layers[last].out, &t));
  add_edge(*lut, *t, last, -1, {lut->output_format}, &out);
  lut->conversions = std::move(out);
  return Status::ok();
}

ConversionCostFn lut_conversion_cost(const Lut& lut) {
  auto table = std::make_shared<std::map<std::string, double>>();
  for (const ConverterCosts& c : lut.converters) {
    std::string shape = Shape{int(c.shape[0]), int(c.shape[1]), int(c.shape[2]), int(c.shape[3])}.to_string();
    for (const auto& [name, ms] : c.ms) (*table)[shape + "|" + name] = ms;
  }
  return [table](const ConversionDesc& d, const Shape& s) {
    auto it = table->find(s.to_string() + "|" + d.name());
    return it == table->end() ? kNoPath : it->second;
  };
}

}  // namespace lw
