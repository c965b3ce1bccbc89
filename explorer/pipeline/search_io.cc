#include "explorer/pipeline/search_io.h"

#include <chrono>
#include <cstdio>
#include <sstream>

#include "libs/core/files.h"
#include "env/device.h"
#include "explorer/cli/cli.h"
#include "explorer/cli/progress.h"
#include "libs/ir/network_json.h"

namespace lw::cli {

void load_problem(const std::string& path, Lut* lut, Problem* problem, bool force) {
  ok_or_throw(load_lut(path, lut));
  // A LUT measured elsewhere describes another machine: searching it here answers the wrong
  // question unless the user says so. Synthetic LUTs (layerwise synth) are demo data.
  auto device = nlohmann::json::parse(lut->device_json, nullptr, false);
  if (device.is_object() && device.value("synthetic", false)) {
    std::fprintf(stderr, "note: %s is a synthetic LUT (invented costs, not measured)\n", path.c_str());
  } else if (std::string why = device_mismatch(device, device_fingerprint()); !why.empty() && !force) {
    throw UsageError(path + ": measured on another device (" + why + "); pass --force to use it anyway");
  }
  ok_or_throw(compile_problem(*lut, problem));
}

std::function<void(double)> progress_line(const std::string& label, bool quiet) {
  if (quiet) return {};
  auto line = std::make_shared<ProgressLine>(false);
  auto t0 = std::chrono::steady_clock::now();
  return [label, line, t0](double f) {
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    line->update(label, f, f > 0 ? s * (1 - f) / f : 0, f >= 1.0);
    if (f >= 1.0) line->finish();
  };
}

std::string config_arg(const std::string& value) {
  if (value.empty()) return "{}";
  if (value[0] == '{') return value;
  std::string text;
  ok_or_throw(read_file(value, &text));
  return text;
}

std::string assignment_names(const Lut& lut, const std::vector<int>& a) {
  std::string s;
  for (size_t i = 0; i < a.size(); ++i) s += (i ? ";" : "") + lut.layers[i].impls[a[i]].name;
  return s;
}

void write_solutions_csv(const std::string& path, const Lut& lut, const SearchResult& r) {
  std::ostringstream o;
  o << "latency_ms,memory_bytes,assignment\n";
  o.precision(9);
  for (const auto& s : r.solutions) o << s.latency_ms << ',' << s.memory_bytes << ",\"" << assignment_names(lut, s.assignment) << "\"\n";
  ok_or_throw(write_file_atomic(path, o.str()));
}

void write_curve_csv(const std::string& path, const SearchResult& r) {
  std::ostringstream o;
  o << "episode,return_ms,best_latency_ms,epsilon,greedy_ms\n";
  o.precision(9);
  for (const auto& c : r.curve)
    o << c.episode << ',' << c.return_ms << ',' << c.best_latency_ms << ',' << c.epsilon << ',' << c.greedy_ms << '\n';
  ok_or_throw(write_file_atomic(path, o.str()));
}

}  // namespace lw::cli
