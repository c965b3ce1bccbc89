// QS-DNN §VI-D graph searches over (layer, implementation) states: Dijkstra (Dj) and A* with
// the paper's heuristic, the cheapest cost two steps ahead. As in the paper each state is
// visited once with the first (cheapest) path that reaches it. On a chain that is the exact
// shortest path; on a DAG the cost of a skip edge depends on the whole path, so the result
// is a heuristic (the exact agent gives the optimum); so it is on a chain with thread-pool
// hand-offs (env/cost.h) through a fused pseudo-impl, whose state aliases the pools before it. Under a peak-memory limit a successor
// is dropped when even the leanest completion of its path would exceed it (the env's mask).
#include <algorithm>
#include <queue>

#include "agents/builtin.h"
#include "agents/config.h"

namespace lw {
namespace {

struct Node {
  double f;  // g + h
  double g;
  int flat;  // layer's offset + impl
  int parent;
  bool operator>(const Node& o) const { return f > o.f || (f == o.f && flat > o.flat); }
};

Status graph_search(DeploymentEnv& env, const AgentRequest& req, bool astar, SearchResult* out) {
  JsonReader r = agent_config(astar ? "astar" : "dijkstra", req.config_json);
  LW_RETURN_IF_ERROR(r.finish());
  out->config_json = r.resolved().dump();
  const Problem& p = env.problem();
  const int n = p.n, total = p.offset[n];
  std::vector<int> layer_of(total);
  for (int t = 0; t < n; ++t)
    for (int f = p.offset[t]; f < p.offset[t + 1]; ++f) layer_of[f] = t;
  // h(t): cheapest layer latency at t + 1 plus at t + 2 (lower bound: penalties are >= 0).
  std::vector<double> min_ms(n + 2, 0.0), h(n, 0.0);
  for (int t = 0; t < n; ++t) {
    min_ms[t] = kInf;
    for (int f = p.offset[t]; f < p.offset[t + 1]; ++f)
      if (env.statically_allowed(f)) min_ms[t] = std::min(min_ms[t], p.impl_ms[f] + env.extra_ms(f));
  }
  if (astar)
    for (int t = 0; t < n; ++t) h[t] = min_ms[t + 1] + min_ms[t + 2];

  std::vector<int> parent(total, -2);  // -2: not yet settled
  std::vector<double> best_g(total, kInf);
  std::vector<int> path(n, -1);
  std::priority_queue<Node, std::vector<Node>, std::greater<Node>> open;
  int64_t generated = 0;
  // Cost of putting impl b at layer t after the path in `path` (layers < t filled).
  auto cost = [&](int t, int b) {
    const int f = p.offset[t] + b;
    if (!env.statically_allowed(f) || !env.memory_allows(path.data(), t, b)) return kInf;
    return p.impl_ms[f] + env.extra_ms(f) + conversion_in_ms(p, path.data(), t, b);
  };
  auto push = [&](int t, int b, double g0, int from) {
    const double c = cost(t, b);
    ++generated;
    const int f = p.offset[t] + b;
    if (c == kInf || parent[f] != -2 || g0 + c >= best_g[f]) return;
    best_g[f] = g0 + c;
    open.push({g0 + c + h[t], g0 + c, f, from});
  };
  for (int b = 0; b < p.actions(0); ++b) push(0, b, 0.0, -1);
  int goal = -1;
  while (!open.empty()) {
    const Node nd = open.top();
    open.pop();
    if (parent[nd.flat] != -2) continue;  // visited once
    parent[nd.flat] = nd.parent;
    const int t = layer_of[nd.flat];
    if (t == n - 1) {
      goal = nd.flat;
      break;
    }
    for (int f = nd.flat, l = t; f >= 0; f = parent[f], --l) path[l] = f - p.offset[l];
    for (int b = 0; b < p.actions(t + 1); ++b) push(t + 1, b, nd.g, nd.flat);
  }
  out->states_considered = generated;
  if (goal < 0) return failed(std::string(astar ? "astar" : "dijkstra") + ": no complete deployment reachable");
  std::vector<int> assignment(n);
  for (int f = goal, l = n - 1; f >= 0; f = parent[f], --l) assignment[l] = f - p.offset[l];
  SolutionLog log(true);
  log.add(assignment, predict_latency_ms(p, assignment));
  log.finish(p, out);
  return Status::ok();
}

}  // namespace

Status run_dijkstra(DeploymentEnv& env, const AgentRequest& req, SearchResult* out) {
  return graph_search(env, req, false, out);
}
Status run_astar(DeploymentEnv& env, const AgentRequest& req, SearchResult* out) {
  return graph_search(env, req, true, out);
}

}  // namespace lw
