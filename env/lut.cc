#include "env/lut.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <nlohmann/json.hpp>

#include "libs/core/enum_names.h"
#include "libs/core/files.h"
#include "libs/core/hash.h"
#include "libs/core/json_reader.h"
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

double RuntimeCosts::handoff(ThreadPoolId from, ThreadPoolId to, double step_ms) const {
  if (handoffs.empty()) return 0.0;
  const int k = int(from) * kThreadPoolCount + int(to);
  const double us = step_ms * 1000.0;
  if (us <= handoffs.front().item_us) return handoffs.front().ms[k];
  for (size_t i = 1; i < handoffs.size(); ++i) {
    const HandoffMatrix &lo = handoffs[i - 1], &hi = handoffs[i];
    if (us <= hi.item_us) return lo.ms[k] + (hi.ms[k] - lo.ms[k]) * (us - lo.item_us) / (hi.item_us - lo.item_us);
  }
  return handoffs.back().ms[k];
}

int64_t Lut::impl_count() const {
  int64_t n = 0;
  for (const auto& l : layers) n += int64_t(l.impls.size());
  return n;
}

namespace {

// The LUT is read in the one reading style (libs/core/json_reader.h): each key is read once,
// with its type and range, and a key no call asks for is refused, since the format is ours.
// Errors are one line naming the file and the JSON path.

constexpr int64_t kMaxIndex = int64_t(1) << 30;
constexpr double kAnyMs = std::numeric_limits<double>::infinity();

// A required nested object: "missing" names the object itself, not its first key.
void required_object(JsonReader& r, const char* key, const std::function<void(JsonReader&)>& read) {
  if (r.value(key, true)) r.object(key, read);
}

// Each element of the array at `key` (required) through its own reader.
void each_element(JsonReader& r, const char* key, const std::function<void(JsonReader&, size_t)>& read) {
  const json* a = r.value(key, true);
  if (!a) return;
  if (!a->is_array()) return r.fail(std::string("/") + key, "expected an array");
  for (size_t i = 0; r.ok() && i < a->size(); ++i) {
    JsonReader e = r.element(key, i);
    read(e, i);
    r.adopt(e.finish());
  }
}

template <class T>
void named(JsonReader& r, const char* key, const char* what, std::optional<T> (*parse)(const std::string&), T* out) {
  std::string name;
  r.text(key, &name, true);
  if (!r.ok()) return;
  if (std::optional<T> v = parse(name)) *out = *v;
  else r.fail(std::string("/") + key, "unknown " + std::string(what) + " '" + name + "'");
}

void read_format(JsonReader& r, Format* f) {
  named(r, "layout", "layout", parse_layout, &f->layout);
  named(r, "dtype", "dtype", parse_dtype, &f->dtype);
  r.integer("threads", &f->threads, 1, 1024, true);
}

std::optional<ImplStatus> parse_impl_status(const std::string& s) { return parse_name(kImplStatuses, s); }

void read_impl(JsonReader& r, int n_formats, Impl* m) {
  r.text("name", &m->name, true);
  r.text("library", &m->library, true);
  r.text("algorithm", &m->algorithm, true);
  named(r, "dtype", "dtype", parse_dtype, &m->dtype);
  r.integer("in_format", &m->in_format, 0, n_formats - 1, true);
  r.integer("out_format", &m->out_format, 0, n_formats - 1, true);
  r.integer("threads", &m->threads, 1, 1024, true);
  r.boolean("fused_activation", &m->fused_activation);
  std::string status;
  r.text("status", &status, true);
  if (r.ok() && !parse_impl_status(status)) r.fail("/status", "expected ok, unsupported, failed or skipped");
  if (r.ok()) m->status = *parse_impl_status(status);
  r.text("reason", &m->reason);
  // Unsupported implementations carry no measurement; only the median of an ok one is required.
  const bool need = m->ok();
  auto latency = [](LatencyStats* out, bool need) {
    return [out, need](JsonReader& l) {
      l.number("median", &out->median, 0, kAnyMs, need);
      l.number("mean", &out->mean, 0, kAnyMs);
      l.number("min", &out->min, 0, kAnyMs);
      l.number("p90", &out->p90, 0, kAnyMs);
      l.number("cv", &out->cv, 0, kAnyMs);
      l.integer("runs", &out->runs, 0, 1 << 30);
    };
  };
  required_object(r, "latency_ms", latency(&m->latency_ms, need));
  if (r.value("alone_latency_ms")) r.object("alone_latency_ms", latency(&m->alone_ms.emplace(), true));
  r.number("output_in_memory", &m->output_in_memory, 0, 1);
  r.number("input_in_memory_ms", &m->input_in_memory_ms, 0, kAnyMs);
  required_object(r, "memory_bytes", [&](JsonReader& b) {
    b.integer("weights", &m->memory_bytes.weights, 0, INT64_MAX, need);
    b.integer("workspace", &m->memory_bytes.workspace, 0, INT64_MAX, need);
    b.integer("output", &m->memory_bytes.output, 0, INT64_MAX, need);
  });
}

void read_layer(JsonReader& r, int index, int n_formats, LutLayer* l) {
  r.text("name", &l->name, true);
  named(r, "kind", "layer kind", parse_layer_kind, &l->kind);
  if (const json* in = r.value("inputs", true)) {
    if (!in->is_array()) return r.fail("/inputs", "expected an array");
    for (size_t i = 0; r.ok() && i < in->size(); ++i) {
      const json& v = (*in)[i];
      if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() >= index)
        r.fail("/inputs/" + std::to_string(i), "expected the index of an earlier layer");
      else
        l->inputs.push_back(v.get<int>());
    }
    if (r.ok() && index > 0 && l->inputs.empty()) r.fail("/inputs", "only layer 0 may have no inputs");
  }
  r.integer("depth", &l->depth, 0, int(kMaxIndex));
  if (const json* s = r.value("out_shape")) {
    if (!s->is_array()) return r.fail("/out_shape", "expected an array");
    for (size_t i = 0; r.ok() && i < s->size(); ++i) {
      if (!(*s)[i].is_number_integer() || (*s)[i].get<int64_t>() < 0)
        r.fail("/out_shape/" + std::to_string(i), "expected a non-negative integer");
      else
        l->out_shape.push_back((*s)[i].get<int64_t>());
    }
  }
  each_element(r, "impls", [&](JsonReader& e, size_t) {
    l->impls.emplace_back();
    read_impl(e, n_formats, &l->impls.back());
  });
  if (r.ok() && l->impls.empty()) r.fail("/impls", "every layer needs at least one implementation");
}

