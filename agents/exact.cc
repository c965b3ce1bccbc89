// Certified latency optimum on the DAG, after the PBQP formulation of Anderson & Gregg (paper
// 002): one node per layer with its impl cost vector, one matrix per edge (conversion costs).
// The reductions R0 (isolated node), RI (degree 1) and RII (degree 2) are exact: they fold a node
// into its neighbours keeping, for every choice of the neighbours, the node's best choice. CNN
// graphs (chains, residual blocks, inception and fire modules) are series-parallel and reduce
// completely. Whatever does not reduce is branched on (the node of highest degree, each option
// in turn) with an admissible lower bound (sum of independent minima), so the result is proven
// optimal either way. Only the reward's latency (+ optional memory term) is optimised.
// A conversion shared by several consumers (env/cost.h) is not a cost of one edge: a producer
// with several consumers gets a hub node whose choice is (its output format f, the set S of
// formats converted to once and shared), with |S| <= half its consumer count (a shared
// format is read by two consumers at least). Edge producer-hub: the chains f -> S if the impl
// outputs f, else +inf; edge hub-consumer: 0 if the consumer reads f or a format in S, else
// its own chain from f. For any assignment the hub's best S is the set of formats two or more
// consumers read, which charges each conversion once, exactly the cost model; the graph stays
// pairwise, so the reductions still apply (a residual block reduces through its hub). (With
// S = every converted format, as before, a hub had F x C(R, <= k) choices: 6648 at 24 formats
// and two consumers, against F x (1 + R) = 600 now.) Under a peak-memory limit (not pairwise) the
// exact agent solves the ILP with the liveness memory model instead (agents/ilp.h), and so
// it does for a LUT with thread-pool hand-offs or streamed outputs (env/cost.h; not pairwise
// across fused layers).
#include <algorithm>
#include <numeric>

#include "agents/builtin.h"
#include "agents/config.h"
#include "agents/ilp.h"

namespace lw {
namespace {

struct PEdge {
  int u = 0, v = 0;           // u < v
  std::vector<double> m;      // m[a_u * size(v) + a_v]
  bool alive = true;
};

struct PGraph {
  std::vector<std::vector<double>> cost;
  std::vector<uint8_t> alive;
  std::vector<std::vector<std::pair<int, int>>> adj;  // (neighbour, edge)
  std::vector<PEdge> edges;
  double constant = 0;

  int size(int u) const { return int(cost[u].size()); }
  double at(int e, int x, int ax, int ay) const {  // cost of edge e with node x at ax, the other at ay
    const PEdge& E = edges[e];
    return x == E.u ? E.m[size_t(ax) * size(E.v) + ay] : E.m[size_t(ay) * size(E.v) + ax];
  }
  void remove_edge(int e) {
    edges[e].alive = false;
    for (int x : {edges[e].u, edges[e].v}) {
      auto& l = adj[x];
      l.erase(std::remove_if(l.begin(), l.end(), [&](const auto& q) { return q.second == e; }), l.end());
    }
  }
  int find_edge(int x, int y) const {
    for (const auto& q : adj[x])
      if (q.first == y) return q.second;
    return -1;
  }
  // Adds `add(ax, ay)` to the edge x-y, creating it when absent.
  template <class F>
  void add_to_edge(int x, int y, F add) {
    int e = find_edge(x, y);
    if (e < 0) {
      e = int(edges.size());
      PEdge E;
      E.u = std::min(x, y);
      E.v = std::max(x, y);
      E.m.assign(size_t(size(E.u)) * size(E.v), 0.0);
      edges.push_back(std::move(E));
      adj[x].push_back({y, e});
      adj[y].push_back({x, e});
    }
    PEdge& E = edges[e];
    for (int a = 0; a < size(x); ++a)
      for (int b = 0; b < size(y); ++b) (x == E.u ? E.m[size_t(a) * size(y) + b] : E.m[size_t(b) * size(x) + a]) += add(a, b);
  }
};

// A reduction to undo: node u gets table[choice of v * size(w) + choice of w] (w = -1: RI; v = -1: R0).
struct Record {
  int u, v, w;
  std::vector<int> table;
};

struct Solver {
  int64_t entries = 0;   // cost-table entries combined (states considered)
  int64_t branches = 0;  // branch-and-bound nodes
  int64_t pruned = 0;

