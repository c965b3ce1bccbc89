#include "libs/core/files.h"
#include "env/bundle.h"

#include <cstring>
#include <stdexcept>

#include "libs/core/hash.h"
#include "libs/ir/network_json.h"

namespace lw {

namespace {

using nlohmann::json;

constexpr size_t kMagicBytes = 8;
constexpr char kManifestFormat[] = "layerwise-bundle/1";

template <typename T>
void put(std::string* s, T v) {
  s->append(reinterpret_cast<const char*>(&v), sizeof v);
}

json shape_json(const Shape& s) { return {s.n, s.c, s.h, s.w}; }

json manifest_json(const Bundle& b) {
  json layers = json::array();
  for (size_t i = 0; i < b.net.layers.size(); ++i) {
    json l = {{"name", b.net.layers[i].name}, {"impl", i < b.impls.size() ? b.impls[i] : ""}};
    if (i < b.quant.size()) l["quant"] = {{"scale", b.quant[i].scale}, {"zero_point", b.quant[i].zero_point}};
    layers.push_back(l);
  }
  json steps = json::array();
  for (const BundleStep& s : b.steps) steps.push_back({{"name", s.name}, {"layer", s.layer}, {"conversion", s.conversion}});
  return {{"format", kManifestFormat},
          {"layerwise_version", b.layerwise_version},
          {"model", b.model},
          {"label", b.label},
          {"created", b.created},
          {"input_shape", shape_json(b.net.input_shape())},
          {"output_shape", shape_json(b.net.output_shape())},
          {"network", json::parse(network_to_json(b.net, ""))},
          {"layers", layers},
          {"conversion_ms", b.conversion_ms},
          {"steps", steps},
          {"device", b.device},
          {"isa", b.isa},
          {"prediction", {{"latency_ms", b.predicted_ms}, {"memory_bytes", b.predicted_memory_bytes}}},
          {"measured", b.measured}};
}

// An integer field in [lo, hi]: json's get<int> of a float or a huge number would convert
// out of range (undefined behaviour), so the type and range are checked first.
int int_at(const json& j, const char* key, int64_t lo, int64_t hi) {
  const json& v = j.at(key);
  if (!v.is_number_integer() || v.get<int64_t>() < lo || v.get<int64_t>() > hi)
    throw std::out_of_range(std::string("'") + key + "' is not an integer in [" + std::to_string(lo) + ", " +
                            std::to_string(hi) + "]");
  return int(v.get<int64_t>());
}

// The manifest's fields into `out` (the network without weights). Throws json errors (and
// std::out_of_range) on a wrong type; the caller turns them into one line.
Status parse_manifest(const json& m, const std::string& origin, Bundle* out) {
  auto bad = [&](const std::string& path, const std::string& why) {
    return parse_error(origin + ": manifest " + path + ": " + why);
  };
  if (m.value("format", "") != kManifestFormat) return bad("/format", "expected \"" + std::string(kManifestFormat) + "\"");
  Bundle b;
  b.layerwise_version = m.at("layerwise_version").get<std::string>();
  b.model = m.at("model").get<std::string>();
  b.label = m.at("label").get<std::string>();
  b.created = m.value("created", "");
  LW_RETURN_IF_ERROR(network_from_json(m.at("network").dump(), origin + ": manifest /network", "", &b.net));
  const json& layers = m.at("layers");
  if (!layers.is_array() || layers.size() != b.net.layers.size())
    return bad("/layers", "expected one entry per network layer (" + std::to_string(b.net.layers.size()) + ")");
  bool quantised = !layers.empty() && layers.back().contains("quant");
  for (size_t i = 0; i < layers.size(); ++i) {
    if (layers[i].at("name").get<std::string>() != b.net.layers[i].name)
      return bad("/layers/" + std::to_string(i) + "/name", "does not match network layer '" + b.net.layers[i].name + "'");
    b.impls.push_back(layers[i].at("impl").get<std::string>());
    if (quantised) {
      const json& q = layers[i].at("quant");
      b.quant.push_back({q.at("scale").get<float>(), int_at(q, "zero_point", -128, 255)});
    }
  }
  b.conversion_ms = m.at("conversion_ms").get<std::map<std::string, double>>();
  for (const json& s : m.at("steps"))
    b.steps.push_back({s.at("name").get<std::string>(), int_at(s, "layer", -1, int64_t(b.net.layers.size())),
                       s.at("conversion").get<bool>()});
  b.device = m.at("device");
  b.isa = m.at("isa").get<std::vector<std::string>>();
  b.predicted_ms = m.at("prediction").at("latency_ms").get<double>();
  b.predicted_memory_bytes = m.at("prediction").at("memory_bytes").get<double>();
  b.measured = m.value("measured", json());
  *out = std::move(b);
  return Status::ok();
}

}  // namespace

Status bundle_to_bytes(const Bundle& b, std::string* out) {
  if (b.impls.size() != b.net.layers.size())
    return invalid_argument("bundle: " + std::to_string(b.impls.size()) + " implementations for " +
                            std::to_string(b.net.layers.size()) + " layers");
  std::string weights;
  LW_RETURN_IF_ERROR(weights_to_bytes(b.net, &weights));
  const std::string manifest = manifest_json(b).dump(1);
  std::string s(kBundleMagic, kMagicBytes);
  put<uint32_t>(&s, kBundleFormatVersion);
  put<uint64_t>(&s, manifest.size());
  s += manifest;
  put<uint64_t>(&s, weights.size());
  s += weights;
  put<uint64_t>(&s, fnv1a(s.data(), s.size()));
  *out = std::move(s);
  return Status::ok();
}

Status write_bundle(const std::string& path, const Bundle& b) {
  std::string data;
  LW_RETURN_IF_ERROR(bundle_to_bytes(b, &data));
  return write_file_atomic(path, data);
}

Status bundle_from_bytes(const std::string& data, const std::string& origin, Bundle* out) {
  const size_t header = kMagicBytes + 4 + 8;
  if (data.size() < kMagicBytes || data.compare(0, kMagicBytes, kBundleMagic) != 0)
    return parse_error(origin + ": not a Layerwise bundle (no LWBUNDLE header)");
  if (data.size() < header + 8 + 8) return parse_error(origin + ": truncated (" + std::to_string(data.size()) + " bytes)");
  uint32_t version;
  uint64_t manifest_bytes, weights_bytes, hash;
  std::memcpy(&version, data.data() + kMagicBytes, 4);
  if (version != kBundleFormatVersion)
    return parse_error(origin + ": bundle format version " + std::to_string(version) + ", this runtime reads " +
                       std::to_string(kBundleFormatVersion));
  std::memcpy(&manifest_bytes, data.data() + kMagicBytes + 4, 8);
  // Sizes are checked against what is there before anything is read past them.
  if (manifest_bytes > data.size() - header - 16)
    return parse_error(origin + ": truncated (manifest of " + std::to_string(manifest_bytes) + " bytes, file of " +
                       std::to_string(data.size()) + ")");
  std::memcpy(&weights_bytes, data.data() + header + manifest_bytes, 8);
  const size_t body = header + manifest_bytes + 8;
  if (weights_bytes != data.size() - body - 8)
    return parse_error(origin + ": truncated or oversized (weights of " + std::to_string(weights_bytes) +
                       " bytes, file has room for " + std::to_string(data.size() - std::min(data.size(), body + 8)) + ")");
  std::memcpy(&hash, data.data() + data.size() - 8, 8);
  if (fnv1a(data.data(), data.size() - 8) != hash) return parse_error(origin + ": checksum mismatch (corrupted bundle)");
  Bundle b;
  try {
    json m = json::parse(data.substr(header, manifest_bytes));
    LW_RETURN_IF_ERROR(parse_manifest(m, origin, &b));
  } catch (const std::exception& e) {  // json errors and int_at's range errors
    return parse_error(origin + ": manifest: " + e.what());
  }
  LW_RETURN_IF_ERROR(weights_from_bytes(data.substr(body, weights_bytes), origin + ": weights", &b.net));
  *out = std::move(b);
  return Status::ok();
}

Status read_bundle(const std::string& path, Bundle* out) {
  std::string data;
  LW_RETURN_IF_ERROR(read_file(path, &data));
  return bundle_from_bytes(data, path, out);
}

}  // namespace lw
