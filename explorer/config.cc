#include "explorer/config.h"

#include <algorithm>

#include "libs/core/json_reader.h"
#include "libs/ir/network_json.h"

namespace lw {

using json = nlohmann::json;

namespace {

// Config keys, one place.
namespace key {
constexpr const char* kName = "name";
constexpr const char* kModel = "model";
constexpr const char* kDevice = "device";
constexpr const char* kLibraries = "libraries";
constexpr const char* kThreads = "threads";
constexpr const char* kProfile = "profile";
constexpr const char* kWarmup = "warmup";
constexpr const char* kRuns = "runs";
constexpr const char* kCvThreshold = "cv_threshold";
constexpr const char* kMaxRuns = "max_runs";
constexpr const char* kMaxSeconds = "max_seconds";
constexpr const char* kColdCache = "cold_cache";
constexpr const char* kLut = "lut";
constexpr const char* kSearch = "search";
constexpr const char* kObjective = "objective";
constexpr const char* kMemoryWeight = "memory_weight_ms_per_mib";
constexpr const char* kMaxMemory = "max_memory_mib";
constexpr const char* kAgents = "agents";
constexpr const char* kAgent = "agent";
constexpr const char* kSeeds = "seeds";
constexpr const char* kFilter = "filter";
constexpr const char* kLatencyBand = "latency_band_pct";
constexpr const char* kMaxAccuracyDrop = "max_accuracy_drop_pct";
constexpr const char* kCandidates = "candidates";
constexpr const char* kTestImages = "test_images";
constexpr const char* kCalibrationImages = "calibration_images";
constexpr const char* kFidelityInputs = "fidelity_inputs";
constexpr const char* kEvalInputs = "eval_inputs";
constexpr const char* kEvalLabels = "eval_labels";
constexpr const char* kCalibrationInputs = "calibration_inputs";
constexpr const char* kReplay = "replay";
constexpr const char* kExport = "export";
constexpr const char* kBundle = "bundle";
constexpr const char* kOutput = "output_dir";
}  // namespace key

const char* const kObjectives[] = {"latency", "weighted"};

Status check_range(const JsonReader& r, const std::string& path, double v, double lo, double hi) {
  if (v < lo || v > hi)
    return r.err(path, "must be in [" + json(lo).dump() + ", " + json(hi).dump() + "], got " + json(v).dump());
  return Status::ok();
}

Status one_of(const JsonReader& r, const std::string& path, const std::string& v, const std::vector<std::string>& known,
              const char* what) {
  if (std::find(known.begin(), known.end(), v) != known.end()) return Status::ok();
  std::string list;
  for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
  return r.err(path, "unknown " + std::string(what) + " '" + v + "' (known: " + list + ")");
}

Status parse_device(const JsonReader& r, const json& j, const ConfigVocabulary& vocab, ExperimentConfig* c) {
  const std::string p = std::string("/") + key::kDevice;
  LW_RETURN_IF_ERROR(r.keys(j, p, {key::kLibraries, key::kThreads}));
  LW_RETURN_IF_ERROR(r.strings(j, key::kLibraries, p, &c->libraries));
  for (size_t i = 0; i < c->libraries.size(); ++i)
    LW_RETURN_IF_ERROR(one_of(r, p + "/libraries/" + std::to_string(i), c->libraries[i], vocab.libraries, "library"));
  LW_RETURN_IF_ERROR(r.integers(j, key::kThreads, p, &c->threads));
  if (c->threads.empty()) return r.err(p + "/threads", "needs at least one thread set");
  for (size_t i = 0; i < c->threads.size(); ++i)
    if (c->threads[i] != 1 && c->threads[i] != 2)
      return r.err(p + "/threads/" + std::to_string(i), "thread sets are 1 (cpu0) or 2 (cpu0-1)");
  return Status::ok();
}

Status parse_profile(const JsonReader& r, const json& j, ExperimentConfig* c) {
  const std::string p = std::string("/") + key::kProfile;
  LW_RETURN_IF_ERROR(r.keys(
      j, p, {key::kWarmup, key::kRuns, key::kCvThreshold, key::kMaxRuns, key::kMaxSeconds, key::kColdCache, key::kLut}));
  LW_RETURN_IF_ERROR(r.boolean(j, key::kColdCache, p, &c->cold_cache));
  LW_RETURN_IF_ERROR(r.string(j, key::kLut, p, &c->lut_file));
  LW_RETURN_IF_ERROR(r.integer(j, key::kWarmup, p, &c->warmup));
  LW_RETURN_IF_ERROR(r.integer(j, key::kRuns, p, &c->runs));
  LW_RETURN_IF_ERROR(r.number(j, key::kCvThreshold, p, &c->cv_threshold));
  LW_RETURN_IF_ERROR(r.integer(j, key::kMaxRuns, p, &c->max_runs));
  LW_RETURN_IF_ERROR(r.number(j, key::kMaxSeconds, p, &c->max_seconds));
  LW_RETURN_IF_ERROR(check_range(r, p + "/max_seconds", c->max_seconds, 0.001, 3600));
  LW_RETURN_IF_ERROR(check_range(r, p + "/warmup", c->warmup, 0, 1000));
  LW_RETURN_IF_ERROR(check_range(r, p + "/runs", c->runs, 1, 100000));
  LW_RETURN_IF_ERROR(check_range(r, p + "/cv_threshold", c->cv_threshold, 0, 10));
  if (c->max_runs < c->runs) return r.err(p + "/max_runs", "must be >= runs (" + std::to_string(c->runs) + ")");
  return Status::ok();
}

Status parse_agents(const JsonReader& r, const json& j, const std::string& p, const ConfigVocabulary& vocab,
                    ExperimentConfig* c) {
  if (!j.is_array() || j.empty()) return r.err(p, "expected a non-empty array of agents");
  c->agents.clear();
  for (size_t i = 0; i < j.size(); ++i) {
    std::string ap = p + "/" + std::to_string(i);
    AgentSpec a;
    if (j[i].is_string()) {
      a.name = j[i].get<std::string>();
      a.params = json::object();
    } else if (j[i].is_object()) {
      LW_RETURN_IF_ERROR(r.string(j[i], key::kAgent, ap, &a.name, true));
      a.params = j[i];
      a.params.erase(key::kAgent);
    } else {
      return r.err(ap, "expected an agent name or {\"agent\": name, ...hyperparameters}");
    }
    LW_RETURN_IF_ERROR(one_of(r, ap + (j[i].is_object() ? "/agent" : ""), a.name, vocab.agents, "agent"));
    c->agents.push_back(std::move(a));
  }
  return Status::ok();
}

Status parse_search(const JsonReader& r, const json& j, const ConfigVocabulary& vocab, ExperimentConfig* c) {
  const std::string p = std::string("/") + key::kSearch;
  LW_RETURN_IF_ERROR(r.keys(j, p, {key::kObjective, key::kMemoryWeight, key::kMaxMemory, key::kAgents, key::kSeeds}));
  LW_RETURN_IF_ERROR(r.string(j, key::kObjective, p, &c->objective));
  LW_RETURN_IF_ERROR(one_of(r, p + "/objective", c->objective, {std::begin(kObjectives), std::end(kObjectives)}, "objective"));
  LW_RETURN_IF_ERROR(r.number(j, key::kMemoryWeight, p, &c->memory_weight_ms_per_mib));
  LW_RETURN_IF_ERROR(check_range(r, p + "/memory_weight_ms_per_mib", c->memory_weight_ms_per_mib, 0, 1e9));
  if (j.contains(key::kMaxMemory)) {
    double m = 0;
    LW_RETURN_IF_ERROR(r.number(j, key::kMaxMemory, p, &m));
    if (m <= 0) return r.err(p + "/max_memory_mib", "must be positive");
    c->max_memory_mib = m;
  }
  if (j.contains(key::kAgents)) LW_RETURN_IF_ERROR(parse_agents(r, j[key::kAgents], p + "/agents", vocab, c));
  if (j.contains(key::kSeeds)) {
    const json& s = j[key::kSeeds];
    if (!s.is_array() || s.empty()) return r.err(p + "/seeds", "expected a non-empty array of seeds");
    c->seeds.clear();
    for (size_t i = 0; i < s.size(); ++i) {
      if (!s[i].is_number_unsigned()) return r.err(p + "/seeds/" + std::to_string(i), "expected a non-negative integer");
      c->seeds.push_back(s[i].get<uint64_t>());
    }
  }
  return Status::ok();
}

Status parse_filter(const JsonReader& r, const json& j, ExperimentConfig* c) {
  const std::string p = std::string("/") + key::kFilter;
  LW_RETURN_IF_ERROR(r.keys(j, p, {key::kLatencyBand, key::kMaxAccuracyDrop, key::kCandidates, key::kTestImages,
                                   key::kCalibrationImages, key::kFidelityInputs, key::kEvalInputs, key::kEvalLabels,
                                   key::kCalibrationInputs}));
  LW_RETURN_IF_ERROR(r.string(j, key::kEvalInputs, p, &c->eval_inputs));
  LW_RETURN_IF_ERROR(r.string(j, key::kEvalLabels, p, &c->eval_labels));
  LW_RETURN_IF_ERROR(r.string(j, key::kCalibrationInputs, p, &c->calibration_inputs));
  if (c->eval_inputs.empty() != c->eval_labels.empty())
    return r.err(p + (c->eval_inputs.empty() ? "/eval_inputs" : "/eval_labels"), "eval_inputs and eval_labels go together");
  LW_RETURN_IF_ERROR(r.number(j, key::kLatencyBand, p, &c->latency_band_pct));
  LW_RETURN_IF_ERROR(r.number(j, key::kMaxAccuracyDrop, p, &c->max_accuracy_drop_pct));
  LW_RETURN_IF_ERROR(r.integer(j, key::kCandidates, p, &c->filter_candidates));
  LW_RETURN_IF_ERROR(r.integer(j, key::kTestImages, p, &c->test_images));
  LW_RETURN_IF_ERROR(r.integer(j, key::kCalibrationImages, p, &c->calibration_images));
  LW_RETURN_IF_ERROR(r.integer(j, key::kFidelityInputs, p, &c->fidelity_inputs));
  LW_RETURN_IF_ERROR(check_range(r, p + "/fidelity_inputs", c->fidelity_inputs, 1, 100000));
  LW_RETURN_IF_ERROR(check_range(r, p + "/latency_band_pct", c->latency_band_pct, 0, 1000));
  LW_RETURN_IF_ERROR(check_range(r, p + "/max_accuracy_drop_pct", c->max_accuracy_drop_pct, 0, 100));
  LW_RETURN_IF_ERROR(check_range(r, p + "/candidates", c->filter_candidates, 1, 10000));
  LW_RETURN_IF_ERROR(check_range(r, p + "/test_images", c->test_images, 0, 10000));
  LW_RETURN_IF_ERROR(check_range(r, p + "/calibration_images", c->calibration_images, 1, 60000));
  return Status::ok();
}

}  // namespace

Status parse_config(const std::string& text, const std::string& origin, const ConfigVocabulary& vocab,
                    ExperimentConfig* out) {
  JsonReader r(origin);
  json j;
  LW_RETURN_IF_ERROR(r.parse(text, &j));
  LW_RETURN_IF_ERROR(r.keys(j, "", {key::kName, key::kModel, key::kDevice, key::kProfile, key::kSearch, key::kFilter,
                                    key::kReplay, key::kExport, key::kOutput}));
  ExperimentConfig c;
  c.agents = {AgentSpec{kDefaultAgent, json::object()}};
  LW_RETURN_IF_ERROR(r.string(j, key::kName, "", &c.name));
  LW_RETURN_IF_ERROR(r.string(j, key::kModel, "", &c.model, true));
  if (c.model.empty()) return r.err("/model", "must name a zoo model or a network .json file");
  if (j.contains(key::kDevice)) LW_RETURN_IF_ERROR(parse_device(r, j[key::kDevice], vocab, &c));
  if (j.contains(key::kProfile)) LW_RETURN_IF_ERROR(parse_profile(r, j[key::kProfile], &c));
  if (j.contains(key::kSearch)) LW_RETURN_IF_ERROR(parse_search(r, j[key::kSearch], vocab, &c));
  if (j.contains(key::kFilter)) LW_RETURN_IF_ERROR(parse_filter(r, j[key::kFilter], &c));
  if (j.contains(key::kReplay)) {
    LW_RETURN_IF_ERROR(r.keys(j[key::kReplay], "/replay", {key::kRuns}));
    LW_RETURN_IF_ERROR(r.integer(j[key::kReplay], key::kRuns, "/replay", &c.replay_runs));
    LW_RETURN_IF_ERROR(check_range(r, "/replay/runs", c.replay_runs, 1, 100000));
  }
  if (j.contains(key::kExport)) {
    LW_RETURN_IF_ERROR(r.keys(j[key::kExport], "/export", {key::kBundle}));
    LW_RETURN_IF_ERROR(r.boolean(j[key::kExport], key::kBundle, "/export", &c.export_bundle));
  }
  LW_RETURN_IF_ERROR(r.string(j, key::kOutput, "", &c.output_dir));
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
  json agents = json::array();
  for (const auto& a : c.agents) {
    json x = a.params;
    x[key::kAgent] = a.name;
    agents.push_back(x);
  }
  json j;
  j[key::kName] = c.name;
  j[key::kModel] = c.model;
  j[key::kDevice] = {{key::kLibraries, c.libraries}, {key::kThreads, c.threads}};
  j[key::kProfile] = {{key::kWarmup, c.warmup}, {key::kRuns, c.runs}, {key::kCvThreshold, c.cv_threshold},
                      {key::kMaxRuns, c.max_runs}, {key::kMaxSeconds, c.max_seconds}, {key::kColdCache, c.cold_cache}};
  if (!c.lut_file.empty()) j[key::kProfile][key::kLut] = c.lut_file;
  j[key::kSearch] = {{key::kObjective, c.objective}, {key::kMemoryWeight, c.memory_weight_ms_per_mib},
                     {key::kAgents, agents}, {key::kSeeds, c.seeds}};
  if (c.max_memory_mib) j[key::kSearch][key::kMaxMemory] = *c.max_memory_mib;
  j[key::kFilter] = {{key::kLatencyBand, c.latency_band_pct}, {key::kMaxAccuracyDrop, c.max_accuracy_drop_pct},
                     {key::kCandidates, c.filter_candidates}, {key::kTestImages, c.test_images},
                     {key::kCalibrationImages, c.calibration_images}, {key::kFidelityInputs, c.fidelity_inputs}};
  for (auto [k, v] : {std::pair{key::kEvalInputs, &c.eval_inputs}, {key::kEvalLabels, &c.eval_labels},
                      {key::kCalibrationInputs, &c.calibration_inputs}})
    if (!v->empty()) j[key::kFilter][k] = *v;
  j[key::kReplay] = {{key::kRuns, c.replay_runs}};
  j[key::kExport] = {{key::kBundle, c.export_bundle}};
  j[key::kOutput] = c.output_dir;
  return j;
}

}  // namespace lw