  void reduce_node(PGraph& g, int u, std::vector<Record>* recs) {
    const auto nb = g.adj[u];
    Record r{u, -1, -1, {}};
    if (nb.empty()) {  // R0
      auto it = std::min_element(g.cost[u].begin(), g.cost[u].end());
      g.constant += *it;
      r.table = {int(it - g.cost[u].begin())};
      entries += g.size(u);
    } else if (nb.size() == 1) {  // RI
      const int v = nb[0].first, e = nb[0].second;
      r.v = v;
      r.table.resize(g.size(v));
      for (int b = 0; b < g.size(v); ++b) {
        double best = kInf;
        int arg = 0;
        for (int a = 0; a < g.size(u); ++a) {
          const double c = g.cost[u][a] + g.at(e, u, a, b);
          if (c < best) best = c, arg = a;
        }
        g.cost[v][b] += best;
        r.table[b] = arg;
      }
      entries += int64_t(g.size(u)) * g.size(v);
      g.remove_edge(e);
    } else {  // RII
      const int v = nb[0].first, ev = nb[0].second, w = nb[1].first, ew = nb[1].second;
      r.v = v;
      r.w = w;
      const int nv = g.size(v), nw = g.size(w);
      r.table.assign(size_t(nv) * nw, 0);
      std::vector<double> add(size_t(nv) * nw);
      for (int b = 0; b < nv; ++b)
        for (int c = 0; c < nw; ++c) {
          double best = kInf;
          int arg = 0;
          for (int a = 0; a < g.size(u); ++a) {
            const double x = g.cost[u][a] + g.at(ev, u, a, b) + g.at(ew, u, a, c);
            if (x < best) best = x, arg = a;
          }
          add[size_t(b) * nw + c] = best;
          r.table[size_t(b) * nw + c] = arg;
        }
      entries += int64_t(g.size(u)) * nv * nw;
      g.remove_edge(ev);
      g.remove_edge(ew);
      g.add_to_edge(v, w, [&](int b, int c) { return add[size_t(b) * nw + c]; });
    }
    g.alive[u] = 0;
    recs->push_back(std::move(r));
  }

  // Cheapest reduction first: an RII costs the product of three sizes, and folding a layer
  // between two hubs (thousands of choices each) first would cost millions of entries and a
  // hub x hub table, where folding the hubs first costs hub x layer x layer.
  void reduce_all(PGraph& g, std::vector<Record>* recs) {
    for (;;) {
      int best = -1;
      double best_work = 0;
      for (int u = 0; u < int(g.cost.size()); ++u) {
        if (!g.alive[u] || g.adj[u].size() > 2) continue;
        double work = g.size(u);
        for (const auto& q : g.adj[u]) work *= g.size(q.first);
        if (best < 0 || work < best_work) best = u, best_work = work;
      }
      if (best < 0) return;
      reduce_node(g, best, recs);
    }
  }

  static double lower_bound(const PGraph& g) {
    double lb = g.constant;
    for (int u = 0; u < int(g.cost.size()); ++u)
      if (g.alive[u]) lb += *std::min_element(g.cost[u].begin(), g.cost[u].end());
    for (const auto& e : g.edges)
      if (e.alive) lb += *std::min_element(e.m.begin(), e.m.end());
    return lb;
  }

  // Best cost below `incumbent` (kInf if none) with its assignment in *sol.
  double solve(PGraph g, double incumbent, std::vector<int>* sol, const std::vector<int>& sizes) {
    ++branches;
    std::vector<Record> recs;
    reduce_all(g, &recs);
    int u = -1;
    for (int x = 0; x < int(g.cost.size()); ++x)
      if (g.alive[x] && (u < 0 || g.adj[x].size() > g.adj[u].size())) u = x;
    double best = kInf;
    if (u < 0) {
      best = g.constant;
    } else if (lower_bound(g) >= incumbent) {
      ++pruned;
      return kInf;
    } else {
      std::vector<int> order(g.size(u));
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return g.cost[u][a] < g.cost[u][b]; });
      std::vector<int> trial(sol->size());
      for (int a : order) {
        if (g.cost[u][a] == kInf) break;
        PGraph h = g;
        h.constant += h.cost[u][a];
        for (const auto& [v, e] : g.adj[u]) {
          for (int b = 0; b < h.size(v); ++b) h.cost[v][b] += g.at(e, u, a, b);
          entries += h.size(v);
          h.remove_edge(e);
        }
        h.alive[u] = 0;
        trial = *sol;
        const double c = solve(std::move(h), std::min(best, incumbent), &trial, sizes);
        if (c < best) best = c, *sol = trial, (*sol)[u] = a;
      }
      if (best == kInf) return kInf;
    }
    if (best >= incumbent) return kInf;
    for (auto it = recs.rbegin(); it != recs.rend(); ++it) {
      const Record& r = *it;
      if (r.v < 0) (*sol)[r.u] = r.table[0];
      else if (r.w < 0) (*sol)[r.u] = r.table[(*sol)[r.v]];
      else (*sol)[r.u] = r.table[size_t((*sol)[r.v]) * sizes[r.w] + (*sol)[r.w]];
    }
    return best;
  }
};

