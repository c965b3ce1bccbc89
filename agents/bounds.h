/// \file
/// Admissible bounds of the latency objective from the LUT alone, shared by the Q-learning
/// initialisation and the DQN's features: lb[flat] = the impl's latency + memory term + the
/// cheapest possible cost of each incoming edge (0 for an edge whose producer feeds an earlier
/// consumer too: its conversion may already be paid, env/cost.h) (+ the output edge at the
/// last layer), and
/// to_go[t] = the sum over layers >= t of their least lb. lb[a] + to_go[t + 1] never exceeds
/// the true cost of choosing a at layer t and finishing optimally. (The least hand-off into a's
/// pool counts in lb.) chain[flat] is a tighter
/// bound of the cost after choosing a at layer t: a backward dynamic program that charges the
/// edge t -> t + 1 exactly (given a and the next impl) and every other edge at its minimum, so
/// a trap along the chain of consecutive layers is seen from its first layer.
#pragma once
#include <algorithm>
#include <vector>

#include "env/env.h"

namespace lw {

struct Bounds {
  std::vector<double> lb, to_go, chain;
  explicit Bounds(const DeploymentEnv& env) {
    const Problem& p = env.problem();
    lb.assign(p.impl_ms.size(), kInf);
    to_go.assign(p.n + 1, 0.0);
    for (int t = p.n - 1; t >= 0; --t) {
      double least = kInf;
      for (int a = 0; a < p.actions(t); ++a) {
        const int f = p.offset[t] + a;
        if (!env.statically_allowed(f)) continue;
        double c = p.impl_ms[f] + env.extra_ms(f) + (t == p.n - 1 ? p.out_ms[a] : 0.0) + least_handoff(p, t, a);
        for (int e = p.in_begin[t]; e < p.in_begin[t + 1]; ++e) {
          if (p.prev_out[e] >= 0) continue;  // may be shared: at least 0
          double m = kInf;
          for (int ap = 0; ap < p.actions(p.edges[e].producer); ++ap) m = std::min(m, p.edge_cost(p.edges[e], ap, a));
          c += m;
        }
        lb[f] = c;
        least = std::min(least, c);
      }
      to_go[t] = to_go[t + 1] + least;
    }
    chain_dp(env);
  }

 private:
  // The least hand-off layer t's impl a can pay, whatever pool ran before it (env/cost.h).
  static double least_handoff(const Problem& p, int t, int a) {
    const int q = p.pool[p.offset[t] + a];
    if (!p.has_handoffs() || t == 0 || q == Problem::kNoStep) return 0.0;
    double m = kInf;
    for (int from = 0; from < kThreadPoolCount; ++from) m = std::min(m, p.handoff_ms(t, from, q));
    return m + (t == p.n - 1 ? p.handoff_ms(t, q, int(ThreadPoolId::kCaller)) : 0.0);
  }
  void chain_dp(const DeploymentEnv& env) {
    const Problem& p = env.problem();
    chain.assign(p.impl_ms.size(), 0.0);
    for (int t = p.n - 2; t >= 0; --t) {
      int e_next = -1;  // the edge t -> t + 1, if any
      for (int e = p.in_begin[t + 1]; e < p.in_begin[t + 2]; ++e)
        if (p.edges[e].producer == t && p.prev_out[e] < 0) e_next = e;  // (a later one may be shared)
      for (int a = 0; a < p.actions(t); ++a) {
        double best = kInf;
        for (int b = 0; b < p.actions(t + 1); ++b) {
          const int f = p.offset[t + 1] + b;
          if (lb[f] == kInf) continue;
          double c = lb[f] + chain[f];
          if (e_next >= 0) {  // swap the edge's minimum inside lb for its exact cost from a
            double m = kInf;
            for (int ap = 0; ap < p.actions(t); ++ap) m = std::min(m, p.edge_cost(p.edges[e_next], ap, b));
            c += p.edge_cost(p.edges[e_next], a, b) - m;
          }
          best = std::min(best, c);
        }
        chain[p.offset[t] + a] = best;
      }
    }
  }
};

}  // namespace lw
