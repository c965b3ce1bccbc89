#include "libs/ir/network_json.h"

#include "libs/core/files.h"
#include "libs/core/hash.h"
#include "libs/core/json_reader.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

namespace lw {

using json = nlohmann::json;

namespace {

// "kernel": 3 or [3, 3]
void read_pair(JsonReader& r, const char* key, int* a, int* b) {
  const json* v = r.value(key);
  if (!v) return;
  if (v->is_number_integer()) {
    *a = *b = v->get<int>();
  } else if (v->is_array() && v->size() == 2 && (*v)[0].is_number_integer() && (*v)[1].is_number_integer()) {
    *a = (*v)[0].get<int>();
    *b = (*v)[1].get<int>();
  } else {
    r.fail(std::string("/") + key, "expected an integer or [h, w]");
  }
}

// "padding": p, [ph, pw] or [top, left, bottom, right]
void read_padding(JsonReader& r, Window* w) {
  const json* v = r.value("padding");
  if (!v) return;
  std::vector<int> p;
  if (v->is_number_integer()) p = {v->get<int>()};
  for (const json& e : v->is_array() ? *v : json::array()) {
    if (!e.is_number_integer()) return r.fail("/padding", "expected integers");
    p.push_back(e.get<int>());
  }
  if (p.size() == 1) p = {p[0], p[0], p[0], p[0]};
  else if (p.size() == 2) p = {p[0], p[1], p[0], p[1]};
  else if (p.size() != 4) return r.fail("/padding", "expected p, [h, w] or [top, left, bottom, right]");
  w->pad_top = p[0], w->pad_left = p[1], w->pad_bottom = p[2], w->pad_right = p[3];
}

void read_inputs(JsonReader& r, const Network& net, Layer* l) {
  const json* in = r.value("inputs");
  if (!in) return;
  if (!in->is_array()) return r.fail("/inputs", "expected an array of layer names");
  for (size_t k = 0; k < in->size(); ++k) {
    const json& e = (*in)[k];
    std::string at = "/inputs/" + std::to_string(k);
    if (!e.is_string()) return r.fail(at, "expected a layer name");
    int idx = net.find(e.get<std::string>());
    if (idx < 0) return r.fail(at, "'" + e.get<std::string>() + "' is not an earlier layer (unknown name or a cycle)");
    l->inputs.push_back(idx);
  }
}

void read_input_shape(JsonReader& r, Layer* l) {
  const json* s = r.value("shape");
  if (l->kind != LayerKind::kInput) return;
  if (!s || !s->is_array() || s->size() != 4 ||
      !std::all_of(s->begin(), s->end(), [](const json& e) { return e.is_number_integer(); }))
    return r.fail("/shape", "input needs \"shape\": [n, c, h, w]");
  l->out = Shape{(*s)[0].get<int>(), (*s)[1].get<int>(), (*s)[2].get<int>(), (*s)[3].get<int>()};
}

void read_name_and_kind(JsonReader& r, const Network& net, Layer* l) {
  const json* name = r.value("name");
  if (!name || !name->is_string()) return r.fail("/name", "missing or not a string");
  l->name = name->get<std::string>();
  if (l->name.empty()) return r.fail("/name", "must not be empty");
  if (net.find(l->name) >= 0) return r.fail("/name", "duplicate layer name '" + l->name + "'");
  const json* kind = r.value("kind");
  if (!kind || !kind->is_string()) return r.fail("/kind", "missing or not a string");
  auto k = parse_layer_kind(kind->get<std::string>());
  if (!k) return r.fail("/kind", "unknown layer kind '" + kind->get<std::string>() + "'");
  l->kind = *k;
}

void read_layer(JsonReader& r, const Network& net, Layer* l) {
  read_name_and_kind(r, net, l);
  if (!r.ok()) return;
  read_inputs(r, net, l);
  read_input_shape(r, l);
  Window& w = l->window;
  bool needs_out = l->kind == LayerKind::kConv2d || l->kind == LayerKind::kFullyConnected ||
                   l->kind == LayerKind::kChannelSlice;
  r.integer("out_channels", &l->out_channels, INT32_MIN, INT32_MAX, needs_out);
  r.integer("begin", &l->channel_begin, INT32_MIN, INT32_MAX);
  read_pair(r, "kernel", &w.kh, &w.kw);
  read_pair(r, "stride", &w.stride_h, &w.stride_w);
  read_pair(r, "dilation", &w.dil_h, &w.dil_w);
  read_padding(r, &w);
  r.integer("groups", &l->groups, INT32_MIN, INT32_MAX);
  r.boolean("bias", &l->has_bias);
  r.boolean("ceil_mode", &w.ceil_mode);
  r.boolean("count_include_pad", &l->count_include_pad);
  if (const json* eps = r.value("eps")) {
    if (!eps->is_number() || eps->get<double>() <= 0) return r.fail("/eps", "expected a positive number");
    l->eps = eps->get<float>();
  }
  if (const json* act = r.value("activation")) {
    auto a = act->is_string() ? parse_layer_kind(act->get<std::string>()) : std::nullopt;
    if (!a || !is_activation(*a)) return r.fail("/activation", "expected relu, relu6, hardswish, hardsigmoid or sigmoid");
    l->fused_activation = *a;
  }
}

}  // namespace

Status network_from_json(const std::string& text, const std::string& origin, const std::string& dir, Network* out) {
  json doc;
  LW_RETURN_IF_ERROR(JsonReader::parse(origin, text, &doc));
  JsonReader r(origin, doc);
  std::string format = "layerwise-network/1", weights;
  r.text("format", &format);
  if (r.ok() && format != "layerwise-network/1") r.fail("/format", "expected \"layerwise-network/1\"");
  Network net;
  r.text("name", &net.name);
  const json* layers = r.value("layers");
  if (r.ok() && (!layers || !layers->is_array() || layers->empty())) r.fail("/layers", "missing or empty array");
  for (size_t i = 0; r.ok() && i < layers->size(); ++i) {
    Layer l;
    JsonReader lr = r.element("layers", i);
    read_layer(lr, net, &l);
    r.adopt(lr.finish());
    net.layers.push_back(std::move(l));
  }
  r.text("weights", &weights);
  r.boolean("random_weights", &net.random_weights);
  LW_RETURN_IF_ERROR(r.finish());
  Status s = infer_shapes(net);
  if (!s.is_ok()) return parse_error(origin + ": /layers: " + s.message());
  if (r.value("weights")) {
    if (!weights.empty() && weights[0] != '/' && !dir.empty()) weights = dir + "/" + weights;
    LW_RETURN_IF_ERROR(load_weights(weights, &net));
  }
  *out = std::move(net);
  return Status::ok();
}

Status load_network(const std::string& path, Network* net) {
  std::string text;
  LW_RETURN_IF_ERROR(read_file(path, &text));
  auto slash = path.find_last_of('/');
  LW_RETURN_IF_ERROR(network_from_json(text, path, slash == std::string::npos ? "." : path.substr(0, slash), net));
  // Unnamed, it is the file's: a LUT, a bench file and a report need a name ("tiny.json" ->
  // "tiny"; without one bench wrote its LUT as the hidden file ".lut.json").
  if (net->name.empty()) {
    const std::string file = slash == std::string::npos ? path : path.substr(slash + 1);
    net->name = file.substr(0, file.rfind('.'));
  }
  return Status::ok();
}

namespace {

// The topology: name and layers, without where the weights come from.
json topology_doc(const Network& net) {
  json doc;
  doc["format"] = "layerwise-network/1";
  doc["name"] = net.name;
  json layers = json::array();
  for (const Layer& l : net.layers) {
    json j;
    j["name"] = l.name;
    j["kind"] = to_string(l.kind);
    if (!l.inputs.empty()) {
      j["inputs"] = json::array();
      for (int p : l.inputs) j["inputs"].push_back(net.layers[p].name);
    }
    const Window& w = l.window;
    switch (l.kind) {
      case LayerKind::kInput: j["shape"] = {l.out.n, l.out.c, l.out.h, l.out.w}; break;
      case LayerKind::kConv2d:
        j["out_channels"] = l.out_channels;
        j["groups"] = l.groups;
        j["dilation"] = {w.dil_h, w.dil_w};
        j["bias"] = l.has_bias;
        [[fallthrough]];
      case LayerKind::kMaxPool:
      case LayerKind::kAvgPool:
        j["kernel"] = {w.kh, w.kw};
        j["stride"] = {w.stride_h, w.stride_w};
        j["padding"] = {w.pad_top, w.pad_left, w.pad_bottom, w.pad_right};
        if (w.ceil_mode) j["ceil_mode"] = true;
        if (l.kind == LayerKind::kAvgPool && !l.count_include_pad) j["count_include_pad"] = false;
        break;
      case LayerKind::kFullyConnected: j["out_channels"] = l.out_channels; j["bias"] = l.has_bias; break;
      case LayerKind::kBatchNorm:
      case LayerKind::kLayerNorm: j["eps"] = l.eps; break;
      case LayerKind::kChannelShuffle: j["groups"] = l.groups; break;
      case LayerKind::kChannelSlice: j["begin"] = l.channel_begin; j["out_channels"] = l.out_channels; break;
      default: break;
    }
    if (l.fused_activation != LayerKind::kInput) j["activation"] = to_string(l.fused_activation);
    layers.push_back(j);
  }
  doc["layers"] = layers;
  return doc;
}

}  // namespace

std::string topology_json(const Network& net) { return topology_doc(net).dump(1) + "\n"; }

std::string network_to_json(const Network& net, const std::string& weights_file) {
  json doc = topology_doc(net);
  if (!weights_file.empty()) doc["weights"] = weights_file;
  if (net.random_weights) doc["random_weights"] = true;
  return doc.dump(1) + "\n";
}

Status save_network(const Network& net, const std::string& json_path, const std::string& weights_path) {
  std::string ref;
  if (!weights_path.empty()) {
    LW_RETURN_IF_ERROR(save_weights(net, weights_path));
    auto slash = weights_path.find_last_of('/');
    ref = slash == std::string::npos ? weights_path : weights_path.substr(slash + 1);
  }
  return write_file_atomic(json_path, network_to_json(net, ref));
}

Status weights_to_bytes(const Network& net, std::string* out) {
  LW_RETURN_IF_ERROR(check_weights(net));
  std::string payload;
  for (const Layer& l : net.layers) {
    payload.append(reinterpret_cast<const char*>(l.weights.data()), l.weights.size() * sizeof(float));
    payload.append(reinterpret_cast<const char*>(l.bias.data()), l.bias.size() * sizeof(float));
  }
  uint64_t count = payload.size() / sizeof(float), hash = fnv1a(payload.data(), payload.size());
  *out = "LWW1";
  out->append(reinterpret_cast<const char*>(&count), 8);
  out->append(reinterpret_cast<const char*>(&hash), 8);
  *out += payload;
  return Status::ok();
}

Status save_weights(const Network& net, const std::string& path) {
  std::string data;
  LW_RETURN_IF_ERROR(weights_to_bytes(net, &data));
  return write_file_atomic(path, data);
}

Status load_weights(const std::string& path, Network* net) {
  std::string data;
  LW_RETURN_IF_ERROR(read_file(path, &data));
  return weights_from_bytes(data, path, net);
}

Status weights_from_bytes(const std::string& data, const std::string& path, Network* net) {
  if (data.size() < 20 || data.compare(0, 4, "LWW1") != 0) return parse_error(path + ": not a Layerwise weights file");
  uint64_t count, hash;
  std::memcpy(&count, data.data() + 4, 8);
  std::memcpy(&hash, data.data() + 12, 8);
  size_t payload = data.size() - 20;
  if (payload != count * sizeof(float))
    return parse_error(path + ": truncated or oversized: header says " + std::to_string(count) + " floats, file holds " +
                       std::to_string(payload / sizeof(float)));
  if (fnv1a(data.data() + 20, payload) != hash) return parse_error(path + ": checksum mismatch (corrupted file)");
  uint64_t need = 0;
  for (size_t i = 0; i < net->layers.size(); ++i)
    need += weight_count(net->layers[i], input_shapes(*net, int(i))) + bias_count(net->layers[i]);
  if (need != count)
    return parse_error(path + ": holds " + std::to_string(count) + " floats, network '" + net->name + "' needs " +
                       std::to_string(need));
  const char* src = data.data() + 20;  // may be unaligned: copy, never cast
  auto take = [&](std::vector<float>& v, int64_t n) {
    v.resize(n);
    if (n > 0) std::memcpy(v.data(), src, n * sizeof(float));  // an empty vector's data() may be null
    src += n * sizeof(float);
  };
  for (size_t i = 0; i < net->layers.size(); ++i) {
    Layer& l = net->layers[i];
    take(l.weights, weight_count(l, input_shapes(*net, int(i))));
    take(l.bias, bias_count(l));
  }
  return Status::ok();
}

}  // namespace lw
