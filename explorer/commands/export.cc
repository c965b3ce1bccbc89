// `layerwise export`: a deployment as a bundle for the runtime API (issue 15).
#include <cstdio>

#include "explorer/pipeline/export.h"
#include "explorer/commands/pick_deployment.h"
#include "explorer/commands/stage_args.h"

namespace lw::cli {
namespace {

int run_export(const std::vector<std::string>& argv) {
  auto names = eval_option_names();
  for (const char* n : kPickOptionNames) names.insert(n);
  names.insert("out");
  Args args(argv, {"quiet", "no-measure"}, names);
  if (!args.has("out")) throw UsageError("--out B.lwb is required");
  StageSetup s;
  setup_stage(args, &s);
  auto [label, impls] = pick_deployment(args, s.lut);
  start_evaluator(args, 1, &s);
  // The accuracy on the evaluation images (no timing): the figure the application checks.
  PreparedDeployment d;
  const bool measure = !args.flag("no-measure");
  if (measure) ok_or_throw(s.evaluator->prepare(label, impls, &d));
  s.line->finish();
  ok_or_throw(export_bundle(*s.evaluator, label, impls, measure ? &d.m : nullptr, args.get("out")));
  std::printf("deployment  %s\n", label.c_str());
  if (measure) std::printf("accuracy    %s\n", d.m.accuracy.label().c_str());
  std::printf("wrote %s\n", args.get("out").c_str());
  return 0;
}

Registrar reg({"export", "write a deployment as a bundle for the C++ runtime API (include/layerwise/layerwise.h)",
               std::string("usage: layerwise export --model M --lut L --out B.lwb\n"
                           "         (--filter DIR/filter.json [--pick chosen|ref-fp32|opt-fp32|all-int8|<id>]\n"
                           "          | --solutions DIR/solutions.csv | --baseline <label>)\n"
                           "         [--no-measure] [eval options]\n\n"
                           "Writes one self-contained, checksummed file (README \"Deployment bundles\"): the network\n"
                           "and its weights, every layer's implementation, the int8 quantisation calibrated as the\n"
                           "filter and replay do, the conversion chains, the device fingerprint, the ISA it needs and\n"
                           "the LUT's prediction. Unless --no-measure, the deployment's accuracy (or fidelity) on the\n"
                           "evaluation images is measured and recorded, for the application to compare with.\n"
                           "`layerwise run` writes DIR/deployment.lwb for the chosen deployment (\"export\" stage).\n"
                           "Run it with `layerwise infer --bundle B.lwb` or the runtime API (examples/).\n\n"
                           "eval options:\n") +
                   kEvalOptionsHelp,
               run_export});

}  // namespace
}  // namespace lw::cli
