// `layerwise pareto`: latency–accuracy and latency–memory fronts from filter.json (QS-DNN Figs. 10–11).
#include <cstdio>
#include <filesystem>

#include "explorer/cli/cli.h"
#include "explorer/measure/evaluator.h"
#include "explorer/pipeline/pareto.h"
#include "explorer/pipeline/filter.h"

namespace lw::cli {
namespace {

int run_pareto_cmd(const std::vector<std::string>& argv) {
  Args args(argv, {"quiet"}, {"filter", "out"});
  if (!args.has("filter")) throw UsageError("--filter is required (filter.json of `layerwise filter`)");
  FilterResult r;
  ok_or_throw(load_filter_result(args.get("filter"), &r));
  std::string out = args.get("out", std::filesystem::path(args.get("filter")).parent_path().string());
  if (out.empty()) out = ".";
  ParetoSummary s;
  ok_or_throw(run_pareto(r, out, &s));
  std::printf("model %s: %d points (%s)\n", r.model.c_str(), s.points,
              r.metric == "top1" ? "top-1 on the Fashion-MNIST test split" : "FIDELITY vs f32, random weights");
  std::printf("latency-accuracy front: %d points, %d mixed-precision\n", s.accuracy_front, s.mixed_on_accuracy_front);
  std::printf("latency-memory front:   %d points, %d mixed-precision\n", s.memory_front, s.mixed_on_memory_front);
  std::printf("wrote %s/pareto_accuracy.{csv,png,svg} and %s/pareto_memory.{csv,png,svg}\n", out.c_str(), out.c_str());
  return 0;
}

Registrar reg({"pareto", "latency-accuracy and latency-memory Pareto fronts of the filtered deployments",
               "usage: layerwise pareto --filter DIR/filter.json [--out DIR]\n\n"
               "Every deployment the filter measured (candidates, the chosen one labelled 'chosen', and the\n"
               "references ref-fp32, opt-fp32, all-int8) at its measured latency, accuracy (or fidelity)\n"
               "and measured peak memory. Writes DIR/pareto_accuracy.{csv,png,svg} and\n"
               "DIR/pareto_memory.{csv,png,svg} (gnuplot) with the reference points marked, and prints\n"
               "how many points of each front are mixed precision (some layers int8, some f32).\n",
               run_pareto_cmd});

}  // namespace
}  // namespace lw::cli
