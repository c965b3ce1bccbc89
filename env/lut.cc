#include "env/lut.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

#include "libs/core/enum_names.h"
#include "libs/core/files.h"
#include "libs/core/hash.h"
#include "libs/ir/network_json.h"

namespace lw {

using json = nlohmann::json;

namespace {
constexpr NameRow<ImplStatus> kImplStatuses[] = {
#define X(e, s) {ImplStatus::e, s},
#include "env/impl_status.inc"
#undef X
};
}  // namespace

const char* to_string(ImplStatus s) { return name_of(kImplStatuses, s); }

int64_t Lut::impl_count() const {
  int64_t n = 0;
  for (const auto& l : layers) n += int64_t(l.impls.size());
  return n;
}

namespace {

// Reads one JSON document; every error names the origin and the JSON pointer.
struct Reader {
  std::string origin;

  Status err(const std::string& path, const std::string& why) const {
    return parse_error(origin + ": " + (path.empty() ? "/" : path) + ": " + why);
  }
  Status object(const json& j, const std::string& path) const {
    return j.is_object() ? Status::ok() : err(path, "expected an object");
  }
  const json* field(const json& j, const char* key) const {
    auto it = j.find(key);
    return it == j.end() ? nullptr : &*it;
  }
  Status string(const json& j, const char* key, const std::string& path, std::string* out, bool required = true) const {
    const json* v = field(j, key);
    if (!v) return required ? err(path + "/" + key, "missing") : Status::ok();
    if (!v->is_string()) return err(path + "/" + key, "expected a string");
    *out = v->get<std::string>();
    return Status::ok();
  }
  Status number(const json& j, const char* key, const std::string& path, double* out, bool required = true) const {
    const json* v = field(j, key);
    if (!v) return required ? err(path + "/" + key, "missing") : Status::ok();
    if (!v->is_number() || !std::isfinite(v->get<double>()) || v->get<double>() < 0)
      return err(path + "/" + key, "expected a non-negative number");
    *out = v->get<double>();
    return Status::ok();
  }
  Status integer(const json& j, const char* key, const std::string& path, int64_t lo, int64_t hi, int64_t* out,
                 bool required = true) const {
    const json* v = field(j, key);
    if (!v) return required ? err(path + "/" + key, "missing") : Status::ok();
    if (!v->is_number_integer()) return err(path + "/" + key, "expected an integer");
    int64_t x = v->get<int64_t>();
    if (x < lo || x > hi)
      return err(path + "/" + key, "out of range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
    *out = x;
    return Status::ok();
  }
  Status int32(const json& j, const char* key, const std::string& path, int64_t lo, int64_t hi, int* out,
               bool required = true) const {
    int64_t x = *out;
    LW_RETURN_IF_ERROR(integer(j, key, path, lo, hi, &x, required));
    *out = int(x);
    return Status::ok();
  }
  Status array(const json& j, const char* key, const std::string& path, const json** out) const {
    const json* v = field(j, key);
    if (!v) return err(path + "/" + key, "missing");
    if (!v->is_array()) return err(path + "/" + key, "expected an array");
    *out = v;
    return Status::ok();
  }
};

constexpr int64_t kMaxIndex = int64_t(1) << 30;

Status parse_format(const Reader& r, const json& j, const std::string& p, Format* f) {
  LW_RETURN_IF_ERROR(r.object(j, p));
  std::string layout, dtype;
  LW_RETURN_IF_ERROR(r.string(j, "layout", p, &layout));
  LW_RETURN_IF_ERROR(r.string(j, "dtype", p, &dtype));
  auto l = parse_layout(layout);
  auto d = parse_dtype(dtype);
  if (!l) return r.err(p + "/layout", "unknown layout '" + layout + "'");
  if (!d) return r.err(p + "/dtype", "unknown dtype '" + dtype + "'");
  f->layout = *l;
  f->dtype = *d;
  return r.int32(j, "threads", p, 1, 1024, &f->threads);
}

Status parse_impl(const Reader& r, const json& j, const std::string& p, int n_formats, Impl* m) {
  LW_RETURN_IF_ERROR(r.object(j, p));
  LW_RETURN_IF_ERROR(r.string(j, "name", p, &m->name));
  LW_RETURN_IF_ERROR(r.string(j, "library", p, &m->library));
  LW_RETURN_IF_ERROR(r.string(j, "algorithm", p, &m->algorithm));
  std::string dtype, status;
  LW_RETURN_IF_ERROR(r.string(j, "dtype", p, &dtype));
  auto d = parse_dtype(dtype);
  if (!d) return r.err(p + "/dtype", "unknown dtype '" + dtype + "'");
  m->dtype = *d;
  LW_RETURN_IF_ERROR(r.int32(j, "in_format", p, 0, n_formats - 1, &m->in_format));
  LW_RETURN_IF_ERROR(r.int32(j, "out_format", p, 0, n_formats - 1, &m->out_format));
  LW_RETURN_IF_ERROR(r.int32(j, "threads", p, 1, 1024, &m->threads));
  if (const json* f = r.field(j, "fused_activation")) {
    if (!f->is_boolean()) return r.err(p + "/fused_activation", "expected true or false");
    m->fused_activation = f->get<bool>();
  }
  LW_RETURN_IF_ERROR(r.string(j, "status", p, &status));
  const std::optional<ImplStatus> known = parse_name(kImplStatuses, status);
  if (!known) return r.err(p + "/status", "expected ok, unsupported, failed or skipped");
  m->status = *known;
  LW_RETURN_IF_ERROR(r.string(j, "reason", p, &m->reason, false));
  const std::string lp = p + "/latency_ms", mp = p + "/memory_bytes";
  const json* lat = r.field(j, "latency_ms");
  const json* mem = r.field(j, "memory_bytes");
  if (!lat) return r.err(lp, "missing");
  if (!mem) return r.err(mp, "missing");
  LW_RETURN_IF_ERROR(r.object(*lat, lp));
  LW_RETURN_IF_ERROR(r.object(*mem, mp));
  // Unsupported implementations carry no measurement; only the median of an ok one is required.
  const bool need = m->ok();
  LW_RETURN_IF_ERROR(r.number(*lat, "median", lp, &m->latency_ms.median, need));
  LW_RETURN_IF_ERROR(r.number(*lat, "min", lp, &m->latency_ms.min, false));
  LW_RETURN_IF_ERROR(r.number(*lat, "p90", lp, &m->latency_ms.p90, false));
  LW_RETURN_IF_ERROR(r.number(*lat, "cv", lp, &m->latency_ms.cv, false));
  LW_RETURN_IF_ERROR(r.int32(*lat, "runs", lp, 0, 1 << 30, &m->latency_ms.runs, false));
  LW_RETURN_IF_ERROR(r.integer(*mem, "weights", mp, 0, INT64_MAX, &m->memory_bytes.weights, need));
  LW_RETURN_IF_ERROR(r.integer(*mem, "workspace", mp, 0, INT64_MAX, &m->memory_bytes.workspace, need));
  return r.integer(*mem, "output", mp, 0, INT64_MAX, &m->memory_bytes.output, need);
}

Status parse_layer(const Reader& r, const json& j, const std::string& p, int index, int n_formats, LutLayer* l) {
  LW_RETURN_IF_ERROR(r.object(j, p));
  LW_RETURN_IF_ERROR(r.string(j, "name", p, &l->name));
  std::string kind;
  LW_RETURN_IF_ERROR(r.string(j, "kind", p, &kind));
  auto k = parse_layer_kind(kind);
  if (!k) return r.err(p + "/kind", "unknown layer kind '" + kind + "'");
  l->kind = *k;
  const json* inputs = nullptr;
  LW_RETURN_IF_ERROR(r.array(j, "inputs", p, &inputs));
  for (size_t i = 0; i < inputs->size(); ++i) {
    const json& v = (*inputs)[i];
    if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() >= index)
      return r.err(p + "/inputs/" + std::to_string(i), "expected the index of an earlier layer");
    l->inputs.push_back(v.get<int>());
  }
  if (index > 0 && l->inputs.empty()) return r.err(p + "/inputs", "only layer 0 may have no inputs");
  LW_RETURN_IF_ERROR(r.int32(j, "depth", p, 0, kMaxIndex, &l->depth, false));
  if (const json* s = r.field(j, "out_shape")) {
    if (!s->is_array()) return r.err(p + "/out_shape", "expected an array");
    for (size_t i = 0; i < s->size(); ++i) {
      if (!(*s)[i].is_number_integer() || (*s)[i].get<int64_t>() < 0)
        return r.err(p + "/out_shape/" + std::to_string(i), "expected a non-negative integer");
      l->out_shape.push_back((*s)[i].get<int64_t>());
    }
  }
  const json* impls = nullptr;
  LW_RETURN_IF_ERROR(r.array(j, "impls", p, &impls));
  if (impls->empty()) return r.err(p + "/impls", "every layer needs at least one implementation");
  l->impls.resize(impls->size());
  for (size_t i = 0; i < impls->size(); ++i)
    LW_RETURN_IF_ERROR(parse_impl(r, (*impls)[i], p + "/impls/" + std::to_string(i), n_formats, &l->impls[i]));
  return Status::ok();
}

Status parse_conversion(const Reader& r, const json& j, const std::string& p, const Lut& lut, Conversion* c) {
  LW_RETURN_IF_ERROR(r.object(j, p));
  const int n_layers = int(lut.layers.size()), n_formats = int(lut.formats.size());
  LW_RETURN_IF_ERROR(r.int32(j, "producer", p, 0, n_layers - 1, &c->producer));
  LW_RETURN_IF_ERROR(r.int32(j, "consumer", p, -1, n_layers - 1, &c->consumer));
  if (c->consumer >= 0) {
    const auto& in = lut.layers[c->consumer].inputs;
    if (std::find(in.begin(), in.end(), c->producer) == in.end())
      return r.err(p, "no edge from layer " + std::to_string(c->producer) + " to layer " + std::to_string(c->consumer));
  } else if (c->producer != n_layers - 1) {
    return r.err(p + "/producer", "an output conversion (consumer -1) must start at the last layer");
  }
  LW_RETURN_IF_ERROR(r.int32(j, "from_format", p, 0, n_formats - 1, &c->from_format));
  LW_RETURN_IF_ERROR(r.int32(j, "to_format", p, 0, n_formats - 1, &c->to_format));
  const json* d = r.field(j, "direct_ms");
  if (d && !d->is_null()) LW_RETURN_IF_ERROR(r.number(j, "direct_ms", p, &c->direct_ms));
  LW_RETURN_IF_ERROR(r.number(j, "chain_ms", p, &c->chain_ms));
  if (const json* ch = r.field(j, "chain")) {
    if (!ch->is_array()) return r.err(p + "/chain", "expected an array of strings");
    for (size_t i = 0; i < ch->size(); ++i) {
      if (!(*ch)[i].is_string()) return r.err(p + "/chain/" + std::to_string(i), "expected a string");
      c->chain.push_back((*ch)[i].get<std::string>());
    }
  }
  return Status::ok();
}

// Optional: "converters": [{"shape": [n, c, h, w], "ms": {"convert_...": 0.01, ...}}].
Status parse_converters(const Reader& r, const json& j, Lut* lut) {
  const json* cs = r.field(j, "converters");
  if (!cs) return Status::ok();
  if (!cs->is_array()) return r.err("/converters", "expected an array");
  for (size_t i = 0; i < cs->size(); ++i) {
    const std::string p = "/converters/" + std::to_string(i);
    const json& c = (*cs)[i];
    LW_RETURN_IF_ERROR(r.object(c, p));
    ConverterCosts cc;
    const json* shape = r.field(c, "shape");
    if (!shape || !shape->is_array() || shape->size() != 4)
      return r.err(p + "/shape", "expected [n, c, h, w]");
    for (const json& d : *shape) {
      if (!d.is_number_integer() || d.get<int64_t>() < 1) return r.err(p + "/shape", "expected positive integers");
      cc.shape.push_back(d.get<int64_t>());
    }
    const json* ms = r.field(c, "ms");
    if (!ms || !ms->is_object()) return r.err(p + "/ms", "expected an object of converter name -> ms");
    for (auto it = ms->begin(); it != ms->end(); ++it) {
      if (!it->is_number() || it->get<double>() < 0 || !std::isfinite(it->get<double>()))
        return r.err(p + "/ms/" + it.key(), "expected a non-negative number");
      cc.ms.emplace_back(it.key(), it->get<double>());
    }
    lut->converters.push_back(std::move(cc));
  }
  return Status::ok();
}

// Optional: "runtime": {"input_copy_ms": 0.05, "output_copy_ms": 0.001}.
Status parse_runtime(const Reader& r, const json& j, Lut* lut) {
  const json* rt = r.field(j, "runtime");
  if (!rt) return Status::ok();
  LW_RETURN_IF_ERROR(r.object(*rt, "/runtime"));
  LW_RETURN_IF_ERROR(r.number(*rt, "input_copy_ms", "/runtime", &lut->runtime.input_copy_ms));
  return r.number(*rt, "output_copy_ms", "/runtime", &lut->runtime.output_copy_ms);
}

Status parse_lut(const Reader& r, const json& j, Lut* lut) {
  LW_RETURN_IF_ERROR(r.object(j, ""));
  std::string format;
  LW_RETURN_IF_ERROR(r.string(j, "format", "", &format));
  if (format != kLutFormat) return r.err("/format", "expected \"" + std::string(kLutFormat) + "\", got \"" + format + "\"");
  const json* model = r.field(j, "model");
  if (!model) return r.err("/model", "missing");
  LW_RETURN_IF_ERROR(r.object(*model, "/model"));
  LW_RETURN_IF_ERROR(r.string(*model, "name", "/model", &lut->model_name));
  LW_RETURN_IF_ERROR(r.string(*model, "hash", "/model", &lut->model_hash, false));
  for (const char* key : {"device", "protocol"}) {
    const json* v = r.field(j, key);
    if (v && !v->is_object()) return r.err(std::string("/") + key, "expected an object");
    (key[0] == 'd' ? lut->device_json : lut->protocol_json) = v ? v->dump() : "{}";
  }
  const json *formats = nullptr, *layers = nullptr, *conversions = nullptr;
  LW_RETURN_IF_ERROR(r.array(j, "formats", "", &formats));
  if (formats->empty()) return r.err("/formats", "expected at least one format");
  lut->formats.resize(formats->size());
  for (size_t i = 0; i < formats->size(); ++i)
    LW_RETURN_IF_ERROR(parse_format(r, (*formats)[i], "/formats/" + std::to_string(i), &lut->formats[i]));
  LW_RETURN_IF_ERROR(r.array(j, "layers", "", &layers));
  if (layers->empty()) return r.err("/layers", "expected at least one layer");
  lut->layers.resize(layers->size());
  for (size_t i = 0; i < layers->size(); ++i)
    LW_RETURN_IF_ERROR(parse_layer(r, (*layers)[i], "/layers/" + std::to_string(i), int(i), int(formats->size()),
                                   &lut->layers[i]));
  LW_RETURN_IF_ERROR(r.array(j, "conversions", "", &conversions));
  lut->conversions.resize(conversions->size());
  for (size_t i = 0; i < conversions->size(); ++i)
    LW_RETURN_IF_ERROR(
        parse_conversion(r, (*conversions)[i], "/conversions/" + std::to_string(i), *lut, &lut->conversions[i]));
  LW_RETURN_IF_ERROR(parse_converters(r, j, lut));
  LW_RETURN_IF_ERROR(parse_runtime(r, j, lut));
  return r.int32(j, "output_format", "", 0, int64_t(formats->size()) - 1, &lut->output_format, false);
}

}  // namespace

Status lut_from_json(const std::string& text, const std::string& origin, Lut* lut) {
  Reader r{origin};
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    // Re-parse for the position; the exception stays inside this function.
    try {
      json again = json::parse(text);
      (void)again;
    } catch (const json::parse_error& e) {
      return parse_error(origin + ": not valid JSON (byte " + std::to_string(e.byte) + ")");
    } catch (const json::exception& e) {  // e.g. a number too large for a double (found by fuzzing)
      return parse_error(origin + ": not valid JSON: " + e.what());
    }
    return parse_error(origin + ": not valid JSON");
  }
  *lut = Lut{};
  return parse_lut(r, j, lut);
}

