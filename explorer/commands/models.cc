// `layerwise models`: the zoo with layer counts, parameters and MACs.
#include <cstdio>

#include "explorer/cli/cli.h"
#include "explorer/commands/model_arg.h"
#include "libs/zoo/zoo.h"
#include "libs/zoo/zoo_fmnist.h"

namespace lw::cli {
namespace {

void print_row(const ZooEntry& e) {
  Network net = e.build(ZooOptions{});
  std::printf("%-18s %7zu %13.3f %10.1f  %s\n", e.name, net.layers.size() - 1, total_params(net) / 1e6,
              total_macs(net) / 1e6, e.description);
}

// One row per IR layer of the model as loaded (BatchNorm not yet folded), then the totals.
int describe(const std::string& model) {
  Network net = load_model_unfolded(model);
  std::printf("model %s: input %s, output %s\n", net.name.c_str(), net.input_shape().to_string().c_str(),
              net.output_shape().to_string().c_str());
  std::printf("%4s  %-40s %-16s %-14s %12s %12s  %s\n", "#", "layer", "kind", "output", "params", "MACs", "inputs");
  for (size_t i = 1; i < net.layers.size(); ++i) {
    const Layer& l = net.layers[i];
    std::string ins;
    for (int p : l.inputs) ins += (ins.empty() ? "" : ",") + std::to_string(p);
    std::printf("%4zu  %-40s %-16s %-14s %12lld %12lld  %s\n", i, l.name.c_str(), to_string(l.kind),
                l.out.to_string().c_str(), (long long)layer_params(net, int(i)), (long long)layer_macs(net, int(i)),
                ins.c_str());
  }
  std::printf("total: %zu layers, %lld params (%.3f M), %lld MACs (%.1f M)\n", net.layers.size() - 1,
              (long long)total_params(net), total_params(net) / 1e6, (long long)total_macs(net), total_macs(net) / 1e6);
  return 0;
}

int run_models(const std::vector<std::string>& argv) {
  Args args(argv, {}, {"describe"});
  if (args.has("describe")) return describe(args.get("describe"));
  std::printf("%-18s %7s %13s %10s  %s\n", "model", "layers", "params_M", "MACs_M", "description");
  for (const auto& e : zoo_models()) print_row(e);
  std::printf("\nlayers counts every IR layer (conv, batch-norm, activation, ...), input excluded; "
              "MACs count conv2d and fully-connected at 1x3x224x224.\n");
  std::printf("\nFashion-MNIST members (1x1x32x32 input, 10 classes; trained weights in configs/models/):\n");
  for (const auto& e : fmnist_models()) print_row(e);
  return 0;
}

Registrar reg({"models", "list the model zoo with layers, parameters and MACs",
               "usage: layerwise models [--describe MODEL]\n\nLists the built-in zoo models at 224x224 with IR layer count, "
               "parameter count (millions) and multiply-accumulates (millions).\n"
               "--describe MODEL  every layer of MODEL (zoo name, network .json or .onnx file) with its "
               "output shape, parameters and MACs, then the totals\n\n"
               "Wherever a command takes a model, MODEL@HxW or MODEL@NxCxHxW gives it another input shape\n"
               "(mobilenetv2@160x160, net.onnx@4x3x224x224: a resolution, a batch, an ONNX file's dynamic sizes).\n",
               run_models});

}  // namespace
}  // namespace lw::cli
