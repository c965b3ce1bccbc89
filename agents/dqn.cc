// DQN that scores candidates (CleanRL dqn.py shape, one visible loop): an MLP maps the
// features of one (layer, impl) candidate given the choices so far (agents/dqn_features.h) to
// its excess cost: how much the cost to go after choosing it exceeds its admissible bound
// (step cost + the bound of the layers after). Acting picks the allowed candidate of least
// step + bound + excess; invalid impls are never scored (masked) in acting and in the target.
// Targets are undiscounted n-step returns (the episode return is minus the latency),
// bootstrapped with double DQN (online argmin, target-network value); replay stores whole
// episodes (assignments), so any state's candidates can be featurised again. The result is a
// greedy rollout (epsilon 0): of the evaluated networks (before training and every
// eval_every episodes) the one whose rollout is fastest, never an exploratory episode.
// The only agents file that includes LibTorch.
#include "agents/dqn.h"

#include <torch/torch.h>

#include <algorithm>

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
};

Status parse(const AgentRequest& req, DqnConfig* c, std::string* resolved) {
  ConfigReader r("dqn", req.config_json);
  if (req.episodes > 0) c->episodes = req.episodes;
  r.integer("episodes", &c->episodes, 1, 1 << 30);
  r.integer("hidden", &c->hidden, 1, 1 << 16);
  r.number("lr", &c->lr);
  r.number("lr_end", &c->lr_end);
  r.integer("n_step", &c->n_step, 1, 1 << 20);
  r.integer("buffer", &c->buffer, 1, 1 << 20);
  r.integer("batch", &c->batch, 1, 1 << 16);
  r.integer("learning_starts", &c->learning_starts, 0, 1 << 30);
  r.integer("train_every", &c->train_every, 1, 1 << 20);
  r.integer("target_every", &c->target_every, 1, 1 << 30);
  r.number("eps_start", &c->eps_start);
  r.number("exploration_fraction", &c->exploration_fraction);
  r.integer("eval_every", &c->eval_every, 1, 1 << 30);
  LW_RETURN_IF_ERROR(r.finish());
  if (!(c->eps_start >= 0 && c->eps_start <= 1) || !(c->exploration_fraction > 0 && c->exploration_fraction <= 1))
    return invalid_argument("dqn config: eps_start must be within [0, 1] and exploration_fraction within (0, 1]");
  *resolved = r.resolved();
  return Status::ok();
}

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

struct Replay {
  std::vector<std::vector<int>> assign;   // per stored episode
  std::vector<std::vector<double>> cost;  // per stored episode, per step (ms)
  int stored = 0;
};

class DqnAgent {
 public:
  DqnAgent(DeploymentEnv& env, const DqnConfig& cfg, uint64_t seed)
      : env_(env), p_(env.problem()), cfg_(cfg), F_(env), rng_(seed), q_(std::make_shared<ExcessNet>(F_.size(), cfg.hidden)),
        target_(std::make_shared<ExcessNet>(F_.size(), cfg.hidden)), opt_(q_->parameters(), torch::optim::AdamOptions(cfg.lr)) {
    sync();
    replay_.assign.resize(cfg.buffer);
    replay_.cost.resize(cfg.buffer);
  }

  // One episode at exploration rate eps; returns its latency. Stores it when `store`.
  double episode(double eps, bool store) {
    env_.reset();
    std::vector<double> cost(p_.n);
    while (!env_.done()) {
      const int t = env_.layer();
      cand_.clear();
      cand_.add(F_, env_.assignment(), t, &env_);
      if (cand_.action.empty()) return kInf;  // a dead end under the peak-memory limit
      int pick = 0;
      if (eps > 0 && rng_.uniform() < eps) {
        pick = rng_.below(int(cand_.action.size()));
      } else {
        const auto v = values(*q_, cand_, F_.size());
        for (size_t i = 1; i < v.size(); ++i)
          if (cand_.base[i] + v[i] < cand_.base[pick] + v[pick]) pick = int(i);
      }
      const StepResult r = env_.step(cand_.action[pick]);
      cost[t] = -r.reward;
      if (store && ++env_steps_ % cfg_.train_every == 0 && replay_.stored >= cfg_.learning_starts) train();
    }
    if (store) {
      const int slot = replay_.stored++ % cfg_.buffer;
      replay_.assign[slot] = env_.assignment();
      replay_.cost[slot] = cost;
    }
    return env_.latency_ms();
  }
  int64_t gradient_steps() const { return grad_steps_; }
  void set_lr(double lr) {
    for (auto& g : opt_.param_groups()) static_cast<torch::optim::AdamOptions&>(g.options()).lr(lr);
  }

 private:
  void sync() {
    torch::NoGradGuard g;
    auto src = q_->parameters(), dst = target_->parameters();
    for (size_t i = 0; i < src.size(); ++i) dst[i].copy_(src[i]);
  }

