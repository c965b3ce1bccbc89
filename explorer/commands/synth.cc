// `layerwise synth`: writes a synthetic (invented, clearly labelled) LUT for a zoo model.
#include <cstdio>

#include "env/synthetic_lut.h"
#include "explorer/cli/cli.h"

namespace lw::cli {
namespace {

int run_synth(const std::vector<std::string>& argv) {
  Args args(argv, {}, {"model", "seed", "out"});
  if (!args.has("model")) throw UsageError("--model is required (" + zoo_names() + ")");
  if (!args.has("out")) throw UsageError("--out is required");
  SyntheticLutOptions o;
  o.seed = uint64_t(args.get_int("seed", 1));
  Lut lut;
  ok_or_throw(synthetic_zoo_lut(args.get("model"), o, &lut));
  ok_or_throw(save_lut(lut, args.get("out")));
  std::printf("wrote %s: synthetic LUT of %s, %zu layers, %lld implementations, %zu conversions (seed %llu)\n",
              args.get("out").c_str(), lut.model_name.c_str(), lut.layers.size(), (long long)lut.impl_count(),
              lut.conversions.size(), (unsigned long long)o.seed);
  return 0;
}

Registrar reg({"synth", "write a synthetic LUT (invented costs) for a zoo model",
               "usage: layerwise synth --model <zoo name> [--seed N] --out lut.json\n\n"
               "Writes a seeded LUT with the model's topology and plausible invented costs, labelled\n"
               "\"device\": {\"synthetic\": true}, for testing search before real LUTs exist.\n",
               run_synth});

}  // namespace
}  // namespace lw::cli