void read_conversion(JsonReader& r, const Lut& lut, Conversion* c) {
  const int n_layers = int(lut.layers.size()), n_formats = int(lut.formats.size());
  r.integer("producer", &c->producer, 0, n_layers - 1, true);
  r.integer("consumer", &c->consumer, -1, n_layers - 1, true);
  if (!r.ok()) return;
  if (c->consumer >= 0) {
    const auto& in = lut.layers[c->consumer].inputs;
    if (std::find(in.begin(), in.end(), c->producer) == in.end())
      return r.fail("", "no edge from layer " + std::to_string(c->producer) + " to layer " + std::to_string(c->consumer));
  } else if (c->producer != n_layers - 1) {
    return r.fail("/producer", "an output conversion (consumer -1) must start at the last layer");
  }
  r.integer("from_format", &c->from_format, 0, n_formats - 1, true);
  r.integer("to_format", &c->to_format, 0, n_formats - 1, true);
  const json* d = r.value("direct_ms");  // null: no direct converter
  if (d && !d->is_null()) r.number("direct_ms", &c->direct_ms, 0, kAnyMs);
  r.number("chain_ms", &c->chain_ms, 0, kAnyMs, true);
  r.number("input_in_memory_ms", &c->input_in_memory_ms, 0, kAnyMs);
  r.texts("chain", &c->chain);
}

