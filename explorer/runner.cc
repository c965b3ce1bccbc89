#include "explorer/runner.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <sstream>

#include "agents/agent.h"
#include "agents/dqn.h"
#include "env/profiler.h"
#include "env/synthetic_lut.h"
#include "explorer/cli.h"
#include "explorer/model_arg.h"
#include "explorer/progress.h"
#include "explorer/replay.h"
#include "explorer/stages.h"
#include "explorer/run_report.h"
#include "explorer/search_io.h"
#include "libs/core/hash.h"
#include "libs/exec/backends.h"
#include "libs/ir/network_json.h"
#include "libs/zoo/zoo_builder.h"

namespace lw::cli {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {


std::string timestamp() {
  char t[32];
  std::time_t now = std::time(nullptr);
  std::strftime(t, sizeof t, "%Y%m%d-%H%M%S", std::localtime(&now));
  return t;
}

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

// <model>__<agents>__<seeds>__<time>: the CleanRL naming, several agents / seeds joined by '+'.
std::string run_id(const ExperimentConfig& c, const std::string& model) {
  std::vector<std::string> agents, seeds;
  for (const auto& a : c.agents) agents.push_back(a.name);
  for (uint64_t s : c.seeds) seeds.push_back(std::to_string(s));
  return model + "__" + join(agents, "+") + "__" + join(seeds, "+") + "__" + timestamp();
}

json read_json(const std::string& path) {
  std::string text;
  if (!read_file(path, &text).is_ok()) return json();
  return json::parse(text, nullptr, false);
}

// An unfinished run of the same resolved config is resumed in place.
std::string find_unfinished(const std::string& root, const std::string& hash) {
  std::error_code ec;
  std::string best;
  for (const auto& e : fs::directory_iterator(root, ec)) {
    json st = read_json((e.path() / "run.json").string());
    if (st.is_object() && st.value("config_hash", "") == hash && !st.value("complete", false))
      best = std::max(best, e.path().string());  // newest by its timestamped name
  }
  return best;
}

struct Run {
  const ExperimentConfig& cfg;
  RunOptions opt;
  std::string dir;
  json state;  // run.json: config hash, finished stages
  Network net;
  Lut lut;
  std::string lut_path;
  std::vector<AgentOutcome> searches;
};

void save_state(Run& r) { ok_or_throw(write_file_atomic(r.dir + "/run.json", r.state.dump(1) + "\n")); }
bool stage_done(const Run& r, const char* stage) { return r.state["stages"].value(stage, false); }
void finish_stage(Run& r, const char* stage) {
  r.state["stages"][stage] = true;
  save_state(r);
}

void open_run_dir(Run& r, const std::string& config_path) {
  json resolved = resolved_config(r.cfg);
  std::string hash = fnv1a_hex(resolved.dump());
  std::error_code ec;
  fs::create_directories(r.cfg.output_dir, ec);
  if (ec) throw UsageError("cannot create " + r.cfg.output_dir + ": " + ec.message());
  r.dir = r.opt.fresh ? "" : find_unfinished(r.cfg.output_dir, hash);
  if (!r.dir.empty()) {
    r.state = read_json(r.dir + "/run.json");
    std::fprintf(stderr, "resuming unfinished run %s\n", r.dir.c_str());
    return;
  }
  r.dir = r.cfg.output_dir + "/" + run_id(r.cfg, r.net.name);
  fs::create_directories(r.dir, ec);
  if (ec) throw UsageError("cannot create " + r.dir + ": " + ec.message());
  r.state = {{"config", config_path}, {"config_hash", hash}, {"complete", false}, {"stages", json::object()}};
  ok_or_throw(write_file_atomic(r.dir + "/config.json", resolved.dump(1) + "\n"));
  save_state(r);
}

}  // namespace

ConfigVocabulary config_vocabulary() {
  register_dqn_agent();
  ConfigVocabulary v;
  for (Library l : all_libraries()) v.libraries.push_back(to_string(l));
  for (const auto& a : agents()) v.agents.push_back(a.name);
  return v;
}

}  // namespace lw::cli

