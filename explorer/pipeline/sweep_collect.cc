// `layerwise sweep --collect` (explorer/pipeline/sweep_exec.h): one CSV over every finished cell (its
// keys, each agent x seed's search result against the exact optimum, the replayed chosen
// deployment), plots, and the cells still missing with the reason each one gives.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "libs/core/files.h"
#include "libs/core/hash.h"
#include "explorer/pipeline/model.h"
#include "explorer/pipeline/pareto.h"
#include "explorer/pipeline/sweep_exec.h"
#include "libs/ir/network_json.h"

namespace lw {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string num(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.6g", v);
  return b;
}

// A short stable name for an assignment, so equal search results compare equal in the CSV.
std::string solution_id(const json& best) { return fnv1a_hex(best.dump()).substr(4); }  // low 48 bits

struct Collected {
  std::ostringstream csv;
  std::map<std::string, std::vector<std::pair<double, double>>> gap_by_agent;  // states, gap %
  std::map<std::string, std::vector<ParetoPoint>> chosen_by_model;
  int rows = 0;
};

void collect_cell(const SweepCell& c, const CellStatus& s, Collected* out) {
  const std::string& rd = s.run_dir;
  json replay = read_json_file(rd + "/replay.json");
  double optimum = read_json_file(rd + "/search/exact__s0/result.json").value("best_latency_ms", 0.0);
  std::string tail;
  ParetoPoint pt{c.id, 0, 0, 0};
  if (replay.is_object()) {
    pt.latency_ms = replay["latency_ms"].value("median", 0.0);
    pt.accuracy = replay["accuracy"].value("top1", 0.0);
    pt.memory_bytes = replay["memory_bytes"].value("planned_peak", 0.0);
    out->chosen_by_model[model_label(c.config["model"].get<std::string>())].push_back(pt);
    tail = num(pt.latency_ms) + "," + num(100 * pt.accuracy) + "," + num(pt.memory_bytes / 1048576.0);
  } else {
    tail = ",,";
  }
  for (const json& a : c.config["search"]["agents"])
    for (const json& seed : c.config["search"]["seeds"]) {
      std::string agent = a["agent"];
      json r = read_json_file(rd + "/search/" + agent + "__s" + seed.dump() + "/result.json");
      if (!r.is_object()) continue;
      double best = r.value("best_latency_ms", 0.0), gap = optimum > 0 ? 100 * (best - optimum) / optimum : 0;
      if (std::fabs(gap) < 1e-9) gap = 0;  // the optimum found, up to the order of summation
      out->csv << c.id;
      for (const auto& k : c.keys) out->csv << "," << csv_field(k);
      out->csv << "," << agent << "," << seed.dump() << "," << num(best) << "," << num(optimum) << "," << num(gap)
               << "," << r.value("states", 0.0) << "," << r.value("episodes", 0.0) << ","
               << (r.value("proven_optimal", false) ? 1 : 0) << "," << solution_id(r["best"]) << ","
               << num(r.value("wall_ms", 0.0)) << "," << tail << "," << num(s.wall_s) << "\n";
      out->gap_by_agent[agent].push_back({std::max(1.0, r.value("states", 0.0)), gap});
      ++out->rows;
    }
}

// gap vs states considered, one series per agent (QS-DNN Table III as a picture).
void plot_gaps(const Collected& c, const std::string& dir) {
  std::ostringstream g;
  std::string series;
  for (const auto& [agent, pts] : c.gap_by_agent) {
    std::string block = "$" + std::string(1, char('a' + series.size() % 26)) + std::to_string(series.size());
    g << block << " << EOD\n";
    for (const auto& [x, y] : pts) g << x << " " << y << "\n";
    g << "EOD\n";
    series += std::string(series.empty() ? "plot " : ", ") + block + " using 1:2 with points pt 7 title '" + agent + "'";
  }
  if (series.empty()) return;
  for (const char* ext : {"png", "svg"}) {
    std::string stem = dir + "/gap_vs_states", script = stem + "." + ext + ".gp";
    std::ofstream(script) << "set terminal " << (ext == std::string("png") ? "pngcairo" : "svg") << " size 900,600\n"
                          << "set output '" << stem << "." << ext << "'\n" << g.str()
                          << "set logscale x\nset grid\nset key outside right top\nset xlabel 'states considered'\n"
                          << "set ylabel 'gap to the exact optimum (%)'\nset title 'search: gap vs states, every cell'\n"
                          << series << "\n";
    if (std::system(("gnuplot '" + script + "' 2>/dev/null").c_str()) != 0)
      std::fprintf(stderr, "sweep --collect: gnuplot failed on %s (scripts/setup installs gnuplot-nox)\n", script.c_str());
    std::remove(script.c_str());
  }
}

// Why a cell is not done, from its own status file, its LUT's and (when there) Slurm's accounting.
std::string why_missing(const SweepPlan& p, const SweepCell& c, const CellStatus& s) {
  if (s.state == CellState::kFailed) return s.reason;
  std::string lut = c.lut >= 0 ? lut_failure(p.luts[c.lut]) : "";
  if (!lut.empty()) return "its LUT profile failed: " + lut;
  if (s.state == CellState::kPending) return "never started";
  std::string why = s.reason + ", no result: still running, or killed (run the sweep again to resume it)";
  if (s.job.rfind("local:", 0) != 0) {
    FILE* f = ::popen(("sacct -n -P -X -o State,ExitCode -j '" + s.job + "' 2>/dev/null").c_str(), "r");
    char buf[256] = {0};
    if (f && std::fgets(buf, sizeof buf, f) && buf[0]) why += "; sacct: " + std::string(buf, std::strcspn(buf, "\n"));
    if (f) ::pclose(f);
  }
  return why;
}

}  // namespace

