// DQN that scores candidates, in the shape of CleanRL's dqn.py: config, network, epsilon
// schedule, replay, TD update, then one visible loop (run_dqn).
// An MLP maps the features of one (layer, impl) candidate given the choices so far
// (agents/dqn_features.h) to its excess cost: how much the cost to go after choosing it
// exceeds its admissible bound (step cost + the bound of the layers after). Acting picks the
// allowed candidate of least step + bound + excess; invalid impls are never scored (masked) in
// acting and in the target. Targets are undiscounted n-step returns (the episode return is
// minus the latency), cut at the first random pick, bootstrapped with double DQN (online
// argmin, target-network value); replay stores whole episodes (assignments), so any state's
// candidates can be featurised again. The result is a greedy rollout (epsilon 0): of the
// evaluated networks (before training and every eval_every episodes) the one whose rollout is
// fastest, never an exploratory episode. The only agents file that includes LibTorch.
#include "agents/dqn.h"

#include <torch/torch.h>

#include <dlfcn.h>

#include <algorithm>
#include <functional>

#include "agents/agent.h"
#include "agents/config.h"
#include "agents/dqn_features.h"
#include "env/rng.h"

namespace lw {
namespace {

constexpr int kDefaultEpisodes = 400;
constexpr int kDefaultHidden = 64;
constexpr double kDefaultLr = 1e-3;
constexpr double kDefaultLrEnd = 1e-4;       // linear decay: the final greedy policy stops drifting
constexpr int kDefaultNStep = 8;             // undiscounted n-step return (>= layers: Monte Carlo)
constexpr int kDefaultBufferEpisodes = 256;  // replay: whole episodes
constexpr int kDefaultBatch = 64;
constexpr int kDefaultLearningStarts = 4;    // episodes before the first update
constexpr int kDefaultTrainEvery = 4;        // env steps per gradient step
constexpr int kDefaultTargetEvery = 100;     // gradient steps per target-network copy
constexpr double kDefaultEpsStart = 0.05;  // the bound-plus-lookahead prior already starts near DS+
constexpr double kDefaultExplorationFraction = 0.6;  // share of episodes over which epsilon decays to 0
constexpr int kDefaultEvalEvery = 10;        // episodes per greedy evaluation rollout (learning curve)
// n-step returns stop at the first random pick after the sampled step and bootstrap from the
// state it was made in (Watkins): a random pick's cost (often an impl hundreds of times the
// mean layer cost) is not what the greedy policy would pay. Without the cut, 16 % of the
// targets of a MobileNetV3-Small run carried one, with 38x the error of the others, and the
// greedy rollout stalled at +2.9 % (README "Search").
constexpr int kDefaultCutAtRandom = 1;

struct DqnConfig {
  int episodes = kDefaultEpisodes;                 // training episodes
  int hidden = kDefaultHidden;                     // width of the two hidden layers
  double lr = kDefaultLr;                          // Adam learning rate of the first episode
  double lr_end = kDefaultLrEnd;                   // ... decayed linearly to this at the last
  int n_step = kDefaultNStep;                      // steps summed before bootstrapping
  int buffer = kDefaultBufferEpisodes;             // replay buffer size (episodes)
  int batch = kDefaultBatch;                       // minibatch size (transitions)
  int learning_starts = kDefaultLearningStarts;    // episodes before the first gradient step
  int train_every = kDefaultTrainEvery;            // env steps per gradient step
  int target_every = kDefaultTargetEvery;          // gradient steps per target-network copy
  double eps_start = kDefaultEpsStart;             // epsilon of the first episode
  double exploration_fraction = kDefaultExplorationFraction;  // epsilon reaches 0 after this share of episodes
  int eval_every = kDefaultEvalEvery;              // episodes per greedy rollout on the learning curve
  int cut_at_random = kDefaultCutAtRandom;         // 1: n-step returns stop at a random pick (0: ablation)
};

Status parse(const AgentRequest& req, DqnConfig* c, std::string* resolved) {
  JsonReader r = agent_config("dqn", req.config_json);
  if (req.episodes > 0) c->episodes = req.episodes;
  r.integer("episodes", &c->episodes, 1, 1 << 30);
  r.integer("hidden", &c->hidden, 1, 1 << 16);
  r.number("lr", &c->lr, 0, 1);
  r.number("lr_end", &c->lr_end, 0, 1);
  r.integer("n_step", &c->n_step, 1, 1 << 20);
  r.integer("buffer", &c->buffer, 1, 1 << 20);
  r.integer("batch", &c->batch, 1, 1 << 16);
  r.integer("learning_starts", &c->learning_starts, 0, 1 << 30);
  r.integer("train_every", &c->train_every, 1, 1 << 20);
  r.integer("target_every", &c->target_every, 1, 1 << 30);
  r.number("eps_start", &c->eps_start, 0, 1);
  r.number("exploration_fraction", &c->exploration_fraction, 0, 1);
  r.integer("eval_every", &c->eval_every, 1, 1 << 30);
  r.integer("cut_at_random", &c->cut_at_random, 0, 1);
  LW_RETURN_IF_ERROR(r.finish());
  if (!(c->eps_start >= 0 && c->eps_start <= 1) || !(c->exploration_fraction > 0 && c->exploration_fraction <= 1))
    return invalid_argument("dqn config: eps_start must be within [0, 1] and exploration_fraction within (0, 1]");
  *resolved = r.resolved().dump();
  return Status::ok();
}

// LibTorch's float matmuls go to the system BLAS; Debian's OpenBLAS (pthread build) starts a
// thread per core that spins in sched_yield between the DQN's many small calls, and
// at::set_num_threads does not reach it. Measured: ResNet-18 DQN 14.9 s of process CPU (7.4
// user + 8.2 system) for 4.0 s with one BLAS thread, same result. Looked up at run time so
// that another BLAS (no such symbol) is left alone.
void single_threaded_blas() {
  using SetThreads = void (*)(int);
  if (auto set = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"))) set(1);
}

// Epsilon of training episode `ep`: linear from eps_start to 0 over exploration_fraction of
// the episodes, then 0 (CleanRL's linear_schedule).
double epsilon_at(const DqnConfig& c, int ep) {
  return std::max(0.0, c.eps_start * (1.0 - double(ep) / (c.exploration_fraction * c.episodes)));
}

// Learning rate of training episode `ep`: linear from lr to lr_end over the run.
double lr_at(const DqnConfig& c, int ep) { return c.lr + (c.lr_end - c.lr) * double(ep) / std::max(1, c.episodes - 1); }

struct ExcessNet : torch::nn::Module {
  torch::nn::Sequential net;
  ExcessNet(int in, int hidden)
      : net(torch::nn::Linear(in, hidden), torch::nn::ReLU(), torch::nn::Linear(hidden, hidden), torch::nn::ReLU(),
            torch::nn::Linear(hidden, 1)) {
    register_module("net", net);
    // Excess 0 everywhere at the start: the untrained policy is DS+ (least step cost), the
    // first evaluated rollout, so the answer is never worse than DS+.
    torch::NoGradGuard g;
    auto last = net->ptr<torch::nn::LinearImpl>(4);
    last->weight.zero_();
    last->bias.zero_();
  }
  torch::Tensor forward(const torch::Tensor& x) { return net->forward(x).squeeze(1); }
};

// The allowed candidates of one state, featurised: rows of `x`, their actions and base costs
// (step + bound of the rest, in units of the network's scale).
struct Candidates {
  std::vector<float> x;
  std::vector<int> action;
  std::vector<double> base;
  void clear() { x.clear(), action.clear(), base.clear(); }
  // `live`: the env at layer t, whose mask (the peak-memory limit) applies too.
  void add(const CandidateFeatures& F, const std::vector<int>& assign, int t, const DeploymentEnv* live = nullptr) {
    const Problem& p = F.problem();
    const int row = F.size();
    for (int a = 0; a < p.actions(t); ++a) {
      const double c = F.step_cost(assign, t, a);
      if (c == kInf || (live && !live->allowed(a))) continue;
      x.resize(x.size() + row);
      F.write(assign, t, a, c, x.data() + x.size() - row);
      action.push_back(a);
      base.push_back((c + F.to_go(t + 1)) / F.scale_ms());
    }
  }
  torch::Tensor tensor(int width) const {
    return torch::from_blob(const_cast<float*>(x.data()), {int64_t(action.size()), width}).clone();
  }
};

// Values as a plain vector (the nets run on CPU, float).
std::vector<float> values(ExcessNet& net, const Candidates& c, int width) {
  torch::NoGradGuard g;
  auto v = net.forward(c.tensor(width)).contiguous();
  return std::vector<float>(v.data_ptr<float>(), v.data_ptr<float>() + v.numel());
}

// Index (into c) of the candidate of least base + value.
int argmin(const Candidates& c, const std::vector<float>& v, int begin, int end) {
  int best = begin;
  for (int i = begin + 1; i < end; ++i)
    if (c.base[i] + v[i] < c.base[best] + v[best]) best = i;
  return best;
}

// Whole episodes, so that any stored state's candidates can be featurised again.
struct Replay {
  std::vector<std::vector<int>> assign;   // per stored episode
  std::vector<std::vector<double>> cost;  // per stored episode, per step (ms)
  std::vector<std::vector<uint8_t>> explored;  // per stored episode, per step: a random pick
  int stored = 0;                         // episodes ever added (the oldest are overwritten)
  explicit Replay(int capacity) : assign(capacity), cost(capacity), explored(capacity) {}
  int size() const { return std::min(stored, int(assign.size())); }
  void add(const std::vector<int>& a, const std::vector<double>& c, const std::vector<uint8_t>& x) {
    const int slot = stored++ % int(assign.size());
    assign[slot] = a, cost[slot] = c, explored[slot] = x;
  }
};

// The online network, its target copy and the optimiser.
struct Learner {
  std::shared_ptr<ExcessNet> q, target;
  torch::optim::Adam opt;
  int64_t steps = 0;  // gradient steps
  Learner(int width, const DqnConfig& cfg)
      : q(std::make_shared<ExcessNet>(width, cfg.hidden)), target(std::make_shared<ExcessNet>(width, cfg.hidden)),
        opt(q->parameters(), torch::optim::AdamOptions(cfg.lr)) {
    sync();
  }
  void sync() {
    torch::NoGradGuard g;
    auto src = q->parameters(), dst = target->parameters();
    for (size_t i = 0; i < src.size(); ++i) dst[i].copy_(src[i]);
  }
  void set_lr(double lr) {
    for (auto& g : opt.param_groups()) static_cast<torch::optim::AdamOptions&>(g.options()).lr(lr);
  }
};

// One TD update on a minibatch of stored transitions (episode, layer): the target excess is
// the undiscounted cost of up to n steps (fewer when a random pick comes first) minus the
// candidate's base, plus the bootstrap state's best base + excess (double DQN: online net
// picks, target net values); Huber loss, one Adam step.
void td_update(Learner& L, const Replay& R, const CandidateFeatures& F, const DqnConfig& cfg, Rng& rng) {
  const int n = F.problem().n, w = F.size();
  Candidates taken, boot;
  std::vector<int> boot_begin(cfg.batch + 1, 0);
  std::vector<double> ret(cfg.batch);
  for (int i = 0; i < cfg.batch; ++i) {
    const int s = rng.below(R.size()), t = rng.below(n);
    int end = std::min(n, t + cfg.n_step);
    for (int k = t + 1; cfg.cut_at_random && k < end; ++k)
      if (R.explored[s][k]) end = k;  // bootstrap from the state the random pick was made in
    const auto& A = R.assign[s];
    const double c = F.step_cost(A, t, A[t]);
    taken.x.resize(size_t(i + 1) * w);
    F.write(A, t, A[t], c, taken.x.data() + size_t(i) * w);
    taken.action.push_back(A[t]);
    double g = 0;
    for (int k = t; k < end; ++k) g += R.cost[s][k];
    ret[i] = (g - c - F.to_go(t + 1)) / F.scale_ms();  // target excess before the bootstrap
    if (end < n) boot.add(F, A, end);
    boot_begin[i + 1] = int(boot.action.size());
  }
  if (!boot.action.empty()) {
    const auto on = values(*L.q, boot, w), tg = values(*L.target, boot, w);
    for (int i = 0; i < cfg.batch; ++i)
      if (boot_begin[i] < boot_begin[i + 1]) {
        const int best = argmin(boot, on, boot_begin[i], boot_begin[i + 1]);
        ret[i] += boot.base[best] + tg[best];
      }
  }
  std::vector<float> y(ret.begin(), ret.end());
  auto loss = torch::smooth_l1_loss(L.q->forward(taken.tensor(w)), torch::from_blob(y.data(), {cfg.batch}).clone());
  L.opt.zero_grad();
  loss.backward();
  L.opt.step();
  if (++L.steps % cfg.target_every == 0) L.sync();
}

// One episode, epsilon-greedy on base + predicted excess; fills cost (ms per layer) and calls
// after_step (when given) after every env step. Returns the latency.
double rollout(DeploymentEnv& env, ExcessNet& q, const CandidateFeatures& F, double eps, Rng& rng,
               std::vector<double>* cost, std::vector<uint8_t>* explored, const std::function<void()>& after_step) {
  Candidates cand;
  env.reset();
  while (!env.done()) {
    const int t = env.layer();
    cand.clear();
    cand.add(F, env.assignment(), t, &env);
    const int n = int(cand.action.size());
    if (n == 0) return kInf;  // a dead end under the peak-memory limit
    const bool random = eps > 0 && rng.uniform() < eps;
    const int pick = random ? rng.below(n) : argmin(cand, values(q, cand, F.size()), 0, n);
    (*cost)[t] = -env.step(cand.action[pick]).reward;
    (*explored)[t] = random;
    if (after_step) after_step();
  }
  return env.latency_ms();
}

Status run_dqn(DeploymentEnv& env, const AgentRequest& req, SearchResult* out) {
  DqnConfig cfg;
  LW_RETURN_IF_ERROR(parse(req, &cfg, &out->config_json));
  torch::manual_seed(req.seed);
  at::set_num_threads(1);
  single_threaded_blas();
  Rng rng(req.seed);
  const CandidateFeatures F(env);
  Learner L(F.size(), cfg);
  Replay replay(cfg.buffer);
  SolutionLog log(req.record_solutions);
  std::vector<double> cost(env.problem().n);
  std::vector<uint8_t> explored(env.problem().n);
  const int64_t steps_before = env.total_steps();
  int64_t env_steps = 0;
  auto train = [&] {
    if (++env_steps % cfg.train_every == 0 && replay.stored >= cfg.learning_starts) td_update(L, replay, F, cfg, rng);
  };
  // The answer is a greedy rollout (epsilon 0) of the network: evaluated before training and
  // every eval_every episodes; the best evaluated policy's rollout is kept (policy selection,
  // never an exploratory episode).
  double greedy_ms = rollout(env, *L.q, F, 0.0, rng, &cost, &explored, nullptr);
  std::vector<int> greedy = env.assignment();
  if (greedy_ms < kInf) log.add(greedy, greedy_ms);
  for (int ep = 0; ep < cfg.episodes; ++ep) {
    const double eps = epsilon_at(cfg, ep);
    L.set_lr(lr_at(cfg, ep));
    const double latency = rollout(env, *L.q, F, eps, rng, &cost, &explored, train);
    if (latency < kInf) {  // kInf: a dead end under the peak-memory limit, nothing to learn from
      replay.add(env.assignment(), cost, explored);
      log.add(env.assignment(), latency);
    }
    CurvePoint pt{ep, -latency, log.best_latency(), eps, 0};
    if ((ep + 1) % cfg.eval_every == 0 || ep + 1 == cfg.episodes) {
      const double g = rollout(env, *L.q, F, 0.0, rng, &cost, &explored, nullptr);
      if (g < kInf) log.add(env.assignment(), g);
      if (g < greedy_ms) greedy_ms = g, greedy = env.assignment();
      pt.greedy_ms = greedy_ms;
    }
    pt.states = env.total_steps() - steps_before;
    out->curve.push_back(pt);
    if (req.progress && (ep & 7) == 0) req.progress(double(ep) / cfg.episodes);
  }
  out->episodes = cfg.episodes;
  out->states_considered = env.total_steps() - steps_before;
  const double best_seen = log.best_latency();
  log.finish(env.problem(), out);
  if (!(greedy_ms < kInf)) return failed("dqn: every greedy rollout dead-ended under the peak-memory limit");
  out->best = greedy;
  out->best_latency_ms = greedy_ms;
  out->greedy_answer = true;
  out->best_memory_bytes = predict_memory_bytes(env.problem(), greedy);
  char note[160];
  std::snprintf(note, sizeof note, "best greedy rollout of the evaluated networks; %lld gradient steps; best episode seen %.4f ms",
                (long long)L.steps, best_seen);
  out->note = note;
  return Status::ok();
}

}  // namespace

void register_dqn_agent() {
  register_agent({"dqn", "DQN scoring each candidate from its features (LibTorch MLP, n-step double DQN, masked)", run_dqn});
}

}  // namespace lw
