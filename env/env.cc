#include "env/env.h"

#include <algorithm>
#include <cstring>
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
  LW_CHECK(problem_.n_formats <= 64);  // the frontier keeps converted formats as a 64-bit set
  build_frontier_tables();
  build_memory_tables();
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

void DeploymentEnv::build_memory_tables() {
  const Problem& p = problem_;
  freed_at_.assign(1, 0);
  for (int t = 0; t < p.n; ++t) {
    for (int j = 0; j <= t; ++j)
      if (p.last_use[j] == t) freed_.push_back(j);
    freed_at_.push_back(int(freed_.size()));
  }
  rest_weights_.assign(p.n + 1, 0);
  rest_workspace_.assign(p.n + 1, 0);
  for (int t = p.n - 1; t >= 0; --t) {
    int64_t w = INT64_MAX, ws = INT64_MAX;
    for (int f = p.offset[t]; f < p.offset[t + 1]; ++f)
      if (statically_allowed(f)) w = std::min(w, p.weights[f]), ws = std::min(ws, p.workspace[f]);
    if (w == INT64_MAX) w = ws = 0;  // (compile_problem refuses a layer without a usable impl)
    rest_weights_[t] = rest_weights_[t + 1] + w;
    rest_workspace_[t] = std::max(rest_workspace_[t + 1], ws);
  }
}

// Least peak memory of any completion after choosing `flat` at the current layer: every
// term of predict_memory_bytes can only grow from here.
int64_t DeploymentEnv::memory_bound(int flat) const {
  const Problem& p = problem_;
  return weights_ + p.weights[flat] + rest_weights_[layer_ + 1] +
         std::max({workspace_, p.workspace[flat], rest_workspace_[layer_ + 1]}) +
         std::max(peak_, live_bytes_ + p.output[flat]);
}

// predict_memory_bytes, one step at a time.
void DeploymentEnv::account_memory(int flat) {
  const Problem& p = problem_;
  weights_ += p.weights[flat];
  workspace_ = std::max(workspace_, p.workspace[flat]);
  live_bytes_ += p.output[flat];
  peak_ = std::max(peak_, live_bytes_);
  if (layer_ < p.n - 1)  // the network output stays live to the end
    for (int k = freed_at_[layer_]; k < freed_at_[layer_ + 1]; ++k) {
      const int j = freed_[k];
      live_bytes_ -= p.output[p.offset[j] + (j == layer_ ? flat - p.offset[j] : assign_[j])];
    }
}

bool DeploymentEnv::memory_allows(const int* assign, int t, int b) const {
  if (options_.max_memory_bytes <= 0) return true;
  const Problem& p = problem_;
  int64_t weights = 0, workspace = 0, live = 0, peak = 0;
  for (int i = 0; i < t; ++i) {  // account_memory's steps
    const int f = p.offset[i] + assign[i];
    weights += p.weights[f];
    workspace = std::max(workspace, p.workspace[f]);
    live += p.output[f];
    peak = std::max(peak, live);
    for (int k = freed_at_[i]; k < freed_at_[i + 1]; ++k) live -= p.output[p.offset[freed_[k]] + assign[freed_[k]]];
  }
  const int f = p.offset[t] + b;
  const int64_t bound = weights + p.weights[f] + rest_weights_[t + 1] +
                        std::max({workspace, p.workspace[f], rest_workspace_[t + 1]}) + std::max(peak, live + p.output[f]);
  return bound <= options_.max_memory_bytes;
}

bool DeploymentEnv::dead_end() const {
  if (done()) return false;
  for (uint8_t m : mask_)
    if (m) return false;
  return true;
}

Observation DeploymentEnv::reset(uint64_t /*seed*/) {
  std::fill(assign_.begin(), assign_.end(), -1);
  layer_ = 0;
  latency_ = 0;
  weights_ = workspace_ = live_bytes_ = peak_ = 0;
  update_mask();
  return observe();
}

double DeploymentEnv::step_cost(int a) const {
  const Problem& p = problem_;
  const int f = p.offset[layer_] + a;
  return p.impl_ms[f] + extra_ms_[f] + conversion_in_ms(p, assign_.data(), layer_, a);
}

StepResult DeploymentEnv::step(int action) {
  LW_CHECK(!done() && action >= 0 && action < num_actions() && mask_[action]);
  const int f = problem_.offset[layer_] + action;
  StepResult r;
  const double cost = step_cost(action);
  r.info.latency_ms = cost - extra_ms_[f];
  r.reward = -cost;
  latency_ += r.info.latency_ms;
  account_memory(f);
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
  edge_mask_.resize(n);
  for (int a = 0; a < n; ++a) {
    bool ok = p.usable[base + a] && constraint_ok_[base + a];
    for (int e = p.in_begin[layer_]; ok && e < p.in_begin[layer_ + 1]; ++e) {
      const auto& edge = p.edges[e];
      ok = p.edge_cost(edge, assign_[edge.producer], a) < kInf;
    }
    if (ok && layer_ == p.n - 1) ok = p.out_ms[a] < kInf;
    edge_mask_[a] = ok;
    mask_[a] = ok && (options_.max_memory_bytes <= 0 || memory_bound(base + a) <= options_.max_memory_bytes);
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
  const Problem& p = problem_;
  uint64_t h = mix(0x9e3779b97f4a7c15ULL + uint64_t(layer_));
  if (!done())
    for (const int* j = live_begin(layer_); j != live_end(layer_); ++j) {
      h = mix(h + uint64_t(1 + out_class_[p.offset[*j] + assign_[*j]]));
      if (p.has_streams()) {  // what its readers pay depends on the share its writer left in memory
        const double s = written_in_memory(p, assign_.data(), *j);
        uint64_t bits = 0;
        std::memcpy(&bits, &s, sizeof bits);
        h = mix(h + bits);
      }
      if (p.fanout(*j) < 2) continue;
      uint64_t converted = 0;  // formats the executor already converted *j's output to
      for (int k = p.out_begin[*j]; k < p.out_begin[*j + 1]; ++k) {
        const Problem::Edge& e = p.edges[p.out_edge[k]];
        if (e.consumer >= layer_) continue;
        const double c = p.edge_cost(e, assign_[*j], assign_[e.consumer]);
        if (c > 0 && c < kInf) converted |= uint64_t(1) << p.fields[p.offset[e.consumer] + assign_[e.consumer]].in_format;
      }
      h = mix(h + converted);
    }
  // A hand-off into the next step depends on the pool the last step ran on (env/cost.h).
  if (p.has_handoffs() && !done() && layer_ > 0) h = mix(h + 0x100 + uint64_t(exit_pool(p, assign_.data(), layer_ - 1)));
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
