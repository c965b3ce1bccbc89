// Tabular Q-learning as in QS-DNN §IV-V (after Baker et al.'s MetaQNN): ε-greedy episodes over
// the layers, the Q update applied along the finished episode, then a batch of past episodes
// replayed from a buffer. Reads top to bottom: config, tables, schedule, one loop.
#include <algorithm>

#include "agents/builtin.h"
#include "agents/config.h"
#include "env/rng.h"

namespace lw {
namespace {

constexpr int kDefaultEpisodes = 1000;
constexpr double kDefaultAlpha = 0.05;           // QS-DNN learning rate
constexpr double kDefaultGamma = 0.9;            // QS-DNN discount
constexpr double kDefaultExploreFraction = 0.5;  // share of episodes at ε = 1
constexpr double kDefaultStepFraction = 0.05;    // share of episodes at each ε = 0.9 ... 0.1
constexpr int kDefaultReplayCapacity = 128;      // QS-DNN replay buffer (episodes)
// QS-DNN does not give the batch size; MetaQNN replays a batch of whole episodes after each.
constexpr int kDefaultReplayBatch = 8;

struct QLearningConfig {
  int episodes = kDefaultEpisodes;                   // episodes in the whole schedule
  double alpha = kDefaultAlpha;                      // learning rate
  double gamma = kDefaultGamma;                      // discount of future rewards
  double explore_fraction = kDefaultExploreFraction; // episodes at ε = 1 (pure exploration)
  double step_fraction = kDefaultStepFraction;       // episodes at each ε in 0.9, 0.8, ... 0.1; the rest at ε = 0
  int replay_capacity = kDefaultReplayCapacity;      // most recent episodes kept for replay
  int replay_batch = kDefaultReplayBatch;            // episodes replayed (uniformly drawn) after each episode
};

Status parse(const AgentRequest& req, QLearningConfig* c, std::string* resolved) {
  ConfigReader r("qlearning", req.config_json);
  if (req.episodes > 0) c->episodes = req.episodes;
  r.integer("episodes", &c->episodes, 1, 1 << 30);
  r.number("alpha", &c->alpha);
  r.number("gamma", &c->gamma);
  r.number("explore_fraction", &c->explore_fraction);
  r.number("step_fraction", &c->step_fraction);
  r.integer("replay_capacity", &c->replay_capacity, 1, 1 << 20);
  r.integer("replay_batch", &c->replay_batch, 0, 1 << 20);
  LW_RETURN_IF_ERROR(r.finish());
  if (c->explore_fraction < 0 || c->step_fraction < 0 || c->explore_fraction + 9 * c->step_fraction > 1)
    return invalid_argument("qlearning config: explore_fraction + 9 * step_fraction must be within [0, 1]");
  *resolved = r.resolved();
  return Status::ok();
}

// ε of episode e: explore_fraction of the episodes at 1, then step_fraction at each 0.9 ... 0.1, then 0.
double epsilon_at(const QLearningConfig& c, int e) {
  const double x = double(e) / c.episodes;
  if (x < c.explore_fraction) return 1.0;
  if (c.step_fraction <= 0) return 0.0;
  const int k = int((x - c.explore_fraction) / c.step_fraction);  // 0 -> ε 0.9
  return k < 9 ? 0.9 - 0.1 * k : 0.0;
}

// Q[state key][action]: one row per state key (0 = start, 1 + flat impl of the previous layer),
// as wide as the next layer's action count. Entries that can never be taken are -inf, so the
// bootstrap max is a plain max.
struct QTable {
  std::vector<int64_t> row;  // by state key
  std::vector<double> q;
  double* at(int64_t key) { return &q[row[key]]; }

