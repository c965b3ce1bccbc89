// Reading a sweep config and expanding its grid into cells (explorer/pipeline/sweep.h).
#include <filesystem>
#include <map>
#include <regex>

#include "libs/core/files.h"
#include "explorer/pipeline/sweep.h"
#include "libs/core/hash.h"
#include "libs/core/json_reader.h"
#include "libs/ir/network_json.h"

namespace lw {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

namespace key {
constexpr const char* kName = "name";
constexpr const char* kBase = "base";
constexpr const char* kAxes = "axes";
constexpr const char* kPath = "path";
constexpr const char* kValues = "values";
constexpr const char* kLabels = "labels";
constexpr const char* kDevices = "devices";
constexpr const char* kPartition = "partition";
constexpr const char* kSbatchArgs = "sbatch_args";
constexpr const char* kOutput = "output_dir";
constexpr const char* kLutDir = "lut_dir";
constexpr const char* kLocal = "local";
constexpr const char* kJobs = "jobs";
constexpr const char* kSlurm = "slurm";
constexpr const char* kCpus = "cpus_per_task";
constexpr const char* kTime = "time";
constexpr const char* kMem = "mem";
}  // namespace key

// Keys the sweep itself sets in every cell: an axis may not vary them.
const char* const kOwnedPaths[] = {"/output_dir", "/profile/lut"};


// What sweep.csv shows for an axis value: a model file by its stem, an agent by its name.
std::string label_of(const json& v) {
  if (v.is_string()) {
    std::string s = v.get<std::string>();
    return s.find('/') != std::string::npos || fs::path(s).has_extension() ? fs::path(s).stem().string() : s;
  }
  if (v.is_array()) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : "+") + label_of(x);
    return s;
  }
  if (v.is_object() && v.contains("agent")) return label_of(v["agent"]);
  return v.dump();
}

// seeds and agents are lists in the experiment config; an axis may give one of each per cell.
json wrap_for(const std::string& path, const json& v) {
  if ((path == "/search/seeds" || path == "/search/agents") && !v.is_array()) return json::array({v});
  return v;
}

Status parse_axis(const JsonReader& r, const json& j, const std::string& p, SweepAxis* a) {
  LW_RETURN_IF_ERROR(r.keys(j, p, {key::kName, key::kPath, key::kValues, key::kLabels}));
  LW_RETURN_IF_ERROR(r.string(j, key::kPath, p, &a->path, true));
  try {
    json::json_pointer ptr(a->path);
    if (ptr.empty()) return r.err(p + "/path", "must name a key of the experiment config, not the whole config");
    a->name = ptr.back();
  } catch (const json::exception& e) {
    return r.err(p + "/path", "not a JSON pointer ('/search/seeds'): " + a->path);
  }
  for (const char* owned : kOwnedPaths)
    if (a->path == owned) return r.err(p + "/path", a->path + " is set by the sweep for every cell");
  LW_RETURN_IF_ERROR(r.string(j, key::kName, p, &a->name));
  if (!j.contains(key::kValues) || !j[key::kValues].is_array() || j[key::kValues].empty())
    return r.err(p + "/values", "expected a non-empty array of values");
  for (const auto& v : j[key::kValues]) a->values.push_back(wrap_for(a->path, v));
  if (j.contains(key::kLabels)) {
    LW_RETURN_IF_ERROR(r.strings(j, key::kLabels, p, &a->labels));
    if (a->labels.size() != a->values.size()) return r.err(p + "/labels", "needs one label per value");
  } else {
    for (const auto& v : a->values) a->labels.push_back(label_of(v));
  }
  std::map<std::string, size_t> seen;
  for (size_t i = 0; i < a->labels.size(); ++i)
    if (!seen.emplace(a->labels[i], i).second)
      return r.err(p + "/values/" + std::to_string(i), "shows as '" + a->labels[i] + "' like value " +
                                                         std::to_string(seen[a->labels[i]]) + "; give \"labels\"");
  return Status::ok();
}

