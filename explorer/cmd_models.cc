// `layerwise models`: the zoo with layer counts, parameters and MACs.
#include <cstdio>

#include "explorer/cli.h"
#include "libs/zoo/zoo.h"
#include "libs/zoo/zoo_fmnist.h"

namespace lw::cli {
namespace {

void print_row(const ZooEntry& e) {
  Network net = e.build(ZooOptions{});
  std::printf("%-18s %7zu %13.3f %10.1f  %s\n", e.name, net.layers.size() - 1, total_params(net) / 1e6,
              total_macs(net) / 1e6, e.description);
}

int run_models(const std::vector<std::string>& argv) {
  Args args(argv, {}, {});
  std::printf("%-18s %7s %13s %10s  %s\n", "model", "layers", "params_M", "MACs_M", "description");
  for (const auto& e : zoo_models()) print_row(e);
  std::printf("\nlayers counts every IR layer (conv, batch-norm, activation, ...), input excluded; "
              "MACs count conv2d and fully-connected at 1x3x224x224.\n");
  std::printf("\nFashion-MNIST members (1x1x32x32 input, 10 classes; trained weights in configs/models/):\n");
  for (const auto& e : fmnist_models()) print_row(e);
  return 0;
}

Registrar reg({"models", "list the model zoo with layers, parameters and MACs",
               "usage: layerwise models\n\nLists the built-in zoo models at 224x224 with IR layer count, "
               "parameter count (millions) and multiply-accumulates (millions).\n",
               run_models});

}  // namespace
}  // namespace lw::cli