// Optional: "converters": [{"shape": [n, c, h, w], "ms": {"convert_...": 0.01, ...}}].
void read_converter(JsonReader& r, ConverterCosts* cc) {
  const json* shape = r.value("shape");
  if (!shape || !shape->is_array() || shape->size() != 4) return r.fail("/shape", "expected [n, c, h, w]");
  for (const json& d : *shape) {
    if (!d.is_number_integer() || d.get<int64_t>() < 1) return r.fail("/shape", "expected positive integers");
    cc->shape.push_back(d.get<int64_t>());
  }
  const json* ms = r.value("ms");
  if (!ms || !ms->is_object()) return r.fail("/ms", "expected an object of converter name -> ms");
  for (auto it = ms->begin(); it != ms->end(); ++it) {
    if (!it->is_number() || it->get<double>() < 0 || !std::isfinite(it->get<double>()))
      return r.fail("/ms/" + it.key(), "expected a non-negative number");
    cc->ms.emplace_back(it.key(), it->get<double>());
  }
}

// {"<from pool>><to pool>": ms, ...} at `key`; pairs left out cost 0.
void read_handoff_pairs(JsonReader& r, const char* key, std::vector<double>* ms) {
  const json* h = r.value(key);
  const std::string at = std::string("/") + key;
  if (!h->is_object()) return r.fail(at, "expected an object of \"<from pool>><to pool>\" -> ms");
  ms->assign(kThreadPoolCount * kThreadPoolCount, 0.0);
  for (auto it = h->begin(); it != h->end(); ++it) {
    const std::string& name = it.key();
    const size_t gt = name.find('>');
    // LUTs before 2026-11-23 list an "openblas" pool, never measured (0): OpenBLAS runs on
    // the native worker, so those pairs are dropped.
    if (name.rfind("openblas>", 0) == 0 || (gt != std::string::npos && name.substr(gt + 1) == "openblas")) continue;
    const auto from = parse_thread_pool(name.substr(0, gt)), to = gt == std::string::npos ? std::nullopt : parse_thread_pool(name.substr(gt + 1));
    if (!from || !to) return r.fail(at + "/" + name, "expected \"<from>><to>\" of the pools caller, native, xnnpack, openmp");
    if (!it->is_number() || it->get<double>() < 0 || !std::isfinite(it->get<double>()))
      return r.fail(at + "/" + name, "expected a non-negative number");
    (*ms)[int(*from) * kThreadPoolCount + int(*to)] = it->get<double>();
  }
}

// "handoffs": [{"item_us": us, "ms": {pairs}}, ...] with ascending items; LUTs from before
// 2026-11-26 have one matrix, "handoff_ms" (+ "handoff_item_us" from 2026-11-25; 20 us before).
void read_handoffs(JsonReader& rt, RuntimeCosts* rc) {
  if (rt.value("handoff_ms")) {
    HandoffMatrix m;
    read_handoff_pairs(rt, "handoff_ms", &m.ms);
    rt.number("handoff_item_us", &m.item_us, 0, 1e6);
    if (m.item_us == 0) m.item_us = 20;
    rc->handoffs.push_back(std::move(m));
  }
  if (!rt.value("handoffs")) return;
  each_element(rt, "handoffs", [&](JsonReader& e, size_t) {
    HandoffMatrix m;
    e.number("item_us", &m.item_us, 1, 1e6, true);
    if (e.ok() && !rc->handoffs.empty() && m.item_us <= rc->handoffs.back().item_us)
      return e.fail("/item_us", "expected items in ascending order, each once");
    if (e.value("ms", true)) read_handoff_pairs(e, "ms", &m.ms);
    rc->handoffs.push_back(std::move(m));
  });
}

