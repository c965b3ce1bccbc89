#include "libs/ir/network_json.h"

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

// Network-specific readers on top of JsonReader.
struct Reader : JsonReader {
  using JsonReader::JsonReader;
  // "kernel": 3 or [3, 3]
  Status pair(const json& j, const std::string& key, const std::string& path, int* a, int* b) const {
    if (!j.contains(key)) return Status::ok();
    const json& v = j[key];
    if (v.is_number_integer()) { *a = *b = v.get<int>(); return Status::ok(); }
    if (v.is_array() && v.size() == 2 && v[0].is_number_integer() && v[1].is_number_integer()) {
      *a = v[0].get<int>(); *b = v[1].get<int>();
      return Status::ok();
    }
    return err(path + "/" + key, "expected an integer or [h, w]");
  }
  // "padding": p, [ph, pw] or [top, left, bottom, right]
  Status padding(const json& j, const std::string& path, Window* w) const {
    if (!j.contains("padding")) return Status::ok();
    const json& v = j["padding"];
    std::vector<int> p;
    if (v.is_number_integer()) p = {v.get<int>()};
    else if (v.is_array()) {
      for (auto& e : v) {
        if (!e.is_number_integer()) return err(path + "/padding", "expected integers");
        p.push_back(e.get<int>());
      }
    }
    if (p.size() == 1) p = {p[0], p[0], p[0], p[0]};
    else if (p.size() == 2) p = {p[0], p[1], p[0], p[1]};
    else if (p.size() != 4) return err(path + "/padding", "expected p, [h, w] or [top, left, bottom, right]");
    w->pad_top = p[0]; w->pad_left = p[1]; w->pad_bottom = p[2]; w->pad_right = p[3];
    return Status::ok();
  }
};

const std::set<std::string> kLayerKeys = {"name", "kind", "inputs", "shape", "out_channels", "kernel", "stride",
                                          "padding", "dilation", "groups", "bias", "ceil_mode",
                                          "count_include_pad", "eps", "activation", "begin"};

Status parse_layer(const Reader& r, const json& j, const std::string& path, const Network& net, Layer* l) {
  LW_RETURN_IF_ERROR(r.keys(j, path, kLayerKeys));
  if (!j.contains("name") || !j["name"].is_string()) return r.err(path + "/name", "missing or not a string");
  l->name = j["name"].get<std::string>();
  if (l->name.empty()) return r.err(path + "/name", "must not be empty");
  if (net.find(l->name) >= 0) return r.err(path + "/name", "duplicate layer name '" + l->name + "'");
  if (!j.contains("kind") || !j["kind"].is_string()) return r.err(path + "/kind", "missing or not a string");
  auto kind = parse_layer_kind(j["kind"].get<std::string>());
  if (!kind) return r.err(path + "/kind", "unknown layer kind '" + j["kind"].get<std::string>() + "'");
  l->kind = *kind;
  if (j.contains("inputs")) {
    if (!j["inputs"].is_array()) return r.err(path + "/inputs", "expected an array of layer names");
    for (size_t k = 0; k < j["inputs"].size(); ++k) {
      const json& in = j["inputs"][k];
      std::string ip = path + "/inputs/" + std::to_string(k);
      if (!in.is_string()) return r.err(ip, "expected a layer name");
      int idx = net.find(in.get<std::string>());
      if (idx < 0)
        return r.err(ip, "'" + in.get<std::string>() + "' is not an earlier layer (unknown name or a cycle)");
      l->inputs.push_back(idx);
    }
  }
  if (l->kind == LayerKind::kInput) {
    const json* s = j.contains("shape") ? &j["shape"] : nullptr;
    if (!s || !s->is_array() || s->size() != 4 || !std::all_of(s->begin(), s->end(), [](const json& e) { return e.is_number_integer(); }))
      return r.err(path + "/shape", "input needs \"shape\": [n, c, h, w]");
    l->out = Shape{(*s)[0].get<int>(), (*s)[1].get<int>(), (*s)[2].get<int>(), (*s)[3].get<int>()};
  }
  Window& w = l->window;
  LW_RETURN_IF_ERROR(r.integer(j, "out_channels", path, &l->out_channels,
                               l->kind == LayerKind::kConv2d || l->kind == LayerKind::kFullyConnected ||
                                   l->kind == LayerKind::kChannelSlice));
  LW_RETURN_IF_ERROR(r.integer(j, "begin", path, &l->channel_begin));
  LW_RETURN_IF_ERROR(r.pair(j, "kernel", path, &w.kh, &w.kw));
  LW_RETURN_IF_ERROR(r.pair(j, "stride", path, &w.stride_h, &w.stride_w));
  LW_RETURN_IF_ERROR(r.pair(j, "dilation", path, &w.dil_h, &w.dil_w));
  LW_RETURN_IF_ERROR(r.padding(j, path, &w));
  LW_RETURN_IF_ERROR(r.integer(j, "groups", path, &l->groups));
  LW_RETURN_IF_ERROR(r.boolean(j, "bias", path, &l->has_bias));
  LW_RETURN_IF_ERROR(r.boolean(j, "ceil_mode", path, &w.ceil_mode));
  LW_RETURN_IF_ERROR(r.boolean(j, "count_include_pad", path, &l->count_include_pad));
  if (j.contains("eps")) {
    if (!j["eps"].is_number() || j["eps"].get<double>() <= 0) return r.err(path + "/eps", "expected a positive number");
    l->eps = j["eps"].get<float>();
  }
  if (j.contains("activation")) {
    auto a = j["activation"].is_string() ? parse_layer_kind(j["activation"].get<std::string>()) : std::nullopt;
    if (!a || !is_activation(*a)) return r.err(path + "/activation", "expected relu, relu6, hardswish, hardsigmoid or sigmoid");
    l->fused_activation = *a;
  }
  return Status::ok();
}

}  // namespace

