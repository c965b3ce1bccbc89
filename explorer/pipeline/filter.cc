#include "explorer/pipeline/filter.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <nlohmann/json.hpp>

#include "libs/core/files.h"
#include "explorer/measure/baselines.h"
#include "explorer/pipeline/choice.h"
#include "explorer/measure/evaluator.h"
#include "libs/ir/network_json.h"

namespace lw {

namespace {

using nlohmann::json;

Status prepare_references(Evaluator& ev, std::vector<PreparedDeployment>* out) {
  for (const std::string& label : reference_labels()) {
    NamedDeployment d;
    Status s = baseline_deployment(ev.lut(), label, ev.options().max_threads, &d);
    if (s.code() == StatusCode::kUnsupported) continue;  // e.g. a LUT without int8 or openblas
    LW_RETURN_IF_ERROR(s);
    PreparedDeployment p;
    LW_RETURN_IF_ERROR(ev.prepare(label, d.names, &p));
    out->push_back(std::move(p));
  }
  return Status::ok();
}

json measurement_json(const Measurement& m) {
  return json{{"label", m.label},
              {"predicted_ms", m.predicted_ms},
              {"predicted_memory_bytes", m.predicted_memory_bytes},
              {"latency_ms", {{"median", m.latency.median}, {"min", m.latency.min}, {"p90", m.latency.p90},
                              {"cv", m.latency.cv}, {"runs", m.latency.runs}}},
              {"accuracy", {{"metric", m.accuracy.metric}, {"images", m.accuracy.images},
                            {"top1", m.accuracy.top1}, {"sqnr_db", m.accuracy.metric == "fidelity" ? json(m.accuracy.sqnr_db) : json()}}},
              {"memory_bytes", {{"arena", m.memory.arena_bytes}, {"workspace", m.memory.workspace_bytes},
                                {"weights", m.memory.weight_bytes}, {"planned_peak", m.memory.peak_bytes()},
                                {"measured_heap", m.memory.measured_heap_bytes}}},
              {"int8_layers", m.int8_layers},
              {"f32_layers", m.f32_layers},
              {"bf16_layers", m.bf16_layers},
              {"implementations", m.names}};
}

Measurement measurement_from(const json& j) {
  Measurement m;
  m.label = j.at("label");
  m.predicted_ms = j.at("predicted_ms");
  m.predicted_memory_bytes = j.at("predicted_memory_bytes");
  const json& l = j.at("latency_ms");
  m.latency = LatencyStats{l.at("median"), l.at("min"), l.at("p90"), l.at("cv"), l.at("runs")};
  const json& a = j.at("accuracy");
  m.accuracy.metric = a.at("metric");
  m.accuracy.images = a.at("images");
  m.accuracy.top1 = a.at("top1");
  if (a.at("sqnr_db").is_number()) m.accuracy.sqnr_db = a.at("sqnr_db");
  const json& b = j.at("memory_bytes");
  m.memory.arena_bytes = b.at("arena");
  m.memory.workspace_bytes = b.at("workspace");
  m.memory.weight_bytes = b.at("weights");
  m.memory.measured_heap_bytes = b.at("measured_heap");
  m.int8_layers = j.at("int8_layers");
  m.f32_layers = j.at("f32_layers");
  m.bf16_layers = j.value("bf16_layers", 0);  // absent in filter results from before bf16
  m.names = j.at("implementations").get<std::vector<std::string>>();
  return m;
}

FilterCandidate as_candidate(const Measurement& m) {
  FilterCandidate c;
  c.id = m.label;
  c.predicted_ms = m.predicted_ms;
  c.measured = true;
  c.measured_ms = m.latency.median;
  c.accuracy = m.accuracy.top1;
  c.peak_memory_bytes = m.measured_memory();
  return c;
}

}  // namespace

namespace {

std::string filtered_csv(const FilterResult& r) {
  std::vector<FilterCandidate> rows = r.candidates;
  std::vector<FilterCandidate> refs;  // the marked points, checked against the same constraints
  for (const Measurement& m : r.references) refs.push_back(as_candidate(m));
  apply_constraints(refs, r.reference_accuracy, r.constraints);
  rows.insert(rows.end(), refs.begin(), refs.end());
  return filter_csv(rows);
}

}  // namespace

namespace {

// The accuracy-drop base: the f32 reference deployment (Ref-FP32; Opt-FP32 when the LUT has
// no OpenBLAS convolution).
const Measurement* accuracy_base(const std::vector<PreparedDeployment>& refs) {
  for (Baseline b : {Baseline::kRefFp32, Baseline::kOptFp32})
    for (const PreparedDeployment& d : refs)
      if (d.m.label == to_string(b)) return &d.m;
  return nullptr;
}

// Every measured deployment as a contender of the choice, eligible when it meets the
// constraints (candidates were marked by apply_constraints; references are checked here).
std::vector<Contender> contenders(const std::vector<PreparedDeployment*>& all, const std::vector<FilterCandidate>& cands,
                                  double base_accuracy, const FilterConstraints& k) {
  std::vector<Contender> out;
  for (const PreparedDeployment* d : all) {
    Contender c{d->m.label, d->samples_ms, d->m.accuracy.top1, d->m.measured_memory(), false};
    auto it = std::find_if(cands.begin(), cands.end(), [&](const FilterCandidate& x) { return x.id == c.label; });
    if (it != cands.end()) {
      c.eligible = it->kept;
    } else {
      std::vector<FilterCandidate> one{as_candidate(d->m)};
      c.eligible = apply_constraints(one, base_accuracy, k) == 1;
    }
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace

Status run_filter(Evaluator& ev, std::vector<FilterCandidate> candidates, const FilterConstraints& k,
                  const std::string& out_dir, FilterResult* out) {
  FilterResult r;
  r.model = ev.network().name;
  r.metric = ev.metric();
  r.constraints = k;
  std::vector<size_t> band = select_in_band(candidates, k);
  // Plan and evaluate every deployment first, then time them all in interleaved rounds: a
  // candidate timed at another moment than a reference saw another machine (load, clocks).
  std::vector<PreparedDeployment> refs, measured(band.size());
  LW_RETURN_IF_ERROR(prepare_references(ev, &refs));
  for (size_t n = 0; n < band.size(); ++n)
    LW_RETURN_IF_ERROR(ev.prepare(candidates[band[n]].id, candidates[band[n]].impls, &measured[n]));
  std::vector<PreparedDeployment*> all;
  for (auto* v : {&refs, &measured})
    for (PreparedDeployment& d : *v) all.push_back(&d);
  LW_RETURN_IF_ERROR(ev.time_interleaved(all, ev.options().timing.runs));
  const Measurement* base = accuracy_base(refs);
  if (!base) return unsupported("filter: the LUT has no f32 reference deployment to compare accuracy with");
  r.reference_accuracy = base->accuracy.top1;
  auto mark = [&] {
    for (size_t n = 0; n < band.size(); ++n) {
      FilterCandidate& c = candidates[band[n]];
      c.measured = true;
      c.measured_ms = measured[n].m.latency.median;
      c.accuracy = measured[n].m.accuracy.top1;
      c.peak_memory_bytes = measured[n].m.measured_memory();
    }
    apply_constraints(candidates, r.reference_accuracy, k);
  };
  mark();
  std::vector<Contender> con = contenders(all, candidates, r.reference_accuracy, k);
  Remeasure more = [&](const std::vector<int>& which, int rounds) {
    std::vector<PreparedDeployment*> w;
    for (int i : which) w.push_back(all[i]);
    LW_RETURN_IF_ERROR(ev.time_interleaved(w, rounds));
    for (int i : which) con[i].samples_ms = all[i]->samples_ms;
    return Status::ok();
  };
  Choice choice;
  LW_RETURN_IF_ERROR(choose_measured_best(con, ChoiceOptions{}, more, &choice));
  mark();  // re-measured contenders have more samples now
  r.chosen = choice.index >= 0 ? con[choice.index].label : "";
  r.chosen_why = choice.why;
  r.tie_break_rounds = choice.extra_rounds;
  for (PreparedDeployment& d : refs) r.references.push_back(std::move(d.m));
  for (PreparedDeployment& d : measured) r.measured.push_back(std::move(d.m));
  r.candidates = std::move(candidates);
  LW_RETURN_IF_ERROR(make_dirs(out_dir));
  LW_RETURN_IF_ERROR(write_file_atomic(out_dir + "/filtered.csv", filtered_csv(r)));
  LW_RETURN_IF_ERROR(write_file_atomic(out_dir + "/filter.json", filter_json(r)));
  *out = std::move(r);
  return Status::ok();
}

std::string filter_json(const FilterResult& r) {
  json j{{"format", "layerwise-filter/1"}, {"model", r.model}, {"metric", r.metric},
         {"reference_accuracy", r.reference_accuracy}, {"chosen", r.chosen}, {"chosen_why", r.chosen_why},
         {"tie_break_rounds", r.tie_break_rounds}};
  j["constraints"] = {{"latency_band_pct", r.constraints.latency_band_pct},
                      {"max_candidates", r.constraints.max_candidates},
                      {"max_accuracy_drop_pct", r.constraints.max_accuracy_drop_pct},
                      {"max_memory_bytes", r.constraints.max_memory_bytes ? json(*r.constraints.max_memory_bytes) : json()}};
  // Assignments only for the measured candidates: the rest are in the search's solutions.csv,
  // and 19 000 Q-learning solutions of ResNet-50 made a 98 MB filter.json.
  json cands = json::array();
  for (const FilterCandidate& c : r.candidates) {
    cands.push_back({{"id", c.id}, {"predicted_ms", c.predicted_ms}, {"predicted_memory_bytes", c.predicted_memory_bytes},
                     {"measured", c.measured}, {"kept", c.kept}, {"rejected_because", c.rejected_because}});
    if (c.measured) cands.back()["implementations"] = c.impls;
  }
  j["candidates"] = cands;
  j["measured"] = json::array();
  for (const Measurement& m : r.measured) j["measured"].push_back(measurement_json(m));
  j["references"] = json::array();
  for (const Measurement& m : r.references) j["references"].push_back(measurement_json(m));
  return j.dump(1) + "\n";
}

Status load_filter_result(const std::string& path, FilterResult* out) {
  std::string text;
  LW_RETURN_IF_ERROR(read_file(path, &text));
  try {
    json j = json::parse(text);
    if (j.at("format") != "layerwise-filter/1") return parse_error(path + ": not a layerwise-filter/1 file");
    FilterResult r;
    r.model = j.at("model");
    r.metric = j.at("metric");
    r.reference_accuracy = j.at("reference_accuracy");
    r.chosen = j.at("chosen");
    r.chosen_why = j.value("chosen_why", std::string());
    r.tie_break_rounds = j.value("tie_break_rounds", 0);
    const json& k = j.at("constraints");
    r.constraints.latency_band_pct = k.at("latency_band_pct");
    r.constraints.max_candidates = k.at("max_candidates");
    r.constraints.max_accuracy_drop_pct = k.at("max_accuracy_drop_pct");
    if (k.at("max_memory_bytes").is_number()) r.constraints.max_memory_bytes = k.at("max_memory_bytes").get<double>();
    for (const json& m : j.at("measured")) r.measured.push_back(measurement_from(m));
    for (const json& m : j.at("references")) r.references.push_back(measurement_from(m));
    for (const json& c : j.at("candidates")) {
      FilterCandidate x;
      x.id = c.at("id");
      x.predicted_ms = c.at("predicted_ms");
      x.predicted_memory_bytes = c.at("predicted_memory_bytes");
      x.measured = c.at("measured");
      x.kept = c.at("kept");
      x.rejected_because = c.at("rejected_because");
      if (c.contains("implementations")) x.impls = c.at("implementations").get<std::vector<std::string>>();
      if (const Measurement* m = r.find(x.id)) {
        x.measured_ms = m->latency.median;
        x.accuracy = m->accuracy.top1;
        x.peak_memory_bytes = m->measured_memory();
      }
      r.candidates.push_back(std::move(x));
    }
    *out = std::move(r);
  } catch (const json::exception& e) {
    return parse_error(path + ": " + e.what());
  }
  return Status::ok();
}

Status read_solutions_csv(const std::string& path, const Lut& lut, const std::string& prefix,
                          std::vector<FilterCandidate>* out) {
  std::ifstream f(path);
  if (!f) return io_error(path + ": cannot open (run `layerwise search --out DIR` first)");
  std::string line;
  if (!std::getline(f, line) || line.rfind("latency_ms,memory_bytes,assignment", 0) != 0)
    return parse_error(path + ": line 1: expected the header latency_ms,memory_bytes,assignment");
  out->clear();
  for (int row = 2; std::getline(f, line); ++row) {
    if (line.empty()) continue;
    auto bad = [&](const std::string& why) { return parse_error(path + ": line " + std::to_string(row) + ": " + why); };
    size_t c1 = line.find(','), c2 = c1 == std::string::npos ? c1 : line.find(',', c1 + 1);
    if (c2 == std::string::npos) return bad("expected three columns");
    FilterCandidate c;
    char id[32];
    std::snprintf(id, sizeof id, "-%04d", row - 2);
    c.id = prefix + id;
    try {
      c.predicted_ms = std::stod(line.substr(0, c1));
      c.predicted_memory_bytes = std::stod(line.substr(c1 + 1, c2 - c1 - 1));
    } catch (const std::exception&) {
      return bad("latency or memory is not a number");
    }
    std::string names = line.substr(c2 + 1);
    if (names.size() >= 2 && names.front() == '"' && names.back() == '"') names = names.substr(1, names.size() - 2);
    std::stringstream ss(names);
    for (std::string n; std::getline(ss, n, ';');) c.impls.push_back(n);
    if (c.impls.size() != lut.layers.size())
      return bad(std::to_string(c.impls.size()) + " implementations for a LUT of " + std::to_string(lut.layers.size()) +
                 " layers (solutions of another model?)");
    out->push_back(std::move(c));
  }
  return Status::ok();
}

const Measurement* FilterResult::find(const std::string& label) const {
  for (const auto* v : {&measured, &references})
    for (const Measurement& m : *v)
      if (m.label == label) return &m;
  return nullptr;
}

}  // namespace lw
