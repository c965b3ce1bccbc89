#include "explorer/cli/model_arg.h"

#include <random>

#include "explorer/cli/cli.h"
#include "libs/ir/network_json.h"
#include "libs/onnx/onnx_import.h"
#include "libs/zoo/zoo.h"

namespace lw::cli {

Network load_model_unfolded(const std::string& model, uint64_t weight_seed) {
  Network net;
  bool is_file = model.find('/') != std::string::npos || model.find(".json") != std::string::npos;
  if (is_onnx_path(model)) {
    ok_or_throw(import_onnx(model, &net));
  } else if (is_file) {
    ok_or_throw(load_network(model, &net));
  } else {
    Status s = build_zoo_model(model, ZooOptions{}, &net);
    if (!s.is_ok()) throw UsageError("--model: " + s.message() + ", a network .json file or an .onnx file");
  }
  bool has_weights = true;
  for (const Layer& l : net.layers)
    if (l.weights.empty() && weight_count(l, input_shapes(net, net.find(l.name))) > 0) has_weights = false;
  if (!has_weights) init_random_weights(net, weight_seed);
  return net;
}

Network load_model(const std::string& model, uint64_t weight_seed) {
  Network folded;
  ok_or_throw(fold_batch_norm(load_model_unfolded(model, weight_seed), &folded));
  return folded;
}

Tensor random_input(const Network& net, uint64_t seed) {
  Tensor t = Tensor::create(net.input_shape());
  std::mt19937_64 rng(seed);
  for (int64_t i = 0; i < t.shape().elements(); ++i) t.f32()[i] = float((rng() >> 11) * (2.0 / 9007199254740992.0) - 1.0);
  return t;
}

}  // namespace lw::cli