// "speed_ms": {"t1": ms, "t2": ms}; a thread set may be missing (not profiled).
void read_speed(JsonReader& r, RuntimeCosts* rc) {
  const json* h = r.value("speed_ms");
  if (!h->is_object()) return r.fail("/speed_ms", "expected an object of \"t<threads>\" -> ms");
  for (auto it = h->begin(); it != h->end(); ++it) {
    const std::string& key = it.key();
    const int t = key.size() == 2 && key[0] == 't' && key[1] >= '1' && key[1] <= '9' ? key[1] - '0' : 0;
    if (!t) return r.fail("/speed_ms/" + key, "expected a thread set \"t1\" ... \"t9\"");
    if (!it->is_number() || !(it->get<double>() > 0) || !std::isfinite(it->get<double>()))
      return r.fail("/speed_ms/" + key, "expected a positive number");
    if (rc->speed_ms.size() < size_t(t)) rc->speed_ms.resize(size_t(t), 0.0);
    rc->speed_ms[size_t(t - 1)] = it->get<double>();
  }
}

json speed_json(const RuntimeCosts& rc) {
  json j = json::object();
  for (size_t t = 0; t < rc.speed_ms.size(); ++t)
    if (rc.speed_ms[t] > 0) j["t" + std::to_string(t + 1)] = rc.speed_ms[t];
  return j;
}

json handoffs_json(const RuntimeCosts& rc) {
  json all = json::array();
  for (const HandoffMatrix& m : rc.handoffs) {
    json j = json::object();
    for (int f = 0; f < kThreadPoolCount; ++f)
      for (int t = 0; t < kThreadPoolCount; ++t)
        if (f != t) j[std::string(to_string(ThreadPoolId(f))) + ">" + to_string(ThreadPoolId(t))] = m.ms[f * kThreadPoolCount + t];
    all.push_back({{"item_us", m.item_us}, {"ms", j}});
  }
  return all;
}

void read_lut(JsonReader& r, Lut* lut) {
  std::string format;
  r.text("format", &format, true);
  if (r.ok() && format != kLutFormat)
    r.fail("/format", "expected \"" + std::string(kLutFormat) + "\", got \"" + format + "\"");
  required_object(r, "model", [&](JsonReader& m) {
    m.text("name", &lut->model_name, true);
    m.text("hash", &lut->model_hash);
  });
  // Where and how it was measured: kept as written, compared whole (lut_mismatch, caches).
  for (const char* key : {"device", "protocol"}) {
    const json* v = r.value(key);
    if (v && !v->is_object()) r.fail(std::string("/") + key, "expected an object");
    (key[0] == 'd' ? lut->device_json : lut->protocol_json) = v ? v->dump() : "{}";
  }
  each_element(r, "formats", [&](JsonReader& e, size_t) {
    lut->formats.emplace_back();
    read_format(e, &lut->formats.back());
  });
  if (r.ok() && lut->formats.empty()) r.fail("/formats", "expected at least one format");
  const int n_formats = int(lut->formats.size());
  each_element(r, "layers", [&](JsonReader& e, size_t i) {
    lut->layers.emplace_back();
    read_layer(e, int(i), n_formats, &lut->layers.back());
  });
  if (r.ok() && lut->layers.empty()) r.fail("/layers", "expected at least one layer");
  each_element(r, "conversions", [&](JsonReader& e, size_t) {
    lut->conversions.emplace_back();
    read_conversion(e, *lut, &lut->conversions.back());
  });
  if (r.value("converters")) {
    each_element(r, "converters", [&](JsonReader& e, size_t) {
      lut->converters.emplace_back();
      read_converter(e, &lut->converters.back());
    });
  }
  if (r.value("runtime")) {
    r.object("runtime", [&](JsonReader& rt) {
      rt.number("input_copy_ms", &lut->runtime.input_copy_ms, 0, kAnyMs, true);
      rt.number("output_copy_ms", &lut->runtime.output_copy_ms, 0, kAnyMs, true);
      read_handoffs(rt, &lut->runtime);
      if (rt.value("speed_ms")) read_speed(rt, &lut->runtime);
      rt.number("core_link_ns", &lut->runtime.core_link_ns, 0, 1e9);
      rt.number("shared_write_us_per_kb", &lut->runtime.shared_write_us_per_kb, 0, 1e6);
      rt.number("shared_read_us_per_kb", &lut->runtime.shared_read_us_per_kb, 0, 1e6);
    });
  }
  r.integer("output_format", &lut->output_format, 0, n_formats - 1);
}

}  // namespace

