// Tabular Q-learning, two variants behind one loop (README "Search" has the measurements):
//  * "layerwise" (default): the state is the env's frontier (the output class of every chosen
//    producer still read: all the future cost depends on), returns are undiscounted (the
//    return is minus the network latency), Q starts at an admissible bound (minus a lower
//    bound of the cost to go, so untried actions look good but never better than they can
//    be), and learning rate 1 (the env is deterministic, one sample is the expectation).
//    Greedy episodes on such a table are real-time dynamic programming: each one tightens
//    the bound along its path, and a greedy episode that realises the bound it started from
//    is a certified optimum, at which point the search stops. The result is that greedy
//    rollout (epsilon 0), not the best exploratory episode.
//  * "qs-dnn": QS-DNN §IV-V as published (state = previous layer's impl, alpha 0.05,
//    gamma 0.9, Q = 0, 50 % of episodes at epsilon 1 then 5 % at each 0.9 ... 0.1, replay 128),
//    result = the best episode seen, so Table III can be reproduced as published.
// Every field can be overridden one at a time (ablations in README "Search").
#include <algorithm>
#include <unordered_map>

#include "agents/bounds.h"
#include "agents/builtin.h"
#include "agents/config.h"
#include "env/rng.h"

namespace lw {
namespace {

// QS-DNN (paper) defaults.
constexpr int kPaperEpisodes = 1000;
constexpr double kPaperAlpha = 0.05;           // QS-DNN learning rate
constexpr double kPaperGamma = 0.9;            // QS-DNN discount
constexpr double kPaperExploreFraction = 0.5;  // share of episodes at epsilon = 1
constexpr double kPaperStepFraction = 0.05;    // share of episodes at each epsilon = 0.9 ... 0.1
constexpr int kReplayCapacity = 128;           // QS-DNN replay buffer (episodes), both variants
// QS-DNN does not give the batch size; MetaQNN replays a batch of whole episodes after each.
constexpr int kPaperReplayBatch = 8;
// Layerwise defaults. The episode cap scales with the problem: episodes per usable impl. RTDP
// certifies ResNet-50 (~2 K usable impls) in a few hundred greedy episodes; the cap is a
// safety net for LUTs with many near-ties, and it stays well inside 10 s of one core.
constexpr int kEpisodesPerImpl = 10;
constexpr int kMinEpisodes = 200;
constexpr int kLayerwiseReplayBatch = 2;  // replays re-propagate tightened bounds to old paths

struct QLearningConfig {
  std::string variant = "layerwise";  // "layerwise" (converges) or "qs-dnn" (as published)
  int episodes = 0;                   // episodes in the whole schedule; 0 = scale with the problem
  double alpha = 1.0;                 // learning rate
  double gamma = 1.0;                 // discount of future rewards (1 = the latency itself)
  double explore_fraction = 0;        // episodes at epsilon = 1 (pure exploration)
  double step_fraction = 0;           // episodes at each epsilon in 0.9, 0.8, ... 0.1; the rest at 0
  int replay_capacity = kReplayCapacity;      // most recent episodes kept for replay
  int replay_batch = kLayerwiseReplayBatch;   // episodes replayed (uniformly drawn) after each episode
  std::string state = "frontier";     // "frontier" (env Observation::frontier) or "previous" (QS-DNN)
  std::string init = "bound";         // "bound" (admissible cost-to-go bound) or "zero" (QS-DNN)
  int stop_when_certified = 1;        // stop at the first greedy episode that realises its bound
};

Status parse(const AgentRequest& req, const Problem& p, QLearningConfig* c, std::string* resolved) {
  JsonReader r = agent_config("qlearning", req.config_json);
  r.text("variant", &c->variant);
  if (c->variant == "qs-dnn") {
    c->episodes = kPaperEpisodes, c->alpha = kPaperAlpha, c->gamma = kPaperGamma;
    c->explore_fraction = kPaperExploreFraction, c->step_fraction = kPaperStepFraction;
    c->replay_batch = kPaperReplayBatch, c->state = "previous", c->init = "zero", c->stop_when_certified = 0;
  } else if (c->variant != "layerwise") {
    return invalid_argument("qlearning config: /variant: expected \"layerwise\" or \"qs-dnn\"");
  } else {
    int usable = 0;
    for (uint8_t u : p.usable) usable += u;
    c->episodes = std::max(kMinEpisodes, kEpisodesPerImpl * usable);
  }
  if (req.episodes > 0) c->episodes = req.episodes;
  r.integer("episodes", &c->episodes, 1, 1 << 30);
  r.number("alpha", &c->alpha, 0, 1);
  r.number("gamma", &c->gamma, 0, 1);
  r.number("explore_fraction", &c->explore_fraction, 0, 1);
  r.number("step_fraction", &c->step_fraction, 0, 1);
  r.integer("replay_capacity", &c->replay_capacity, 1, 1 << 20);
  r.integer("replay_batch", &c->replay_batch, 0, 1 << 20);
  r.text("state", &c->state);
  r.text("init", &c->init);
  r.integer("stop_when_certified", &c->stop_when_certified, 0, 1);
  LW_RETURN_IF_ERROR(r.finish());
  if (c->explore_fraction < 0 || c->step_fraction < 0 || c->explore_fraction + 9 * c->step_fraction > 1)
    return invalid_argument("qlearning config: explore_fraction + 9 * step_fraction must be within [0, 1]");
  if (c->state != "frontier" && c->state != "previous")
    return invalid_argument("qlearning config: /state: expected \"frontier\" or \"previous\"");
  if (c->init != "bound" && c->init != "zero")
    return invalid_argument("qlearning config: /init: expected \"bound\" or \"zero\"");
  if (!(c->alpha > 0 && c->alpha <= 1) || !(c->gamma > 0 && c->gamma <= 1))
    return invalid_argument("qlearning config: alpha and gamma must be within (0, 1]");
  *resolved = r.resolved().dump();
  return Status::ok();
}

// epsilon of episode e: explore_fraction of the episodes at 1, then step_fraction at each 0.9 ... 0.1, then 0.
double epsilon_at(const QLearningConfig& c, int e) {
  const double x = double(e) / c.episodes;
  if (x < c.explore_fraction) return 1.0;
  if (c.step_fraction <= 0) return 0.0;
  const int k = int((x - c.explore_fraction) / c.step_fraction);  // 0 -> epsilon 0.9
  return k < 9 ? 0.9 - 0.1 * k : 0.0;
}

// Q rows created on first visit, addressed by (layer, state key); a row is as wide as the
// layer's action count. Entries that can never be taken in that state are -inf.
class QTable {
 public:
  QTable(const DeploymentEnv& env, const QLearningConfig& cfg) : env_(env), cfg_(cfg), bounds_(env) {}

