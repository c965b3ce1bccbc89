#include "agents/dqn_features.h"

namespace lw {
namespace {
constexpr int kNumCosts = 8;  // see write()
}  // namespace

CandidateFeatures::CandidateFeatures(const DeploymentEnv& env) : env_(env), bounds_(env) {
  const Problem& p = env.problem();
  scale_ = p.n > 0 && bounds_.to_go[0] > 0 ? bounds_.to_go[0] / p.n : 1.0;
  layer_min_.assign(p.n, kInf);
  for (int t = 0; t < p.n; ++t)
    for (int a = 0; a < p.actions(t); ++a)
      if (env.statically_allowed(p.offset[t] + a)) layer_min_[t] = std::min(layer_min_[t], p.impl_ms[p.offset[t] + a]);
  // One step of lookahead (A*'s two-step heuristic, per candidate): for each consumer c of t,
  // the cheapest impl + conversion from a, minus c's cheapest impl on its own.
  ahead_.assign(p.impl_ms.size(), 0.0);
  for (const auto& e : p.edges)
    for (int a = 0; a < p.actions(e.producer); ++a) {
      double best = kInf;
      for (int b = 0; b < p.actions(e.consumer); ++b)
        if (env.statically_allowed(p.offset[e.consumer] + b))
          best = std::min(best, p.impl_ms[p.offset[e.consumer] + b] + p.edge_cost(e, a, b));
      ahead_[p.offset[e.producer] + a] += best < kInf ? best - layer_min_[e.consumer] : 0.0;
    }
  size_ = kNumLayerKinds + 2 + int(p.libraries.size()) + int(p.algorithms.size()) + kNumDTypes + 2 * kNumLayouts +
          int(p.thread_values.size()) + 2 + kNumCosts;
}

double CandidateFeatures::step_cost(const std::vector<int>& assign, int t, int a) const {
  const Problem& p = env_.problem();
  const int f = p.offset[t] + a;
  if (!env_.statically_allowed(f)) return kInf;
  return p.impl_ms[f] + env_.extra_ms(f) + conversion_in_ms(p, assign.data(), t, a);
}

void CandidateFeatures::write(const std::vector<int>& assign, int t, int a, double step_ms, float* out) const {
  const Problem& p = env_.problem();
  const int f = p.offset[t] + a;
  const ImplFields& x = p.fields[f];
  std::fill(out, out + size_, 0.f);
  float* o = out;
  o[p.kind[t]] = 1.f;
  o += kNumLayerKinds;
  *o++ = p.max_depth > 0 ? float(p.depth[t]) / float(p.max_depth) : 0.f;
  *o++ = float(t) / float(p.n);
  o[x.library] = 1.f, o += p.libraries.size();
  o[x.algorithm] = 1.f, o += p.algorithms.size();
  o[x.dtype] = 1.f, o += kNumDTypes;
  o[x.in_layout] = 1.f, o += kNumLayouts;
  o[x.out_layout] = 1.f, o += kNumLayouts;
  o[x.threads_id] = 1.f, o += p.thread_values.size();
  *o++ = x.fused_producer, *o++ = x.fused_consumer;
  const double s = scale_;
  const double conv = step_ms - p.impl_ms[f] - env_.extra_ms(f);  // incoming (and output) conversions
  *o++ = float(p.impl_ms[f] / s);
  *o++ = float(conv / s);
  *o++ = float((p.impl_ms[f] - layer_min_[t]) / s);
  *o++ = float((step_ms - bounds_.lb[f]) / s);  // what the choices so far add to its bound
  *o++ = float(ahead_[f] / s);
  *o++ = float((bounds_.chain[f] - bounds_.to_go[t + 1]) / s);  // what the chain of next layers adds to the bound
  *o++ = float(env_.extra_ms(f) / s);
  *o++ = float(bounds_.to_go[t + 1] / (bounds_.to_go[0] > 0 ? bounds_.to_go[0] : 1.0));
}

}  // namespace lw
