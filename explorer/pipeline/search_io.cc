#include "explorer/pipeline/search_io.h"

#include <chrono>
#include <cstdio>
#include <sstream>

#include "libs/core/files.h"
#include "env/device.h"
#include "explorer/cli/progress.h"
#include "libs/ir/network_json.h"

namespace lw {

using json = nlohmann::json;

Status load_problem(const std::string& path, Lut* lut, Problem* problem, bool force) {
  LW_RETURN_IF_ERROR(load_lut(path, lut));
  // A LUT measured elsewhere describes another machine: searching it here answers the wrong
  // question unless the user says so. Synthetic LUTs (layerwise synth) are demo data.
  auto device = nlohmann::json::parse(lut->device_json, nullptr, false);
  if (device.is_object() && device.value("synthetic", false)) {
    std::fprintf(stderr, "note: %s is a synthetic LUT (invented costs, not measured)\n", path.c_str());
  } else if (std::string why = device_mismatch(device, device_fingerprint()); !why.empty() && !force) {
    return invalid_argument(path + ": measured on another device (" + why + "); pass --force to use it anyway");
  }
  return compile_problem(*lut, problem);
}

std::function<void(double)> progress_line(const std::string& label, bool quiet) {
  if (quiet) return {};
  auto line = std::make_shared<cli::ProgressLine>(false);
  auto t0 = std::chrono::steady_clock::now();
  return [label, line, t0](double f) {
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    line->update(label, f, f > 0 ? s * (1 - f) / f : 0, f >= 1.0);
    if (f >= 1.0) line->finish();
  };
}

std::string assignment_names(const Lut& lut, const std::vector<int>& a) {
  std::string s;
  for (size_t i = 0; i < a.size(); ++i) s += (i ? ";" : "") + lut.layers[i].impls[a[i]].name;
  return s;
}

Status write_solutions_csv(const std::string& path, const Lut& lut, const SearchResult& r) {
  std::ostringstream o;
  o << "latency_ms,memory_bytes,assignment\n";
  o.precision(9);
  for (const auto& s : r.solutions) o << s.latency_ms << ',' << s.memory_bytes << ",\"" << assignment_names(lut, s.assignment) << "\"\n";
  return write_file_atomic(path, o.str());
}

Status write_curve_csv(const std::string& path, const SearchResult& r) {
  std::ostringstream o;
  o << "episode,return_ms,best_latency_ms,epsilon,greedy_ms\n";
  o.precision(9);
  for (const auto& c : r.curve)
    o << c.episode << ',' << c.return_ms << ',' << c.best_latency_ms << ',' << c.epsilon << ',' << c.greedy_ms << '\n';
  return write_file_atomic(path, o.str());
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

}  // namespace lw
