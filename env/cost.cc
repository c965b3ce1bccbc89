#include "env/cost.h"

#include <algorithm>

#include "libs/core/enum_names.h"

namespace lw {

namespace {

constexpr NameRow<MemoryModel> kMemoryModels[] = {
#define X(e, s) {MemoryModel::e, s},
#include "env/memory_model.inc"
#undef X
};

}  // namespace

const char* to_string(MemoryModel m) { return name_of(kMemoryModels, m); }
std::optional<MemoryModel> parse_memory_model(const std::string& s) { return parse_name(kMemoryModels, s); }

namespace {

int16_t intern(std::vector<std::string>& vocab, const std::string& s) {
  auto it = std::find(vocab.begin(), vocab.end(), s);
  if (it != vocab.end()) return int16_t(it - vocab.begin());
  vocab.push_back(s);
  return int16_t(vocab.size() - 1);
}

// Conversion cost between two impls on one edge, per the LUT contract (see cost.h).
// `residual`: the edge brings an add's earlier operand, which a conv absorbing the add reads
// (converted into its output format) rather than absorbs.
double pair_cost(const Problem& p, const Impl& P, const Impl& C, int prod, bool residual) {
  if (P.fused_activation) return C.is_fused_consumer() && P.out_format == C.in_format ? 0.0 : kInf;
  if (C.is_fused_consumer() && !residual) return kInf;
  return p.conv(prod, P.out_format, C.in_format);
}

// One chain cost per (producer, from, to), whichever consumer the record was measured for.
void fill_conversions(const Lut& lut, Problem* p) {
  const int F = p->n_formats;
  p->conv_ms.assign(size_t(p->n) * F * F, kInf);
  for (int j = 0; j < p->n; ++j)
    for (int f = 0; f < F; ++f) p->conv_ms[(size_t(j) * F + f) * F + f] = 0.0;
  for (const Conversion& c : lut.conversions) {
    if (c.producer < 0 || c.producer >= p->n || c.from_format == c.to_format || c.from_format < 0 || c.to_format < 0 ||
        c.from_format >= F || c.to_format >= F)
      continue;
    double& slot = p->conv_ms[(size_t(c.producer) * F + c.from_format) * F + c.to_format];
    slot = std::min(slot, c.chain_ms);
  }
}

// The pool an impl's step runs on (Problem::pool); a library this build does not know counts
// as the native pool at more than one thread.
int8_t pool_of(const Impl& m, int layer) {
  if (m.is_fused_consumer()) return Problem::kNoStep;
  if (layer == 0) return int8_t(ThreadPoolId::kCaller);
  const std::optional<Library> lib = parse_library(m.library);
  return int8_t(thread_pool_of(lib.value_or(Library::kNative), m.threads));
}

void fill_impls(const Lut& lut, Problem* p) {
  p->offset.assign(1, 0);
  for (int i = 0; i < p->n; ++i) {
    const LutLayer& l = lut.layers[i];
    p->kind.push_back(int(l.kind));
    p->depth.push_back(l.depth);
    p->max_depth = std::max(p->max_depth, l.depth);
    p->max_actions = std::max(p->max_actions, int(l.impls.size()));
    for (const Impl& m : l.impls) {
      p->impl_ms.push_back(m.ok() ? m.latency_ms.cost_ms() : kInf);
      p->usable.push_back(m.ok());
      p->weights.push_back(m.memory_bytes.weights);
      p->workspace.push_back(m.memory_bytes.workspace);
      p->output.push_back(m.memory_bytes.output);
      ImplFields f;
      f.library = intern(p->libraries, m.library);
      f.algorithm = intern(p->algorithms, m.algorithm);
      f.dtype = int16_t(m.dtype);
      f.in_layout = int16_t(lut.formats[m.in_format].layout);
      f.out_layout = int16_t(lut.formats[m.out_format].layout);
      auto t = std::find(p->thread_values.begin(), p->thread_values.end(), m.threads);
      if (t == p->thread_values.end()) t = p->thread_values.insert(p->thread_values.end(), m.threads);
      f.threads_id = int16_t(t - p->thread_values.begin());
      f.in_format = int16_t(m.in_format);
      f.out_format = int16_t(m.out_format);
      f.fused_producer = m.fused_activation;
      f.fused_consumer = m.is_fused_consumer();
      p->fields.push_back(f);
      p->pool.push_back(pool_of(m, i));
    }
    p->offset.push_back(int(p->impl_ms.size()));
  }
}

// Only a LUT with usable steps on some pool pays hand-offs (a 1-thread LUT keeps the pairwise
// exact solver: env/cost.h charges them through a fused layer's walk back, not pairwise). Each
// layer's into each pool is read at the layer's fastest measured (ok) step there.
void set_handoffs(const Lut& lut, Problem* p) {
  bool pools = false;
  for (size_t f = 0; f < p->pool.size(); ++f)
    pools |= p->usable[f] && p->pool[f] != Problem::kNoStep && p->pool[f] != int8_t(ThreadPoolId::kCaller);
  if (!lut.runtime.has_handoffs() || !pools) return;
  const int P = kThreadPoolCount;
  p->handoff.assign(size_t(p->n) * P * P, 0.0);
  for (int t = 0; t < p->n; ++t) {
    std::vector<double> step(P, kInf);
    for (int a = 0; a < p->actions(t); ++a)
      if (const int f = p->offset[t] + a; p->usable[f] && p->pool[f] != Problem::kNoStep)
        step[p->pool[f]] = std::min(step[p->pool[f]], p->impl_ms[f]);
    for (int from = 0; from < P; ++from)
      for (int to = 0; to < P; ++to)
        p->handoff[(size_t(t) * P + from) * P + to] =
            std::max(0.0, lut.runtime.handoff(ThreadPoolId(from), ThreadPoolId(to), step[to] < kInf ? step[to] : 0.0));
  }
}

// Only where hand-offs are charged: a LUT with 2-thread steps whose profile measured the rates.
void set_shared_lines(const Lut& lut, Problem* p) {
  if (!p->has_handoffs() || !lut.runtime.has_shared_lines()) return;
  for (int t = 0; t < p->n; ++t) p->in_place.push_back(runs_in_place(lut.layers[t].kind));
  for (int64_t bytes : p->output) {
    const double half_ms_per_us = 0.5 * double(bytes) / 1024.0 / 1000.0;
    p->shared_write.push_back(half_ms_per_us * lut.runtime.shared_write_us_per_kb);
    p->shared_read.push_back(half_ms_per_us * lut.runtime.shared_read_us_per_kb);
  }
}

int64_t elements_of(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return shape.empty() ? 0 : n;
}

// Only a LUT whose profile measured where outputs go, and where some step leaves one in memory
// that a reader pays for.
void set_streams(const Lut& lut, Problem* p) {
  bool writes = false, reads = false;
  for (const LutLayer& l : lut.layers)
    for (const Impl& m : l.impls) writes |= m.ok() && m.output_in_memory > 0, reads |= m.ok() && m.input_in_memory_ms > 0;
  for (const Conversion& c : lut.conversions) reads |= c.input_in_memory_ms > 0;
  if (!writes || !reads) return;
  for (const LutLayer& l : lut.layers)
    for (const Impl& m : l.impls) {
      p->out_memory.push_back(m.ok() ? m.output_in_memory : 0.0);
      p->in_memory.push_back(m.ok() ? m.input_in_memory_ms : 0.0);
    }
  const int F = p->n_formats;
  p->conv_in_memory.assign(size_t(p->n) * F * F, 0.0);
  for (const Conversion& c : lut.conversions) {
    if (c.producer < 0 || c.producer >= p->n || c.from_format < 0 || c.to_format < 0 || c.from_format >= F ||
        c.to_format >= F)
      continue;
    const size_t at = (size_t(c.producer) * F + c.from_format) * F + c.to_format;
    // (the record of the cheapest chain, as fill_conversions keeps)
    if (c.chain_ms <= p->conv_ms[at]) p->conv_in_memory[at] = c.input_in_memory_ms;
  }
  for (const Problem::Edge& e : p->edges) {
    int64_t all = 0;
    for (int j : lut.layers[e.consumer].inputs) all += elements_of(lut.layers[j].out_shape);
    p->in_share.push_back(all > 0 ? double(elements_of(lut.layers[e.producer].out_shape)) / double(all) : 0.0);
  }
}

void fill_edges(const Lut& lut, Problem* p) {
  fill_conversions(lut, p);
  p->last_use.resize(p->n);
  for (int i = 0; i < p->n; ++i) p->last_use[i] = i;
  p->in_begin.assign(1, 0);
  std::vector<int> last_out(p->n, -1);
  for (int c = 0; c < p->n; ++c) {
    const std::vector<int>& ins = lut.layers[c].inputs;
    for (int prod : ins) {
      p->last_use[prod] = std::max(p->last_use[prod], c);
      // A conv absorbs an add only when it is the add's later input (the earlier one exists
      // when it runs: libs/ops/primitive.h runtime_fusion), so the earlier is the residual.
      const bool residual = lut.layers[c].kind == LayerKind::kAdd && ins.size() == 2 && ins[0] != ins[1] &&
                            prod == std::min(ins[0], ins[1]);
      Problem::Edge e{prod, c, int64_t(p->edge_ms.size()), residual};
      for (const Impl& P : lut.layers[prod].impls)
        for (const Impl& C : lut.layers[c].impls) p->edge_ms.push_back(pair_cost(*p, P, C, prod, residual));
      p->prev_out.push_back(last_out[prod]);
      last_out[prod] = int(p->edges.size());
      p->edges.push_back(e);
    }
    p->in_begin.push_back(int(p->edges.size()));
  }
  p->out_begin.assign(p->n + 1, 0);
  for (const auto& e : p->edges) ++p->out_begin[e.producer + 1];
  for (int j = 0; j < p->n; ++j) p->out_begin[j + 1] += p->out_begin[j];
  p->out_edge.assign(p->edges.size(), 0);
  std::vector<int> fill(p->out_begin.begin(), p->out_begin.end() - 1);
  for (int e = 0; e < int(p->edges.size()); ++e) p->out_edge[fill[p->edges[e].producer]++] = e;
  const int last = p->n - 1;
  const double io = lut.runtime.input_copy_ms + lut.runtime.output_copy_ms;  // every deployment pays them
  for (const Impl& P : lut.layers[last].impls)
    p->out_ms.push_back(P.fused_activation ? kInf : p->conv(last, P.out_format, lut.output_format) + io);
}

// Arc consistency: drop impls that cannot take part in any finite assignment of one edge, until
// nothing changes. Masks then never lead an agent into an impossible edge on a chain.
bool prune(Problem* p) {
  bool changed = true, any = false;
  auto usable = [&](int layer, int a) { return p->usable[p->offset[layer] + a] != 0; };
  while (changed) {
    changed = false;
    for (int a = 0; a < p->actions(p->n - 1); ++a)
      if (usable(p->n - 1, a) && p->out_ms[a] == kInf) p->usable[p->offset[p->n - 1] + a] = 0, changed = true;
    for (const auto& e : p->edges) {
      const int np = p->actions(e.producer), nc = p->actions(e.consumer);
      for (int a = 0; a < np; ++a) {
        if (!usable(e.producer, a)) continue;
        bool support = false;
        for (int b = 0; b < nc && !support; ++b) support = usable(e.consumer, b) && p->edge_cost(e, a, b) < kInf;
        if (!support) p->usable[p->offset[e.producer] + a] = 0, changed = true;
      }
      for (int b = 0; b < nc; ++b) {
        if (!usable(e.consumer, b)) continue;
        bool support = false;
        for (int a = 0; a < np && !support; ++a) support = usable(e.producer, a) && p->edge_cost(e, a, b) < kInf;
        if (!support) p->usable[p->offset[e.consumer] + b] = 0, changed = true;
      }
    }
    any |= changed;
  }
  for (size_t f = 0; f < p->usable.size(); ++f)
    if (!p->usable[f]) p->impl_ms[f] = kInf;
  return any;
}

}  // namespace

Status compile_problem(const Lut& lut, Problem* out) {
  Problem p;
  p.model_name = lut.model_name;
  p.n = int(lut.layers.size());
  p.n_formats = int(lut.formats.size());
  if (p.n == 0) return invalid_argument("LUT of '" + lut.model_name + "' has no layers");
  fill_impls(lut, &p);
  set_handoffs(lut, &p);
  set_shared_lines(lut, &p);
  fill_edges(lut, &p);
  set_streams(lut, &p);
  prune(&p);
  for (int i = 0; i < p.n; ++i) {
    bool any = false;
    for (int a = 0; a < p.actions(i); ++a) any |= p.usable[p.offset[i] + a] != 0;
    if (!any)
      return unsupported("no deployment of '" + lut.model_name + "' is possible: layer " + std::to_string(i) + " (" +
                         lut.layers[i].name + ") has no usable implementation that connects to its neighbours");
  }
  *out = std::move(p);
  return Status::ok();
}

double conversion_in_ms(const Problem& p, const int* a, int t, int b) {
  double total = t == p.n - 1 ? p.out_ms[b] : 0.0;
  const int target = p.fields[p.offset[t] + b].in_format;
  for (int e = p.in_begin[t]; e < p.in_begin[t + 1]; ++e) {
    const Problem::Edge& edge = p.edges[e];
    const double c = p.edge_cost(edge, a[edge.producer], b);
    if (c == 0) continue;
    bool paid = false;  // the executor already converted this producer to `target`
    for (int q = p.prev_out[e]; q >= 0 && !paid && c < kInf; q = p.prev_out[q]) {
      const int cons = p.edges[q].consumer, bq = cons == t ? b : a[cons];
      paid = p.fields[p.offset[cons] + bq].in_format == target && p.edge_cost(p.edges[q], a[edge.producer], bq) > 0;
    }
    if (!paid) total += c;
  }
  return total + handoff_in_ms(p, a, t, b) + shared_lines_in_ms(p, a, t, b) + streamed_in_ms(p, a, t, b);
}

double written_in_memory(const Problem& p, const int* a, int j) {
  for (int k = j; k >= 0; --k)
    if (const int f = p.offset[k] + a[k]; p.pool[f] != Problem::kNoStep) return p.out_memory[f];
  return 0.0;
}

double reader_in_memory_ms(const Problem& p, const Problem::Edge& e, int a_p, int b) {
  if (!(p.edge_cost(e, a_p, b) < kInf)) return 0.0;
  const int from = p.fields[p.offset[e.producer] + a_p].out_format, fb = p.offset[e.consumer] + b;
  const int to = p.fields[fb].in_format, edge = int(&e - p.edges.data());
  if (from == to) return p.in_share[edge] * p.in_memory[fb];
  return p.conv_in_memory[(size_t(e.producer) * p.n_formats + from) * p.n_formats + to];
}

double streamed_in_ms(const Problem& p, const int* a, int t, int b) {
  if (!p.has_streams() || t == 0) return 0.0;
  double total = 0;
  for (int e = p.in_begin[t]; e < p.in_begin[t + 1]; ++e) {
    const Problem::Edge& edge = p.edges[e];
    if (const double s = written_in_memory(p, a, edge.producer); s > 0)
      total += s * reader_in_memory_ms(p, edge, a[edge.producer], b);
  }
  return total;
}

bool runs_in_place(LayerKind kind) {
  switch (kind) {
    case LayerKind::kRelu: case LayerKind::kRelu6: case LayerKind::kHardSwish: case LayerKind::kHardSigmoid:
    case LayerKind::kSigmoid: case LayerKind::kGelu:
      return true;
    default:
      return false;
  }
}

// Whether the output of layer j was read before on the side `cpu1` (a step on a pool with a cpu1
// thread, or on the caller): by an earlier consumer than edge e's, or by t itself (impl b)
// through an earlier input.
bool read_before(const Problem& p, const int* a, int e, int t, int b, bool cpu1) {
  for (int k = p.prev_out[e]; k >= 0; k = p.prev_out[k]) {
    const int c = p.edges[k].consumer, q = p.pool[p.offset[c] + (c == t ? b : a[c])];
    if (q != Problem::kNoStep && Problem::on_cpu1(q) == cpu1) return true;
  }
  return false;
}

double shared_lines_in_ms(const Problem& p, const int* a, int t, int b) {
  if (!p.has_shared_lines() || t == 0) return 0.0;
  const int f = p.offset[t] + b, q = p.pool[f];
  if (q == Problem::kNoStep) return 0.0;
  const bool cpu1 = Problem::on_cpu1(q);
  double total = 0;
  if (!cpu1 && p.in_place[t] && p.in_begin[t] < p.in_begin[t + 1]) {  // (2) in place on cpu1's half
    const int j = p.edges[p.in_begin[t]].producer;
    if (p.last_use[j] == t && Problem::on_cpu1(exit_pool(p, a, j))) total += p.shared_write[f];
  }
  for (int e = p.in_begin[t]; e < p.in_begin[t + 1]; ++e) {  // (1), (3): reads what the other side wrote
    const int j = p.edges[e].producer;
    if (Problem::on_cpu1(exit_pool(p, a, j)) == cpu1 || read_before(p, a, e, t, b, cpu1)) continue;
    const int fj = p.offset[j] + a[j];
    total += cpu1 ? p.shared_write[fj] + p.shared_read[fj] : p.shared_read[fj];
  }
  return total;
}

int exit_pool(const Problem& p, const int* a, int t) {
  for (int j = t; j >= 0; --j)
    if (const int q = p.pool[p.offset[j] + a[j]]; q != Problem::kNoStep) return q;
  return int(ThreadPoolId::kCaller);
}

double handoff_in_ms(const Problem& p, const int* a, int t, int b) {
  if (!p.has_handoffs() || t == 0) return 0.0;
  const int q = p.pool[p.offset[t] + b];
  double total = q == Problem::kNoStep ? 0.0 : p.handoff_ms(t, exit_pool(p, a, t - 1), q);
  if (t == p.n - 1) total += p.handoff_ms(t, q == Problem::kNoStep ? exit_pool(p, a, t - 1) : q, int(ThreadPoolId::kCaller));
  return total;
}

double streamed_ms(const Problem& p, const std::vector<int>& a) {
  double total = 0;
  for (int t = 0; t < p.n && int(a.size()) == p.n; ++t) total += streamed_in_ms(p, a.data(), t, a[t]);
  return total;
}

double shared_lines_ms(const Problem& p, const std::vector<int>& a) {
  double total = 0;
  for (int t = 0; t < p.n && int(a.size()) == p.n; ++t) total += shared_lines_in_ms(p, a.data(), t, a[t]);
  return total;
}

double predict_latency_ms(const Problem& p, const std::vector<int>& a) {
  if (int(a.size()) != p.n) return kInf;
  for (int i = 0; i < p.n; ++i)
    if (a[i] < 0 || a[i] >= p.actions(i)) return kInf;
  double total = 0;
  for (int i = 0; i < p.n; ++i) total += p.impl_ms[p.offset[i] + a[i]] + conversion_in_ms(p, a.data(), i, a[i]);
  return total;
}

int64_t predict_memory_bytes(const Problem& p, const std::vector<int>& a) {
  int64_t weights = 0, workspace = 0, live = 0, peak = 0;
  // free_at[i]: bytes released after step i (outputs whose last reader is i).
  std::vector<int64_t> free_at(p.n, 0);
  for (int i = 0; i < p.n; ++i) {
    const int f = p.offset[i] + a[i];
    weights += p.weights[f];
    workspace = std::max(workspace, p.workspace[f]);
    live += p.output[f];
    peak = std::max(peak, live);
    free_at[p.last_use[i]] += p.output[f];
    if (i < p.n - 1) live -= free_at[i];  // the network output stays live to the end
  }
  return weights + workspace + peak;
}

int64_t linear_memory_bytes(const Problem& p, const std::vector<int>& a, MemoryModel model) {
  if (model == MemoryModel::kPeak) return predict_memory_bytes(p, a);
  int64_t sum = 0, mx = 0;
  for (int i = 0; i < p.n; ++i) {
    const int64_t m = impl_memory_bytes(p, p.offset[i] + a[i]);
    sum += m;
    mx = std::max(mx, m);
  }
  return model == MemoryModel::kWholeNetwork ? sum : mx;
}

}  // namespace lw
