#include "env/env.h"

#include <algorithm>
#include <map>

namespace lw {

namespace {
constexpr double kBytesPerMiB = 1024.0 * 1024.0;
}  // namespace

DeploymentEnv::DeploymentEnv(const Problem& problem, EnvOptions options) : problem_(problem), options_(options) {
  const size_t total = problem_.impl_ms.size();
  extra_ms_.assign(total, 0.0);
  constraint_ok_.assign(total, 1);
  for (size_t f = 0; f < total; ++f) {
    const int64_t mem = impl_memory_bytes(problem_, int(f));
    extra_ms_[f] = options_.memory_weight_ms_per_mib * double(mem) / kBytesPerMiB;
    if (options_.max_layer_memory_bytes > 0 && mem > options_.max_layer_memory_bytes) constraint_ok_[f] = 0;
  }
  build_frontier_tables();
  assign_.assign(problem_.n, -1);
  mask_.reserve(problem_.max_actions);
  obs_size_ = kNumLayerKinds + 2 + int(problem_.libraries.size()) + int(problem_.algorithms.size()) + kNumDTypes +
              2 * kNumLayouts + int(problem_.thread_values.size()) + problem_.n_formats + 1;
  reset();
}

void DeploymentEnv::build_frontier_tables() {
  const Problem& p = problem_;
  out_class_.assign(p.impl_ms.size(), 0);
  std::vector<std::vector<int>> out_edges(p.n);
  for (int e = 0; e < int(p.edges.size()); ++e) out_edges[p.edges[e].producer].push_back(e);
  for (int j = 0; j < p.n; ++j) {
    std::map<std::vector<double>, int> classes;
    for (int a = 0; a < p.actions(j); ++a) {
      std::vector<double> row;
      for (int e : out_edges[j])
        for (int c = 0; c < p.actions(p.edges[e].consumer); ++c) row.push_back(p.edge_cost(p.edges[e], a, c));
      out_class_[p.offset[j] + a] = classes.emplace(row, int(classes.size())).first->second;
    }
  }
  live_at_.assign(1, 0);
  for (int t = 0; t < p.n; ++t) {
    for (int j = 0; j < t; ++j)
      if (p.last_use[j] >= t) live_.push_back(j);
    live_at_.push_back(int(live_.size()));
  }
}

Observation DeploymentEnv::reset(uint64_t /*seed*/) {
  std::fill(assign_.begin(), assign_.end(), -1);
  layer_ = 0;
  latency_ = 0;
  update_mask();
  return observe();
}

double DeploymentEnv::step_cost(int a) const {
  const Problem& p = problem_;
  const int f = p.offset[layer_] + a;
  double cost = p.impl_ms[f] + extra_ms_[f];
  for (int e = p.in_begin[layer_]; e < p.in_begin[layer_ + 1]; ++e) {
    const auto& edge = p.edges[e];
    cost += p.edge_cost(edge, assign_[edge.producer], a);
  }
  if (layer_ == p.n - 1) cost += p.out_ms[a];
  return cost;
}

StepResult DeploymentEnv::step(int action) {
  LW_CHECK(!done() && action >= 0 && action < num_actions() && mask_[action]);
  const int f = problem_.offset[layer_] + action;
  StepResult r;
  const double cost = step_cost(action);
  r.info.latency_ms = cost - extra_ms_[f];
  r.reward = -cost;
  latency_ += r.info.latency_ms;
  assign_[layer_] = action;
  ++layer_;
  ++steps_;
  r.terminated = done();
  if (!r.terminated) update_mask();
  r.obs = observe();
  return r;
}

void DeploymentEnv::update_mask() {
  const Problem& p = problem_;
  const int n = p.actions(layer_), base = p.offset[layer_];
  mask_.resize(n);
  for (int a = 0; a < n; ++a) {
    bool ok = p.usable[base + a] && constraint_ok_[base + a];
    for (int e = p.in_begin[layer_]; ok && e < p.in_begin[layer_ + 1]; ++e) {
      const auto& edge = p.edges[e];
      ok = p.edge_cost(edge, assign_[edge.producer], a) < kInf;
    }
    if (ok && layer_ == p.n - 1) ok = p.out_ms[a] < kInf;
    mask_[a] = ok;
  }
}

Observation DeploymentEnv::observe() const {
  Observation o;
  o.layer = layer_;
  o.prev = layer_ > 0 ? assign_[layer_ - 1] : -1;
  o.key = layer_ > 0 ? 1 + problem_.offset[layer_ - 1] + o.prev : 0;
  // Agents key hash maps by it, so every element goes through a full 64-bit mix (a plain
  // FNV fold of small integers collides: layer 45 ^ class 4 == layer 41 ^ class 0).
  auto mix = [](uint64_t x) {
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
  };
  uint64_t h = mix(0x9e3779b97f4a7c15ULL + uint64_t(layer_));
  if (!done())
    for (const int* j = live_begin(layer_); j != live_end(layer_); ++j)
      h = mix(h + uint64_t(1 + out_class_[problem_.offset[*j] + assign_[*j]]));
  o.frontier = h;
  return o;
}

void DeploymentEnv::observation_vector(float* out) const {
  const Problem& p = problem_;
  std::fill(out, out + obs_size_, 0.f);
  if (done()) return;
  float* o = out;
  o[p.kind[layer_]] = 1.f;
  o += kNumLayerKinds;
  *o++ = p.max_depth > 0 ? float(p.depth[layer_]) / float(p.max_depth) : 0.f;
  *o++ = float(layer_) / float(p.n);
  const int nl = int(p.libraries.size()), na = int(p.algorithms.size()), nt = int(p.thread_values.size());
  if (layer_ > 0) {
    const ImplFields& f = p.fields[p.offset[layer_ - 1] + assign_[layer_ - 1]];
    o[f.library] = 1.f;
    o[nl + f.algorithm] = 1.f;
    o[nl + na + f.dtype] = 1.f;
    o[nl + na + kNumDTypes + f.in_layout] = 1.f;
    o[nl + na + kNumDTypes + kNumLayouts + f.out_layout] = 1.f;
    o[nl + na + kNumDTypes + 2 * kNumLayouts + f.threads_id] = 1.f;
  }
  o += nl + na + kNumDTypes + 2 * kNumLayouts + nt;
  // The formats the current layer's producers deliver: what its conversion costs depend on.
  bool fused = false;
  for (int e = p.in_begin[layer_]; e < p.in_begin[layer_ + 1]; ++e) {
    const int prod = p.edges[e].producer;
    const ImplFields& f = p.fields[p.offset[prod] + assign_[prod]];
    o[f.out_format] = 1.f;
    fused |= f.fused_producer;
  }
  o += p.n_formats;
  *o = fused ? 1.f : 0.f;
}

}  // namespace lw
