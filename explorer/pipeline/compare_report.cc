#include "explorer/pipeline/compare_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "libs/core/files.h"
#include "libs/ir/network_json.h"

namespace lw::cli {
namespace {

// Sums in a different order differ in the last bits: below 1e-9 % the gap prints as 0.
double gap_pct(double latency, double optimum) {
  const double g = 100.0 * (latency - optimum) / optimum;
  return std::abs(g) < 1e-9 ? 0.0 : g;
}

// The answer after each curve point (see states_until_near); +inf before the first.
std::vector<double> answers(const SearchResult& r) {
  std::vector<double> a;
  double last = kInf;
  for (const auto& c : r.curve) {
    if (!r.greedy_answer) last = c.best_latency_ms;
    else if (c.greedy_ms >= 0) last = c.greedy_ms;
    a.push_back(last);
  }
  return a;
}

}  // namespace

int64_t states_until_near(const SearchResult& r, double optimum) {
  const double near = optimum * (1 + kNearOptimumPct / 100);
  if (!(r.best_latency_ms <= near)) return -1;
  const auto a = answers(r);
  int64_t until = r.states_considered;
  for (size_t i = a.size(); i-- > 0 && a[i] <= near;) until = r.curve[i].states;
  return until;
}

std::string compare_table(const std::vector<CompareRow>& rows, double optimum, int layers, bool csv) {
  std::ostringstream o;
  char line[400];
  if (csv)
    o << "algorithm,runs,latency_ms_mean,gap_pct_mean,gap_pct_worst,states_mean,states_to_near_mean,"
         "states_to_near_worst,wall_ms_mean,cpu_ms_mean,cpu_ms_max,episodes_mean\n";
  else
    std::snprintf(line, sizeof line, "%-18s %4s %11s %8s %9s %11s %13s %13s %10s %10s %10s %8s\n", "algorithm", "runs",
                  "latency_ms", "gap_%", "worst_%", "states", "to_0.5%", "to_0.5%_max", "wall_ms", "cpu_ms", "cpu_max",
                  "episodes"),
        o << line;
  for (const auto& row : rows) {
    const double k = double(row.runs.size());
    double lat = 0, gap = 0, worst = -kInf, states = 0, wall = 0, cpu = 0, cpu_max = 0, eps = 0, near_sum = 0;
    int64_t near_max = 0;
    bool never = false;
    for (const auto& r : row.runs) {
      lat += r.best_latency_ms / k, gap += gap_pct(r.best_latency_ms, optimum) / k;
      worst = std::max(worst, gap_pct(r.best_latency_ms, optimum));
      states += double(r.states_considered) / k, wall += r.wall_ms / k, cpu += r.cpu_ms / k;
      cpu_max = std::max(cpu_max, r.cpu_ms), eps += r.episodes / k;
      const int64_t s = states_until_near(r, optimum);
      never |= s < 0;
      near_sum += double(s) / k, near_max = std::max(near_max, s);
    }
    const double near_mean = never ? -1 : near_sum;
    if (never) near_max = -1;
    std::snprintf(line, sizeof line,
                  csv ? "%s,%d,%.6f,%.4f,%.4f,%.0f,%.0f,%lld,%.3f,%.3f,%.3f,%.0f\n"
                      : "%-18s %4d %11.4f %8.3f %9.3f %11.0f %13.0f %13lld %10.1f %10.1f %10.1f %8.0f\n",
                  row.label.c_str(), int(k), lat, gap, worst, states, near_mean, (long long)near_max, wall, cpu, cpu_max,
                  eps);
    o << line;
  }
  if (!csv) o << "(" << layers << " layers; to_0.5% = states considered until the answer is within 0.5 % for good, -1 = never)\n";
  return o.str();
}

std::string curves_csv(const std::vector<CompareRow>& rows, double optimum) {
  std::ostringstream o;
  o << "agent,seed,episode,states,best_latency_ms,greedy_ms,gap_pct\n";
  o.precision(9);
  for (const auto& row : rows)
    for (size_t s = 0; s < row.runs.size(); ++s) {
      const auto a = answers(row.runs[s]);
      for (size_t i = 0; i < a.size(); ++i) {
        const auto& c = row.runs[s].curve[i];
        o << row.label << ',' << row.seeds[s] << ',' << c.episode << ',' << c.states << ',' << c.best_latency_ms << ','
          << c.greedy_ms << ',' << (a[i] < kInf ? gap_pct(a[i], optimum) : -1) << '\n';
      }
    }
  return o.str();
}

Status plot_curves(const std::vector<CompareRow>& rows, const std::string& stem, const std::string& model) {
  const std::string csv = stem + ".csv";
  std::vector<std::pair<std::string, uint64_t>> series;  // (agent, seed) with a curve
  for (const auto& row : rows)
    for (size_t s = 0; s < row.runs.size(); ++s)
      if (!row.runs[s].curve.empty()) series.push_back({row.label, row.seeds[s]});
  if (series.empty()) return Status::ok();
  const std::pair<const char*, const char*> outputs[] = {{"pngcairo size 1000,600", "png"}, {"svg size 1000,600", "svg"}};
  for (const auto& [terminal, ext] : outputs) {
    std::ostringstream g;
    g << "set terminal " << terminal << "\nset output '" << stem << "." << ext << "'\n"
      << "set datafile separator ','\nset key outside right top noenhanced\nset grid\nset logscale xy\n"
      << "set title 'learning curves, " << model << ": gap of the reported answer to the optimum' noenhanced\n"
      << "set xlabel 'states considered'\nset ylabel 'gap to optimum (%), 0 drawn at 0.01'\nplot ";
    bool first = true;
    for (const auto& [agent, seed] : series) {
      g << (first ? "" : ", \\\n  ") << "'" << csv << "' every ::1 using 4:((strcol(1) eq '" << agent
        << "' && $2 == " << seed << " && $7 >= 0) ? ($7 < 0.01 ? 0.01 : $7) : 1/0) with lines title '" << agent
        << " s" << seed << "'";
      first = false;
    }
    g << "\n";
    const std::string script = stem + "." + ext + ".gp";
    LW_RETURN_IF_ERROR(write_file_atomic(script, g.str()));
    const int rc = std::system(("gnuplot '" + script + "' 2>" + stem + ".gnuplot.log").c_str());
    std::remove(script.c_str());
    if (rc != 0) return failed("failed to plot " + stem + "." + ext + ": gnuplot exited with " + std::to_string(rc) +
                               " (see " + stem + ".gnuplot.log; scripts/setup installs gnuplot-nox)");
    std::remove((stem + ".gnuplot.log").c_str());
  }
  return Status::ok();
}

}  // namespace lw::cli