// Impls of a layer that the PBQP cannot tell apart: every edge cost depends only on the
// producer's (out format, fused) and the consumer's (in format, fused consumer), so of the
// impls sharing all four only the cheapest can be optimal. With four libraries, three dtypes
// and two thread sets a layer has hundreds of impls but a few dozen classes, and each RII
// reduction costs the product of three nodes' sizes (opt-mixed over the 4-library LUTs:
// ~4e9 table entries on SqueezeNet, > 13 GB on ResNet-50 before this).
struct Classes {
  std::vector<std::vector<int>> rep;  // per layer: class -> cheapest impl index
  std::vector<std::vector<double>> cost;
};

Classes impl_classes(const DeploymentEnv& env) {
  const Problem& p = env.problem();
  Classes k;
  k.rep.resize(p.n);
  k.cost.resize(p.n);
  for (int t = 0; t < p.n; ++t) {
    std::vector<int64_t> keys;
    for (int a = 0; a < p.actions(t); ++a) {
      const int f = p.offset[t] + a;
      double c = env.statically_allowed(f) ? p.impl_ms[f] + env.extra_ms(f) : kInf;
      if (t == p.n - 1) c += p.out_ms[a];
      if (!(c < kInf)) continue;
      const ImplFields& x = p.fields[f];
      const int64_t key = (int64_t(x.in_format) << 32) | (int64_t(x.out_format) << 2) | (x.fused_producer << 1) |
                          int64_t(x.fused_consumer);
      const size_t i = size_t(std::find(keys.begin(), keys.end(), key) - keys.begin());
      if (i == keys.size()) keys.push_back(key), k.rep[t].push_back(a), k.cost[t].push_back(c);
      else if (c < k.cost[t][i]) k.rep[t][i] = a, k.cost[t][i] = c;
    }
    if (k.rep[t].empty()) k.rep[t] = {0}, k.cost[t] = {kInf};  // (the solver then reports infeasible)
  }
  return k;
}

// Subsets of `targets` with at most `k` elements, as format bit sets (no need to walk all 2^n).
void subsets(const std::vector<int>& targets, size_t from, int k, uint64_t set, std::vector<uint64_t>* out) {
  out->push_back(set);
  if (k == 0) return;
  for (size_t i = from; i < targets.size(); ++i) subsets(targets, i + 1, k - 1, set | uint64_t(1) << targets[i], out);
}

// The hub of producer j (see the top of the file): its choices and the cost of each for every
// class of j. Only formats some class of j outputs, and shared targets a consumer class reads
// and a chain reaches, are choices.
void add_hub(const Problem& p, const Classes& k, int j, PGraph& g) {
  const int F = p.n_formats;
  auto field = [&](int layer, int c) -> const ImplFields& { return p.fields[p.offset[layer] + k.rep[layer][c]]; };
  std::vector<int> reads;  // formats some consumer may read
  for (int q = p.out_begin[j]; q < p.out_begin[j + 1]; ++q) {
    const Problem::Edge& e = p.edges[p.out_edge[q]];
    for (int b = 0; b < int(k.rep[e.consumer].size()); ++b) {
      const ImplFields& x = field(e.consumer, b);
      if ((!x.fused_consumer || e.residual) && std::find(reads.begin(), reads.end(), x.in_format) == reads.end())
        reads.push_back(x.in_format);
    }
  }
  struct Choice {
    int f;
    uint64_t set;  // shared target formats as bits
    bool fused;    // a fused producer feeding fused consumers in f (a cost model case, 0 or +inf)
  };
  std::vector<Choice> choice;
  std::vector<uint64_t> sets;
  for (int f = 0; f < F; ++f) {
    bool plain = false, fused = false;
    for (int a = 0; a < int(k.rep[j].size()); ++a)
      if (field(j, a).out_format == f) (field(j, a).fused_producer ? fused : plain) = true;
    if (fused) choice.push_back({f, 0, true});
    if (!plain) continue;
    std::vector<int> targets;
    for (int t : reads)
      if (t != f && p.conv(j, f, t) < kInf) targets.push_back(t);
    sets.clear();
    subsets(targets, 0, p.fanout(j) / 2, 0, &sets);
    for (uint64_t set : sets) choice.push_back({f, set, false});
  }
  const int h = int(g.cost.size());
  g.cost.push_back(std::vector<double>(choice.size(), 0.0));
  g.alive.push_back(1);
  g.adj.emplace_back();
  g.add_to_edge(j, h, [&](int a, int x) {
    const ImplFields& o = field(j, a);
    if (o.fused_producer != choice[x].fused || o.out_format != choice[x].f) return kInf;
    double c = 0;
    for (int t = 0; t < F; ++t)
      if (choice[x].set >> t & 1) c += p.conv(j, o.out_format, t);
    return c;
  });
  for (int q = p.out_begin[j]; q < p.out_begin[j + 1]; ++q)
    g.add_to_edge(h, p.edges[p.out_edge[q]].consumer, [&](int x, int b) {
      const Problem::Edge& e = p.edges[p.out_edge[q]];
      const ImplFields& i = field(e.consumer, b);
      if (choice[x].fused) return i.fused_consumer && i.in_format == choice[x].f ? 0.0 : kInf;
      if (i.fused_consumer && !e.residual) return kInf;  // (an absorbed add reads its residual)
      const bool shared = i.in_format == choice[x].f || (choice[x].set >> i.in_format & 1);
      return shared ? 0.0 : p.conv(j, choice[x].f, i.in_format);
    });
}