  explicit QTable(const Problem& p) {
    row.assign(1 + p.offset[p.n], -1);
    int64_t size = 0;
    row[0] = size;
    size += p.actions(0);
    for (int t = 1; t < p.n; ++t)
      for (int a = 0; a < p.actions(t - 1); ++a) row[1 + p.offset[t - 1] + a] = size, size += p.actions(t);
    q.assign(size, 0.0);
    // Static infeasibility: unusable actions, and actions the edge from the previous layer forbids.
    for (int t = 0; t < p.n; ++t) {
      int e_prev = -1;
      for (int e = p.in_begin[t]; e < p.in_begin[t + 1]; ++e)
        if (p.edges[e].producer == t - 1) e_prev = e;
      const int rows = t == 0 ? 1 : p.actions(t - 1);
      for (int s = 0; s < rows; ++s) {
        double* r = t == 0 ? at(0) : at(1 + p.offset[t - 1] + s);
        for (int a = 0; a < p.actions(t); ++a)
          if (!p.usable[p.offset[t] + a] || (e_prev >= 0 && p.edge_cost(p.edges[e_prev], s, a) == kInf)) r[a] = -kInf;
      }
    }
  }
};

struct Transition {
  int64_t key;  // state before the action
  int action;
  double reward;
};

}  // namespace

Status run_qlearning(DeploymentEnv& env, const AgentRequest& req, SearchResult* out) {
  QLearningConfig cfg;
  LW_RETURN_IF_ERROR(parse(req, &cfg, &out->config_json));
  const Problem& p = env.problem();
  const int n = p.n;
  Rng rng(req.seed);
  QTable Q(p);
  SolutionLog log(req.record_solutions);
  std::vector<Transition> episode(n), replay(size_t(cfg.replay_capacity) * n);
  std::vector<int> allowed(p.max_actions);
  int replay_size = 0;
  const int64_t steps_before = env.total_steps();

  // Q update along one stored episode, last step first so the end reward reaches the start at once.
  auto learn = [&](const Transition* tr) {
    for (int t = n - 1; t >= 0; --t) {
      double target = tr[t].reward;
      if (t + 1 < n) {
        const double* next = Q.at(tr[t + 1].key);
        target += cfg.gamma * *std::max_element(next, next + p.actions(t + 1));
      }
      double& q = Q.at(tr[t].key)[tr[t].action];
      q += cfg.alpha * (target - q);
    }
  };

  for (int ep = 0; ep < cfg.episodes; ++ep) {
    const double eps = epsilon_at(cfg, ep);
    Observation obs = env.reset(req.seed);
    double ret = 0;
    for (int t = 0; t < n; ++t) {
      const auto& mask = env.action_mask();
      const int na = env.num_actions();
      int a = -1;
      if (rng.uniform() < eps) {
        int k = 0;
        for (int i = 0; i < na; ++i)
          if (mask[i]) allowed[k++] = i;
        a = allowed[rng.below(k)];
      } else {
        const double* q = Q.at(obs.key);
        double best = -kInf;
        for (int i = 0; i < na; ++i)
          if (mask[i] && (a < 0 || q[i] > best)) best = q[i], a = i;
      }
      const StepResult r = env.step(a);
      episode[t] = {obs.key, a, r.reward};
      ret += r.reward;
      obs = r.obs;
    }
    log.add(env.assignment(), env.latency_ms());
    learn(episode.data());
    std::copy(episode.begin(), episode.end(), replay.begin() + int64_t(ep % cfg.replay_capacity) * n);
    replay_size = std::min(replay_size + 1, cfg.replay_capacity);
    for (int b = 0; b < cfg.replay_batch; ++b) learn(&replay[int64_t(rng.below(replay_size)) * n]);
    out->curve.push_back({ep, ret, log.best_latency(), eps});
    if (req.progress && (ep & 63) == 0) req.progress(double(ep) / cfg.episodes);
  }
  out->episodes = cfg.episodes;
  out->states_considered = env.total_steps() - steps_before;
  log.finish(p, out);
  return Status::ok();
}

}  // namespace lw
