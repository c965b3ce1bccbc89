// `layerwise infer`: runs a model end to end on a seeded random input.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <numeric>

#include "explorer/cli.h"
#include "explorer/model_arg.h"
#include "libs/ref/reference.h"

namespace lw::cli {
namespace {

int run_infer(const std::vector<std::string>& argv) {
  Args args(argv, {}, {"model", "seed"});
  if (!args.has("model")) throw UsageError("--model is required (zoo name or network .json)");
  Network net = load_model(args.get("model"));
  Tensor x = random_input(net, uint64_t(args.get_int("seed", 0)));
  std::vector<Tensor> outs;
  auto t0 = std::chrono::steady_clock::now();
  ok_or_throw(reference_forward(net, x, &outs));
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  const Tensor& y = outs.back();
  std::printf("model    %s (%zu layers after BatchNorm folding)\n", net.name.c_str(), net.layers.size() - 1);
  std::printf("executor reference (naive f32 NCHW)\n");
  std::printf("input    %s\noutput   %s\ntime     %.1f ms\n", x.shape().to_string().c_str(), y.shape().to_string().c_str(), ms);
  int64_t n = y.shape().elements();
  std::vector<int> idx(n);
  std::iota(idx.begin(), idx.end(), 0);
  int k = int(std::min<int64_t>(5, n));
  std::partial_sort(idx.begin(), idx.begin() + k, idx.end(), [&](int a, int b) { return y.f32()[a] > y.f32()[b]; });
  std::printf("top-%d   ", k);
  for (int i = 0; i < k; ++i) std::printf(" %d (%.4f)", idx[i], y.f32()[idx[i]]);
  std::printf("\n");
  return 0;
}

Registrar reg({"infer", "run a model end to end on a random input",
               "usage: layerwise infer --model <zoo name | network.json> [--seed N]\n\n"
               "Runs the network with the reference executor on a seeded random input and prints the\n"
               "output shape, the time and the top-5 outputs.\n",
               run_infer});

}  // namespace
}  // namespace lw::cli