Status parse_devices(const JsonReader& r, const json& j, SweepConfig* c) {
  const std::string p = std::string("/") + key::kDevices;
  if (!j.is_array() || j.empty()) return r.err(p, "expected a non-empty array of device kinds");
  static const std::regex kName("[A-Za-z0-9_.-]+");
  for (size_t i = 0; i < j.size(); ++i) {
    std::string dp = p + "/" + std::to_string(i);
    DeviceKind d;
    if (j[i].is_string()) {
      d.name = d.partition = j[i].get<std::string>();
    } else {
      LW_RETURN_IF_ERROR(r.keys(j[i], dp, {key::kName, key::kPartition, key::kSbatchArgs}));
      LW_RETURN_IF_ERROR(r.string(j[i], key::kName, dp, &d.name, true));
      d.partition = d.name;
      LW_RETURN_IF_ERROR(r.string(j[i], key::kPartition, dp, &d.partition));
      LW_RETURN_IF_ERROR(r.strings(j[i], key::kSbatchArgs, dp, &d.sbatch_args));
    }
    if (!std::regex_match(d.name, kName)) return r.err(dp, "device kind names use letters, digits, '_', '-', '.'");
    for (const auto& o : c->devices)
      if (o.name == d.name) return r.err(dp, "device kind '" + d.name + "' is listed twice");
    c->devices.push_back(d);
  }
  return Status::ok();
}

Status parse_executors(const JsonReader& r, const json& j, SweepConfig* c) {
  if (j.contains(key::kLocal)) {
    LW_RETURN_IF_ERROR(r.keys(j[key::kLocal], "/local", {key::kJobs}));
    LW_RETURN_IF_ERROR(r.integer(j[key::kLocal], key::kJobs, "/local", &c->jobs));
    if (c->jobs < 1 || c->jobs > 1024) return r.err("/local/jobs", "must be in [1, 1024]");
  }
  if (j.contains(key::kSlurm)) {
    const json& s = j[key::kSlurm];
    LW_RETURN_IF_ERROR(r.keys(s, "/slurm", {key::kCpus, key::kTime, key::kMem, key::kSbatchArgs}));
    LW_RETURN_IF_ERROR(r.integer(s, key::kCpus, "/slurm", &c->cpus_per_task));
    if (c->cpus_per_task < 0 || c->cpus_per_task > 4096) return r.err("/slurm/cpus_per_task", "must be in [0, 4096]");
    LW_RETURN_IF_ERROR(r.string(s, key::kTime, "/slurm", &c->time_limit));
    LW_RETURN_IF_ERROR(r.string(s, key::kMem, "/slurm", &c->mem));
    LW_RETURN_IF_ERROR(r.strings(s, key::kSbatchArgs, "/slurm", &c->sbatch_args));
  }
  return Status::ok();
}

Status parse_sweep(const std::string& text, const std::string& path, SweepConfig* c) {
  JsonReader r(path);
  json j;
  LW_RETURN_IF_ERROR(r.parse(text, &j));
  LW_RETURN_IF_ERROR(r.keys(j, "", {key::kName, key::kBase, key::kAxes, key::kDevices, key::kOutput, key::kLutDir,
                                    key::kLocal, key::kSlurm}));
  c->path = path;
  c->name = fs::path(path).stem().string();
  LW_RETURN_IF_ERROR(r.string(j, key::kName, "", &c->name));
  if (!j.contains(key::kBase)) return r.err("/base", "missing: the base experiment config (a file or an object)");
  if (j[key::kBase].is_string()) {
    std::string base_path = j[key::kBase].get<std::string>(), text_base;
    Status s = read_file(base_path, &text_base);
    if (!s.is_ok()) return r.err("/base", s.message());
    JsonReader rb(base_path);
    LW_RETURN_IF_ERROR(rb.parse(text_base, &c->base));
  } else if (j[key::kBase].is_object()) {
    c->base = j[key::kBase];
  } else {
    return r.err("/base", "expected an experiment config file name or object");
  }
  if (!j.contains(key::kAxes) || !j[key::kAxes].is_array())
    return r.err("/axes", "expected an array of {\"path\": ..., \"values\": [...]}");
  for (size_t i = 0; i < j[key::kAxes].size(); ++i) {
    SweepAxis a;
    LW_RETURN_IF_ERROR(parse_axis(r, j[key::kAxes][i], "/axes/" + std::to_string(i), &a));
    for (const auto& o : c->axes)
      if (o.name == a.name) return r.err("/axes/" + std::to_string(i) + "/name", "axis name '" + a.name + "' is used twice");
    c->axes.push_back(std::move(a));
  }
  if (j.contains(key::kDevices)) LW_RETURN_IF_ERROR(parse_devices(r, j[key::kDevices], c));
  if (c->devices.empty()) c->devices.push_back(DeviceKind{"local", "", {}});
  c->output_dir = "results/sweeps/" + c->name;
  LW_RETURN_IF_ERROR(r.string(j, key::kOutput, "", &c->output_dir));
  c->lut_dir = c->output_dir + "/luts";
  LW_RETURN_IF_ERROR(r.string(j, key::kLutDir, "", &c->lut_dir));
  return parse_executors(r, j, c);
}

