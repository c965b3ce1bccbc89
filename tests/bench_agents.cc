// Q-learning (default: until certified; and the QS-DNN variant) environment steps per second,
// and exact-solver time, on synthetic zoo LUTs.
#include <benchmark/benchmark.h>

#include <map>

#include "agents/agent.h"
#include "env/synthetic_lut.h"

namespace {

const lw::Problem& problem(const std::string& model) {
  static std::map<std::string, lw::Problem> cache;
  auto it = cache.find(model);
  if (it != cache.end()) return it->second;
  lw::Lut lut;
  lw::Problem p;
  if (!lw::synthetic_zoo_lut(model, {}, &lut).is_ok() || !lw::compile_problem(lut, &p).is_ok()) std::abort();
  return cache[model] = std::move(p);
}

void run(benchmark::State& state, const std::string& model, const std::string& agent, int episodes,
         const char* config = "{}") {
  const lw::Problem& p = problem(model);
  lw::DeploymentEnv env(p);
  lw::AgentRequest req;
  req.seed = 1;
  req.episodes = episodes;
  req.record_solutions = false;
  req.config_json = config;
  int64_t steps = 0;
  double best = 0, certified = 0;
  for (auto _ : state) {
    lw::SearchResult r;
    if (!lw::run_agent(agent, env, req, &r).is_ok()) state.SkipWithError("agent failed");
    steps += r.states_considered;
    best = r.best_latency_ms;
    certified = r.proven_optimal;
  }
  if (agent == "qlearning" || agent == "random") state.counters["env_steps_per_s"] = benchmark::Counter(double(steps), benchmark::Counter::kIsRate);
  state.counters["best_latency_ms"] = best;
  state.counters["layers"] = p.n;
  state.counters["states"] = double(steps) / double(state.iterations());
  if (agent == "qlearning") state.counters["certified"] = certified;
}

void BM_QLearning(benchmark::State& s, const char* m) { run(s, m, "qlearning", 0); }
void BM_QLearningPaper(benchmark::State& s, const char* m) { run(s, m, "qlearning", 0, R"({"variant": "qs-dnn"})"); }
void BM_Exact(benchmark::State& s, const char* m) { run(s, m, "exact", 0); }
void BM_Ilp(benchmark::State& s, const char* m) { run(s, m, "ilp", 0); }

// Raw environment stepping (first allowed action), without any agent.
void BM_EnvStep(benchmark::State& state, const char* model) {
  const lw::Problem& p = problem(model);
  lw::DeploymentEnv env(p);
  int64_t steps = 0;
  for (auto _ : state) {
    env.reset();
    while (!env.done()) {
      int a = 0;
      while (!env.allowed(a)) ++a;
      benchmark::DoNotOptimize(env.step(a));
      ++steps;
    }
  }
  state.counters["env_steps_per_s"] = benchmark::Counter(double(steps), benchmark::Counter::kIsRate);
}

}  // namespace

BENCHMARK_CAPTURE(BM_EnvStep, resnet50, "resnet50");
BENCHMARK_CAPTURE(BM_QLearning, resnet50, "resnet50")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_QLearning, mobilenetv2, "mobilenetv2")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_QLearning, googlenet, "googlenet")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_QLearningPaper, resnet50, "resnet50")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Exact, googlenet, "googlenet")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Exact, resnet50, "resnet50")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Exact, mobilenetv2, "mobilenetv2")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Ilp, googlenet, "googlenet")->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