namespace lw::cli {

ProfileOptions profile_options(const ExperimentConfig& c) {
  ProfileOptions o;
  for (const auto& name : c.libraries) o.libraries.push_back(*parse_library(name));
  o.threads = c.threads;
  o.protocol.warmup = c.warmup;
  o.protocol.runs = c.runs;
  o.protocol.cv_threshold = c.cv_threshold;
  o.protocol.max_runs = c.max_runs;
  o.protocol.max_seconds = c.max_seconds;
  o.protocol.cold_cache = c.cold_cache;
  return o;
}

namespace {

// LUTs are cached across runs by what determines them: model, libraries, threads, protocol
// (the device is checked inside the file).
std::string lut_cache_path(const ExperimentConfig& c, const Network& net, const ProfileOptions& o) {
  json key = {{"libraries", c.libraries}, {"threads", c.threads}, {"protocol", o.protocol.to_json()}};
  return c.output_dir + "/luts/" + net.name + "__" + model_hash(net) + "__" + fnv1a_hex(key.dump()).substr(0, 8) +
         ".lut.json";
}

// profile.lut: the user's own LUT, already loaded into r.lut and checked against the model
// and device before anything ran (load_given_lut).
void use_given_lut(Run& r, RunSummary& sum) {
  r.lut_path = sum.lut_path = r.cfg.lut_file;
  sum.lut_reused = true;
  std::fprintf(stderr, "profile: using %s\n", r.lut_path.c_str());
}

void stage_profile(Run& r, RunSummary& sum) {
  if (!r.cfg.lut_file.empty()) return use_given_lut(r, sum);
  ProfileOptions o = profile_options(r.cfg);
  r.lut_path = lut_cache_path(r.cfg, r.net, o);
  sum.lut_path = r.lut_path;
  std::error_code ec;
  fs::create_directories(fs::path(r.lut_path).parent_path(), ec);
  if (fs::exists(r.lut_path) && load_lut(r.lut_path, &r.lut).is_ok() && lut_mismatch(r.lut, r.net).empty()) {
    sum.lut_reused = true;
    std::fprintf(stderr, "profile: reusing %s\n", r.lut_path.c_str());
    return;
  }
  o.out_path = r.lut_path;
  ProgressLine line(r.opt.quiet);
  o.progress = [&](const ProfileProgress& p) {
    line.update("profile " + r.net.name + " [" + std::to_string(p.layer) + "/" + std::to_string(p.layers) + "] " +
                    p.current,
                p.total ? double(p.done) / p.total : 0, p.eta_s);
  };
  auto t0 = std::chrono::steady_clock::now();
  ok_or_throw(profile_network(r.net, default_registry(), o, &r.lut));
  line.finish();
  sum.profile_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

AgentOutcome outcome_of(const Lut& lut, const SearchResult& res, uint64_t seed) {
  AgentOutcome a;
  a.agent = res.agent;
  a.seed = seed;
  for (size_t i = 0; i < res.best.size(); ++i) a.best.push_back(lut.layers[i].impls[res.best[i]].name);
  a.best_latency_ms = res.best_latency_ms;
  a.best_memory_bytes = double(res.best_memory_bytes);
  a.states = res.states_considered;
  a.wall_ms = res.wall_ms;
  a.episodes = res.episodes;
  a.proven_optimal = res.proven_optimal;
  a.distinct = res.solutions.size();
  return a;
}

json outcome_json(const AgentOutcome& a) {
  return {{"agent", a.agent}, {"seed", a.seed}, {"best", a.best}, {"best_latency_ms", a.best_latency_ms},
          {"best_memory_bytes", a.best_memory_bytes}, {"states", a.states}, {"wall_ms", a.wall_ms},
          {"episodes", a.episodes}, {"proven_optimal", a.proven_optimal}, {"distinct", a.distinct}};
}

AgentOutcome outcome_from(const json& j) {
  AgentOutcome a;
  a.agent = j.at("agent");
  a.seed = j.at("seed");
  a.best = j.at("best").get<std::vector<std::string>>();
  a.best_latency_ms = j.at("best_latency_ms");
  a.best_memory_bytes = j.at("best_memory_bytes");
  a.states = j.at("states");
  a.wall_ms = j.at("wall_ms");
  a.episodes = j.at("episodes");
  a.proven_optimal = j.at("proven_optimal");
  a.distinct = j.at("distinct");
  return a;
}

EnvOptions env_options(const ExperimentConfig& c) {
  EnvOptions e;
  if (c.objective == "weighted") e.memory_weight_ms_per_mib = c.memory_weight_ms_per_mib;
  if (c.max_memory_mib) e.max_memory_bytes = int64_t(*c.max_memory_mib * 1048576.0);  // the search honours it too
  return e;
}

// One agent x seed: skipped when its result.json is there (results are deterministic).
AgentOutcome search_one(Run& r, const Problem& p, const AgentSpec& spec, uint64_t seed) {
  std::string dir = r.dir + "/search/" + spec.name + "__s" + std::to_string(seed);
  json done = read_json(dir + "/result.json");
  if (done.is_object()) return outcome_from(done);
  DeploymentEnv env(p, env_options(r.cfg));
  AgentRequest req;
  req.seed = seed;
  req.config_json = spec.params.dump();
  req.progress = progress_line(spec.name + " seed " + std::to_string(seed), r.opt.quiet);
  SearchResult res;
  Status s = run_agent(spec.name, env, req, &res);
  if (!s.is_ok()) throw UsageError(r.state.value("config", std::string("config")) + ": /search/agents: " + s.message());
  std::error_code ec;
  fs::create_directories(dir, ec);
  write_solutions_csv(dir + "/solutions.csv", r.lut, res);
  write_curve_csv(dir + "/learning_curve.csv", res);
  AgentOutcome a = outcome_of(r.lut, res, seed);
  json j = outcome_json(a);
  j["agent_config"] = json::parse(res.config_json, nullptr, false);
  ok_or_throw(write_file_atomic(dir + "/result.json", j.dump(1) + "\n"));
  return a;
}

void stage_search(Run& r, RunSummary& sum) {
  Problem p;
  ok_or_throw(compile_problem(r.lut, &p));
  for (const AgentSpec& spec : r.cfg.agents)
    for (uint64_t seed : r.cfg.seeds) r.searches.push_back(search_one(r, p, spec, seed));
  // The certified optimum, so every agent's gap is known (cheap: milliseconds).
  AgentOutcome exact = search_one(r, p, AgentSpec{"exact", json::object()}, 0);
  sum.exact_optimum_ms = exact.best_latency_ms;
  sum.searches = r.searches;
}

}  // namespace
}  // namespace lw::cli

namespace lw::cli {
namespace {

// Agent hyperparameters are checked before anything is measured: each agent runs once on a
// tiny synthetic problem with its config, so a typo fails in a second, not after profiling.
void validate_agents(const ExperimentConfig& c, const std::string& origin) {
  NetBuilder b("validate", Shape{1, 3, 8, 8});
  b.act(b.conv(0, 4, 3), LayerKind::kRelu);
  Network net = b.finish();
  Lut lut;
  ok_or_throw(synthetic_lut(net, SyntheticLutOptions{}, &lut));
  Problem p;
  ok_or_throw(compile_problem(lut, &p));
  for (size_t i = 0; i < c.agents.size(); ++i) {
    DeploymentEnv env(p);
    AgentRequest req;
    req.config_json = c.agents[i].params.dump();
    SearchResult res;
    Status s = run_agent(c.agents[i].name, env, req, &res);
    if (!s.is_ok()) throw UsageError(origin + ": /search/agents/" + std::to_string(i) + ": " + s.message());
  }
}

// Weights must stay resident, at one byte each at the very least (int8): a memory budget below
// that cannot be met by any deployment.
void check_feasible(const ExperimentConfig& c, const Network& net, const std::string& origin) {
  if (!c.max_memory_mib) return;
  double floor_mib = total_params(net) / 1048576.0;
  if (*c.max_memory_mib < floor_mib) {
    char buf[200];
    std::snprintf(buf, sizeof buf, "%g MiB is infeasible: %s's %lld weights need at least %.2f MiB even in int8",
                  *c.max_memory_mib, net.name.c_str(), (long long)total_params(net), floor_mib);
    throw UsageError(origin + ": /search/max_memory_mib: " + buf);
  }
}

// Loads profile.lut into r.lut once, refusing it (as a config error) for another model or device.
void load_given_lut(Run& r, const std::string& origin) {
  const std::string& path = r.cfg.lut_file;
  if (path.empty()) return;
  Status s = load_lut(path, &r.lut);
  std::string why = s.is_ok() ? lut_mismatch(r.lut, r.net) : s.message();
  if (!why.empty()) throw UsageError(origin + ": /profile/lut: " + path + ": " + why);
}

}  // namespace

namespace {

EvalOptions eval_options(const ExperimentConfig& c, bool quiet, ProgressLine* line) {
  EvalOptions e;
  e.registry = &default_registry();
  e.test_images = c.test_images;
  e.calibration_images = c.calibration_images;
  e.fidelity_inputs = c.fidelity_inputs;
  e.eval_inputs = c.eval_inputs;
  e.eval_labels = c.eval_labels;
  e.calibration_inputs = c.calibration_inputs;
  e.max_threads = *std::max_element(c.threads.begin(), c.threads.end());
  if (!quiet)
    e.progress = [line](const std::string& what, double f) { line->update("measure " + what, f, 0); };
  return e;
}

// Every agent's solutions and the certified optimum (stage_search's exact run, seed 0): the
// optimum is a deployment like any other and must be measured beside them.
std::vector<FilterCandidate> search_candidates(const Run& r) {
  std::vector<std::pair<std::string, uint64_t>> runs;
  for (const AgentOutcome& a : r.searches) runs.push_back({a.agent, a.seed});
  runs.push_back({"exact", 0});
  std::vector<FilterCandidate> all;
  for (const auto& [agent, seed] : runs) {
    std::string prefix = agent == "exact" ? std::string("optimum") : agent + "-s" + std::to_string(seed);
    std::vector<FilterCandidate> v;
    ok_or_throw(read_solutions_csv(r.dir + "/search/" + agent + "__s" + std::to_string(seed) + "/solutions.csv",
                                   r.lut, prefix, &v));
    all.insert(all.end(), v.begin(), v.end());
  }
  return all;
}

MeasuredPoint point_of(const std::string& label, const Measurement& m) {
  return {label, m.predicted_ms, m.latency.median, m.accuracy.top1, m.accuracy.metric, double(m.memory.peak_bytes())};
}

// filter → pareto → replay, each skipped when the run already finished it.
void run_measure_stages(Run& r, RunSummary& sum) {
  ProgressLine line(r.opt.quiet);
  std::unique_ptr<Evaluator> ev;
  ok_or_throw(Evaluator::create(r.net, r.lut, eval_options(r.cfg, r.opt.quiet, &line), &ev));
  FilterResult fr;
  if (stage_done(r, "filter") && load_filter_result(r.dir + "/filter.json", &fr).is_ok()) {
  } else {
    FilterConstraints k;
    k.latency_band_pct = r.cfg.latency_band_pct;
    k.max_candidates = r.cfg.filter_candidates;
    k.max_accuracy_drop_pct = r.cfg.max_accuracy_drop_pct;
    if (r.cfg.max_memory_mib) k.max_memory_bytes = *r.cfg.max_memory_mib * 1048576.0;
    ok_or_throw(run_filter(*ev, search_candidates(r), k, r.dir, &fr));
    line.finish();
    finish_stage(r, "filter");
  }
  ParetoSummary ps;
  ok_or_throw(run_pareto(fr, r.dir, &ps));
  finish_stage(r, "pareto");
  for (const Measurement& m : fr.references) sum.points.push_back(point_of(m.label, m));
  const Measurement* chosen = fr.chosen.empty() ? nullptr : fr.find(fr.chosen);
  if (!chosen) {
    std::fprintf(stderr, "filter: no deployment met the constraints; nothing to replay (see %s/filtered.csv)\n",
                 r.dir.c_str());
    return;
  }
  if (!r.opt.quiet) std::fprintf(stderr, "filter: chose %s: %s\n", fr.chosen.c_str(), fr.chosen_why.c_str());
  ReplayOptions ro;
  ro.runs = r.cfg.replay_runs;
  ReplayResult rr;
  ok_or_throw(run_replay(*ev, "chosen", chosen->names, ro, r.dir, &rr));
  finish_stage(r, "replay");
  // The chosen one's figure from the same interleaved window as the references' (the replay
  // ran later, under whatever load then was; summary.md reports it apart).
  sum.points.push_back(point_of("chosen (" + fr.chosen + ")", *chosen));
  sum.chosen = chosen->names;
  sum.chosen_why = fr.chosen_why;
  sum.replay_ms = rr.end_to_end.latency.median;
  sum.replay_gap_pct = rr.gap_pct;
}

}  // namespace

std::string run_experiment(const ExperimentConfig& cfg, const std::string& config_path, const RunOptions& opt) {
  Run r{cfg, opt, "", json(), Network(), Lut(), "", {}};
  try {
    r.net = load_model(cfg.model);
  } catch (const UsageError& e) {
    throw UsageError(config_path + ": /model: " + e.what());
  }
  check_feasible(cfg, r.net, config_path);
  load_given_lut(r, config_path);
  validate_agents(cfg, config_path);
  open_run_dir(r, config_path);
  RunSummary sum;
  sum.run_dir = r.dir;
  sum.model = r.net.name;
  stage_profile(r, sum);
  sum.lut = &r.lut;
  finish_stage(r, "profile");
  stage_search(r, sum);
  finish_stage(r, "search");
  run_measure_stages(r, sum);
  r.state["complete"] = true;
  save_state(r);
  ok_or_throw(write_file_atomic(r.dir + "/summary.md", summary_markdown(sum)));
  print_summary(sum);
  return r.dir;
}

}  // namespace lw::cli