Status collect_sweep(const SweepPlan& p, int* missing_cells) {
  const std::string& dir = p.cfg.output_dir;
  Collected c;
  c.csv << "cell";
  for (const auto& k : p.key_names) c.csv << "," << k;
  c.csv << ",search_agent,search_seed,best_latency_ms,optimum_ms,gap_pct,states,episodes,proven_optimal,solution,search_wall_ms,"
           "chosen_latency_ms,chosen_accuracy_pct,chosen_peak_mib,cell_wall_s\n";
  std::ostringstream missing;
  int done = 0, not_done = 0;
  double sum_s = 0;
  for (const SweepCell& cell : p.cells) {
    CellStatus s = cell_status(dir, cell);
    if (s.state == CellState::kDone) {
      collect_cell(cell, s, &c);
      sum_s += s.wall_s;
      ++done;
      continue;
    }
    ++not_done;
    std::string keys;
    for (const auto& k : cell.keys) keys += (keys.empty() ? "" : " ") + k;
    missing << cell.id << " [" << keys << "] " << to_string(s.state) << ": " << why_missing(p, cell, s) << "\n";
  }
  LW_RETURN_IF_ERROR(write_file_atomic(dir + "/sweep.csv", c.csv.str()));
  LW_RETURN_IF_ERROR(write_file_atomic(dir + "/missing.txt", missing.str()));
  LW_RETURN_IF_ERROR(make_dirs(dir + "/plots"));
  plot_gaps(c, dir + "/plots");
  for (const auto& [model, pts] : c.chosen_by_model) {
    Status s = write_pareto(pts, SecondAxis::kMemory, dir + "/plots/front_memory_" + model, model + ": chosen deployment per cell");
    if (s.is_ok()) s = write_pareto(pts, SecondAxis::kAccuracy, dir + "/plots/front_accuracy_" + model, model + ": chosen deployment per cell");
    if (!s.is_ok()) std::fprintf(stderr, "sweep --collect: %s\n", s.message().c_str());
  }
  std::printf("sweep %s: %d of %zu cells done, %d rows in %s/sweep.csv (plots in %s/plots/); "
              "sum of the cells' own times %.1f s\n", p.cfg.name.c_str(), done, p.cells.size(), c.rows, dir.c_str(),
              dir.c_str(), sum_s);
  if (not_done) std::printf("%d cells missing or failed (%s/missing.txt):\n%s", not_done, dir.c_str(), missing.str().c_str());
  *missing_cells = not_done;
  return Status::ok();
}

}  // namespace lw