PGraph build_graph(const DeploymentEnv& env, const Classes& k) {
  const Problem& p = env.problem();
  PGraph g;
  g.cost = k.cost;
  g.alive.assign(p.n, 1);
  g.adj.resize(p.n);
  for (const auto& e : p.edges) {
    if (e.producer == e.consumer || p.fanout(e.producer) > 1) continue;
    g.add_to_edge(e.producer, e.consumer,
                  [&](int a, int b) { return p.edge_cost(e, k.rep[e.producer][a], k.rep[e.consumer][b]); });
  }
  for (int j = 0; j < p.n; ++j)
    if (p.fanout(j) > 1) add_hub(p, k, j, g);
  return g;
}

// Under a peak-memory limit: the ILP with the liveness model (what the env masks and the filter checks).
Status exact_by_ilp(const DeploymentEnv& env, SearchResult* out) {
  IlpOptions o;  // (solve_ilp applies the env's peak-memory limit)
  o.memory_model = env.memory_limited() ? MemoryModel::kPeak : MemoryModel::kWholeNetwork;  // (memory only constrains)
  IlpSolution s;
  LW_RETURN_IF_ERROR(solve_ilp(env, o, &s));
  SolutionLog log(true);
  log.add(s.assignment, predict_latency_ms(env.problem(), s.assignment));
  log.finish(env.problem(), out);
  out->states_considered = s.variables;
  out->proven_optimal = s.proven_optimal;
  if (s.proven_optimal) out->lower_bound_ms = out->best_latency_ms;
  out->note = std::string(s.proven_optimal ? "optimal" : "NOT proven optimal (CBC time limit)") +
              (env.memory_limited() ? " under the peak-memory limit" : " with thread-pool hand-offs") + ": ILP, " + std::to_string(s.nodes) + " CBC nodes";
  return Status::ok();
}

}  // namespace

Status run_exact(DeploymentEnv& env, const AgentRequest& req, SearchResult* out) {
  JsonReader r = agent_config("exact", req.config_json);
  LW_RETURN_IF_ERROR(r.finish());
  out->config_json = r.resolved().dump();
  // Hand-offs depend on the pool of the last step, which a fused pseudo-impl inherits from
  // further back: not pairwise, so the ILP (which linearises them) certifies the optimum.
  if (env.memory_limited() || env.problem().has_handoffs() || env.problem().has_streams()) return exact_by_ilp(env, out);
  const Problem& p = env.problem();
  const Classes k = impl_classes(env);
  PGraph g = build_graph(env, k);
  std::vector<int> sizes(g.cost.size());
  for (size_t u = 0; u < g.cost.size(); ++u) sizes[u] = g.size(int(u));
  Solver s;
  std::vector<int> sol(g.cost.size(), 0);
  const double best = s.solve(std::move(g), kInf, &sol, sizes);
  sol.resize(p.n);  // (the hubs' choices follow from the layers')
  for (int t = 0; t < p.n; ++t) sol[t] = k.rep[t][sol[t]];
  out->states_considered = s.entries;
  if (best == kInf) return failed("exact: no deployment of finite cost exists");
  SolutionLog log(true);
  log.add(sol, predict_latency_ms(p, sol));
  log.finish(p, out);
  out->proven_optimal = true;
  out->lower_bound_ms = best;
  out->note = "optimal: exact reductions R0/RI/RII, " + std::to_string(s.branches - 1) +
              " branch-and-bound nodes beyond the root, " + std::to_string(s.pruned) + " pruned by the lower bound";
  return Status::ok();
}

}  // namespace lw
