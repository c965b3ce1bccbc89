// DQN (CleanRL dqn.py shape) on the DeploymentEnv's observation vector: MLP Q-network, replay
// buffer, target network, Huber loss, double-DQN target, invalid actions masked to -inf both
// when acting and in the target's argmax. The only agents file that includes LibTorch.
#include "agents/dqn.h"

#include <torch/torch.h>

#include <algorithm>

#include "agents/agent.h"
#include "agents/config.h"
#include "env/rng.h"

namespace lw {
namespace {

constexpr int kDefaultEpisodes = 200;
constexpr int kDefaultHidden = 128;
constexpr double kDefaultLr = 1e-3;
constexpr double kDefaultGamma = 0.99;
constexpr int kDefaultBuffer = 50000;
constexpr int kDefaultBatch = 64;
constexpr int kDefaultLearningStarts = 1000;
constexpr int kDefaultTrainEvery = 4;
constexpr int kDefaultTargetEvery = 500;
constexpr double kDefaultEpsEnd = 0.05;
constexpr double kDefaultExplorationFraction = 0.5;

struct DqnConfig {
  int episodes = kDefaultEpisodes;                         // episodes of the whole run
  int hidden = kDefaultHidden;                             // width of the two hidden layers
  double lr = kDefaultLr;                                  // Adam learning rate
  double gamma = kDefaultGamma;                            // discount
  int buffer = kDefaultBuffer;                             // replay buffer size (transitions)
  int batch = kDefaultBatch;                               // minibatch size
  int learning_starts = kDefaultLearningStarts;            // env steps before the first update
  int train_every = kDefaultTrainEvery;                    // env steps per gradient step
  int target_every = kDefaultTargetEvery;                  // env steps per target-network copy
  double eps_end = kDefaultEpsEnd;                         // final ε (starts at 1)
  double exploration_fraction = kDefaultExplorationFraction;  // share of steps over which ε decays linearly
};

struct QNet : torch::nn::Module {
  torch::nn::Sequential net;
  QNet(int in, int hidden, int out)
      : net(torch::nn::Linear(in, hidden), torch::nn::ReLU(), torch::nn::Linear(hidden, hidden), torch::nn::ReLU(),
            torch::nn::Linear(hidden, out)) {
    register_module("net", net);
  }
  torch::Tensor forward(const torch::Tensor& x) { return net->forward(x); }
};

Status parse(const AgentRequest& req, DqnConfig* c, std::string* resolved) {
  ConfigReader r("dqn", req.config_json);
  if (req.episodes > 0) c->episodes = req.episodes;
  r.integer("episodes", &c->episodes, 1, 1 << 30);
  r.integer("hidden", &c->hidden, 1, 1 << 16);
  r.number("lr", &c->lr);
  r.number("gamma", &c->gamma);
  r.integer("buffer", &c->buffer, 1, 1 << 26);
  r.integer("batch", &c->batch, 1, 1 << 16);
  r.integer("learning_starts", &c->learning_starts, 0, 1 << 30);
  r.integer("train_every", &c->train_every, 1, 1 << 20);
  r.integer("target_every", &c->target_every, 1, 1 << 30);
  r.number("eps_end", &c->eps_end);
  r.number("exploration_fraction", &c->exploration_fraction);
  LW_RETURN_IF_ERROR(r.finish());
  *resolved = r.resolved();
  return Status::ok();
}

// Masked Q-values: invalid actions -inf.
torch::Tensor masked(const torch::Tensor& q, const torch::Tensor& mask) {
  return q.masked_fill(mask.logical_not(), -std::numeric_limits<float>::infinity());
}

Status run_dqn(DeploymentEnv& env, const AgentRequest& req, SearchResult* out) {
  DqnConfig cfg;
  LW_RETURN_IF_ERROR(parse(req, &cfg, &out->config_json));
  torch::manual_seed(req.seed);
  at::set_num_threads(1);
  Rng rng(req.seed);
  const Problem& p = env.problem();
  const int n_obs = env.obs_size(), n_act = p.max_actions;
  // Rewards are scaled so a layer costs about 1: sum of each layer's cheapest impl / layers.
  double floor_ms = 0;
  for (int t = 0; t < p.n; ++t) floor_ms += *std::min_element(p.impl_ms.begin() + p.offset[t], p.impl_ms.begin() + p.offset[t + 1]);
  const double scale = floor_ms > 0 ? p.n / floor_ms : 1.0;

  auto q = std::make_shared<QNet>(n_obs, cfg.hidden, n_act), target = std::make_shared<QNet>(n_obs, cfg.hidden, n_act);
  torch::optim::Adam opt(q->parameters(), torch::optim::AdamOptions(cfg.lr));
  auto sync = [&] {
    torch::NoGradGuard g;
    auto src = q->parameters(), dst = target->parameters();
    for (size_t i = 0; i < src.size(); ++i) dst[i].copy_(src[i]);
  };
  sync();

  // Replay buffer: flat tensors, ring-indexed.
  auto obs_buf = torch::zeros({cfg.buffer, n_obs}), next_buf = torch::zeros({cfg.buffer, n_obs});
  auto next_mask_buf = torch::zeros({cfg.buffer, n_act}, torch::kBool);
  auto act_buf = torch::zeros({cfg.buffer}, torch::kLong);
  auto rew_buf = torch::zeros({cfg.buffer}), done_buf = torch::zeros({cfg.buffer});
  int64_t stored = 0, step = 0;
  const int64_t total_steps = int64_t(cfg.episodes) * p.n;
  SolutionLog log(req.record_solutions);
  std::vector<float> obs(n_obs), next(n_obs);
  const int64_t steps_before = env.total_steps();

  for (int ep = 0; ep < cfg.episodes; ++ep) {
    env.reset(req.seed);
    env.observation_vector(obs.data());
    double ret = 0, eps = 1.0;
    while (!env.done()) {
      eps = std::max(cfg.eps_end, 1.0 - (1.0 - cfg.eps_end) * double(step) / (cfg.exploration_fraction * total_steps));
      const auto& mask = env.action_mask();
      int a = -1;
      if (rng.uniform() < eps) {
        std::vector<int> ok;
        for (int i = 0; i < env.num_actions(); ++i)
          if (mask[i]) ok.push_back(i);
        a = ok[rng.below(int(ok.size()))];
      } else {
        torch::NoGradGuard g;
        auto m = torch::zeros({n_act}, torch::kBool);
        for (int i = 0; i < env.num_actions(); ++i) m[i] = bool(mask[i]);
        a = int(masked(q->forward(torch::from_blob(obs.data(), {1, n_obs}).clone()), m.unsqueeze(0)).argmax(1).item<int64_t>());
      }
      const StepResult r = env.step(a);
      ret += r.reward;
      env.observation_vector(next.data());
      const int64_t slot = stored % cfg.buffer;
      obs_buf[slot].copy_(torch::from_blob(obs.data(), {n_obs}));
      next_buf[slot].copy_(torch::from_blob(next.data(), {n_obs}));
      auto nm = torch::zeros({n_act}, torch::kBool);
      if (!r.terminated)
        for (int i = 0; i < env.num_actions(); ++i) nm[i] = bool(env.action_mask()[i]);
      else
        nm[0] = true;  // terminal: the target ignores it (done = 1), but the max must be defined
      next_mask_buf[slot].copy_(nm);
      act_buf[slot] = a;
      rew_buf[slot] = float(r.reward * scale);
      done_buf[slot] = r.terminated ? 1.f : 0.f;
      ++stored;
      ++step;
      std::swap(obs, next);
      if (step > cfg.learning_starts && step % cfg.train_every == 0) {
        const int64_t size = std::min<int64_t>(stored, cfg.buffer);
        std::vector<int64_t> idx(cfg.batch);
        for (auto& i : idx) i = int64_t(rng.next() % uint64_t(size));
        auto ix = torch::tensor(idx);
        torch::Tensor y;
        {
          torch::NoGradGuard g;
          auto nobs = next_buf.index_select(0, ix), nmask = next_mask_buf.index_select(0, ix);
          auto a_star = masked(q->forward(nobs), nmask).argmax(1, true);  // double DQN: online argmax ...
          auto q_next = target->forward(nobs).gather(1, a_star).squeeze(1);  // ... target value
          y = rew_buf.index_select(0, ix) + cfg.gamma * (1 - done_buf.index_select(0, ix)) * q_next;
        }
        auto q_sa = q->forward(obs_buf.index_select(0, ix)).gather(1, act_buf.index_select(0, ix).unsqueeze(1)).squeeze(1);
        auto loss = torch::smooth_l1_loss(q_sa, y);
        opt.zero_grad();
        loss.backward();
        opt.step();
      }
      if (step % cfg.target_every == 0) sync();
    }
    log.add(env.assignment(), env.latency_ms());
    out->curve.push_back({ep, ret, log.best_latency(), eps});
    if (req.progress && (ep & 7) == 0) req.progress(double(ep) / cfg.episodes);
  }
  out->episodes = cfg.episodes;
  out->states_considered = env.total_steps() - steps_before;
  log.finish(p, out);
  return Status::ok();
}

}  // namespace

void register_dqn_agent() { register_agent({"dqn", "DQN (LibTorch MLP, double-DQN target, masked actions)", run_dqn}); }

}  // namespace lw
