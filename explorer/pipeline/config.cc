#include "explorer/pipeline/config.h"

#include <algorithm>

#include "libs/core/files.h"
#include "libs/core/json_reader.h"

namespace lw {

using json = nlohmann::json;

namespace {

const char* const kObjectives[] = {"latency", "weighted"};

// An unknown name at `rel` (below r's path), listing the known ones.
void one_of(JsonReader& r, const std::string& rel, const std::string& v, const std::vector<std::string>& known,
            const char* what) {
  if (std::find(known.begin(), known.end(), v) != known.end()) return;
  std::string list;
  for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
  r.fail(rel, "unknown " + std::string(what) + " '" + v + "' (known: " + list + ")");
}

void read_device(JsonReader& r, const ConfigVocabulary& vocab, ExperimentConfig* c) {
  r.texts("libraries", &c->libraries);
  for (size_t i = 0; r.ok() && i < c->libraries.size(); ++i)
    one_of(r, "/libraries/" + std::to_string(i), c->libraries[i], vocab.libraries, "library");
  r.integers("threads", &c->threads, INT32_MIN, INT32_MAX);
  if (r.ok() && c->threads.empty()) r.fail("/threads", "needs at least one thread set");
  for (size_t i = 0; r.ok() && i < c->threads.size(); ++i)
    if (c->threads[i] != 1 && c->threads[i] != 2)
      r.fail("/threads/" + std::to_string(i), "thread sets are 1 (cpu0) or 2 (cpu0-1)");
}

void read_profile(JsonReader& r, ExperimentConfig* c) {
  Protocol& p = c->protocol;
  const bool base_given = r.value("protocol") != nullptr;  // (never when echoing)
  r.text("protocol", &c->protocol_base);                   // first: the keys below change it
  one_of(r, "/protocol", c->protocol_base, {kQuickProtocol, kExhaustiveProtocol}, "protocol");
  if (r.ok() && base_given) p = protocol_base(c->protocol_base);
  r.integer("warmup", &p.warmup, 0, 1000);
  r.integer("runs", &p.runs, 1, 100000);
  r.number("cv_threshold", &p.cv_threshold, 0, 10);
  const bool max_runs_given = r.value("max_runs") != nullptr;
  r.integer("max_runs", &p.max_runs, 1, 1000000);
  if (!max_runs_given) p.max_runs = std::max(p.max_runs, p.runs);  // as --runs alone does
  r.number("max_seconds", &p.max_seconds, 0.001, 3600);
  r.number("median_ci", &p.median_ci, 0, 10);
  r.number("early_stop", &p.early_stop_margin, 0, 100);
  r.boolean("cold_cache", &p.cold_cache);
  r.boolean("weight_age", &p.age_streamed_weights);
  r.number("far_wait_s", &p.far_cores_wait_s, 0, 3600);
  r.number("computing_us", &p.computing_us, 0, 1e6);
  r.integer("in_network_rounds", &c->in_network_rounds, 0, 100000);
  if (r.ok() && c->in_network_rounds > 0 && c->in_network_rounds < 3)
    r.fail("/in_network_rounds", "at least 3 (0: off)");
  if (r.ok() && p.max_runs < p.runs) r.fail("/max_runs", "must be >= runs (" + std::to_string(p.runs) + ")");
  // A LUT from `layerwise profile` to use instead of profiling: echoed only when given.
  r.optional_text("lut", &c->lut_file);
}

// "agents": ["qlearning", {"agent": "dqn", ...hyperparameters}]: the hyperparameters are
// the agent's own (validated by running it), so they are kept as given.
void read_agents(JsonReader& r, const ConfigVocabulary& vocab, ExperimentConfig* c) {
  const json* j = r.value("agents");
  if (j) {
    if (!j->is_array() || j->empty()) return r.fail("/agents", "expected a non-empty array of agents");
    c->agents.clear();
    for (size_t i = 0; i < j->size() && r.ok(); ++i) {
      const json& e = (*j)[i];
      std::string at = "/agents/" + std::to_string(i);
      AgentSpec a;
      if (e.is_string()) {
        a.name = e.get<std::string>();
        a.params = json::object();
      } else if (e.is_object() && e.contains("agent") && e["agent"].is_string()) {
        a.name = e["agent"].get<std::string>();
        a.params = e;
        a.params.erase("agent");
      } else {
        return r.fail(at + (e.is_object() ? "/agent" : ""),
                      e.is_object() ? "missing or not a string"
                                    : "expected an agent name or {\"agent\": name, ...hyperparameters}");
      }
      one_of(r, at + (e.is_object() ? "/agent" : ""), a.name, vocab.agents, "agent");
      c->agents.push_back(std::move(a));
    }
  }
  json echo = json::array();
  for (const auto& a : c->agents) {
    json x = a.params;
    x["agent"] = a.name;
    echo.push_back(x);
  }
  r.echo_value("agents", echo);
}

void read_seeds(JsonReader& r, ExperimentConfig* c) {
  if (const json* s = r.value("seeds")) {
    if (!s->is_array() || s->empty()) return r.fail("/seeds", "expected a non-empty array of seeds");
    c->seeds.clear();
    for (size_t i = 0; i < s->size(); ++i) {
      if (!(*s)[i].is_number_unsigned()) return r.fail("/seeds/" + std::to_string(i), "expected a non-negative integer");
      c->seeds.push_back((*s)[i].get<uint64_t>());
    }
  }
  r.echo_value("seeds", c->seeds);
}

void read_search(JsonReader& r, const ConfigVocabulary& vocab, ExperimentConfig* c) {
  r.text("objective", &c->objective);
  if (r.ok()) one_of(r, "/objective", c->objective, {std::begin(kObjectives), std::end(kObjectives)}, "objective");
  r.number("memory_weight_ms_per_mib", &c->memory_weight_ms_per_mib, 0, 1e9);
  if (const json* m = r.value("max_memory_mib")) {
    if (!m->is_number()) return r.fail("/max_memory_mib", "expected a number");
    if (m->get<double>() <= 0) return r.fail("/max_memory_mib", "must be positive");
    c->max_memory_mib = m->get<double>();
  }
  if (c->max_memory_mib) r.echo_value("max_memory_mib", *c->max_memory_mib);
  read_agents(r, vocab, c);
  read_seeds(r, c);
}

void read_filter(JsonReader& r, ExperimentConfig* c) {
  r.number("latency_band_pct", &c->latency_band_pct, 0, 1000);
  r.number("max_accuracy_drop_pct", &c->max_accuracy_drop_pct, 0, 100);
  r.integer("candidates", &c->filter_candidates, 1, 10000);
  r.integer("test_images", &c->test_images, 0, 10000);
  r.integer("calibration_images", &c->calibration_images, 1, 60000);
  std::string method = to_string(c->calibration_method);
  r.text("calibration_method", &method);
  if (r.ok()) {
    if (auto m = parse_calibration_method(method)) c->calibration_method = *m;
    else r.fail("/calibration_method", "unknown calibration method '" + method + "' (known: " +
                                           calibration_method_names() + ")");
  }
  r.integer("fidelity_inputs", &c->fidelity_inputs, 1, 100000);
  // The user's data (README "Your data"): echoed only when given.
  r.optional_text("eval_inputs", &c->eval_inputs);
  r.optional_text("eval_labels", &c->eval_labels);
  r.optional_text("calibration_inputs", &c->calibration_inputs);
  if (r.ok() && c->eval_inputs.empty() != c->eval_labels.empty())
    r.fail(c->eval_inputs.empty() ? "/eval_inputs" : "/eval_labels", "eval_inputs and eval_labels go together");
  if (r.ok() && !c->eval_inputs.empty() && c->calibration_inputs.empty())
    r.fail("/calibration_inputs", "needed with eval_inputs (calibrating int8 on the evaluation data would flatter it)");
}

// The whole config, each key spelled once: parse_config reads a file with it, and
// resolved_config echoes a struct with it.
void read_config(JsonReader& r, const ConfigVocabulary& vocab, ExperimentConfig* c) {
  r.text("name", &c->name);
  r.text("model", &c->model, true);
  if (r.ok() && c->model.empty()) r.fail("/model", "must name a zoo model or a network .json file");
  r.object("device", [&](JsonReader& d) { read_device(d, vocab, c); });
  r.object("profile", [&](JsonReader& p) { read_profile(p, c); });
  r.object("search", [&](JsonReader& s) { read_search(s, vocab, c); });
  r.object("filter", [&](JsonReader& f) { read_filter(f, c); });
  r.object("replay", [&](JsonReader& p) {
    p.integer("runs", &c->replay_runs, 1, 100000);
    p.number("min_seconds", &c->replay_min_seconds, 0, 3600);
    p.boolean("recheck", &c->replay_recheck);
  });
  r.object("export", [&](JsonReader& e) { e.boolean("bundle", &c->export_bundle); });
  r.text("output_dir", &c->output_dir);
}

}  // namespace

Status parse_config(const std::string& text, const std::string& origin, const ConfigVocabulary& vocab,
                    ExperimentConfig* out) {
  json j;
  LW_RETURN_IF_ERROR(JsonReader::parse(origin, text, &j));
  JsonReader r(origin, j);
  ExperimentConfig c;
  c.agents = {AgentSpec{kDefaultAgent, json::object()}};
  read_config(r, vocab, &c);
  LW_RETURN_IF_ERROR(r.finish());
  if (c.name.empty()) c.name = c.model;
  *out = std::move(c);
  return Status::ok();
}

Status load_config(const std::string& path, const ConfigVocabulary& vocab, ExperimentConfig* out) {
  std::string text;
  LW_RETURN_IF_ERROR(read_file(path, &text));
  return parse_config(text, path, vocab, out);
}

json resolved_config(const ExperimentConfig& c) {
  ExperimentConfig copy = c;
  ConfigVocabulary any;  // the struct was checked when it was read
  JsonReader r = JsonReader::echo();
  read_config(r, any, &copy);
  return r.resolved();
}

}  // namespace lw