  // Row of the env's current state, created (and initialised) if new.
  int64_t row(const Observation& obs) {
    const uint64_t key = cfg_.state == "frontier" ? obs.frontier : uint64_t(obs.key);
    auto [it, fresh] = index_.try_emplace(key, int64_t(q_.size()));
    if (fresh) init_row(obs.layer);
    return it->second;
  }
  double* at(int64_t row) { return &q_[row]; }
  size_t states() const { return index_.size(); }
  double max(int64_t row, int layer) const {
    return *std::max_element(q_.begin() + row, q_.begin() + row + env_.problem().actions(layer));
  }

 private:
  void init_row(int t) {
    const Problem& p = env_.problem();
    for (int a = 0; a < p.actions(t); ++a) {
      const int f = p.offset[t] + a;
      // With the frontier state the env's mask is a function of the state; with the previous
      // impl it is not (other producers), so only what the previous layer forbids is -inf.
      bool ok = env_.statically_allowed(f);
      if (cfg_.state == "frontier") ok = ok && env_.edge_allowed(a);
      for (int e = p.in_begin[t]; ok && cfg_.state == "previous" && e < p.in_begin[t + 1]; ++e)
        if (p.edges[e].producer == t - 1) ok = p.edge_cost(p.edges[e], env_.assignment()[t - 1], a) < kInf;
      q_.push_back(!ok ? -kInf : cfg_.init == "zero" ? 0.0 : -(bounds_.lb[f] + bounds_.chain[f]));
    }
  }