Status load_lut(const std::string& path, Lut* lut) {
  std::string text;
  LW_RETURN_IF_ERROR(read_file(path, &text));
  return lut_from_json(text, path, lut);
}

namespace {

json impl_json(const Impl& m) {
  return {{"name", m.name},
          {"library", m.library},
          {"algorithm", m.algorithm},
          {"dtype", to_string(m.dtype)},
          {"in_format", m.in_format},
          {"out_format", m.out_format},
          {"threads", m.threads},
          {"fused_activation", m.fused_activation},
          {"status", to_string(m.status)},
          {"reason", m.reason},
          {"latency_ms",
           {{"median", m.latency_ms.median},
            {"min", m.latency_ms.min},
            {"p90", m.latency_ms.p90},
            {"cv", m.latency_ms.cv},
            {"runs", m.latency_ms.runs}}},
          {"memory_bytes",
           {{"weights", m.memory_bytes.weights},
            {"workspace", m.memory_bytes.workspace},
            {"output", m.memory_bytes.output}}}};
}

}  // namespace

std::string lut_to_json(const Lut& lut) {
  json j;
  j["format"] = kLutFormat;
  j["model"] = {{"name", lut.model_name}, {"hash", lut.model_hash}};
  j["device"] = json::parse(lut.device_json, nullptr, false);
  j["protocol"] = json::parse(lut.protocol_json, nullptr, false);
  j["formats"] = json::array();
  for (const auto& f : lut.formats)
    j["formats"].push_back({{"layout", to_string(f.layout)}, {"dtype", to_string(f.dtype)}, {"threads", f.threads}});
  j["layers"] = json::array();
  for (const auto& l : lut.layers) {
    json impls = json::array();
    for (const auto& m : l.impls) impls.push_back(impl_json(m));
    j["layers"].push_back({{"name", l.name},
                           {"kind", to_string(l.kind)},
                           {"inputs", l.inputs},
                           {"depth", l.depth},
                           {"out_shape", l.out_shape},
                           {"impls", std::move(impls)}});
  }
  j["conversions"] = json::array();
  for (const auto& c : lut.conversions) {
    json cj = {{"producer", c.producer}, {"consumer", c.consumer}, {"from_format", c.from_format},
               {"to_format", c.to_format}, {"chain_ms", c.chain_ms},  {"chain", c.chain}};
    cj["direct_ms"] = c.direct_ms >= 0 ? json(c.direct_ms) : json(nullptr);
    j["conversions"].push_back(std::move(cj));
  }
  if (!lut.converters.empty()) {
    j["converters"] = json::array();
    for (const auto& c : lut.converters) {
      json ms = json::object();
      for (const auto& [name, v] : c.ms) ms[name] = v;
      j["converters"].push_back({{"shape", c.shape}, {"ms", ms}});
    }
  }
  j["output_format"] = lut.output_format;
  if (lut.runtime.measured())
    j["runtime"] = {{"input_copy_ms", lut.runtime.input_copy_ms}, {"output_copy_ms", lut.runtime.output_copy_ms}};
  return j.dump(1);
}

Status save_lut(const Lut& lut, const std::string& path) { return write_file_atomic(path, lut_to_json(lut)); }

std::string model_hash(const Network& net) { return fnv1a_hex(network_to_json(net, "")); }

}  // namespace lw
