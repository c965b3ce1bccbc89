// Reading a sweep config and expanding its grid into cells (explorer/pipeline/sweep.h).
#include <filesystem>
#include <map>
#include <regex>

#include "libs/core/files.h"
#include "explorer/pipeline/model.h"
#include "explorer/pipeline/sweep.h"
#include "libs/core/hash.h"
#include "libs/core/json_reader.h"
#include "libs/ir/network_json.h"

namespace lw {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {


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

void read_axis(JsonReader& r, SweepAxis* a) {
  r.text("path", &a->path, true);
  if (!r.ok()) return;
  try {
    json::json_pointer ptr(a->path);
    if (ptr.empty()) return r.fail("/path", "must name a key of the experiment config, not the whole config");
    a->name = ptr.back();
  } catch (const json::exception& e) {
    return r.fail("/path", "not a JSON pointer ('/search/seeds'): " + a->path);
  }
  for (const char* owned : kOwnedPaths)
    if (a->path == owned) return r.fail("/path", a->path + " is set by the sweep for every cell");
  r.text("name", &a->name);
  const json* values = r.value("values", true);
  if (!r.ok()) return;
  if (!values->is_array() || values->empty()) return r.fail("/values", "expected a non-empty array of values");
  for (const auto& v : *values) a->values.push_back(wrap_for(a->path, v));
  for (const auto& v : a->values) a->labels.push_back(label_of(v));
  r.texts("labels", &a->labels);
  if (r.ok() && a->labels.size() != a->values.size()) return r.fail("/labels", "needs one label per value");
  std::map<std::string, size_t> seen;
  for (size_t i = 0; r.ok() && i < a->labels.size(); ++i)
    if (!seen.emplace(a->labels[i], i).second)
      r.fail("/values/" + std::to_string(i), "shows as '" + a->labels[i] + "' like value " +
                                                  std::to_string(seen[a->labels[i]]) + "; give \"labels\"");
}

void read_axes(JsonReader& r, SweepConfig* c) {
  const json* axes = r.value("axes", true);
  if (!r.ok() || !axes->is_array()) return r.fail("/axes", "expected an array of {\"path\": ..., \"values\": [...]}");
  for (size_t i = 0; r.ok() && i < axes->size(); ++i) {
    JsonReader ar = r.element("axes", i);
    SweepAxis a;
    read_axis(ar, &a);
    r.adopt(ar.finish());
    if (!r.ok()) return;
    for (const auto& o : c->axes)
      if (o.name == a.name) return r.fail("/axes/" + std::to_string(i) + "/name", "axis name '" + a.name + "' is used twice");
    c->axes.push_back(std::move(a));
  }
}

void read_devices(JsonReader& r, SweepConfig* c) {
  const json* j = r.value("devices");
  if (!j) return;
  if (!j->is_array() || j->empty()) return r.fail("/devices", "expected a non-empty array of device kinds");
  static const std::regex kName("[A-Za-z0-9_.-]+");
  for (size_t i = 0; r.ok() && i < j->size(); ++i) {
    std::string dp = "/devices/" + std::to_string(i);
    DeviceKind d;
    if ((*j)[i].is_string()) {
      d.name = d.partition = (*j)[i].get<std::string>();
    } else {
      JsonReader dr = r.element("devices", i);
      dr.text("name", &d.name, true);
      d.partition = d.name;
      dr.text("partition", &d.partition);
      dr.texts("sbatch_args", &d.sbatch_args);
      r.adopt(dr.finish());
      if (!r.ok()) return;
    }
    if (!std::regex_match(d.name, kName)) return r.fail(dp, "device kind names use letters, digits, '_', '-', '.'");
    for (const auto& o : c->devices)
      if (o.name == d.name) return r.fail(dp, "device kind '" + d.name + "' is listed twice");
    c->devices.push_back(d);
  }
}

void read_base(JsonReader& r, SweepConfig* c) {
  const json* base = r.value("base");
  if (!r.ok()) return;
  if (!base) return r.fail("/base", "missing: the base experiment config (a file or an object)");
  if (base->is_string()) {
    std::string base_path = base->get<std::string>(), text;
    Status s = read_file(base_path, &text);
    if (s.is_ok()) s = JsonReader::parse(base_path, text, &c->base);
    if (!s.is_ok()) r.fail("/base", s.message());
  } else if (base->is_object()) {
    c->base = *base;
  } else {
    r.fail("/base", "expected an experiment config file name or object");
  }
}

void read_executors(JsonReader& r, SweepConfig* c) {
  r.object("local", [&](JsonReader& l) { l.integer("jobs", &c->jobs, 1, 1024); });
  r.object("slurm", [&](JsonReader& s) {
    s.integer("cpus_per_task", &c->cpus_per_task, 0, 4096);
    s.text("time", &c->time_limit);
    s.text("mem", &c->mem);
    s.texts("sbatch_args", &c->sbatch_args);
  });
}

Status parse_sweep(const std::string& text, const std::string& path, SweepConfig* c) {
  json j;
  LW_RETURN_IF_ERROR(JsonReader::parse(path, text, &j));
  JsonReader r(path, j);
  c->path = path;
  c->name = fs::path(path).stem().string();
  r.text("name", &c->name);
  read_base(r, c);
  read_axes(r, c);
  read_devices(r, c);
  if (c->devices.empty()) c->devices.push_back(DeviceKind{"local", "", {}});
  c->output_dir = "results/sweeps/" + c->name;
  r.text("output_dir", &c->output_dir);
  c->lut_dir = c->output_dir + "/luts";
  r.text("lut_dir", &c->lut_dir);
  read_executors(r, c);
  return r.finish();
}

// Sets one axis value into a config; a pointer through a non-object is the axis's error.
Status apply(const SweepConfig& c, const SweepAxis& a, size_t k, const std::string& ap, json* config) {
  try {
    (*config)[json::json_pointer(a.path)] = a.values[k];
  } catch (const json::exception& e) {
    return parse_error(c.path + ": " + ap + "/path: " + a.path + " does not lead to a key of the experiment config");
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
  return c.lut_dir + "/" + model_label(resolved["model"].get<std::string>()) + "__" + device + "__" +
         fnv1a_hex(k.dump()).substr(0, 8) + ".lut.json";
}

// Every axis value is checked alone first, so an error names the value that caused it.
Status check_values(const SweepConfig& c, const CellChecker& check) {
  json resolved;
  std::string e = check(c.base, c.path + ": /base", &resolved);
  if (!e.empty()) return parse_error(e);
  for (size_t a = 0; a < c.axes.size(); ++a)
    for (size_t k = 0; k < c.axes[a].values.size(); ++k) {
      std::string vp = "/axes/" + std::to_string(a) + "/values/" + std::to_string(k);
      json cfg = c.base;
      LW_RETURN_IF_ERROR(apply(c, c.axes[a], k, "/axes/" + std::to_string(a), &cfg));
      e = check(cfg, c.path + ": " + vp + " gives", &resolved);
      if (!e.empty()) return parse_error(e);
    }
  return Status::ok();
}

Status expand(const SweepConfig& c, const CellChecker& check, SweepPlan* plan) {
  LW_RETURN_IF_ERROR(check_values(c, check));
  size_t total = c.devices.size();
  for (const auto& a : c.axes) total *= a.values.size();
  if (total > 100000)
    return parse_error(c.path + ": /axes: the grid has " + std::to_string(total) + " cells (at most 100000)");
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
      LW_RETURN_IF_ERROR(apply(c, c.axes[a], pick[a], "/axes/" + std::to_string(a), &cfg));
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