Status lut_from_json(const std::string& text, const std::string& origin, Lut* lut) {
  json j;
  LW_RETURN_IF_ERROR(JsonReader::parse(origin, text, &j));
  *lut = Lut{};
  JsonReader r(origin, j);
  read_lut(r, lut);
  return r.finish();
}

Status load_lut(const std::string& path, Lut* lut) {
  std::string text;
  LW_RETURN_IF_ERROR(read_file(path, &text));
  return lut_from_json(text, path, lut);
}

namespace {

json latency_json(const LatencyStats& l) {
  json j = {{"median", l.median}, {"min", l.min}, {"p90", l.p90}, {"cv", l.cv}, {"runs", l.runs}};
  if (l.mean > 0) j["mean"] = l.mean;  // (absent in a LUT from before it: the median plans there)
  return j;
}

json impl_json(const Impl& m) {
  json j = {{"name", m.name},
             {"library", m.library},
             {"algorithm", m.algorithm},
             {"dtype", to_string(m.dtype)},
             {"in_format", m.in_format},
             {"out_format", m.out_format},
             {"threads", m.threads},
             {"fused_activation", m.fused_activation},
             {"status", to_string(m.status)},
             {"reason", m.reason},
             {"latency_ms", latency_json(m.latency_ms)},
             {"memory_bytes",
              {{"weights", m.memory_bytes.weights},
               {"workspace", m.memory_bytes.workspace},
               {"output", m.memory_bytes.output}}}};
  if (m.alone_ms) j["alone_latency_ms"] = latency_json(*m.alone_ms);
  // (absent when 0, and in a LUT from before streamed outputs were measured)
  if (m.output_in_memory > 0) j["output_in_memory"] = m.output_in_memory;
  if (m.input_in_memory_ms > 0) j["input_in_memory_ms"] = m.input_in_memory_ms;
  return j;
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
    if (c.input_in_memory_ms > 0) cj["input_in_memory_ms"] = c.input_in_memory_ms;
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
  if (lut.runtime.measured() || lut.runtime.has_handoffs() || lut.runtime.has_speed() || lut.runtime.core_link_ns > 0 ||
      lut.runtime.has_shared_lines())
    j["runtime"] = {{"input_copy_ms", lut.runtime.input_copy_ms}, {"output_copy_ms", lut.runtime.output_copy_ms}};
  if (lut.runtime.has_handoffs()) j["runtime"]["handoffs"] = handoffs_json(lut.runtime);
  if (lut.runtime.has_speed()) j["runtime"]["speed_ms"] = speed_json(lut.runtime);
  if (lut.runtime.core_link_ns > 0) j["runtime"]["core_link_ns"] = lut.runtime.core_link_ns;
  if (lut.runtime.shared_write_us_per_kb > 0) j["runtime"]["shared_write_us_per_kb"] = lut.runtime.shared_write_us_per_kb;
  if (lut.runtime.shared_read_us_per_kb > 0) j["runtime"]["shared_read_us_per_kb"] = lut.runtime.shared_read_us_per_kb;
  return j.dump(1);
}

Status save_lut(const Lut& lut, const std::string& path) { return write_file_atomic(path, lut_to_json(lut)); }

// The topology only: whether the weights are random does not change what a LUT times, and a
// LUT profiled before the network JSON recorded it keeps matching.
std::string model_hash(const Network& net) { return fnv1a_hex(topology_json(net)); }

}  // namespace lw