Status read_file(const std::string& path, std::string* data) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return io_error(path + ": cannot open (" + std::strerror(errno) + ")");
  std::ostringstream ss;
  ss << f.rdbuf();
  *data = ss.str();
  return Status::ok();
}

Status write_file_atomic(const std::string& path, const std::string& data) {
  std::string tmp = path + ".tmp";
  FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) return io_error(path + ": cannot write (" + std::strerror(errno) + ")");
  bool ok = std::fwrite(data.data(), 1, data.size(), f) == data.size();
  ok = (std::fflush(f) == 0) && ok;
  ok = (std::fclose(f) == 0) && ok;
  if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return io_error(path + ": write failed (" + std::strerror(errno) + ")");
  }
  return Status::ok();
}

Status network_from_json(const std::string& text, const std::string& origin, const std::string& dir, Network* out) {
  Reader r(origin);
  json doc;
  LW_RETURN_IF_ERROR(r.parse(text, &doc));
  LW_RETURN_IF_ERROR(r.keys(doc, "", {"format", "name", "layers", "weights"}));
  if (doc.contains("format") && doc["format"] != "layerwise-network/1")
    return r.err("/format", "expected \"layerwise-network/1\"");
  Network net;
  if (doc.contains("name")) {
    if (!doc["name"].is_string()) return r.err("/name", "expected a string");
    net.name = doc["name"].get<std::string>();
  }
  if (!doc.contains("layers") || !doc["layers"].is_array() || doc["layers"].empty())
    return r.err("/layers", "missing or empty array");
  for (size_t i = 0; i < doc["layers"].size(); ++i) {
    Layer l;
    LW_RETURN_IF_ERROR(parse_layer(r, doc["layers"][i], "/layers/" + std::to_string(i), net, &l));
    net.layers.push_back(std::move(l));
  }
  Status s = infer_shapes(net);
  if (!s.is_ok()) return parse_error(origin + ": /layers: " + s.message());
  if (doc.contains("weights")) {
    if (!doc["weights"].is_string()) return r.err("/weights", "expected a file name");
    std::string w = doc["weights"].get<std::string>();
    if (!w.empty() && w[0] != '/' && !dir.empty()) w = dir + "/" + w;
    LW_RETURN_IF_ERROR(load_weights(w, &net));
  }
  *out = std::move(net);
  return Status::ok();
}

Status load_network(const std::string& path, Network* net) {
  std::string text;
  LW_RETURN_IF_ERROR(read_file(path, &text));
  auto slash = path.find_last_of('/');
  return network_from_json(text, path, slash == std::string::npos ? "." : path.substr(0, slash), net);
}

std::string network_to_json(const Network& net, const std::string& weights_file) {
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
      case LayerKind::kBatchNorm: j["eps"] = l.eps; break;
      case LayerKind::kChannelShuffle: j["groups"] = l.groups; break;
      case LayerKind::kChannelSlice: j["begin"] = l.channel_begin; j["out_channels"] = l.out_channels; break;
      default: break;
    }
    if (l.fused_activation != LayerKind::kInput) j["activation"] = to_string(l.fused_activation);
    layers.push_back(j);
  }
  doc["layers"] = layers;
  if (!weights_file.empty()) doc["weights"] = weights_file;
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