  const DeploymentEnv& env_;
  const QLearningConfig& cfg_;
  Bounds bounds_;
  std::unordered_map<uint64_t, int64_t> index_;
  std::vector<double> q_;
};

struct Transition {
  int64_t row;  // Q row of the state before the action; -1 after a dead end
  int action;
  double reward;
};

// Hands the env through one episode; fills `episode` and returns the best Q of the first state.
// A state where no impl is allowed (a dead end: per-edge consistency does not rule them out on
// a DAG) ends the episode: the action that led there gets reward -inf and the rest row -1.
double rollout(DeploymentEnv& env, QTable& Q, double eps, Rng& rng, std::vector<int>& allowed,
               std::vector<Transition>& episode, bool* dead) {
  const Problem& p = env.problem();
  Observation obs = env.reset();
  double first_max = 0;
  *dead = false;
  for (int t = 0; t < p.n; ++t) {
    const auto& mask = env.action_mask();
    const int na = env.num_actions();
    int k = 0;
    for (int i = 0; i < na; ++i)
      if (mask[i]) allowed[k++] = i;
    if (k == 0) {
      *dead = true;
      if (t > 0) episode[t - 1].reward = -kInf;
      for (int u = t; u < p.n; ++u) episode[u].row = -1;
      break;
    }
    const int64_t row = Q.row(obs);
    const double* q = Q.at(row);
    if (t == 0) first_max = Q.max(row, 0);
    int a = -1;
    if (eps > 0 && rng.uniform() < eps) {
      a = allowed[rng.below(k)];
    } else {
      double best = -kInf;
      for (int j = 0; j < k; ++j)
        if (a < 0 || q[allowed[j]] > best) best = q[allowed[j]], a = allowed[j];
    }
    const StepResult r = env.step(a);
    episode[t] = {row, a, r.reward};
    obs = r.obs;
  }
  return first_max;
}

}  // namespace

Status run_qlearning(DeploymentEnv& env, const AgentRequest& req, SearchResult* out) {
  QLearningConfig cfg;
  const Problem& p = env.problem();
  LW_RETURN_IF_ERROR(parse(req, p, &cfg, &out->config_json));
  const int n = p.n;
  Rng rng(req.seed);
  QTable Q(env, cfg);
  SolutionLog log(req.record_solutions);
  std::vector<Transition> episode(n), replay(size_t(cfg.replay_capacity) * n);
  std::vector<int> allowed(p.max_actions);
  int replay_size = 0;
  const int64_t steps_before = env.total_steps();
  // The bound reads every usable impl's costs once: counted like DS scoring each impl.
  int64_t bound_reads = 0;
  if (cfg.init == "bound")
    for (size_t f = 0; f < p.usable.size(); ++f) bound_reads += env.statically_allowed(int(f));
  // Sound only when the key is Markov (the previous impl aliases states whose futures differ).
  // Under a peak-memory limit the mask depends on more than the frontier: no certificate.
  const bool certifiable = cfg.init == "bound" && cfg.gamma == 1.0 && cfg.state == "frontier" && !env.memory_limited();

  // Q update along one stored episode, last step first so the end reward reaches the start at once.
  auto learn = [&](const Transition* tr) {
    for (int t = n - 1; t >= 0; --t) {
      if (tr[t].row < 0) continue;
      double target = tr[t].reward;
      if (t + 1 < n && tr[t + 1].row >= 0) target += cfg.gamma * Q.max(tr[t + 1].row, t + 1);
      double& q = Q.at(tr[t].row)[tr[t].action];
      q += cfg.alpha * (target - q);
    }
  };

  bool certified = false;
  int ep = 0;
  for (; ep < cfg.episodes && !certified; ++ep) {
    const double eps = epsilon_at(cfg, ep);
    bool dead = false;
    const double bound = -rollout(env, Q, eps, rng, allowed, episode, &dead);
    const double latency = dead ? kInf : env.latency_ms();
    if (!dead) log.add(env.assignment(), latency);
    // Q stays an upper bound of the value, so a greedy episode that costs no more than the
    // bound its first state promised is optimal (and it is the greedy rollout).
    certified = certifiable && !dead && eps == 0 && cfg.stop_when_certified && latency <= bound * (1 + 1e-12) + 1e-12;
    learn(episode.data());
    std::copy(episode.begin(), episode.end(), replay.begin() + int64_t(ep % cfg.replay_capacity) * n);
    replay_size = std::min(replay_size + 1, cfg.replay_capacity);
    for (int b = 0; b < cfg.replay_batch; ++b) learn(&replay[int64_t(rng.below(replay_size)) * n]);
    double ret = 0;
    for (const auto& tr : episode) ret += tr.row >= 0 ? tr.reward : 0.0;
    // An epsilon-0 episode is the greedy rollout of the table as it was before its update.
    const int64_t states = env.total_steps() - steps_before + bound_reads;
    out->curve.push_back({ep, ret, log.best_latency(), eps, states, eps == 0 && !dead ? latency : -1.0});
    if (req.progress && (ep & 63) == 0) req.progress(double(ep) / cfg.episodes);
  }
  out->episodes = ep;
  const double best_seen = log.best_latency();
  // The layerwise answer is the learned policy: a greedy rollout (the certified episode if
  // there was one); QS-DNN gives out the best episode seen.
  bool dead = false;
  if (cfg.variant == "layerwise" && !certified) {
    rollout(env, Q, 0.0, rng, allowed, episode, &dead);
    if (!dead) log.add(env.assignment(), env.latency_ms());
  }
  const std::vector<int> greedy = env.assignment();
  const double greedy_ms = env.latency_ms();
  out->states_considered = env.total_steps() - steps_before + bound_reads;
  log.finish(p, out);
  if (cfg.variant == "layerwise" && !dead) {  // (a dead-end rollout leaves the best episode seen)
    out->best = greedy;
    out->best_latency_ms = greedy_ms;
    out->best_memory_bytes = predict_memory_bytes(p, greedy);
    out->proven_optimal = certified;
    out->greedy_answer = true;
  }
  char note[160];
  std::snprintf(note, sizeof note, "%s: %zu Q states, %s after %d episodes, best episode seen %.4f ms",
                cfg.variant.c_str(), Q.states(), certified ? "certified optimal" : "not certified", ep, best_seen);
  out->note = note;
  return Status::ok();
}

}  // namespace lw
