// The profiler's main pass: every layer's implementations timed one by one, as the network
// would run them (cold caches, inputs from their writers), identical layers once; then the
// conversions and the runtime's own costs. profiler_impl.h says where the rest lives.
#include "env/profiler_impl.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>

#include "env/conversion_costs.h"
#include "env/device.h"
#include "env/runtime_costs.h"
#include "libs/exec/memory_plan.h"
#include "libs/quant/quant.h"
#include "libs/ops/thread_pool.h"

namespace lw {

namespace profiling {

namespace {

// Identical layers (kind, parameters, shapes) have identical costs.
std::string layer_signature(const Layer& l, const std::vector<Shape>& in, LayerKind next_activation) {
  const Window& w = l.window;
  std::string s = std::string(to_string(l.kind)) + "|";
  for (const Shape& x : in) s += x.to_string() + ",";
  char buf[200];
  std::snprintf(buf, sizeof buf, "|%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d|%d,%d,%d,%d,%d,%d", w.kh, w.kw, w.stride_h,
                w.stride_w, w.pad_top, w.pad_left, w.pad_bottom, w.pad_right, w.dil_h, w.dil_w, int(w.ceil_mode),
                l.out_channels, l.groups, int(l.has_bias), int(l.count_include_pad), int(l.fused_activation),
                int(next_activation));
  return s + buf;
}

// Quantisation used while timing int8 kernels: values do not change their speed, but whether
// the zero point is 0 does: oneDNN compiles zero-point handling in only when it is nonzero
// (libs/onednn/dnnl_conv.cc), and calibration gives nearly every activation a nonzero one
// (a ReLU output's is -128). Timed with 0, MobileNetV2's int8 depthwise convolutions ran
// 1.2-1.6x slower in the network than in the LUT. Protocol::int8_zero_point. An input that
// can be negative gets another nonzero one: oneDNN's int8 conv reads a -128 one as u8,
// faster (libs/quant non_negative_outputs), which a signed input never gets.
constexpr int32_t kSignedTimingZeroPoint = 3;
QuantParams timing_quant(const Protocol& p, bool non_negative) {
  return {0.05f, non_negative ? p.int8_zero_point : kSignedTimingZeroPoint};
}

}  // namespace

bool wanted(const ImplDesc& d, const ProfileOptions& o) {
  bool lib = o.libraries.empty() || std::find(o.libraries.begin(), o.libraries.end(), d.library) != o.libraries.end();
  return lib && std::find(o.threads.begin(), o.threads.end(), d.threads) != o.threads.end();
}

int64_t weight_floats(const Layer& l) { return int64_t(l.weights.size() + l.bias.size()); }

int64_t network_weight_floats(const Network& net) {
  int64_t n = 0;
  for (const Layer& l : net.layers) n += weight_floats(l);
  return n;
}

int64_t Profiler::count_work(int from) const {
  int64_t n = 0;
  for (size_t i = from; i < net_.layers.size(); ++i)
    for (const auto& c : reg_.candidates(net_, int(i)))
      n += wanted(c.desc, o_) && c.supported.is_ok();
  return n;
}

void Profiler::report(int layer, const std::string& current) {
  if (!o_.progress) return;
  ProfileProgress p;
  p.layer = layer;
  p.layers = int(net_.layers.size()) - 1;
  p.done = done_;
  p.total = total_;
  p.current = current;
  p.elapsed_s = std::chrono::duration<double>(clock_type::now() - start_).count();
  const double pass_s = std::chrono::duration<double>(clock_type::now() - pass_start_).count();
  p.eta_s = done_ > 0 ? pass_s / double(done_) * double(total_ - done_) : 0;
  o_.progress(p);
}

void Profiler::begin_pass(int64_t total) {
  done_ = 0;
  total_ = total;
  pass_start_ = clock_type::now();
}

void Profiler::charge(const ImplDesc& d, double create_s, double measure_s, const Impl& impl) {
  if (!o_.spent) return;
  for (ProfileSpent::Split* s : {&o_.spent->by_library[to_string(d.library)], &o_.spent->by_kind[to_string(d.op)],
                                 &o_.spent->by_threads["t" + std::to_string(d.threads)]}) {
    s->create_s += create_s;
    s->measure_s += measure_s;
    s->measured += 1;
    s->runs += impl.latency_ms.runs;
    s->timed_s += impl.latency_ms.runs * impl.latency_ms.cost_ms() / 1000;
    s->skipped += impl.status == ImplStatus::kSkipped;
  }
}

Status Profiler::time_primitive(int i, const PrimitiveArgs& args, Look look, Impl* impl) {
  const auto t0 = clock_type::now();
  std::unique_ptr<Primitive> prim;
  LW_RETURN_IF_ERROR(reg_.create(args, &prim));
  impl->memory_bytes = {int64_t(prim->packed_weight_bytes()), int64_t(prim->workspace_bytes()),
                        int64_t(prim->output_bytes())};
  const Rival* rival = look == Look::kToTheEnd || o_.protocol.early_stop_margin <= 0
                           ? nullptr
                           : rivals_.rival_for(*lut_, args.desc.op, *impl, o_.stop_rule);
  const double limit = rival ? (1 + o_.protocol.early_stop_margin) * rival->median : 0;
  GiveUp give_up = [limit](const std::vector<double>& ms) {
    return int(ms.size()) >= kGiveUpRuns && *std::min_element(ms.begin(), ms.end()) > limit;
  };
  Buffers b;
  LW_RETURN_IF_ERROR(set_up_buffers(i, args, *prim, &b));
  WarmSet& warm = b.warm;
  warm.warm_call_path = [&prim] { prim->warm_call_path(); };
  const bool streams = o_.protocol.cold_cache && o_.protocol.streamed_outputs;
  // (1-thread steps: a 2-thread step's output lies half in each core's caches, which a read
  // on the caller does not tell from memory)
  if (streams && args.desc.threads == 1 && b.out.bytes() >= kStreamProbeMinBytes)
    warm.output_probe = {b.out.data(), b.out.bytes(), &impl->output_in_memory};
  ScopedPin pin;
  const auto t1 = clock_type::now();
  // The protocol's warm-up is the primitive's first run: some primitives finish their setup
  // there (LibTorch's quantized oneDNN conv ran 2x slower until then).
  bool gave_up = false;
  double before = pair_probe_for(i, args.desc);
  for (int attempt = 1;; ++attempt) {
    gave_up = false;
    if (rival && look == Look::kSecondLook) {  // a short probe on the fresh primitive
      Protocol probe = o_.protocol;
      probe.runs = probe.max_runs = kGiveUpRuns;
      LW_RETURN_IF_ERROR(measure(probe, [&] { return prim->run(); }, &impl->latency_ms, &warm, &give_up, &gave_up));
    }
    if (!gave_up)
      LW_RETURN_IF_ERROR(measure(o_.protocol, [&] { return prim->run(); }, &impl->latency_ms, &warm,
                                 rival && look == Look::kMayStop ? &give_up : nullptr, &gave_up));
    // (the wait's last poll, just taken, is the next try's probe before)
    if (!timed_on_one_core(i, args.desc, std::max(before, pair_probe_for(i, args.desc)), attempt, &before)) break;
  }
  if (streams && !gave_up) LW_RETURN_IF_ERROR(time_input_in_memory(*prim, warm, impl));
  if (gave_up) {
    char why[300];
    std::snprintf(why, sizeof why, "fastest of %d runs %.4g ms > (1 + %.2g) x %.4g ms, the median of %s",
                  impl->latency_ms.runs, impl->latency_ms.min, o_.protocol.early_stop_margin, rival->median,
                  rival->name.c_str());
    impl->status = ImplStatus::kSkipped;
    impl->reason = why;
  }
  charge(args.desc, std::chrono::duration<double>(t1 - t0).count(),
         std::chrono::duration<double>(clock_type::now() - t1).count(), *impl);
  return Status::ok();
}

// A step without weights (a pool, an activation, a concat, an add) timed again with its inputs
// in memory, as a producer that streams its output leaves them (Impl::input_in_memory_ms):
// such steps run at the speed they read. Steps with weights compute more than they read, and
// are not (a 1x1 conv on a streamed 2.4 MB input: +2-5 %, results/reference/streamed-outputs/).
Status Profiler::time_input_in_memory(Primitive& prim, const WarmSet& warm, Impl* impl) {
  size_t in_bytes = 0;
  for (const auto& buffer : warm.buffers) in_bytes += buffer.second;
  if (prim.packed_weight_bytes() > 0 || in_bytes < kStreamProbeMinBytes) return Status::ok();
  WarmSet cold = warm;
  cold.buffers_in_memory = true;
  cold.output_probe = {};
  Protocol p = o_.protocol;
  p.runs = std::min(p.runs, 3);
  p.max_runs = std::min(p.max_runs, kInputInMemoryRuns);
  LatencyStats ms;
  LW_RETURN_IF_ERROR(measure(p, [&] { return prim.run(); }, &ms, &cold));
  impl->input_in_memory_ms = std::max(0.0, ms.cost_ms() - impl->latency_ms.cost_ms());
  return Status::ok();
}

std::string Profiler::cache_key(int i, const ImplDesc& d) const {
  const RuntimeFusion f = d.fused_activation ? runtime_fusion(net_, i) : RuntimeFusion{};
  std::string signs;  // (an int8 kernel's speed depends on whether its input can be negative)
  for (int p : net_.layers[i].inputs) signs += non_negative_[size_t(p)] ? '+' : '-';
  return layer_signature(net_.layers[i], input_shapes(net_, i), f.activation) + (f.add >= 0 ? "|residual|" : "|") +
         signs + "|" + d.name();
}

Impl Profiler::measure_impl(int i, const ImplDesc& d, const Status& supported, const Lut& lut, Look look,
                            bool* from_cache) {
  if (from_cache) *from_cache = false;
  const Layer& layer = net_.layers[i];
  Impl impl;
  impl.name = d.name();
  impl.library = d.algorithm == Algorithm::kFused ? "fused" : to_string(d.library);
  impl.algorithm = to_string(d.algorithm);
  impl.dtype = d.dtype_in;
  impl.in_format = format_index(lut, input_format(d));
  impl.out_format = format_index(lut, output_format(d));
  impl.threads = d.threads;
  impl.fused_activation = d.fused_activation;
  if (!supported.is_ok()) {
    impl.status = ImplStatus::kUnsupported;
    impl.reason = supported.message();
    return impl;
  }
  if (d.algorithm == Algorithm::kFused) {  // nothing runs: the producer already applied the activation
    impl.memory_bytes.output = layer.out.elements() * int64_t(dtype_bytes(d.dtype_out));
    return impl;
  }
  auto in = input_shapes(net_, i);
  const RuntimeFusion fuse = d.fused_activation ? runtime_fusion(net_, i) : RuntimeFusion{};
  if (fuse.add >= 0) in.push_back(layer.out);  // the residual it accumulates into
  const std::string key = cache_key(i, d);
  if (o_.reuse_identical_layers && look == Look::kMayStop && cache_.count(key)) {
    if (from_cache) *from_cache = true;
    figure_of_[{i, key}] = timed_on_[key];
    return cache_[key];
  }
  Layer fused_layer = runtime_fusion_layer(layer, fuse);
  std::vector<QuantParams> in_q;
  for (size_t k = 0; k < in.size(); ++k)  // (the residual, last: its zero point goes into the bias)
    in_q.push_back(timing_quant(o_.protocol, k < layer.inputs.size() && non_negative_[size_t(layer.inputs[k])]));
  PrimitiveArgs args{d, &fused_layer, in, in_q, timing_quant(o_.protocol, true)};
  if (d.dtype_in == DType::kI8 && int8_keeps_input_quant(layer.kind)) args.out_quant = in_q[0];
  Status s = time_primitive(i, args, look, &impl);
  if (!s.is_ok()) {
    impl.status = ImplStatus::kFailed;
    impl.reason = s.message();
  }
  cache_[key] = impl;
  timed_on_[key] = figure_of_[{i, key}] = i;
  return impl;
}

// The end-of-layer check of an implementation stopped early (see the comment on kGiveUpRuns):
// skipped only when a fresh probe loses again, to the best rival of the whole layer.
void Profiler::second_look(int i, const ImplDesc& d, const Lut& lut, Impl* first) {
  report(i, d.name() + " (second look)");
  Impl again = measure_impl(i, d, Status::ok(), lut, Look::kSecondLook);
  if (again.status == ImplStatus::kSkipped) {
    again.reason = "early stop (same formats and fusion, no more memory): " + first->reason + "; again at the end " +
                   "of the layer: " + again.reason;
    if (o_.audit_early_stop) {
      Impl full = measure_impl(i, d, Status::ok(), lut, Look::kToTheEnd);
      again.latency_ms = full.latency_ms;
      again.reason = "audit, measured to the end: " + again.reason;
    }
  }
  *first = again;
  cache_[cache_key(i, d)] = *first;  // (measure_impl noted layer i as where it was timed)
}

// Wanted candidates in the order to measure them: by their standing on the last layer of
// the same kind (unknown ones first, as they may be fast), registry order among equals.
std::vector<size_t> Profiler::likely_fastest_first(LayerKind kind, const std::vector<Candidate>& cands) const {
  std::vector<std::pair<double, size_t>> order;
  for (size_t k = 0; k < cands.size(); ++k) {
    if (!wanted(cands[k].desc, o_)) continue;
    auto it = rank_.find({int(kind), cands[k].desc.name()});
    order.emplace_back(it == rank_.end() ? 0.0 : it->second, k);
  }
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<size_t> idx;
  for (const auto& o : order) idx.push_back(o.second);
  return idx;
}

Status Profiler::measure_layer(int i, Lut& lut) {
  const Layer& layer = net_.layers[i];
  const std::vector<Candidate> cands = reg_.candidates(net_, i);
  std::vector<size_t> order = likely_fastest_first(layer.kind, cands);
  std::map<size_t, Impl> measured;  // by candidate index: the LUT keeps registry order
  std::vector<size_t> suspects;     // stopped early in this layer (not taken from the cache)
  rivals_.clear();
  for (size_t k : order) {
    const Candidate& c = cands[k];
    report(i, c.desc.name());
    bool cached = false;
    Impl impl = measure_impl(i, c.desc, c.supported, lut, Look::kMayStop, &cached);
    rivals_.add(impl);
    if (impl.status == ImplStatus::kSkipped && !cached) suspects.push_back(k);
    measured[k] = std::move(impl);
    done_ += c.supported.is_ok();
  }
  for (size_t k : suspects) second_look(i, cands[k].desc, lut, &measured[k]), rivals_.add(measured[k]);
  for (auto& [k, impl] : measured) {
    if (impl.status == ImplStatus::kOk || impl.status == ImplStatus::kSkipped) {
      double best = rivals_.best_median(impl);
      double own = impl.ok() ? impl.latency_ms.median : impl.latency_ms.min;
      if (best > 0 && !impl.is_fused_consumer()) rank_[{int(layer.kind), impl.name}] = own / best;
    }
    lut.layers[i].impls.push_back(std::move(impl));
  }
  bool any_ok = false;
  for (const Impl& impl : lut.layers[i].impls) any_ok |= impl.ok();
  if (!any_ok)
    return unsupported("failed to profile layer '" + layer.name + "' (" + to_string(layer.kind) +
                       "): no selected library implements it");
  return Status::ok();
}

Status Profiler::run(Lut* out) {
  Lut lut = skeleton(net_, o_);
  lut_ = &lut;
  int next = 1;
  LW_RETURN_IF_ERROR(resume(o_, lut, &lut, &next));
  total_ = count_work(next);
  start_thread_sets();
  for (size_t t = 0; t < lut.runtime.speed_ms.size(); ++t) speed_.add(int(t + 1), lut.runtime.speed_ms[t]);
  speed_.add_link(lut.runtime.core_link_ns);
  link_at_.assign(net_.layers.size() + 1, 0.0);
  pair_at_.assign(net_.layers.size() + 1, 0.0);
  for (int i = next; i < int(net_.layers.size()); ++i) {
    // Probed between layers, so that the LUT's speed is the one its layers met (a profile
    // lasts minutes, through which a shared host's speed moves).
    link_at_[size_t(i)] = speed_.sample(o_.threads, o_.core_link_probe);
    if (far_aware()) pair_at_[size_t(i)] = probe_pair(i);
    lut.runtime.speed_ms = speed_.medians();
    lut.runtime.core_link_ns = speed_.link_median();
    LW_RETURN_IF_ERROR(measure_layer(i, lut));
    if (!o_.out_path.empty()) {
      Lut prefix = lut;
      prefix.layers.resize(i + 1);
      LW_RETURN_IF_ERROR(save_lut(prefix, o_.out_path + ".partial"));
    }
    if (o_.should_stop && o_.should_stop() && i + 1 < int(net_.layers.size()))
      return failed("interrupted after layer " + std::to_string(i) + " of " + std::to_string(net_.layers.size() - 1) +
                    (o_.out_path.empty() ? "" : "; run the same command again to resume from " + o_.out_path + ".partial"));
  }
  if (two_thread_set()) link_at_.back() = probe_link();
  if (far_aware()) pair_at_.back() = probe_pair(int(net_.layers.size()));
  LW_RETURN_IF_ERROR(retime_far_layers(lut));
  // The 2-thread figures are near ones now, and so is the link the LUT keeps: over all
  // probes, a profile spent mostly in a far spell read far (SqueezeNet's 339 ns), and bench
  // then took every round for near.
  if (far_aware()) {
    lut.runtime.core_link_ns = speed_.near_link_median();
    wait_for_near_cores(nearest_link());  // (before the ageing)
  }
  LW_RETURN_IF_ERROR(age_streamed_weights(lut));
  LW_RETURN_IF_ERROR(measure_graph_costs(lut));
  if (!o_.out_path.empty()) {
    LW_RETURN_IF_ERROR(save_lut(lut, o_.out_path));
    std::remove((o_.out_path + ".partial").c_str());
  }
  *out = std::move(lut);
  return Status::ok();
}

// What the LUT holds besides the layers, once they are in: the conversions between formats,
// the runtime's own costs, and with two thread sets the hand-offs and shared lines between
// the cores (each timed with the cores near throughout).
Status Profiler::measure_graph_costs(Lut& lut) {
  report(int(net_.layers.size()) - 1, "conversions");
  auto t0 = clock_type::now();
  LW_RETURN_IF_ERROR(near_throughout("conversions", [&](const std::function<void()>& probe_between) {
    return measure_conversions(net_, reg_, o_.protocol, &lut, probe_between);
  }));
  auto t1 = clock_type::now();
  LW_RETURN_IF_ERROR(measure_runtime_costs(net_, o_.protocol, &lut.runtime));
  if (two_thread_set()) {  // (a hand-off, and a shared line, crosses from one core to the other)
    LW_RETURN_IF_ERROR(near_throughout("hand-offs", [&](const std::function<void()>&) {  // (rounds interleave
      // the pairs and keep medians: a spell inside spoils a few rounds of each, not a figure)
      return measure_handoff_costs(kHandoffRounds, &lut.runtime);
    }));
    LW_RETURN_IF_ERROR(near_throughout("shared lines", [&](const std::function<void()>&) {
      return measure_shared_lines(kSharedLinesRounds, &lut.runtime);
    }));
  }
  if (o_.spent) {
    o_.spent->conversions_s = std::chrono::duration<double>(t1 - t0).count();
    o_.spent->runtime_s = std::chrono::duration<double>(clock_type::now() - t1).count();
    o_.spent->total_s = std::chrono::duration<double>(clock_type::now() - start_).count();
  }
  return Status::ok();
}

}  // namespace profiling

Status profile_network(const Network& net, const Registry& registry, const ProfileOptions& options, Lut* lut) {
  if (options.threads.empty()) return invalid_argument("profile: no thread set selected");
  profiling::Profiler p(net, registry, options);
  return p.run(lut);
}

Status remeasure_impls(const Network& net, const Registry& registry, const ProfileOptions& options,
                       const std::vector<std::pair<int, std::string>>& which, Lut* lut) {
  profiling::Profiler p(net, registry, options);
  return p.remeasure(which, lut);
}

}  // namespace lw
