#include "explorer/pipeline/pareto.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <sstream>

#include "explorer/measure/baselines.h"
#include "explorer/pipeline/filter.h"
#include "libs/core/files.h"
#include "libs/ir/network_json.h"

namespace lw {

namespace {
// Both objectives as "lower is better".
double second(const ParetoPoint& c, SecondAxis axis) {
  return axis == SecondAxis::kAccuracy ? -c.accuracy : c.memory_bytes;
}
// Marked on the plots: the references (explorer/measure/baselines.h) and the chosen deployment.
std::vector<std::string> marked_labels() {
  std::vector<std::string> v = reference_labels();
  v.push_back("chosen");
  return v;
}
}  // namespace

bool dominates(const ParetoPoint& a, const ParetoPoint& b, SecondAxis axis) {
  double a2 = second(a, axis), b2 = second(b, axis);
  return a.latency_ms <= b.latency_ms && a2 <= b2 && (a.latency_ms < b.latency_ms || a2 < b2);
}

std::vector<size_t> pareto_front(const std::vector<ParetoPoint>& c, SecondAxis axis) {
  std::vector<size_t> idx(c.size());
  std::iota(idx.begin(), idx.end(), 0);
  // Sort by latency, then by the second objective: a sweep keeps each point that improves on
  // the best second objective seen so far. Stable, so equal points keep the first one.
  std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
    if (c[a].latency_ms != c[b].latency_ms) return c[a].latency_ms < c[b].latency_ms;
    return second(c[a], axis) < second(c[b], axis);
  });
  std::vector<size_t> front;
  for (size_t i : idx)
    if (front.empty() || second(c[i], axis) < second(c[front.back()], axis)) front.push_back(i);
  return front;
}

std::string pareto_csv(const std::vector<ParetoPoint>& c, SecondAxis axis) {
  auto front = pareto_front(c, axis);
  std::vector<bool> on(c.size(), false);
  for (size_t i : front) on[i] = true;
  std::ostringstream out;
  out << "label,latency_ms,accuracy_pct,memory_MiB,on_front\n";
  for (size_t i = 0; i < c.size(); ++i) {
    char line[256];
    std::snprintf(line, sizeof line, "%s,%.4f,%.3f,%.3f,%d\n", c[i].label.c_str(), c[i].latency_ms,
                  100 * c[i].accuracy, c[i].memory_bytes / (1024.0 * 1024.0), on[i] ? 1 : 0);
    out << line;
  }
  return out.str();
}

namespace {
// The front is an inline datablock sorted by latency: drawn from the CSV, the line would
// break at every point off the front.
std::string gnuplot_script(const std::vector<ParetoPoint>& c, const std::string& csv, SecondAxis axis,
                           const std::string& stem, const std::string& title, const std::string& terminal,
                           const std::string& ext) {
  bool acc = axis == SecondAxis::kAccuracy;
  std::ostringstream g;
  g << "$front << EOD\n";
  for (size_t i : pareto_front(c, axis))
    g << c[i].latency_ms << ',' << (acc ? 100 * c[i].accuracy : c[i].memory_bytes / (1024.0 * 1024.0)) << "\n";
  g << "EOD\n";
  g << "set terminal " << terminal << "\nset output '" << stem << "." << ext << "'\n"
    << "set datafile separator ','\nset key outside right top\nset grid\n"
    << "set title '" << title << "' noenhanced\nset xlabel 'latency (ms)'\n"
    << "set ylabel '" << (acc ? "top-1 accuracy (%)" : "peak memory (MiB)") << "'\n";
  int col = acc ? 3 : 4;
  g << "plot '" << csv << "' every ::1 using 2:" << col << " with points pt 7 ps 0.6 lc rgb '#999999' title 'candidates', \\\n"
    << "  $front using 1:2 with linespoints pt 7 lc rgb '#1f77b4' title 'Pareto front'";
  const char* colours[] = {"#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2"};
  const std::vector<std::string> marked = marked_labels();
  for (size_t k = 0; k < marked.size(); ++k)
    g << ", \\\n  '" << csv << "' every ::1 using 2:(strcol(1) eq '" << marked[k] << "' ? $" << col
      << " : 1/0) with points pt 9 ps 2 lc rgb '" << colours[k % 6] << "' title '" << marked[k] << "'";
  g << "\n";
  return g.str();
}
}  // namespace

Status write_pareto(const std::vector<ParetoPoint>& c, SecondAxis axis, const std::string& stem, const std::string& title) {
  const std::string csv = stem + ".csv";
  LW_RETURN_IF_ERROR(write_file_atomic(csv, pareto_csv(c, axis)));
  const std::pair<const char*, const char*> outputs[] = {{"pngcairo size 900,600", "png"}, {"svg size 900,600", "svg"}};
  for (const auto& [terminal, ext] : outputs) {
    std::string script = stem + "." + ext + ".gp";
    LW_RETURN_IF_ERROR(write_file_atomic(script, gnuplot_script(c, csv, axis, stem, title, terminal, ext)));
    int rc = std::system(("gnuplot '" + script + "' 2>" + stem + ".gnuplot.log").c_str());
    std::remove(script.c_str());
    if (rc != 0) return failed("failed to plot " + stem + "." + ext + ": gnuplot exited with " + std::to_string(rc) +
                               " (see " + stem + ".gnuplot.log; scripts/setup installs gnuplot-nox)");
    std::remove((stem + ".gnuplot.log").c_str());
  }
  return Status::ok();
}

std::vector<ParetoPoint> pareto_points(const FilterResult& r, std::vector<bool>* mixed) {
  std::vector<ParetoPoint> p;
  mixed->clear();
  auto add = [&](const Measurement& m, const std::string& label) {
    p.push_back(ParetoPoint{label, m.latency.median, m.accuracy.top1, m.measured_memory()});
    mixed->push_back(m.mixed_precision());
  };
  for (const Measurement& m : r.measured) add(m, m.label == r.chosen ? "chosen" : m.label);
  for (const Measurement& m : r.references) {
    add(m, m.label);
    if (m.label == r.chosen) add(m, "chosen");  // a reference can win the choice too
  }
  return p;
}

Status run_pareto(const FilterResult& r, const std::string& out_dir, ParetoSummary* summary) {
  LW_RETURN_IF_ERROR(make_dirs(out_dir));
  std::vector<bool> mixed;
  std::vector<ParetoPoint> p = pareto_points(r, &mixed);
  if (p.empty()) return invalid_argument("pareto: the filter measured nothing");
  ParetoSummary s;
  s.points = int(p.size());
  const std::string what = r.metric == "top1" ? "top-1 on the Fashion-MNIST test split"
                                              : "FIDELITY (top-1 agreement with f32), random weights";
  for (SecondAxis axis : {SecondAxis::kAccuracy, SecondAxis::kMemory}) {
    bool acc = axis == SecondAxis::kAccuracy;
    std::vector<size_t> front = pareto_front(p, axis);
    int m = 0;
    for (size_t i : front) m += mixed[i];
    (acc ? s.accuracy_front : s.memory_front) = int(front.size());
    (acc ? s.mixed_on_accuracy_front : s.mixed_on_memory_front) = m;
    std::string title = r.model + ": latency vs " + (acc ? what : std::string("measured peak memory")) +
                        " (measured on this device)";
    LW_RETURN_IF_ERROR(write_pareto(p, axis, out_dir + (acc ? "/pareto_accuracy" : "/pareto_memory"), title));
  }
  if (summary) *summary = s;
  return Status::ok();
}

}  // namespace lw
