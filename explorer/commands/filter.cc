// `layerwise filter`: the constraint filter of QS-DNN §V-C on the device.
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "libs/core/files.h"
#include "explorer/commands/stage_args.h"
#include "explorer/pipeline/filter.h"
#include "libs/ir/network_json.h"

namespace lw::cli {
namespace {

// Candidate ids: the agent named in the search's config.json beside solutions.csv, else "solK".
std::string prefix_for(const std::string& solutions, size_t k) {
  std::string text;
  auto cfg = std::filesystem::path(solutions).parent_path() / "config.json";
  if (read_file(cfg.string(), &text).is_ok()) {
    auto j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_object() && j.contains("agent") && j["agent"].is_string()) return j["agent"].get<std::string>();
  }
  return "sol" + std::to_string(k);
}

std::vector<FilterCandidate> read_all(const std::string& list, const Lut& lut) {
  std::vector<FilterCandidate> all;
  std::stringstream ss(list);
  size_t k = 0;
  for (std::string path; std::getline(ss, path, ',');) {
    std::vector<FilterCandidate> c;
    ok_or_throw(read_solutions_csv(path, lut, prefix_for(path, k++), &c));
    all.insert(all.end(), c.begin(), c.end());
  }
  if (all.empty()) throw UsageError("--solutions: no solutions in '" + list + "'");
  return all;
}

void print_row(const Measurement& m) {
  std::string acc = m.accuracy.metric == "fidelity" ? " (SQNR " + std::to_string(int(m.accuracy.sqnr_db + 0.5)) + " dB)" : "";
  std::printf("%-24s %10.3f %10.3f %9.2f%s %9.2f %9.2f  %3d/%-3d\n", m.label.c_str(), m.predicted_ms, m.latency.median,
              100 * m.accuracy.top1, acc.c_str(), m.memory.peak_bytes() / 1048576.0,
              m.memory.measured_heap_bytes / 1048576.0, m.int8_layers + m.bf16_layers,  // reduced precision: int8 + bf16
              m.int8_layers + m.bf16_layers + m.f32_layers);
}

int run_filter_cmd(const std::vector<std::string>& argv) {
  auto names = eval_option_names();
  names.insert({"solutions", "out", "band", "max-candidates", "max-accuracy-drop", "max-memory-mib", "runs"});
  Args args(argv, {"quiet"}, names);
  if (!args.has("solutions")) throw UsageError("--solutions is required (solutions.csv of `layerwise search`)");
  FilterConstraints k;
  k.latency_band_pct = args.get_double("band", k.latency_band_pct);
  k.max_candidates = args.get_int("max-candidates", k.max_candidates);
  k.max_accuracy_drop_pct = args.get_double("max-accuracy-drop", k.max_accuracy_drop_pct);
  if (args.has("max-memory-mib")) k.max_memory_bytes = args.get_double("max-memory-mib", 0) * 1048576.0;
  if (k.latency_band_pct < 0 || k.max_candidates < 1) throw UsageError("--band must be >= 0 and --max-candidates >= 1");
  int runs = args.get_int("runs", kDefaultTimingRuns);
  if (runs < 1) throw UsageError("--runs must be >= 1");
  StageSetup s;
  setup_stage(args, &s);
  std::vector<FilterCandidate> cands = read_all(args.get("solutions"), s.lut);
  start_evaluator(args, runs, &s);
  s.deployments = int(select_in_band(cands, k).size()) + 3;
  const std::string out = args.get("out", std::filesystem::path(args.get("solutions").substr(0, args.get("solutions").find(','))).parent_path().string());
  FilterResult r;
  ok_or_throw(run_filter(*s.evaluator, cands, k, out.empty() ? "." : out, &r));
  s.line->finish();
  int kept = 0, measured = 0;
  for (const auto& c : r.candidates) kept += c.kept, measured += c.measured;
  std::printf("model %s, %zu solutions, %d in the %.0f %% band measured, %d kept (max accuracy drop %.2f points vs %s %.2f %%)\n",
              r.model.c_str(), r.candidates.size(), measured, k.latency_band_pct, kept, k.max_accuracy_drop_pct,
              r.metric == "top1" ? "ref-fp32 top-1" : "ref-fp32 fidelity", 100 * r.reference_accuracy);
  std::printf("%-24s %10s %10s %9s %9s %9s  %s\n", "deployment", "pred ms", "meas ms", r.metric == "top1" ? "top-1 %" : "agree %",
              "plan MiB", "heap MiB", "lowp/layers");
  for (const Measurement& m : r.references) print_row(m);
  if (const Measurement* c = r.find(r.chosen)) {
    Measurement m = *c;
    m.label = "chosen " + m.label;
    print_row(m);
    std::printf("why: %s (%d extra interleaved rounds to decide)\n", r.chosen_why.c_str(), r.tie_break_rounds);
  } else {
    std::printf("no deployment passed the constraints: nothing chosen\n");
  }
  std::printf("wrote %s/filtered.csv and %s/filter.json\n", out.c_str(), out.c_str());
  return 0;
}

Registrar reg({"filter", "measure the best candidates on the device and apply accuracy / memory constraints",
               std::string("usage: layerwise filter --model M --lut L --solutions DIR/solutions.csv[,DIR2/solutions.csv]\n"
                           "         [--out DIR] [--band 25] [--max-candidates 16] [--max-accuracy-drop 1.0]\n"
                           "         [--max-memory-mib X] [--runs 10] [eval options]\n\n"
                           "QS-DNN §V-C: keeps the distinct solutions within --band % of the fastest predicted\n"
                           "latency (at most --max-candidates), runs each on this device with the real kernels\n"
                           "(latency: median of --runs interleaved rounds, each timed run right after an untimed one; accuracy: top-1 on the Fashion-MNIST test split, or FIDELITY\n"
                           "vs the f32 reference for random-weight models; peak memory: planned and measured heap),\n"
                           "measures the reference deployments ref-fp32, opt-fp32 and all-int8 too, rejects candidates\n"
                           "whose accuracy drops more than --max-accuracy-drop points below ref-fp32 or whose measured\n"
                           "memory exceeds --max-memory-mib, and chooses the fastest measured deployment that meets\n"
                           "them, candidates and references alike; two within noise are re-timed interleaved until\n"
                           "the difference is significant (Mann-Whitney U, p < 0.05), else the more accurate wins.\n"
                           "int8 calibration uses the train split only. Writes DIR/filtered.csv and DIR/filter.json\n"
                           "(DIR defaults to the folder of the first solutions file).\n\neval options:\n") +
                   kEvalOptionsHelp,
               run_filter_cmd});

}  // namespace
}  // namespace lw::cli