// Sets one axis value into a config; a pointer through a non-object is the axis's error.
Status apply(const JsonReader& r, const SweepAxis& a, size_t k, const std::string& ap, json* config) {
  try {
    (*config)[json::json_pointer(a.path)] = a.values[k];
  } catch (const json::exception& e) {
    return r.err(ap + "/path", a.path + " does not lead to a key of the experiment config");
  }
  return Status::ok();
}

}  // namespace

namespace {

std::string cell_id(int i) {
  char b[16];
  std::snprintf(b, sizeof b, "%04d", i);
  return b;
}

// The LUT a cell needs: what the profile stage measures, on which device kind.
std::string lut_path(const SweepConfig& c, const json& resolved, const std::string& device) {
  json k = {{"model", resolved["model"]}, {"device", resolved["device"]}, {"profile", resolved["profile"]},
            {"kind", device}};
  return c.lut_dir + "/" + fs::path(resolved["model"].get<std::string>()).stem().string() + "__" + device + "__" +
         fnv1a_hex(k.dump()).substr(0, 8) + ".lut.json";
}

// Every axis value is checked alone first, so an error names the value that caused it.
Status check_values(const SweepConfig& c, const CellChecker& check) {
  JsonReader r(c.path);
  json resolved;
  std::string e = check(c.base, c.path + ": /base", &resolved);
  if (!e.empty()) return parse_error(e);
  for (size_t a = 0; a < c.axes.size(); ++a)
    for (size_t k = 0; k < c.axes[a].values.size(); ++k) {
      std::string vp = "/axes/" + std::to_string(a) + "/values/" + std::to_string(k);
      json cfg = c.base;
      LW_RETURN_IF_ERROR(apply(r, c.axes[a], k, "/axes/" + std::to_string(a), &cfg));
      e = check(cfg, c.path + ": " + vp + " gives", &resolved);
      if (!e.empty()) return parse_error(e);
    }
  return Status::ok();
}

Status expand(const SweepConfig& c, const CellChecker& check, SweepPlan* plan) {
  LW_RETURN_IF_ERROR(check_values(c, check));
  JsonReader r(c.path);
  size_t total = c.devices.size();
  for (const auto& a : c.axes) total *= a.values.size();
  if (total > 100000) return r.err("/axes", "the grid has " + std::to_string(total) + " cells (at most 100000)");
  plan->cfg = c;
  for (const auto& a : c.axes) plan->key_names.push_back(a.name);
  plan->key_names.push_back("device");
  std::map<std::string, int> lut_index;
  for (size_t i = 0; i < total; ++i) {
    SweepCell cell;
    cell.index = int(i);
    cell.id = cell_id(cell.index);
    json cfg = c.base;
    size_t rest = i;  // mixed radix: the last axis varies fastest, the device kind slowest
    std::vector<size_t> pick(c.axes.size());
    for (size_t a = c.axes.size(); a-- > 0;) {
      pick[a] = rest % c.axes[a].values.size();
      rest /= c.axes[a].values.size();
    }
    for (size_t a = 0; a < c.axes.size(); ++a) {
      LW_RETURN_IF_ERROR(apply(r, c.axes[a], pick[a], "/axes/" + std::to_string(a), &cfg));
      cell.keys.push_back(c.axes[a].labels[pick[a]]);
    }
    cell.device = c.devices[rest].name;
    cell.keys.push_back(cell.device);
    json resolved;
    std::string e = check(cfg, c.path + ": /axes: cell " + cell.id, &resolved);
    if (!e.empty()) return parse_error(e);
    resolved["name"] = c.name + "-" + cell.id;
    resolved["output_dir"] = c.output_dir + "/cells/" + cell.id;
    if (!resolved["profile"].contains("lut")) {
      std::string path = lut_path(c, resolved, cell.device);
      auto [it, fresh] = lut_index.emplace(path, int(plan->luts.size()));
      if (fresh) plan->luts.push_back(SweepLut{path, cell.device, cell.index, {}});
      plan->luts[it->second].cells.push_back(cell.index);
      cell.lut = it->second;
      resolved["profile"]["lut"] = path;
    }
    cell.config = std::move(resolved);
    plan->cells.push_back(std::move(cell));
  }
  return Status::ok();
}

}  // namespace

Status load_sweep(const std::string& path, CellChecker check_cell, SweepPlan* out) {
  std::string text;
  Status s = read_file(path, &text);
  if (!s.is_ok()) return s;
  SweepConfig c;
  LW_RETURN_IF_ERROR(parse_sweep(text, path, &c));
  SweepPlan plan;
  LW_RETURN_IF_ERROR(expand(c, check_cell, &plan));
  *out = std::move(plan);
  return Status::ok();
}

}  // namespace lw
