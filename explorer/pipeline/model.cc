#include "explorer/pipeline/model.h"

#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "libs/ir/network_json.h"
#include "libs/onnx/onnx_import.h"
#include "libs/zoo/zoo.h"

namespace lw {

namespace {

constexpr int64_t kMaxInputExtent = 1 << 16;

// "MODEL@HxW" or "MODEL@NxCxHxW": the model at another input shape (a resolution, a batch).
// An '@' inside a path (a directory "me@host/") or in a file's name that exists is the path's.
Status split_model_spec(const std::string& text, std::string* model, std::vector<int64_t>* dims) {
  *model = text;
  dims->clear();
  const size_t at = text.rfind('@');
  std::error_code ec;
  if (at == std::string::npos || text.find('/', at) != std::string::npos || std::filesystem::exists(text, ec))
    return Status::ok();
  *model = text.substr(0, at);
  const std::string spec = text.substr(at + 1);
  size_t from = 0;
  bool ok = !model->empty();
  while (ok) {
    const size_t x = spec.find('x', from);
    const std::string part = spec.substr(from, x == std::string::npos ? std::string::npos : x - from);
    ok = !part.empty() && part.size() <= 6 && part.find_first_not_of("0123456789") == std::string::npos;
    if (ok) dims->push_back(std::stoll(part));
    ok = ok && dims->back() >= 1 && dims->back() <= kMaxInputExtent;
    if (x == std::string::npos) break;
    from = x + 1;
  }
  if (!ok || (dims->size() != 2 && dims->size() != 4))
    return invalid_argument("'" + text + "': after '@' an input shape HxW or NxCxHxW (e.g. resnet50@160x160)");
  return Status::ok();
}

// A zoo or JSON network at another input shape: every layer's shape inferred again, so a
// layer the shape does not fit (a pooling window larger than its map) is an error naming it.
Status reshape_input(const std::vector<int64_t>& dims, Network* net) {
  Shape& s = net->layers[0].out;
  if (dims.size() == 4) s = Shape{int(dims[0]), int(dims[1]), int(dims[2]), int(dims[3])};
  else s.h = int(dims[0]), s.w = int(dims[1]);
  return infer_shapes(*net);
}

Status load_at_shape(const std::string& model, const std::vector<int64_t>& dims, Network* net) {
  const bool is_file = model.find('/') != std::string::npos || model.find(".json") != std::string::npos;
  if (is_onnx_path(model)) {
    OnnxImportOptions o;
    o.input_dims = dims;
    return import_onnx(model, net, o);
  }
  if (is_file) {
    LW_RETURN_IF_ERROR(load_network(model, net));
  } else {
    Status s = build_zoo_model(model, ZooOptions{}, net);
    if (!s.is_ok()) return Status(s.code(), s.message() + ", a network .json file or an .onnx file");
  }
  return dims.empty() ? Status::ok() : reshape_input(dims, net);
}

}  // namespace

Status load_model_unfolded(const std::string& spec, Network* out, uint64_t weight_seed) {
  std::string model;
  std::vector<int64_t> dims;
  LW_RETURN_IF_ERROR(split_model_spec(spec, &model, &dims));
  Network net;
  Status s = load_at_shape(model, dims, &net);
  if (!s.is_ok()) return dims.empty() ? s : Status(s.code(), spec + ": " + s.message());
  bool has_weights = true;
  for (const Layer& l : net.layers)
    if (l.weights.empty() && weight_count(l, input_shapes(net, net.find(l.name))) > 0) has_weights = false;
  if (!has_weights) init_random_weights(net, weight_seed);
  if (!dims.empty()) {  // a file's weights may not fit the new shape (a classifier after a flatten)
    s = check_weights(net);
    if (!s.is_ok()) return Status(s.code(), spec + ": " + s.message());
    net.name += "@" + net.input_shape().to_string();
  }
  *out = std::move(net);
  return Status::ok();
}

std::string model_label(const std::string& model) {
  std::string path;
  std::vector<int64_t> dims;
  if (!split_model_spec(model, &path, &dims).is_ok() || dims.empty()) return std::filesystem::path(model).stem().string();
  return std::filesystem::path(path).stem().string() + model.substr(path.size());  // (the "@shape" as written)
}

Status load_model(const std::string& model, Network* out, uint64_t weight_seed) {
  Network net;
  LW_RETURN_IF_ERROR(load_model_unfolded(model, &net, weight_seed));
  return fold_affine(net, out);
}

Tensor random_input(const Network& net, uint64_t seed) {
  Tensor t = Tensor::create(net.input_shape());
  std::mt19937_64 rng(seed);
  for (int64_t i = 0; i < t.shape().elements(); ++i) t.f32()[i] = float((rng() >> 11) * (2.0 / 9007199254740992.0) - 1.0);
  return t;
}

}  // namespace lw
