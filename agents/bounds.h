/// \file
/// Admissible bounds of the latency objective from the LUT alone, shared by the Q-learning
/// initialisation and the DQN's features: lb[flat] = the impl's latency + memory term + the
/// cheapest possible cost of each incoming edge (+ the output edge at the last layer), and
/// to_go[t] = the sum over layers >= t of their least lb. lb[a] + to_go[t + 1] never exceeds
/// the true cost of choosing a at layer t and finishing optimally.
#pragma once
#include <algorithm>
#include <vector>

#include "env/env.h"

namespace lw {

struct Bounds {
  std::vector<double> lb, to_go;
  explicit Bounds(const DeploymentEnv& env) {
    const Problem& p = env.problem();
    lb.assign(p.impl_ms.size(), kInf);
    to_go.assign(p.n + 1, 0.0);
    for (int t = p.n - 1; t >= 0; --t) {
      double least = kInf;
      for (int a = 0; a < p.actions(t); ++a) {
        const int f = p.offset[t] + a;
        if (!env.statically_allowed(f)) continue;
        double c = p.impl_ms[f] + env.extra_ms(f) + (t == p.n - 1 ? p.out_ms[a] : 0.0);
        for (int e = p.in_begin[t]; e < p.in_begin[t + 1]; ++e) {
          double m = kInf;
          for (int ap = 0; ap < p.actions(p.edges[e].producer); ++ap) m = std::min(m, p.edge_cost(p.edges[e], ap, a));
          c += m;
        }
        lb[f] = c;
        least = std::min(least, c);
      }
      to_go[t] = to_go[t + 1] + least;
    }
  }
};

}  // namespace lw