  // One gradient step on a minibatch of stored transitions (episode, layer).
  void train() {
    const int size = std::min(replay_.stored, cfg_.buffer), w = F_.size();
    Candidates taken, boot;
    std::vector<float> y(cfg_.batch);
    std::vector<int> boot_begin(cfg_.batch + 1, 0);
    std::vector<double> ret(cfg_.batch);
    for (int i = 0; i < cfg_.batch; ++i) {
      const int s = rng_.below(size), t = rng_.below(p_.n), end = std::min(p_.n, t + cfg_.n_step);
      const auto& A = replay_.assign[s];
      const double c = F_.step_cost(A, t, A[t]);
      taken.x.resize(size_t(i + 1) * w);
      F_.write(A, t, A[t], c, taken.x.data() + size_t(i) * w);
      taken.action.push_back(A[t]);
      double g = 0;
      for (int k = t; k < end; ++k) g += replay_.cost[s][k];
      ret[i] = (g - c - F_.to_go(t + 1)) / F_.scale_ms();  // target excess before the bootstrap
      if (end < p_.n) boot.add(F_, A, end);
      boot_begin[i + 1] = int(boot.action.size());
    }
    if (!boot.action.empty()) {  // double DQN: online net picks, target net values
      const auto on = values(*q_, boot, w), tg = values(*target_, boot, w);
      for (int i = 0; i < cfg_.batch; ++i) {
        int best = -1;
        for (int j = boot_begin[i]; j < boot_begin[i + 1]; ++j)
          if (best < 0 || boot.base[j] + on[j] < boot.base[best] + on[best]) best = j;
        if (best >= 0) ret[i] += boot.base[best] + tg[best];
      }
    }
    for (int i = 0; i < cfg_.batch; ++i) y[i] = float(ret[i]);
    auto pred = q_->forward(taken.tensor(w));
    auto loss = torch::smooth_l1_loss(pred, torch::from_blob(y.data(), {cfg_.batch}).clone());
    opt_.zero_grad();
    loss.backward();
    opt_.step();
    if (++grad_steps_ % cfg_.target_every == 0) sync();
  }

  DeploymentEnv& env_;
  const Problem& p_;
  const DqnConfig& cfg_;
  CandidateFeatures F_;
  Rng rng_;
  std::shared_ptr<ExcessNet> q_, target_;
  torch::optim::Adam opt_;
  Replay replay_;
  Candidates cand_;
  int64_t env_steps_ = 0, grad_steps_ = 0;
};

Status run_dqn(DeploymentEnv& env, const AgentRequest& req, SearchResult* out) {
  DqnConfig cfg;
  LW_RETURN_IF_ERROR(parse(req, &cfg, &out->config_json));
  torch::manual_seed(req.seed);
  at::set_num_threads(1);
  const Problem& p = env.problem();
  DqnAgent agent(env, cfg, req.seed);
  SolutionLog log(req.record_solutions);
  const int64_t steps_before = env.total_steps();
  // The answer is a greedy rollout (epsilon 0) of the network: evaluated before training and
  // every eval_every episodes; the best evaluated policy's rollout is kept (policy selection,
  // never an exploratory episode).
  double greedy_ms = agent.episode(0.0, false);
  std::vector<int> greedy = env.assignment();
  if (greedy_ms < kInf) log.add(greedy, greedy_ms);
  for (int ep = 0; ep < cfg.episodes; ++ep) {
    const double eps = std::max(0.0, cfg.eps_start * (1.0 - double(ep) / (cfg.exploration_fraction * cfg.episodes)));
    agent.set_lr(cfg.lr + (cfg.lr_end - cfg.lr) * double(ep) / std::max(1, cfg.episodes - 1));
    const double latency = agent.episode(eps, true);
    if (latency < kInf) log.add(env.assignment(), latency);  // (kInf: a dead end, memory limit)
    CurvePoint pt{ep, -latency, log.best_latency(), eps, 0};
    if ((ep + 1) % cfg.eval_every == 0 || ep + 1 == cfg.episodes) {
      const double g = agent.episode(0.0, false);
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
  log.finish(p, out);
  if (!(greedy_ms < kInf)) return failed("dqn: every greedy rollout dead-ended under the peak-memory limit");
  out->best = greedy;
  out->best_latency_ms = greedy_ms;
  out->greedy_answer = true;
  out->best_memory_bytes = predict_memory_bytes(p, greedy);
  char note[160];
  std::snprintf(note, sizeof note, "best greedy rollout of the evaluated networks; %lld gradient steps; best episode seen %.4f ms",
                (long long)agent.gradient_steps(), best_seen);
  out->note = note;
  return Status::ok();
}

}  // namespace

void register_dqn_agent() {
  register_agent({"dqn", "DQN scoring each candidate from its features (LibTorch MLP, n-step double DQN, masked)", run_dqn});
}

}  // namespace lw
