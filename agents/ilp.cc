// TASO-style ILP with COIN-OR CBC (see ilp.h for the model).
#include "agents/ilp.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "CbcModel.hpp"
#include "CoinPackedMatrix.hpp"
#include "CoinPackedVector.hpp"
#include "OsiClpSolverInterface.hpp"
#include "agents/builtin.h"
#include "agents/config.h"

namespace lw {
namespace {

// Memory enters the model in KiB (well-scaled coefficients). Memory is whole bytes, so a budget
// of B bytes is the row bound (B + 0.5) / 1024: every assignment within B passes, every one
// above fails by at least half a byte, far beyond CBC's tolerances.
constexpr double kMemUnit = 1024.0;
constexpr double kBudgetHalfByte = 0.5;

struct Model {
  std::vector<double> obj, lo, hi;
  std::vector<uint8_t> integer;
  CoinPackedMatrix rows{false, 0, 0};
  std::vector<double> row_lo, row_hi;
  std::vector<int> x;  // column of (flat impl), -1 if excluded
  int add_col(double c, double l, double h, bool is_int) {
    obj.push_back(c), lo.push_back(l), hi.push_back(h), integer.push_back(is_int);
    return int(obj.size()) - 1;
  }
  void add_row(const CoinPackedVector& v, double l, double h) {
    rows.appendRow(v);
    row_lo.push_back(l), row_hi.push_back(h);
  }
};

// Groups the impls of one side of an edge by format and identical cost row (producer) or
// column (consumer): a class has one format, so its conversions are one (producer, from, to).
std::vector<int> classes(const Problem& p, const Problem::Edge& e, bool producer, int* count, std::vector<int>* format) {
  const int np = p.actions(e.producer), nc = p.actions(e.consumer);
  std::map<std::vector<double>, int> ids;
  std::vector<int> cls(producer ? np : nc);
  format->clear();
  for (int i = 0; i < int(cls.size()); ++i) {
    const ImplFields& x = p.fields[p.offset[producer ? e.producer : e.consumer] + i];
    const int f = p.offset[producer ? e.producer : e.consumer] + i;
    std::vector<double> sig(1 + (producer ? nc : np));
    sig[0] = producer ? x.out_format : x.in_format;
    for (int j = 1; j < int(sig.size()); ++j) sig[j] = producer ? p.edge_cost(e, i, j - 1) : p.edge_cost(e, j - 1, i);
    if (p.has_shared_lines()) sig.insert(sig.end(), {double(p.pool[f]), p.shared_write[f], p.shared_read[f]});  // (one of each a class)
    if (p.has_streams())  // a producer class leaves one share in memory, a consumer class pays one extra
      sig.insert(sig.end(), producer ? std::initializer_list<double>{p.out_memory[f], double(p.pool[f] == Problem::kNoStep)}
                                     : std::initializer_list<double>{p.in_memory[f]});
    auto [it, fresh] = ids.emplace(sig, int(ids.size()));
    if (fresh) format->push_back(int(sig[0]));
    cls[i] = it->second;
  }
  *count = int(ids.size());
  return cls;
}

// predict_memory_bytes as a linear expression: weights + W + A with W >= the workspace of every
// layer's choice and A >= the live output bytes at every step (both minimal at the optimum of
// any budget row, so the expression equals the liveness model on one-hot choices).
void add_peak_memory(const Problem& p, Model* m, CoinPackedVector* memory) {
  const int W = m->add_col(0, 0, COIN_DBL_MAX, false), A = m->add_col(0, 0, COIN_DBL_MAX, false);
  memory->insert(W, 1.0);
  memory->insert(A, 1.0);
  for (int t = 0; t < p.n; ++t) {
    CoinPackedVector ws, live;
    ws.insert(W, 1.0);
    live.insert(A, 1.0);
    for (int j = 0; j <= t; ++j) {
      const bool alive = p.last_use[j] >= t;
      for (int a = 0; a < p.actions(j); ++a) {
        const int f = p.offset[j] + a, col = m->x[f];
        if (col < 0) continue;
        if (j == t) memory->insert(col, double(p.weights[f]) / kMemUnit);
        if (j == t) ws.insert(col, -double(p.workspace[f]) / kMemUnit);
        if (alive) live.insert(col, -double(p.output[f]) / kMemUnit);
      }
    }
    m->add_row(ws, 0, COIN_DBL_MAX);
    m->add_row(live, 0, COIN_DBL_MAX);
  }
}

// Thread-pool hand-offs (env/cost.h) on the exit pool of each layer, e[t][P] = 1 when the last
// step up to layer t ran on pool P. Into layer t a transport from e[t-1] to the layer's pools:
// y[P][Q] (a hand-off P -> Q, at its cost) sums over Q to e[t-1][P] less the fused
// continuation f[P] (a fused pseudo-impl runs nothing: the pool stays), and over P to X[t][Q],
// the layer's impls on pool Q; f sums to the fused impls F[t]; e[t][Q] = X[t][Q] + f[Q]. With
// binary x every y is fixed, and the relaxation is as tight as the edges' marginal rows.
// exits: e[t][*] per layer, for the shared writes.
void add_handoffs(const Problem& p, Model* m, CoinPackedVector* latency, std::vector<std::vector<int>>* exits) {
  const int P = kThreadPoolCount;
  std::vector<int> prev(P, -1);  // e[t-1][*] columns
  exits->clear();
  for (int t = 0; t < p.n; ++t) {
    std::vector<CoinPackedVector> X(P);  // X[t][Q] - (their y or e) = 0, built below
    CoinPackedVector F;
    for (int a = 0; a < p.actions(t); ++a) {
      const int col = m->x[p.offset[t] + a], q = p.pool[p.offset[t] + a];
      if (col < 0) continue;
      if (q == Problem::kNoStep && t > 0) F.insert(col, 1.0);
      else X[t == 0 ? int(ThreadPoolId::kCaller) : q].insert(col, 1.0);
    }
    std::vector<int> cur(P);
    std::vector<CoinPackedVector> e_row(P);  // e[t][Q] - X[t][Q] - f[Q] = 0
    for (int q = 0; q < P; ++q) {
      cur[q] = m->add_col(0, 0, 1, false);
      e_row[q] = X[q];
      for (int i = 0; i < e_row[q].getNumElements(); ++i) e_row[q].getElements()[i] = -1.0;
      e_row[q].insert(cur[q], 1.0);
    }
    if (t > 0) {
      std::vector<CoinPackedVector> out_of(P), into = X;  // sum_Q y[P][Q] + f[P] - e[t-1][P] = 0; X - sum_P y = 0
      for (int from = 0; from < P; ++from) {
        out_of[from].insert(prev[from], -1.0);
        for (int to = 0; to < P; ++to) {
          if (X[to].getNumElements() == 0) continue;
          const int y = m->add_col(0, 0, 1, false);
          if (from != to && p.handoff_ms(t, from, to) > 0) latency->insert(y, p.handoff_ms(t, from, to));
          out_of[from].insert(y, 1.0);
          into[to].insert(y, -1.0);
        }
        if (F.getNumElements() > 0) {
          const int f = m->add_col(0, 0, 1, false);
          out_of[from].insert(f, 1.0);
          e_row[from].insert(f, -1.0);
          F.insert(f, -1.0);  // sum_P f[P] - F[t] = 0 (F's x entries are +1)
        }
        m->add_row(out_of[from], 0, 0);
      }
      for (int to = 0; to < P; ++to)
        if (into[to].getNumElements() > 0) m->add_row(into[to], 0, 0);
      if (F.getNumElements() > 0) m->add_row(F, 0, 0);
    }
    for (int q = 0; q < P; ++q) m->add_row(e_row[q], 0, 0);
    prev = cur;
    exits->push_back(cur);
  }
  const int last = p.n - 1;
  for (int q = 0; q < P; ++q)  // the last step hands the output copy to the caller
    if (p.handoff_ms(last, q, int(ThreadPoolId::kCaller)) > 0)
      latency->insert(prev[q], p.handoff_ms(last, q, int(ThreadPoolId::kCaller)));
}

// The edge-pair columns y[k][l] of one edge (producer class k, consumer class l), with what
// the shared lines need of the two classes (a class has one pool and one of each charge, see
// classes): the producer's charges read on cpu1 (case 1) and on the caller (3), the consumer's
// in place (2).
struct PairCol {
  int y;
  int8_t producer_pool, consumer_pool;
  double producer_charge, producer_read, consumer_charge;
};

// A pair whose producer class is a fused pseudo-impl, which streams as its absorber did (the
// share column s[producer] of add_streams), and what its reader pays per unit of share.
struct StreamedPair {
  int y, producer;
  double reader_ms;
};

// s >= sum(ys) (+ sum(also) - 1 when `also` is given), s in [0, 1]: with binary x the ys of an
// edge hold exactly one 1 (its marginal rows), so s is 1 when a listed pair is chosen (and the
// exit columns in `also` say so), 0 at the optimum otherwise. As tight as the y columns in the
// LP relaxation where `also` is empty.
void at_least(Model* m, int s, const CoinPackedVector& ys, const CoinPackedVector* also = nullptr) {
  if (ys.getNumElements() == 0) return;
  CoinPackedVector r = ys;
  for (int i = 0; i < r.getNumElements(); ++i) r.getElements()[i] = -1.0;
  if (also)
    for (int i = 0; i < also->getNumElements(); ++i) r.insert(also->getIndices()[i], -also->getElements()[i]);
  r.insert(s, 1.0);
  m->add_row(r, also ? -1.0 : 0.0, COIN_DBL_MAX);
}

// env/cost.h's shared lines on the edge-pair columns. The pool that wrote a producer's output
// is its class's pool, but a fused pseudo-impl's (no step) is its absorber's: the exit columns
// e[j][Q] then say where (one more term in the row). (1) and (3): per producer j, side and
// charge v, one column s charged once: s >= the pairs of any edge out of j that join a class
// of j written on the other side (charge v) to a consumer class on this side (cpu1 for (1),
// the caller for (3)). (2) Per in-place layer t that is its input j's last reader and charge v
// of its caller classes: s >= the pairs of the edge j -> t that join a producer class that
// wrote on cpu1 to such a class.
void add_shared_lines(const Problem& p, Model* m, CoinPackedVector* latency, const std::vector<std::vector<int>>& e,
                      const std::vector<std::vector<PairCol>>& pairs) {
  const int caller = int(ThreadPoolId::kCaller);
  auto charge = [&](double v) {
    const int s = m->add_col(0, 0, 1, false);
    latency->insert(s, v);
    return s;
  };
  auto exits = [&](int j, bool cpu1) {
    CoinPackedVector v;
    for (int q = 0; q < kThreadPoolCount; ++q)
      if (Problem::on_cpu1(q) == cpu1) v.insert(e[j][q], 1.0);
    return v;
  };
  struct Ys { CoinPackedVector step, fused; };  // pairs whose writer is a step's pool / an absorber's
  for (int j = 0; j < p.n; ++j)
    for (const bool cpu1 : {true, false}) {  // the readers' side: (1), (3)
      std::map<double, int> s;                // charge -> column
      const CoinPackedVector written = exits(j, !cpu1);
      for (int k = p.out_begin[j]; k < p.out_begin[j + 1]; ++k) {
        std::map<double, Ys> ys;
        for (const PairCol& c : pairs[p.out_edge[k]]) {
          const double v = cpu1 ? c.producer_charge : c.producer_read;
          const bool writer_other = c.producer_pool == Problem::kNoStep || Problem::on_cpu1(c.producer_pool) != cpu1;
          const bool reader_here = c.consumer_pool != Problem::kNoStep && Problem::on_cpu1(c.consumer_pool) == cpu1;
          if (v > 0 && writer_other && reader_here)
            (c.producer_pool == Problem::kNoStep ? ys[v].fused : ys[v].step).insert(c.y, 1.0);
        }
        for (const auto& [v, y] : ys) {
          auto [it, fresh] = s.try_emplace(v, -1);
          if (fresh) it->second = charge(v);
          at_least(m, it->second, y.step);
          at_least(m, it->second, y.fused, &written);
        }
      }
    }
  for (int t = 1; t < p.n; ++t) {
    if (!p.in_place[t] || p.in_begin[t] == p.in_begin[t + 1]) continue;
    const int j = p.edges[p.in_begin[t]].producer;
    if (p.last_use[j] != t) continue;
    const CoinPackedVector on_cpu1 = exits(j, true);
    std::map<double, Ys> ys;
    for (const PairCol& c : pairs[p.in_begin[t]])
      if (c.consumer_charge > 0 && c.consumer_pool == caller && c.producer_pool != caller)
        (c.producer_pool == Problem::kNoStep ? ys[c.consumer_charge].fused : ys[c.consumer_charge].step).insert(c.y, 1.0);
    for (const auto& [v, y] : ys) {
      const int col = charge(v);
      at_least(m, col, y.step);
      at_least(m, col, y.fused, &on_cpu1);
    }
  }
}

// Streamed outputs through fused pseudo-impls (env/cost.h): s[t] >= the share the step exiting
// layer t left in memory: sum of f x over layer t's steps, and s[t-1] when t's choice is a fused
// pseudo-impl (s[t] >= s[t-1] + sum x_pseudo - 1). Each StreamedPair pays r x (s[j] and y): a
// column z >= s[j] + y - 1, at cost r. s and z are only bounded below and cost >= 0, so at the
// optimum they are exact on one-hot choices.
void add_streams(const Problem& p, Model* m, CoinPackedVector* latency, const std::vector<StreamedPair>& streamed) {
  if (streamed.empty()) return;
  std::vector<int> share(p.n);
  for (int t = 0; t < p.n; ++t) {
    share[t] = m->add_col(0, 0, 1, false);
    CoinPackedVector own, through;
    own.insert(share[t], 1.0);
    through.insert(share[t], 1.0);
    for (int a = 0; a < p.actions(t); ++a) {
      const int f = p.offset[t] + a, col = m->x[f];
      if (col < 0) continue;
      if (p.pool[f] != Problem::kNoStep && p.out_memory[f] > 0) own.insert(col, -p.out_memory[f]);
      if (p.pool[f] == Problem::kNoStep && t > 0) through.insert(col, -1.0);
    }
    m->add_row(own, 0, COIN_DBL_MAX);
    if (through.getNumElements() > 1) {
      through.insert(share[t - 1], -1.0);
      m->add_row(through, -1.0, COIN_DBL_MAX);
    }
  }
  for (const StreamedPair& s : streamed) {
    const int z = m->add_col(0, 0, 1, false);
    latency->insert(z, s.reader_ms);
    CoinPackedVector r;
    r.insert(z, 1.0);
    r.insert(share[s.producer], -1.0);
    r.insert(s.y, -1.0);
    m->add_row(r, -1.0, COIN_DBL_MAX);
  }
}

// One column x per allowed implementation of every layer, one of them chosen (sum x = 1); its
// latency (the network's output conversion on the last layer) and, in the whole-network model,
// its memory enter the expressions.
void add_choices(const DeploymentEnv& env, const IlpOptions& o, Model* m, CoinPackedVector* latency,
                 CoinPackedVector* memory) {
  const Problem& p = env.problem();
  m->x.assign(p.offset[p.n], -1);
  for (int t = 0; t < p.n; ++t) {
    CoinPackedVector one;
    for (int a = 0; a < p.actions(t); ++a) {
      const int f = p.offset[t] + a;
      double c = p.impl_ms[f] + env.extra_ms(f) + (t == p.n - 1 ? p.out_ms[a] : 0.0);
      if (!env.statically_allowed(f) || !std::isfinite(c)) continue;
      const int col = m->add_col(0, 0, 1, true);
      m->x[f] = col;
      one.insert(col, 1.0);
      latency->insert(col, c);
      if (o.memory_model == MemoryModel::kWholeNetwork) memory->insert(col, double(impl_memory_bytes(p, f)) / kMemUnit);
    }
    m->add_row(one, 1, 1);
  }
}

// A conversion (producer, from, to) is run once for all consumers (env/cost.h): its cost is on
// one variable w >= the edge variables of every edge that needs it (`w`, shared by the edges).
using ConversionCols = std::map<std::tuple<int, int, int>, int>;

// Edge e's pair columns y[k][l] (producer class k, consumer class l) with their marginal rows,
// and the conversions they need; `pairs` gets what the shared lines need of each pair. Streamed
// outputs (env/cost.h): a pair whose producer class leaves share f in memory costs f x its
// reader's extra on y; a fused pseudo-producer's pairs go to `streamed` (add_streams).
void add_edge(const Problem& p, const Problem::Edge& e, Model* m, CoinPackedVector* latency, ConversionCols* w,
              std::vector<PairCol>* pairs, std::vector<StreamedPair>* streamed) {
  int kp = 0, kc = 0;
  std::vector<int> fp, fc;
  const auto cp = classes(p, e, true, &kp, &fp), cc = classes(p, e, false, &kc, &fc);
  std::vector<int> rep_p(kp), rep_c(kc);  // a flat impl of each class
  for (int a = 0; a < p.actions(e.producer); ++a) rep_p[cp[a]] = p.offset[e.producer] + a;
  for (int b = 0; b < p.actions(e.consumer); ++b) rep_c[cc[b]] = p.offset[e.consumer] + b;
  std::map<int, CoinPackedVector> need;  // w column -> its row for this edge: w - sum y >= 0
  std::vector<CoinPackedVector> row_p(kp), col_c(kc);  // marginal rows: sum_l y[k][l] - sum_{a in k} x = 0
  for (int a = 0; a < p.actions(e.producer); ++a)
    if (m->x[p.offset[e.producer] + a] >= 0) row_p[cp[a]].insert(m->x[p.offset[e.producer] + a], -1.0);
  for (int b = 0; b < p.actions(e.consumer); ++b)
    if (m->x[p.offset[e.consumer] + b] >= 0) col_c[cc[b]].insert(m->x[p.offset[e.consumer] + b], -1.0);
  std::vector<double> cost(size_t(kp) * kc, -1);
  for (int a = 0; a < p.actions(e.producer); ++a)
    for (int b = 0; b < p.actions(e.consumer); ++b) cost[size_t(cp[a]) * kc + cc[b]] = p.edge_cost(e, a, b);
  for (int k = 0; k < kp; ++k)
    for (int l = 0; l < kc; ++l) {
      const double c = cost[size_t(k) * kc + l];
      if (!std::isfinite(c) || row_p[k].getNumElements() == 0 || col_c[l].getNumElements() == 0) continue;
      const int y = m->add_col(0, 0, 1, false);
      row_p[k].insert(y, 1.0);
      col_c[l].insert(y, 1.0);
      if (p.has_shared_lines())
        pairs->push_back({y, p.pool[rep_p[k]], p.pool[rep_c[l]], p.shared_write[rep_p[k]] + p.shared_read[rep_p[k]],
                          p.shared_read[rep_p[k]], p.shared_write[rep_c[l]]});
      if (p.has_streams()) {
        const double r = reader_in_memory_ms(p, e, rep_p[k] - p.offset[e.producer], rep_c[l] - p.offset[e.consumer]);
        if (r > 0 && p.pool[rep_p[k]] == Problem::kNoStep) streamed->push_back({y, e.producer, r});
        else if (r > 0 && p.out_memory[rep_p[k]] > 0) latency->insert(y, p.out_memory[rep_p[k]] * r);
      }
      if (c == 0) continue;
      auto [it, fresh] = w->try_emplace({e.producer, fp[k], fc[l]}, -1);
      if (fresh) {
        it->second = m->add_col(0, 0, 1, false);
        latency->insert(it->second, c);
      }
      auto& r = need[it->second];
      if (r.getNumElements() == 0) r.insert(it->second, 1.0);
      r.insert(y, -1.0);
    }
  for (auto& r : row_p) m->add_row(r, 0, 0);
  for (auto& r : col_c) m->add_row(r, 0, 0);
  for (auto& [col, r] : need) m->add_row(r, 0, COIN_DBL_MAX);
}

// The layer-by-layer memory model: a column z >= the memory of every layer's choice, which is
// the memory expression; returns z.
int add_layer_by_layer_memory(const Problem& p, Model* m, CoinPackedVector* memory) {
  const int z = m->add_col(0, 0, COIN_DBL_MAX, false);
  memory->insert(z, 1.0);
  for (int t = 0; t < p.n; ++t) {
    CoinPackedVector r;
    r.insert(z, 1.0);
    for (int a = 0; a < p.actions(t); ++a)
      if (m->x[p.offset[t] + a] >= 0) r.insert(m->x[p.offset[t] + a], -double(impl_memory_bytes(p, p.offset[t] + a)) / kMemUnit);
    m->add_row(r, 0, COIN_DBL_MAX);
  }
  return z;
}

// Builds columns and rows; returns the latency and memory expressions as sparse vectors.
void build(const DeploymentEnv& env, const IlpOptions& o, Model* m, CoinPackedVector* latency,
           CoinPackedVector* memory, int* z) {
  const Problem& p = env.problem();
  add_choices(env, o, m, latency, memory);
  ConversionCols w;
  std::vector<std::vector<PairCol>> pairs(p.edges.size());
  std::vector<StreamedPair> streamed;
  for (size_t ei = 0; ei < p.edges.size(); ++ei) add_edge(p, p.edges[ei], m, latency, &w, &pairs[ei], &streamed);
  add_streams(p, m, latency, streamed);
  if (p.has_handoffs()) {
    std::vector<std::vector<int>> exits;
    add_handoffs(p, m, latency, &exits);
    if (p.has_shared_lines()) add_shared_lines(p, m, latency, exits, pairs);
  }
  *z = -1;
  if (o.memory_model == MemoryModel::kPeak) add_peak_memory(p, m, memory);
  if (o.memory_model == MemoryModel::kLayerByLayer) *z = add_layer_by_layer_memory(p, m, memory);
}

}  // namespace

Status solve_ilp(const DeploymentEnv& env, const IlpOptions& o, IlpSolution* out) {
  const Problem& p = env.problem();
  Model m;
  CoinPackedVector latency, memory;
  int z = -1;
  build(env, o, &m, &latency, &memory, &z);
  const bool min_latency = o.objective == IlpObjective::kLatency;
  for (const auto& v : {min_latency ? latency : memory})
    for (int i = 0; i < v.getNumElements(); ++i) m.obj[v.getIndices()[i]] += v.getElements()[i];
  if (min_latency && o.memory_budget_bytes > 0)
    m.add_row(memory, -COIN_DBL_MAX, (double(o.memory_budget_bytes) + kBudgetHalfByte) / kMemUnit);
  if (!min_latency && o.latency_budget_ms > 0) m.add_row(latency, -COIN_DBL_MAX, o.latency_budget_ms + 1e-9);
  const int64_t peak_limit = env.options().max_memory_bytes;  // the env's constraint holds in every solve
  if (peak_limit > 0) {
    CoinPackedVector peak;
    add_peak_memory(p, &m, &peak);
    m.add_row(peak, -COIN_DBL_MAX, (double(peak_limit) + kBudgetHalfByte) / kMemUnit);
  }
  m.rows.setDimensions(int(m.row_lo.size()), int(m.obj.size()));

  OsiClpSolverInterface si;
  si.messageHandler()->setLogLevel(0);
  si.loadProblem(m.rows, m.lo.data(), m.hi.data(), m.obj.data(), m.row_lo.data(), m.row_hi.data());
  for (int c = 0; c < int(m.obj.size()); ++c)
    if (m.integer[c]) si.setInteger(c);
  CbcModel model(si);
  model.setLogLevel(0);
  model.messageHandler()->setLogLevel(0);
  model.setMaximumSeconds(o.time_limit_s);
  model.branchAndBound();
  out->variables = int64_t(m.obj.size());
  out->nodes = model.getNodeCount();
  out->budget_bytes = o.memory_budget_bytes;
  if (!model.bestSolution()) return {StatusCode::kNotFound, "ilp: no deployment within the budget"};
  const double* sol = model.bestSolution();
  out->assignment.assign(p.n, 0);
  for (int t = 0; t < p.n; ++t)
    for (int a = 0; a < p.actions(t); ++a) {
      const int col = m.x[p.offset[t] + a];
      if (col >= 0 && sol[col] > 0.5) out->assignment[t] = a;
    }
  out->proven_optimal = model.isProvenOptimal();
  out->latency_ms = predict_latency_ms(p, out->assignment);
  out->memory_bytes = linear_memory_bytes(p, out->assignment, o.memory_model);
  if ((min_latency && o.memory_budget_bytes > 0 && out->memory_bytes > o.memory_budget_bytes) ||
      (peak_limit > 0 && predict_memory_bytes(p, out->assignment) > peak_limit))
    return failed("ilp: CBC returned a solution over the memory budget (numerical tolerance)");
  return Status::ok();
}

Status ilp_pareto(const DeploymentEnv& env, MemoryModel model, int points, std::vector<IlpSolution>* front) {
  front->clear();
  IlpOptions o;
  o.memory_model = model;
  IlpSolution fastest, smallest;
  LW_RETURN_IF_ERROR(solve_ilp(env, o, &fastest));
  // The memory end: least memory of all; then the least memory that still keeps the optimum latency.
  o.objective = IlpObjective::kMemory;
  LW_RETURN_IF_ERROR(solve_ilp(env, o, &smallest));
  o.latency_budget_ms = fastest.latency_ms;
  IlpSolution lean_fastest;
  if (solve_ilp(env, o, &lean_fastest).is_ok() && lean_fastest.memory_bytes < fastest.memory_bytes)
    fastest = lean_fastest;
  o = IlpOptions{};
  o.memory_model = model;
  const int64_t lo = smallest.memory_bytes, hi = fastest.memory_bytes;
  for (int i = 0; i < std::max(points, 2); ++i) {
    const int64_t budget = points <= 1 ? hi : lo + (hi - lo) * i / (points - 1);
    if (!front->empty() && budget == front->back().budget_bytes) continue;  // lo == hi: one point
    o.memory_budget_bytes = budget;
    IlpSolution s;
    Status st = solve_ilp(env, o, &s);
    if (st.code() == StatusCode::kNotFound) continue;  // CBC found nothing at this budget within the limit
    LW_RETURN_IF_ERROR(st);
    front->push_back(std::move(s));
  }
  return Status::ok();
}

}  // namespace lw
