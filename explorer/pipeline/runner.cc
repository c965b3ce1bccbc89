#include "explorer/pipeline/runner.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>

#include "agents/agent.h"
#include "agents/dqn.h"
#include "env/device.h"
#include "env/profiler.h"
#include "env/synthetic_lut.h"
#include "explorer/cli/progress.h"
#include "explorer/measure/baselines.h"
#include "explorer/measure/deployment.h"
#include "explorer/measure/evaluator.h"
#include "explorer/measure/in_network.h"
#include "explorer/pipeline/export.h"
#include "explorer/pipeline/filter.h"
#include "explorer/pipeline/model.h"
#include "explorer/pipeline/pareto.h"
#include "explorer/pipeline/replay.h"
#include "explorer/pipeline/run_dir.h"
#include "explorer/pipeline/run_report.h"
#include "explorer/pipeline/search_io.h"
#include "libs/core/files.h"
#include "libs/core/hash.h"
#include "libs/data/fashion_mnist.h"
#include "libs/data/npy.h"
#include "libs/exec/backends.h"
#include "libs/zoo/zoo_builder.h"

namespace lw {

namespace fs = std::filesystem;
using json = nlohmann::json;

ConfigVocabulary config_vocabulary() {
  register_dqn_agent();
  ConfigVocabulary v;
  for (Library l : all_libraries()) v.libraries.push_back(to_string(l));
  for (const auto& a : agents()) v.agents.push_back(a.name);
  return v;
}

ProfileOptions profile_options(const ExperimentConfig& c) {
  ProfileOptions o;
  o.stop_rule = baselines_stop_rule();
  for (const auto& name : c.libraries) o.libraries.push_back(*parse_library(name));
  o.threads = c.threads;
  o.protocol = c.protocol;
  return o;
}

InNetworkOptions in_network_options(const ExperimentConfig& c) {
  InNetworkOptions o;
  o.registry = &default_registry();
  o.rounds = c.in_network_rounds;
  o.calibration_method = c.calibration_method;
  return o;
}

namespace {

struct Run {
  const ExperimentConfig& cfg;
  const std::string& config_path;
  RunOptions opt;
  RunDir dir;
  Network net;
  Lut lut;
  std::string lut_path;
  std::vector<AgentOutcome> searches;
};

// --- Checks made before anything is measured: a config error fails in a second. ---

// Agent hyperparameters: each agent runs once on a tiny synthetic problem with its config.
Status validate_agents(const Run& r) {
  NetBuilder b("validate", Shape{1, 3, 8, 8});
  b.act(b.conv(0, 4, 3), LayerKind::kRelu);
  Network net = b.finish();
  Lut lut;
  LW_RETURN_IF_ERROR(synthetic_lut(net, SyntheticLutOptions{}, &lut));
  Problem p;
  LW_RETURN_IF_ERROR(compile_problem(lut, &p));
  for (size_t i = 0; i < r.cfg.agents.size(); ++i) {
    DeploymentEnv env(p);
    AgentRequest req;
    req.config_json = r.cfg.agents[i].params.dump();
    SearchResult res;
    Status s = run_agent(r.cfg.agents[i].name, env, req, &res);
    if (!s.is_ok()) return invalid_argument(r.config_path + ": /search/agents/" + std::to_string(i) + ": " + s.message());
  }
  return Status::ok();
}

// Weights must stay resident, at one byte each at the very least (int8): a memory budget below
// that cannot be met by any deployment.
Status check_feasible(const Run& r) {
  if (!r.cfg.max_memory_mib) return Status::ok();
  double floor_mib = total_params(r.net) / 1048576.0;
  if (*r.cfg.max_memory_mib >= floor_mib) return Status::ok();
  char buf[200];
  std::snprintf(buf, sizeof buf, "%g MiB is infeasible: %s's %lld weights need at least %.2f MiB even in int8",
                *r.cfg.max_memory_mib, r.net.name.c_str(), (long long)total_params(r.net), floor_mib);
  return invalid_argument(r.config_path + ": /search/max_memory_mib: " + buf);
}

// profile.lut: loaded into r.lut once, refused for another model or device.
Status load_given_lut(Run& r) {
  const std::string& path = r.cfg.lut_file;
  if (path.empty()) return Status::ok();
  if (r.opt.reprofile)  // (a given LUT is the user's file: never profiled over)
    return invalid_argument(r.config_path + ": /profile/lut: " + path +
                            " is given, so nothing is profiled; drop it or --reprofile");
  Status s = load_lut(path, &r.lut);
  const std::string why = s.is_ok() ? lut_unusable_here(r.lut, r.net, default_registry()) : s.message();
  return why.empty() ? Status::ok() : invalid_argument(r.config_path + ": /profile/lut: " + path + ": " + why);
}

// The data the filter will read (the user's .npy files, or Fashion-MNIST for its members):
// a missing or mis-shaped file fails now, named with its JSON path, not after minutes of
// profiling and search. Read in full, so a truncated file is caught too.
Status check_data(const Run& r) {
  const ExperimentConfig& c = r.cfg;
  auto at = [&r](const char* where, const Status& s) {
    return s.is_ok() ? s : Status(s.code(), r.config_path + ": " + where + ": " + s.message());
  };
  if (!c.eval_inputs.empty()) {
    std::vector<Tensor> x;
    std::vector<int64_t> labels;
    LW_RETURN_IF_ERROR(at("/filter/eval_inputs", read_npy_samples(c.eval_inputs, r.net.input_shape(), &x)));
    LW_RETURN_IF_ERROR(at("/filter/eval_labels", read_npy_labels(c.eval_labels, int64_t(x.size()), &labels)));
  }
  if (!c.calibration_inputs.empty()) {
    std::vector<Tensor> x;
    LW_RETURN_IF_ERROR(at("/filter/calibration_inputs", read_npy_samples(c.calibration_inputs, r.net.input_shape(), &x)));
  }
  if (data_source_for(r.net) != DataSource::kFashionMnist) return Status::ok();
  if (c.eval_inputs.empty())  // the test split: top-1
    LW_RETURN_IF_ERROR(at("/model", load_fashion_mnist(Split::kTest, nullptr)));
  if (c.calibration_inputs.empty())  // the train split: int8 calibration
    LW_RETURN_IF_ERROR(at("/model", load_fashion_mnist(Split::kTrain, nullptr)));
  return Status::ok();
}

Status check_before_measuring(Run& r) {
  Status s = load_model(r.cfg.model, &r.net);
  if (!s.is_ok()) return Status(s.code(), r.config_path + ": /model: " + s.message());
  LW_RETURN_IF_ERROR(check_data(r));
  LW_RETURN_IF_ERROR(check_feasible(r));
  LW_RETURN_IF_ERROR(load_given_lut(r));
  return validate_agents(r);
}

// --- profile ---

// Seconds since `path` was last written, -1 when unknown.
double file_age_s(const std::string& path) {
  std::error_code ec;
  const auto written = fs::last_write_time(path, ec);
  if (ec) return -1;
  return std::chrono::duration<double>(fs::file_time_type::clock::now() - written).count();
}

// Every implementation this build registers, as one hash: a build that offers new ones (qc7
// came in after LUTs had been cached) profiles again instead of searching without them.
std::string registry_hash() {
  std::string names;
  for (const ImplEntry& e : default_registry().entries()) names += e.desc.name() + "\n";
  return fnv1a_hex(names).substr(0, 8);
}

// LUTs are cached across runs by what determines them: model, libraries, threads, protocol and
// the implementations the build offers (the device is checked inside the file).
std::string lut_cache_path(const ExperimentConfig& c, const Network& net, const ProfileOptions& o) {
  json key = {{"libraries", c.libraries}, {"threads", c.threads}, {"protocol", o.protocol.to_json()},
              {"implementations", registry_hash()}};
  if (c.in_network_rounds > 0) key["in_network_rounds"] = c.in_network_rounds;
  return c.output_dir + "/luts/" + net.name + "__" + model_hash(net) + "__" + fnv1a_hex(key.dump()).substr(0, 8) +
         ".lut.json";
}

// The profiled LUT's contenders timed inside the network (explorer/measure/in_network.h),
// saved over the cached LUT; profile.in_network_rounds 0: kept as profiled.
Status refine_for_run(Run& r) {
  if (r.cfg.in_network_rounds == 0) return Status::ok();
  InNetworkOptions o = in_network_options(r.cfg);
  cli::ProgressLine line(r.opt.quiet);
  o.progress = cli::counted_progress(line, "profile " + r.net.name + ": in the network");
  InNetworkReport report;
  return refine_and_save(r.net, o, r.lut_path, &r.lut, &report);
}

Status stage_profile(Run& r, RunSummary& sum) {
  if (!r.cfg.lut_file.empty()) {  // already loaded and checked by load_given_lut
    r.lut_path = sum.lut_path = r.cfg.lut_file;
    sum.lut_reused = true;
    sum.lut_age_s = file_age_s(r.lut_path);
    std::fprintf(stderr, "profile: using %s\n", r.lut_path.c_str());
    return Status::ok();
  }
  ProfileOptions o = profile_options(r.cfg);
  r.lut_path = sum.lut_path = lut_cache_path(r.cfg, r.net, o);
  LW_RETURN_IF_ERROR(make_dirs(fs::path(r.lut_path).parent_path().string()));
  if (r.opt.reprofile && fs::exists(r.lut_path))
    std::fprintf(stderr, "profile: %s: profiling anew (--reprofile; replaced once complete)\n", r.lut_path.c_str());
  else if (fs::exists(r.lut_path) && load_lut(r.lut_path, &r.lut).is_ok() && lut_mismatch(r.lut, r.net).empty()) {
    const std::string refused = lut_refused_here(r.lut, r.net, default_registry());
    if (refused.empty()) {
      sum.lut_reused = true;
      sum.lut_age_s = file_age_s(r.lut_path);
      std::fprintf(stderr, "profile: reusing %s\n", r.lut_path.c_str());
      return lut_in_network(r.lut) ? Status::ok() : refine_for_run(r);  // cut short before its refine
    }
    std::fprintf(stderr, "profile: %s: %s: profiling anew\n", r.lut_path.c_str(), refused.c_str());
  }
  o.out_path = r.lut_path;
  cli::ProgressLine line(r.opt.quiet);
  o.progress = [&](const ProfileProgress& p) {
    line.update("profile " + r.net.name + " [" + std::to_string(p.layer) + "/" + std::to_string(p.layers) + "] " +
                    p.current,
                p.total ? double(p.done) / p.total : 0, p.eta_s);
  };
  auto t0 = std::chrono::steady_clock::now();
  LW_RETURN_IF_ERROR(profile_network(r.net, default_registry(), o, &r.lut));
  line.finish();
  LW_RETURN_IF_ERROR(refine_for_run(r));
  sum.profile_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return Status::ok();
}

// --- search ---

EnvOptions env_options(const ExperimentConfig& c) {
  EnvOptions e;
  if (c.objective == "weighted") e.memory_weight_ms_per_mib = c.memory_weight_ms_per_mib;
  if (c.max_memory_mib) e.max_memory_bytes = int64_t(*c.max_memory_mib * 1048576.0);  // the search honours it too
  return e;
}

// One agent x seed: skipped when its result.json is there (results are deterministic).
Status search_one(Run& r, const Problem& p, const AgentSpec& spec, uint64_t seed, AgentOutcome* out) {
  std::string dir = r.dir.path() + "/search/" + spec.name + "__s" + std::to_string(seed);
  json done = read_json_file(dir + "/result.json");
  if (done.is_object()) try {
      *out = outcome_from(done);
      return Status::ok();
    } catch (const json::exception&) {  // cut short: search again
    }
  DeploymentEnv env(p, env_options(r.cfg));
  AgentRequest req;
  req.seed = seed;
  req.config_json = spec.params.dump();
  req.progress = progress_line(spec.name + " seed " + std::to_string(seed), r.opt.quiet);
  SearchResult res;
  Status s = run_agent(spec.name, env, req, &res);
  if (!s.is_ok()) return Status(s.code(), r.config_path + ": /search/agents: " + s.message());
  LW_RETURN_IF_ERROR(make_dirs(dir));
  LW_RETURN_IF_ERROR(write_solutions_csv(dir + "/solutions.csv", r.lut, res));
  LW_RETURN_IF_ERROR(write_curve_csv(dir + "/learning_curve.csv", res));
  *out = outcome_of(r.lut, res, seed);
  json j = outcome_json(*out);
  j["agent_config"] = json::parse(res.config_json, nullptr, false);
  return write_file_atomic(dir + "/result.json", j.dump(1) + "\n");
}

Status stage_search(Run& r, RunSummary& sum) {
  Problem p;
  LW_RETURN_IF_ERROR(compile_problem(r.lut, &p));
  for (const AgentSpec& spec : r.cfg.agents)
    for (uint64_t seed : r.cfg.seeds) {
      AgentOutcome a;
      LW_RETURN_IF_ERROR(search_one(r, p, spec, seed, &a));
      r.searches.push_back(a);
    }
  // The certified optimum, so every agent's gap is known (cheap: milliseconds).
  AgentOutcome exact;
  LW_RETURN_IF_ERROR(search_one(r, p, AgentSpec{"exact", json::object()}, 0, &exact));
  sum.exact_optimum_ms = exact.best_latency_ms;
  sum.searches = r.searches;
  return Status::ok();
}

// --- filter, pareto, replay ---

EvalOptions eval_options(const ExperimentConfig& c, bool quiet, cli::ProgressLine* line) {
  EvalOptions e;
  e.registry = &default_registry();
  e.test_images = c.test_images;
  e.calibration_images = c.calibration_images;
  e.calibration_method = c.calibration_method;
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
Status search_candidates(const Run& r, std::vector<FilterCandidate>* all) {
  std::vector<std::pair<std::string, uint64_t>> runs;
  for (const AgentOutcome& a : r.searches) runs.push_back({a.agent, a.seed});
  runs.push_back({"exact", 0});
  for (const auto& [agent, seed] : runs) {
    std::string prefix = agent == "exact" ? std::string("optimum") : agent + "-s" + std::to_string(seed);
    std::vector<FilterCandidate> v;
    LW_RETURN_IF_ERROR(read_solutions_csv(
        r.dir.path() + "/search/" + agent + "__s" + std::to_string(seed) + "/solutions.csv", r.lut, prefix, &v));
    all->insert(all->end(), v.begin(), v.end());
  }
  return Status::ok();
}

Status stage_filter(Run& r, Evaluator& ev, cli::ProgressLine& line, FilterResult* fr) {
  if (r.dir.done("filter") && load_filter_result(r.dir.path() + "/filter.json", fr).is_ok()) return Status::ok();
  FilterConstraints k;
  k.latency_band_pct = r.cfg.latency_band_pct;
  k.max_candidates = r.cfg.filter_candidates;
  k.max_accuracy_drop_pct = r.cfg.max_accuracy_drop_pct;
  if (r.cfg.max_memory_mib) k.max_memory_bytes = *r.cfg.max_memory_mib * 1048576.0;
  std::vector<FilterCandidate> candidates;
  LW_RETURN_IF_ERROR(search_candidates(r, &candidates));
  LW_RETURN_IF_ERROR(run_filter(ev, candidates, k, r.dir.path(), fr));
  line.finish();
  return r.dir.finish("filter");
}

MeasuredPoint point_of(const std::string& label, const Measurement& m) {
  return {label, m.predicted_ms, m.latency.median, m.accuracy.top1, m.accuracy.metric, double(m.memory.peak_bytes())};
}

Status stage_replay(Run& r, Evaluator& ev, const FilterResult& fr, RunSummary& sum) {
  const Measurement* chosen = fr.chosen.empty() ? nullptr : fr.find(fr.chosen);
  if (!chosen) {
    std::fprintf(stderr, "filter: no deployment met the constraints; nothing to replay (see %s/filtered.csv)\n",
                 r.dir.path().c_str());
    return Status::ok();
  }
  if (!r.opt.quiet) std::fprintf(stderr, "filter: chose %s: %s\n", fr.chosen.c_str(), fr.chosen_why.c_str());
  ReplayOptions ro;
  ro.runs = r.cfg.replay_runs;
  ro.min_seconds = r.cfg.replay_min_seconds;
  ProfileOptions recheck = profile_options(r.cfg);  // the protocol the run profiles with
  cli::ProgressLine line(r.opt.quiet);
  recheck.progress = [&](const ProfileProgress& p) {
    line.update("replay recheck " + p.current, p.total ? double(p.done) / p.total : 0, -1);
  };
  if (r.cfg.replay_recheck) ro.recheck = &recheck;
  ReplayResult rr;
  LW_RETURN_IF_ERROR(run_replay(ev, "chosen", chosen->names, ro, r.dir.path(), &rr));
  line.finish();
  LW_RETURN_IF_ERROR(r.dir.finish("replay"));
  if (r.cfg.export_bundle) {  // with the replay's accuracy and latency, for the application to match
    LW_RETURN_IF_ERROR(export_bundle(ev, "chosen " + fr.chosen, chosen->names, &rr.end_to_end,
                                     r.dir.path() + "/" + kBundleFileName));
    LW_RETURN_IF_ERROR(r.dir.finish("export"));
  }
  // The chosen one's figure from the same interleaved window as the references' (the replay
  // ran later, under whatever load then was; summary.md reports it apart).
  sum.points.push_back(point_of("chosen (" + fr.chosen + ")", *chosen));
  sum.chosen = chosen->names;
  sum.chosen_why = fr.chosen_why;
  sum.replay_ms = rr.end_to_end.latency.median;
  sum.replay_gap_pct = rr.gap_pct;
  sum.replay_core_link_ns = rr.core_link_ns;
  sum.replay_core_link_profile_ns = rr.core_link_profile_ns;
  sum.replay_two_threads = rr.two_threads;
  sum.replay_rechecked_ms = rr.predicted_rechecked_ms;
  sum.replay_drift_pct = rr.drift_pct;
  sum.replay_gap_rechecked_pct = rr.gap_rechecked_pct;
  if (rr.predicted_at_speed_ms > 0) {
    sum.replay_gap_at_speed_pct = rr.gap_at_speed_pct;
    sum.replay_speed_t1 = rr.speed_ratio.size() > 0 ? rr.speed_ratio[0] : 0;
    sum.replay_speed_t2 = rr.speed_ratio.size() > 1 ? rr.speed_ratio[1] : 0;
  }
  return Status::ok();
}

Status run_measure_stages(Run& r, RunSummary& sum) {
  cli::ProgressLine line(r.opt.quiet);
  std::unique_ptr<Evaluator> ev;
  LW_RETURN_IF_ERROR(Evaluator::create(r.net, r.lut, eval_options(r.cfg, r.opt.quiet, &line), &ev));
  FilterResult fr;
  LW_RETURN_IF_ERROR(stage_filter(r, *ev, line, &fr));
  ParetoSummary ps;
  LW_RETURN_IF_ERROR(run_pareto(fr, r.dir.path(), &ps));
  LW_RETURN_IF_ERROR(r.dir.finish("pareto"));
  for (const Measurement& m : fr.references) sum.points.push_back(point_of(m.label, m));
  return stage_replay(r, *ev, fr, sum);
}

std::vector<std::string> agent_names(const ExperimentConfig& c) {
  std::vector<std::string> v;
  for (const auto& a : c.agents) v.push_back(a.name);
  return v;
}

// A resumed run whose LUT changed since its search (profiled anew: a Layerwise update that
// refuses a kernel here, a deleted cache, a LUT file edited in place) would filter search
// results found on the old one, which may name what cannot run: it starts over in a new
// folder and leaves the old one as it was.
Status restart_if_lut_changed(Run& r) {
  std::string data;
  LW_RETURN_IF_ERROR(read_file(r.lut_path, &data));
  const std::string hash = fnv1a_hex(data);
  if (r.dir.resumed() && r.dir.lut_hash() != hash) {  // none recorded: a run of an older build
    std::fprintf(stderr, "run %s searched another LUT: starting a new run\n", r.dir.path().c_str());
    RunDir old = r.dir;
    LW_RETURN_IF_ERROR(r.dir.open(r.cfg.output_dir, resolved_config(r.cfg),
                                  run_id(r.net.name, agent_names(r.cfg), r.cfg.seeds), r.config_path, true));
    // Else every later run of this config would resume it first and leave it again.
    LW_RETURN_IF_ERROR(old.supersede(r.dir.path()));
  }
  return r.dir.set_lut_hash(hash);
}

}  // namespace

Status run_experiment(const ExperimentConfig& cfg, const std::string& config_path, const RunOptions& opt,
                      std::string* run_dir) {
  Run r{cfg, config_path, opt, RunDir(), Network(), Lut(), "", {}};
  LW_RETURN_IF_ERROR(check_before_measuring(r));
  LW_RETURN_IF_ERROR(r.dir.open(cfg.output_dir, resolved_config(cfg), run_id(r.net.name, agent_names(cfg), cfg.seeds),
                                config_path, opt.fresh));
  if (r.dir.resumed()) std::fprintf(stderr, "resuming unfinished run %s\n", r.dir.path().c_str());
  *run_dir = r.dir.path();
  RunSummary sum;
  sum.run_dir = r.dir.path();
  sum.model = r.net.name;
  LW_RETURN_IF_ERROR(stage_profile(r, sum));
  LW_RETURN_IF_ERROR(restart_if_lut_changed(r));
  *run_dir = sum.run_dir = r.dir.path();
  sum.lut = &r.lut;
  LW_RETURN_IF_ERROR(r.dir.finish("profile"));
  LW_RETURN_IF_ERROR(stage_search(r, sum));
  LW_RETURN_IF_ERROR(r.dir.finish("search"));
  LW_RETURN_IF_ERROR(run_measure_stages(r, sum));
  LW_RETURN_IF_ERROR(r.dir.complete());
  LW_RETURN_IF_ERROR(write_file_atomic(r.dir.path() + "/summary.md", summary_markdown(sum)));
  print_summary(sum);
  return Status::ok();
}

}  // namespace lw
