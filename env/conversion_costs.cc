#include "env/conversion_costs.h"

#include <limits>
#include <map>
#include <set>

#include "libs/ops/thread_pool.h"

namespace lw {

namespace {
constexpr double kInfinity = std::numeric_limits<double>::infinity();
constexpr QuantParams kTimingQuant{0.05f, 0};
}  // namespace

ChainTable::ChainTable(int n, std::vector<double> direct, std::vector<std::string> names)
    : n_(n), direct_(std::move(direct)), dist_(direct_), next_(size_t(n) * n, -1), names_(std::move(names)) {
  for (int i = 0; i < n; ++i) {
    dist_[i * n + i] = 0;
    for (int j = 0; j < n; ++j)
      if (dist_[i * n + j] < kInfinity) next_[i * n + j] = j;
  }
  // Floyd–Warshall: formats are few (layouts x dtypes x thread sets), so O(n^3) is nothing.
  for (int k = 0; k < n; ++k)
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        if (dist_[i * n + k] + dist_[k * n + j] < dist_[i * n + j]) {
          dist_[i * n + j] = dist_[i * n + k] + dist_[k * n + j];
          next_[i * n + j] = next_[i * n + k];
        }
}

std::vector<std::string> ChainTable::chain(int from, int to) const {
  std::vector<std::string> out;
  if (from == to || next_[from * n_ + to] < 0) return out;
  for (int at = from; at != to;) {
    int step = next_[at * n_ + to];
    out.push_back(names_[at * n_ + step]);
    at = step;
  }
  return out;
}

namespace {

int format_index(const Lut& lut, const Format& f) {
  for (size_t i = 0; i < lut.formats.size(); ++i)
    if (lut.formats[i] == f) return int(i);
  return -1;
}

Status time_conversion(const Registry& reg, const ConversionDesc& d, const Shape& shape, const Protocol& protocol,
                       double* ms) {
  std::unique_ptr<Primitive> prim;
  LW_RETURN_IF_ERROR(reg.create_conversion(d, shape, kTimingQuant, &prim));
  Tensor in = Tensor::create(shape, d.from.dtype, d.from.layout);
  Tensor out = Tensor::create(prim->output_shape(), prim->output_dtype(), d.to.layout);
  std::vector<uint8_t> ws(prim->workspace_bytes() + 64);
  LW_RETURN_IF_ERROR(prim->setup({in.data()}, out.data(), ws.data()));
  ScopedPin pin;
  LatencyStats stats;
  LW_RETURN_IF_ERROR(measure(protocol, [&] { return prim->run(); }, &stats));
  *ms = stats.median;
  return Status::ok();
}

Status chain_table(const Registry& reg, const Lut& lut, const Shape& shape, const Protocol& protocol, ChainTable* out) {
  int n = int(lut.formats.size());
  std::vector<double> direct(size_t(n) * n, kInfinity);
  std::vector<std::string> names(size_t(n) * n);
  for (const ConversionEntry& e : reg.conversions()) {
    int f = format_index(lut, e.desc.from), t = format_index(lut, e.desc.to);
    if (f < 0 || t < 0 || f == t) continue;
    double ms = 0;
    LW_RETURN_IF_ERROR(time_conversion(reg, e.desc, shape, protocol, &ms));
    direct[f * n + t] = ms;
    names[f * n + t] = e.desc.name();
  }
  *out = ChainTable(n, std::move(direct), std::move(names));
  return Status::ok();
}

// Formats a layer's impls produce (output) or accept (input). A fused producer feeds only
// its activation and a fused consumer reads only its producer, always in the same format,
// so neither needs a conversion on that side.
std::set<int> formats_of(const LutLayer& l, bool output) {
  std::set<int> s;
  for (const Impl& i : l.impls) {
    if (!i.ok() || (output ? i.fused_activation : i.is_fused_consumer())) continue;
    s.insert(output ? i.out_format : i.in_format);
  }
  return s;
}

void add_edge(const Lut& lut, const ChainTable& t, int p, int c, const std::set<int>& to, std::vector<Conversion>* out) {
  for (int f : formats_of(lut.layers[p], true))
    for (int g : to) {
      if (f == g || t.cost(f, g) == kInfinity) continue;
      Conversion cv;
      cv.producer = p;
      cv.consumer = c;
      cv.from_format = f;
      cv.to_format = g;
      cv.direct_ms = t.direct(f, g) == kInfinity ? -1 : t.direct(f, g);
      cv.chain_ms = t.cost(f, g);
      cv.chain = t.chain(f, g);
      out->push_back(std::move(cv));
    }
}

}  // namespace

Status measure_conversions(const Network& net, const Registry& reg, const Protocol& protocol, Lut* lut) {
  std::map<std::string, ChainTable> tables;  // one per tensor shape
  auto table_for = [&](const Shape& s, const ChainTable** t) -> Status {
    auto it = tables.find(s.to_string());
    if (it == tables.end()) {
      ChainTable fresh(0, {}, {});
      LW_RETURN_IF_ERROR(chain_table(reg, *lut, s, protocol, &fresh));
      it = tables.emplace(s.to_string(), std::move(fresh)).first;
    }
    *t = &it->second;
    return Status::ok();
  };
  std::vector<Conversion> out;
  for (size_t c = 1; c < net.layers.size(); ++c)
    for (int p : net.layers[c].inputs) {
      const ChainTable* t = nullptr;
      LW_RETURN_IF_ERROR(table_for(net.layers[p].out, &t));
      add_edge(*lut, *t, p, int(c), formats_of(lut->layers[c], false), &out);
    }
  int last = int(net.layers.size()) - 1;
  const ChainTable* t = nullptr;
  LW_RETURN_IF_ERROR(table_for(net.layers[last].out, &t));
  add_edge(*lut, *t, last, -1, {lut->output_format}, &out);
  lut->conversions = std::move(out);
  return Status::ok();
}

}  // namespace lw
