#include "env/profiler.h"
#include "env/runtime_costs.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <random>
#include <thread>
#include <tuple>

#include "env/conversion_costs.h"
#include "env/device.h"
#include "env/profiler_early_stop.h"
#include "env/speed_probe.h"
#include "libs/exec/memory_plan.h"
#include "libs/ir/network_json.h"
#include "libs/quant/quant.h"
#include "libs/ops/thread_pool.h"

namespace lw {

namespace {

using clock_type = std::chrono::steady_clock;

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

int format_index(const Lut& lut, const Format& f) {
  for (size_t i = 0; i < lut.formats.size(); ++i)
    if (lut.formats[i] == f) return int(i);
  return -1;
}

int depth_of(const Network& net, int i, const std::vector<int>& depth) {
  int d = 0;
  for (int p : net.layers[i].inputs) d = std::max(d, depth[p] + 1);
  return d;
}

Lut skeleton(const Network& net, const ProfileOptions& o) {
  Lut lut;
  lut.model_name = net.name;
  lut.model_hash = model_hash(net);
  lut.device_json = device_fingerprint().dump();
  lut.protocol_json = o.protocol.to_json().dump();
  for (const Format& f : all_formats())
    if (std::find(o.threads.begin(), o.threads.end(), f.threads) != o.threads.end()) lut.formats.push_back(f);
  lut.output_format = format_index(lut, Format{Layout::kNCHW, DType::kF32, o.threads.front()});
  std::vector<int> depth(net.layers.size(), 0);
  for (size_t i = 0; i < net.layers.size(); ++i) {
    const Layer& l = net.layers[i];
    depth[i] = depth_of(net, int(i), depth);
    LutLayer ll;
    ll.name = l.name;
    ll.kind = l.kind;
    ll.inputs = l.inputs;
    ll.depth = depth[i];
    ll.out_shape = {l.out.n, l.out.c, l.out.h, l.out.w};
    lut.layers.push_back(std::move(ll));
  }
  // The network input arrives as NCHW f32 from the caller.
  Impl in;
  in.name = "input_nchw_f32";
  in.library = "input";
  in.algorithm = "default";
  in.in_format = in.out_format = lut.output_format;
  in.memory_bytes.output = net.layers[0].out.elements() * 4;
  lut.layers[0].impls.push_back(in);
  return lut;
}

bool wanted(const ImplDesc& d, const ProfileOptions& o) {
  bool lib = o.libraries.empty() || std::find(o.libraries.begin(), o.libraries.end(), d.library) != o.libraries.end();
  return lib && std::find(o.threads.begin(), o.threads.end(), d.threads) != o.threads.end();
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

// Timings of a 2-thread implementation while the pair probe reads one core; between them the
// probe is polled every kApartPollMs until it reads two cores, at most kApartWaitMs
// (Profiler::timed_on_one_core).
constexpr int kApartTries = 3;
constexpr int kApartPollMs = 20, kApartWaitMs = 300;

int64_t weight_floats(const Layer& l) { return int64_t(l.weights.size() + l.bias.size()); }

int64_t network_weight_floats(const Network& net) {
  int64_t n = 0;
  for (const Layer& l : net.layers) n += weight_floats(l);
  return n;
}

}  // namespace

// The distinct activation elements one inference touches: its outputs placed in one arena
// with reuse, as the executor plans them (libs/exec/memory_plan.h; without in-place steps,
// which only shrink it). Every output's sum overstated it 4.5-11x on the bench models: on a
// Zen 3 VM a 63.5 MiB flush (MobileNetV2's weights and every output) timed its oneDNN f32
// convs 1.6-2.9x slower than the network ran them (results/reference/zen3/).
int64_t network_arena_floats(const Network& net) {
  std::vector<Buffer> b(net.layers.size());
  for (size_t i = 0; i < b.size(); ++i) {
    b[i] = {size_t(net.layers[i].out.elements()), int(i), int(i), -1};
    for (int p : net.layers[i].inputs) b[p].last = std::max(b[p].last, int(i));
  }
  if (!b.empty()) b.back().last = int(b.size());  // the network's output is read after the run
  return int64_t(plan_arena(b).arena_bytes);
}

namespace {

// Early stop: see env/profiler_early_stop.h for why it cannot change what a search finds.
enum class Look { kMayStop, kSecondLook, kToTheEnd };

class Profiler {
 public:
  Profiler(const Network& net, const Registry& reg, const ProfileOptions& o)
      : net_(net), reg_(reg), o_(o), non_negative_(non_negative_outputs(net)) {}
  Status run(Lut* lut);
  Status remeasure(const std::vector<std::pair<int, std::string>>& which, Lut* lut);

 private:
  Status measure_layer(int i, Lut& lut);
  Impl measure_impl(int i, const ImplDesc& d, const Status& supported, const Lut& lut, Look look,
                    bool* from_cache = nullptr);
  Status time_primitive(int i, const PrimitiveArgs& args, Look look, Impl* impl);
  double pair_probe_for(int i, const ImplDesc& d) const;
  bool timed_on_one_core(int i, const ImplDesc& d, double pair, int attempt, double* polled);
  double inference_estimate_ms(int i, const ImplDesc& d) const;
  double weights_age_ms(int i, const ImplDesc& d, size_t packed_bytes) const;
  Status age_streamed_weights(Lut& lut);
  bool two_thread_set() const;
  bool far_aware() const;
  using Stage = std::function<Status(const std::function<void()>& probe_between)>;
  Status near_throughout(const char* what, const Stage& stage);
  double probe_link() const;
  double probe_pair(int layer, const std::string& impl = "") const;
  double nearest_link() const;
  bool apart_now(double nearest) const;
  bool wait_for_near_cores(double nearest);
  // An implementation timed again with the cores near, and how far they were the first time.
  struct NearTiming {
    Impl impl;
    double far_link_ns = 0, pair_ratio = 0;
  };
  double far_link_at(size_t i) const;
  double pair_ratio_at(size_t i) const;
  std::string timed_apart_why(size_t i, double nearest) const;
  bool timed_far(size_t i, double nearest) const;
  size_t figure_of(size_t i, const std::string& key) const;
  Status retime_far_layers(Lut& lut);
  std::map<std::string, NearTiming> time_far_layers_again(const Lut& lut, double nearest);
  Status keep_near_timings(const std::map<std::string, NearTiming>& again, double nearest, Lut& lut);
  std::vector<size_t> likely_fastest_first(LayerKind kind, const std::vector<Candidate>& cands) const;
  void second_look(int i, const ImplDesc& d, const Lut& lut, Impl* first);
  std::string cache_key(int i, const ImplDesc& d) const;
  size_t flush_bytes_for(const Layer& l, const Primitive& prim, DType activations) const;
  int64_t count_work(int from) const;
  void report(int layer, const std::string& current);
  void charge(const ImplDesc& d, double create_s, double measure_s, const Impl& impl);

  const Network& net_;
  const Registry& reg_;
  const ProfileOptions& o_;
  std::map<std::string, Impl> cache_;  // signature + impl name -> measured impl
  // Which layer's timing a cache key holds, and which one each (layer, key) row took: a layer
  // near the cores' far spell may hold an identical layer's figure timed inside it.
  std::map<std::string, int> timed_on_;
  std::map<std::pair<int, std::string>, int> figure_of_;
  std::vector<bool> non_negative_;     // per layer: its output is never negative (libs/quant)
  Rivals rivals_;  // ok impls of the layer being measured
  const Lut* lut_ = nullptr;  // the LUT being filled (its formats)
  bool ageing_ = false;  // timing with weights an inference old (weights_age_ms)
  // Per layer kind and impl name: median / best median of its group on the last layer of that
  // kind. Measuring the likely fastest first lets the early stop cut the slower ones short.
  std::map<std::pair<int, std::string>, double> rank_;
  SpeedSamples speed_;  // the device's speed, probed before every layer (RuntimeCosts::speed_ms)
  // The core link probed before layer i was timed (index i; 0: not probed, a resumed
  // profile's layers) and after the last one (index layers): Protocol::far_cores_wait_s.
  std::vector<double> link_at_;
  // The cores' pair ratio probed at the same places (speed_probe.h probe_core_pair_ratio; 0:
  // not probed): a layer timed with both vCPUs on one core is timed again like a far one.
  std::vector<double> pair_at_;
  double waited_s_ = 0;  // spent waiting for the cores to be near again
  const int64_t net_weights_ = network_weight_floats(net_);
  const int64_t net_arena_ = network_arena_floats(net_);
  clock_type::time_point start_ = clock_type::now();
  int64_t done_ = 0, total_ = 0;
};

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
  p.eta_s = done_ > 0 ? p.elapsed_s / done_ * (total_ - done_) : 0;
  o_.progress(p);
}

// Inside a network every other layer's weights and the activation arena pass through the
// caches between two runs of a layer, so big layers find their weights in memory, not in L2
// or the shared cache as they do when timed back to back (MobileNetV2's 1280x1000 FC ran 2x
// slower in the network than in a warm profile). The cold-cache protocol reads that many
// bytes of other data before each run (cold_flush_bytes, at most kMaxCopies - 1 times the
// layer's own packed weights) and evicts L1/L2 when they do not fit there. Packing that many
// copies of the primitive and running each once took half of a ResNet-50 profile for the
// same bytes (results/reference/profile-speed/).
constexpr int kMaxCopies = 32;

// The bytes the rest of the network moves through the caches between two runs of a layer,
// its weights and activation arena in `element_bytes` each: the implementation's own
// activation type, as an int8 layer's neighbours are int8 too. Counted in f32, MobileNetV2's int8 network
// (~10 MB, which stays in a 32 MiB L3 from one inference to the next) flushed the shared
// cache: on a Zen 4 VM the int8 deployments ran 7-14 % faster than predicted at 1 thread,
// 2 % slower to 4 % faster with this count (results/reference/core-distance/int8-bytes/).
int64_t passing_bytes(const Protocol& p, int64_t net_weight_floats, int64_t net_arena_floats,
                      size_t element_bytes) {
  return int64_t(element_bytes) * (net_weight_floats + (p.cover_activations ? net_arena_floats : 0));
}

size_t Profiler::flush_bytes_for(const Layer& l, const Primitive& prim, DType activations) const {
  return cold_flush_bytes(o_.protocol, net_weights_, net_arena_, weight_floats(l),
                          prim.packed_weight_bytes(), shared_cache_bytes(), dtype_bytes(activations));
}

void Profiler::charge(const ImplDesc& d, double create_s, double measure_s, const Impl& impl) {
  if (!o_.spent) return;
  for (ProfileSpent::Split* s : {&o_.spent->by_library[to_string(d.library)], &o_.spent->by_kind[to_string(d.op)],
                                 &o_.spent->by_threads["t" + std::to_string(d.threads)]}) {
    s->create_s += create_s;
    s->measure_s += measure_s;
    s->measured += 1;
    s->runs += impl.latency_ms.runs;
    s->skipped += impl.status == ImplStatus::kSkipped;
  }
}

// A layer that reads its weights once per inference and little else: the output map is one
// pixel (a batch-1 classifier, a squeeze-excite convolution).
bool streams_weights(const Layer& l) { return l.out.h * l.out.w == 1 && weight_floats(l) > 0; }

// One inference at the pace of a deployment that implementation d would sit in: the other
// layers' fastest ok implementations on at most d's threads, f32 ones for an f32 d (an f32
// deployment), any dtype otherwise (a quantised or mixed one). Conversions are left out.
double Profiler::inference_estimate_ms(int i, const ImplDesc& d) const {
  double sum = 0;
  for (size_t j = 1; j < lut_->layers.size(); ++j) {
    if (int(j) == i) continue;
    double best = -1;
    for (const Impl& m : lut_->layers[j].impls)
      if (m.ok() && m.threads <= d.threads && (d.dtype_in != DType::kF32 || m.dtype == DType::kF32) &&
          (best < 0 || m.latency_ms.cost_ms() < best))
        best = m.latency_ms.cost_ms();
    sum += std::max(best, 0.0);
  }
  return sum;
}

// How old d's weights (packed_bytes) are to be when timed (Protocol::age_streamed_weights), 0
// for no wait: only while ageing, for layers that stream their weights. On a Zen 4 VM the
// classifiers the search picked from first timings ran in the network 47 % (f32), 74 % (bf16)
// and 199 % (int8) off their LUT figure on average, the ones it picked from aged timings 18,
// 29 and 16 % (results/reference/weight-age/): oneDNN's int8 classifier of ResNet-50 timed
// 0.059 ms a flush after its last read and ran 0.16 ms in the network.
double Profiler::weights_age_ms(int i, const ImplDesc& d, size_t packed_bytes) const {
  if (!ageing_ || !o_.protocol.ages_streamed_weights() || packed_bytes == 0) return 0;
  return streams_weights(net_.layers[i]) ? inference_estimate_ms(i, d) : 0;
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
  std::vector<Tensor> inputs;
  std::vector<const void*> in_ptrs;
  Tensor out = Tensor::create(prim->output_shape(), prim->output_dtype(), args.desc.layout_out);
  const int acc = prim->accumulate_input();
  for (size_t k = 0; k < args.in_shapes.size(); ++k) {
    if (int(k) == acc) {  // in place, as the executor places it (the sums grow; harmless)
      fill_random(out, 17 + k);
      in_ptrs.push_back(out.data());
      continue;
    }
    inputs.push_back(Tensor::create(args.in_shapes[k], args.desc.dtype_in, args.desc.layout_in));
    fill_random(inputs.back(), 17 + k);
    in_ptrs.push_back(inputs.back().data());
  }
  std::vector<uint8_t> workspace(prim->workspace_bytes() + 64);
  LW_RETURN_IF_ERROR(prim->setup(in_ptrs, out.data(), workspace.data()));
  const int64_t passing = passing_bytes(o_.protocol, net_weights_, net_arena_, dtype_bytes(args.desc.dtype_in));
  WarmSet warm;
  warm.threads = args.desc.threads;
  warm.input_writers = args.desc.threads;  // (a step's inputs come from a step on its thread set, mostly)
  warm.evict = size_t(passing) > private_cache_bytes();
  warm.flush_bytes = flush_bytes_for(*args.layer, *prim, args.desc.dtype_in);
  warm.age_ms = weights_age_ms(i, args.desc, prim->packed_weight_bytes());
  for (const Tensor& t : inputs) warm.buffers.emplace_back(t.data(), t.bytes());
  warm.start_as_in_network(o_.protocol, out.data(), out.bytes(), thread_pool_of(args.desc.library, args.desc.threads));
  // An output the primitive reads first (a residual it adds to) is an input, in the network
  // made shortly before: read back after the eviction, before the inputs (so that a large
  // one does not push them out). Left to start in the shared cache, it came from there or
  // from memory from one profile to the next: ResNet-50's int8 convs that add a residual
  // timed ~0.17 or ~0.4 ms, 0.16 ms in the network (results/reference/int8-layers/final/).
  if (acc >= 0) warm.buffers.insert(warm.buffers.begin(), {out.data(), out.bytes()});
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

// The pair probe around a 2-thread implementation's runs (0: not probed, for a 1-thread one
// or without the far-cores wait).
double Profiler::pair_probe_for(int i, const ImplDesc& d) const {
  return d.threads >= 2 && far_aware() ? probe_pair(i, d.name()) : 0;
}

// Whether the runs just timed ran with the two cores computing as one (the larger pair probe
// around them, `pair`) and are to be timed again: once the probe reads two cores again (or
// kApartWaitMs passed), up to kApartTries timings in all, while Protocol::far_cores_wait_s
// lasts (the far waits' budget, which the polling draws on too). A host's shared-core spell lasts a
// fraction of a second to seconds (results/reference/zen3/shared-core/); one that outlasts the
// tries keeps the last timing, which the layer's own probes then leave to retime_far_layers.
// `polled`: the last poll's reading.
bool Profiler::timed_on_one_core(int i, const ImplDesc& d, double pair, int attempt, double* polled) {
  if (!cores_shared(pair)) return false;
  const bool again = attempt < kApartTries && waited_s_ < o_.protocol.far_cores_wait_s;  // (one budget for all waits)
  if (o_.spent) ++(again ? o_.spent->shared_retried : o_.spent->shared_kept);
  if (!again) return false;
  char what[80];
  std::snprintf(what, sizeof what, " (the two cores computed as one: pair ratio %.2f)", pair);
  report(i, d.name() + what);
  const auto t0 = clock_type::now();
  for (int waited = 0; waited < kApartWaitMs; waited += kApartPollMs) {
    std::this_thread::sleep_for(std::chrono::milliseconds(kApartPollMs));
    *polled = pair_probe_for(i, d);
    if (!cores_shared(*polled)) break;
  }
  waited_s_ += std::chrono::duration<double>(clock_type::now() - t0).count();
  if (o_.spent) o_.spent->far_wait_s = waited_s_;
  return true;
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

Status resume(const ProfileOptions& o, const Lut& fresh, Lut* lut, int* next_layer) {
  std::string partial = o.out_path + ".partial";
  *next_layer = 1;
  if (o.out_path.empty() || !std::ifstream(partial).good()) return Status::ok();
  Lut done;
  LW_RETURN_IF_ERROR(load_lut(partial, &done));
  std::string why;
  if (done.model_hash != fresh.model_hash) why = "another model";
  else if (done.device_json != fresh.device_json) why = "another device or library versions";
  else if (done.protocol_json != fresh.protocol_json) why = "another protocol";
  else if (done.formats.size() != fresh.formats.size()) why = "other thread sets";
  if (!why.empty()) return invalid_argument(partial + ": checkpoint of " + why + "; delete it to start over");
  for (size_t i = 1; i < done.layers.size(); ++i) lut->layers[i].impls = done.layers[i].impls;
  lut->runtime.speed_ms = done.runtime.speed_ms;  // the speed probed so far, one sample per set
  lut->runtime.core_link_ns = done.runtime.core_link_ns;
  *next_layer = int(done.layers.size());
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
  if (!o_.out_path.empty()) {
    LW_RETURN_IF_ERROR(save_lut(lut, o_.out_path));
    std::remove((o_.out_path + ".partial").c_str());
  }
  *out = std::move(lut);
  return Status::ok();
}

// A row that ran when profiled: ok, or stopped early (not unsupported, failed or a fused
// activation, which runs nothing).
bool was_timed(const Impl& m) {
  return !m.is_fused_consumer() && (m.status == ImplStatus::kOk || m.status == ImplStatus::kSkipped);
}

// The row named `name` of `layer` (a LutLayer, const or not), null when there is none.
template <class AnyLutLayer>
auto find_impl(AnyLutLayer& layer, const std::string& name) -> decltype(&layer.impls.front()) {
  for (auto& m : layer.impls)
    if (m.name == name) return &m;
  return nullptr;
}

// Once every layer is in the LUT (so that an inference's time is known), the layers that
// stream their weights are timed again with them an inference old (weights_age_ms) and the
// LUT keeps that figure. Implementations the early stop skipped on the first timing are
// timed to the end too: the age reorders them (XNNPACK's int8 classifier beat oneDNN's once
// aged, results/reference/weight-age/). Done again on a resume: seconds to a minute.
Status Profiler::age_streamed_weights(Lut& lut) {
  if (!o_.protocol.ages_streamed_weights()) return Status::ok();
  const auto t0 = clock_type::now();
  ageing_ = true;
  std::map<std::string, std::pair<Impl, double>> timed;  // by cache key: the aged impl, its age
  for (int i = 1; i < int(net_.layers.size()); ++i) {
    if (!streams_weights(net_.layers[i])) continue;
    for (const Candidate& c : reg_.candidates(net_, i)) {
      Impl* row = find_impl(lut.layers[size_t(i)], c.desc.name());
      if (!row || !wanted(c.desc, o_) || !was_timed(*row)) continue;
      // (the age time_primitive waits: the row holds the primitive's packed bytes)
      const double age = weights_age_ms(i, c.desc, size_t(row->memory_bytes.weights));
      if (age <= 0) continue;
      const std::string key = cache_key(i, c.desc);
      if (!timed.count(key)) {
        report(i, c.desc.name() + " (weights an inference old)");
        timed[key] = {measure_impl(i, c.desc, c.supported, lut, Look::kToTheEnd), age};
      }
      const auto& [aged, timed_at] = timed[key];  // (an identical layer's, as in the profile)
      if (!aged.ok()) return failed("ageing: " + c.desc.name() + " on layer '" + net_.layers[i].name + "': " + aged.reason);
      if (o_.spent)
        o_.spent->aged.push_back({net_.layers[i].name, row->name, timed_at,
                                  row->ok() ? row->latency_ms.median : row->latency_ms.min, aged.latency_ms.median});
      row->latency_ms = aged.latency_ms;
      row->status = ImplStatus::kOk;
      row->reason.clear();
    }
  }
  ageing_ = false;
  if (o_.spent) o_.spent->aged_s = std::chrono::duration<double>(clock_type::now() - t0).count();
  return Status::ok();
}

bool Profiler::two_thread_set() const {
  return std::count(o_.threads.begin(), o_.threads.end(), 2) && available_thread_set_cpus() > 1;
}

bool Profiler::far_aware() const { return two_thread_set() && o_.protocol.far_cores_wait_s > 0; }

// A stage timed over all edges or pools at once (the conversions, the hand-off matrix): it
// starts with the cores near, and runs again (up to three times in all, while the wait lasts)
// when they are far by its end or at a probe it takes between its parts (`probe_between`: the
// conversions probe before each tensor shape, so a spell that begins and ends inside the
// stage is caught too).
Status Profiler::near_throughout(const char* what, const Stage& stage) {
  for (int attempt = 0;; ++attempt) {
    if (far_aware()) wait_for_near_cores(nearest_link());
    bool far_inside = false;
    const std::function<void()> probe_between = [&] {
      if (far_aware() && !far_inside) far_inside = apart_now(nearest_link());
    };
    LW_RETURN_IF_ERROR(stage(probe_between));
    const bool may_wait = far_aware() && waited_s_ < o_.protocol.far_cores_wait_s;  // (else it would run far again)
    if (!may_wait || attempt == 2 || (!far_inside && !apart_now(nearest_link()))) return Status::ok();
    if (o_.spent) o_.spent->far_stages_again.push_back(what);
  }
}

double Profiler::probe_link() const { return probe_core_link_ns(o_.core_link_probe); }

double Profiler::probe_pair(int layer, const std::string& impl) const {
  return o_.core_pair_probe ? o_.core_pair_probe(layer, impl) : probe_core_pair_ratio();
}

// The cores are placed otherwise than for the profile's near timings: far apart, or on one core.
bool Profiler::apart_now(double nearest) const { return core_link_far(probe_link(), nearest) || cores_shared(probe_pair(-1)); }

// What "far" is measured from: the nearest the cores were at any probe of this profile. A
// profile spent far throughout flags nothing, and its LUT describes the cores far apart.
double Profiler::nearest_link() const {
  double nearest = 0;
  for (double ns : link_at_)
    if (ns > 0 && (nearest == 0 || ns < nearest)) nearest = ns;
  return nearest;
}

// Whether the cores are near now, and on two cores of their own, waiting for that within
// what is left of Protocol::far_cores_wait_s.
bool Profiler::wait_for_near_cores(double nearest) {
  auto waiting = [&](double ns) {
    char what[160];
    std::snprintf(what, sizeof what, "waiting for the cores to be near again (%.0f ns, nearest %.0f ns; %.0f s of %.0f)",
                  ns, nearest, waited_s_, o_.protocol.far_cores_wait_s);
    report(int(net_.layers.size()) - 1, what);
  };
  for (;;) {
    const bool near =
        lw::wait_for_near_cores(nearest, o_.protocol.far_cores_wait_s, &waited_s_, o_.core_link_probe, waiting);
    if (o_.spent) o_.spent->far_wait_s = waited_s_;
    if (!near) return false;
    const double pair = probe_pair(-1);
    if (!cores_shared(pair)) return true;
    if (waited_s_ >= o_.protocol.far_cores_wait_s) return false;
    char what[160];
    std::snprintf(what, sizeof what, "waiting for the cores to compute apart again (pair ratio %.2f; %.0f s of %.0f)",
                  pair, waited_s_, o_.protocol.far_cores_wait_s);
    report(int(net_.layers.size()) - 1, what);
    const auto t = clock_type::now();
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    waited_s_ += std::chrono::duration<double>(clock_type::now() - t).count();
  }
}

// The layers timed while the host had put the two vCPUs far apart (a probe before or after
// the layer core_link_far of the profile's nearest) or on one core (cores_shared): their
// 2-thread implementations are timed again, to the end, with the cores near and apart
// (time_far_layers_again), and every layer that took one of those figures from the cache (an
// identical layer) gets the new one (keep_near_timings). 1-thread implementations run on cpu0
// alone and stay as they are.
Status Profiler::retime_far_layers(Lut& lut) {
  if (!far_aware()) return Status::ok();
  const double nearest = nearest_link();
  if (o_.spent) o_.spent->nearest_link_ns = nearest;
  bool any_far = false;
  for (size_t i = 1; i + 1 < link_at_.size(); ++i) any_far |= timed_far(i, nearest);
  if (!any_far) return Status::ok();  // (the common case: no walk over every layer's rows)
  const auto t0 = clock_type::now();
  const double waited_before = waited_s_;  // (the first pass's polls wait on the same budget)
  std::map<std::string, NearTiming> again = time_far_layers_again(lut, nearest);
  LW_RETURN_IF_ERROR(keep_near_timings(again, nearest, lut));
  if (o_.spent)
    o_.spent->retimed_far_s =
        std::chrono::duration<double>(clock_type::now() - t0).count() - (waited_s_ - waited_before);
  return Status::ok();
}

double Profiler::far_link_at(size_t i) const { return std::max(link_at_[i], link_at_[i + 1]); }

double Profiler::pair_ratio_at(size_t i) const { return std::max(pair_at_[i], pair_at_[i + 1]); }

bool Profiler::timed_far(size_t i, double nearest) const {
  return core_link_far(far_link_at(i), nearest) || cores_shared(pair_ratio_at(i));
}

// How layer i's timing was placed, for a row that keeps it: far apart, or on one core.
std::string Profiler::timed_apart_why(size_t i, double nearest) const {
  char why[120];
  if (core_link_far(far_link_at(i), nearest))
    std::snprintf(why, sizeof why, "timed with the cores far apart (%.0f ns, nearest %.0f ns", far_link_at(i), nearest);
  else
    std::snprintf(why, sizeof why, "timed with the two cores computing as one (pair ratio %.2f", pair_ratio_at(i));
  return why;
}

size_t Profiler::figure_of(size_t i, const std::string& key) const {
  auto it = figure_of_.find({int(i), key});
  return it == figure_of_.end() ? i : size_t(it->second);
}

// The second timings, by cache key. A layer whose second timing ends with the cores far again
// is timed once more (three tries); once the wait runs out no more layers are timed.
std::map<std::string, Profiler::NearTiming> Profiler::time_far_layers_again(const Lut& lut, double nearest) {
  std::map<std::string, NearTiming> again;
  for (size_t i = 1; i + 1 < link_at_.size(); ++i) {
    if (!timed_far(i, nearest)) continue;
    std::vector<Candidate> todo;
    for (const Candidate& c : reg_.candidates(net_, int(i))) {
      const Impl* row = find_impl(lut.layers[i], c.desc.name());
      const std::string key = cache_key(int(i), c.desc);
      if (row && c.desc.threads == 2 && wanted(c.desc, o_) && was_timed(*row) && !again.count(key) &&
          timed_far(figure_of(i, key), nearest))  // (not a near layer's figure it took from the cache)
        todo.push_back(c);
    }
    std::map<std::string, Impl> layer;
    for (int attempt = 0; attempt < 3 && layer.empty(); ++attempt) {
      if (!wait_for_near_cores(nearest)) return again;
      for (const Candidate& c : todo) {
        report(int(i), c.desc.name() + " (timed with the cores far apart or on one core)");
        layer[cache_key(int(i), c.desc)] = measure_impl(int(i), c.desc, c.supported, lut, Look::kToTheEnd);
      }
      if (apart_now(nearest)) layer.clear();  // far again (or on one core) by the end
    }
    for (auto& [key, impl] : layer) again[key] = {std::move(impl), far_link_at(i), pair_ratio_at(i)};
  }
  return again;
}

// Every 2-thread row with a second timing takes it; a row of a far layer without one keeps
// its first timing and says why.
Status Profiler::keep_near_timings(const std::map<std::string, NearTiming>& again, double nearest, Lut& lut) {
  for (size_t j = 1; j + 1 < link_at_.size(); ++j)
    for (const Candidate& c : reg_.candidates(net_, int(j))) {
      Impl* row = c.desc.threads == 2 && wanted(c.desc, o_) ? find_impl(lut.layers[j], c.desc.name()) : nullptr;
      if (!row || !was_timed(*row)) continue;
      const std::string key = cache_key(int(j), c.desc);
      auto it = again.find(key);
      if (it == again.end()) {
        const size_t from = figure_of(j, key);  // (an identical layer's timing, taken from the cache)
        if (!timed_far(from, nearest)) continue;
        char why[240];
        std::snprintf(why, sizeof why, "%s%s%s); still so after %.0f s", timed_apart_why(from, nearest).c_str(),
                      from == j ? "" : ", on the identical layer ", from == j ? "" : net_.layers[from].name.c_str(),
                      waited_s_);
        row->reason = row->reason.empty() ? why : row->reason + "; " + why;  // (a skipped one keeps its own)
        if (o_.spent) ++o_.spent->far_kept;
        continue;
      }
      const Impl& near = it->second.impl;
      if (!near.ok()) return failed("far cores: " + row->name + " on '" + net_.layers[j].name + "': " + near.reason);
      if (o_.spent)
        o_.spent->retimed_far.push_back({net_.layers[j].name, row->name, it->second.far_link_ns,
                                         row->ok() ? row->latency_ms.median : row->latency_ms.min,
                                         near.latency_ms.median, it->second.pair_ratio});
      row->latency_ms = near.latency_ms;
      row->status = ImplStatus::kOk;
      row->reason.clear();
    }
  return Status::ok();
}

Status Profiler::remeasure(const std::vector<std::pair<int, std::string>>& which, Lut* lut) {
  lut_ = lut;
  ageing_ = true;  // as the LUT's second timing of the layers that stream their weights
  total_ = int64_t(which.size());
  start_thread_sets();
  std::map<std::string, LatencyStats> timed;  // by cache key: identical layers share a figure
  for (const std::pair<int, std::string>& w : which) {
    const int i = w.first;
    const std::string& name = w.second;  // (a structured binding cannot be captured in C++17)
    if (i <= 0 || i >= int(net_.layers.size()) || size_t(i) >= lut->layers.size())
      return invalid_argument("recheck: no layer " + std::to_string(i) + " in " + net_.name);
    Impl* entry = find_impl(lut->layers[size_t(i)], name);
    if (!entry) return invalid_argument("recheck: '" + name + "' is not in the LUT's layer '" + net_.layers[i].name + "'");
    ++done_;
    if (entry->is_fused_consumer()) continue;  // nothing runs
    const std::vector<Candidate> cands = reg_.candidates(net_, i);
    auto c = std::find_if(cands.begin(), cands.end(), [&](const Candidate& x) { return x.desc.name() == name; });
    if (c == cands.end()) return invalid_argument("recheck: '" + name + "' is not in this build's registry");
    const std::string key = cache_key(i, c->desc);
    if (!timed.count(key)) {
      report(i, name + " (recheck)");
      Impl fresh = measure_impl(i, c->desc, c->supported, *lut, Look::kToTheEnd);
      if (!fresh.ok()) return failed("recheck: " + name + " on layer '" + net_.layers[i].name + "': " + fresh.reason);
      timed[key] = fresh.latency_ms;
    }
    const LatencyStats& now = timed[key];
    if (entry->alone_ms && entry->alone_ms->median > 0) {  // timed in the network (lut refine): carried
      const double to_network = entry->latency_ms.median / entry->alone_ms->median;  // there by its own ratio
      entry->alone_ms = now;
      entry->latency_ms = now;
      entry->latency_ms.scale(to_network);
      continue;
    }
    entry->latency_ms = now;
  }
  return Status::ok();
}

}  // namespace

size_t cold_flush_bytes(const Protocol& p, int64_t net_weight_floats, int64_t net_arena_floats,
                        int64_t own_weight_floats, size_t packed_bytes, size_t shared_cache, size_t element_bytes) {
  if (!p.cold_cache || packed_bytes == 0) return 0;
  int64_t copies = 1;
  if (p.cover_activations) {
    const int64_t passing = passing_bytes(p, net_weight_floats, net_arena_floats, element_bytes);
    const int64_t own = int64_t(packed_bytes);
    copies = (passing + own - 1) / own;
  } else if (own_weight_floats > 0) {
    copies = (net_weight_floats + own_weight_floats - 1) / own_weight_floats;
  }
  const size_t all = size_t(std::max<int64_t>(copies, 1) - 1) * packed_bytes;
  size_t cap = size_t(kMaxCopies - 1) * packed_bytes;
  if (p.cover_shared_cache) cap = std::max(cap, shared_cache);
  return std::min(all, cap);
}

Status profile_network(const Network& net, const Registry& registry, const ProfileOptions& options, Lut* lut) {
  if (options.threads.empty()) return invalid_argument("profile: no thread set selected");
  Profiler p(net, registry, options);
  return p.run(lut);
}

Status remeasure_impls(const Network& net, const Registry& registry, const ProfileOptions& options,
                       const std::vector<std::pair<int, std::string>>& which, Lut* lut) {
  Profiler p(net, registry, options);
  return p.remeasure(which, lut);
}

std::string lut_refused_here(const Lut& lut, const Network& net, const Registry& registry) {
  std::map<std::string, int> index;
  for (size_t i = 0; i < net.layers.size(); ++i) index[net.layers[i].name] = int(i);
  for (const LutLayer& ll : lut.layers) {
    auto at = index.find(ll.name);
    if (at == index.end()) continue;  // lut_mismatch judges the model
    std::map<std::string, Status> here;
    for (const Impl& m : ll.impls) {
      if (!m.ok() || m.is_fused_consumer() || m.library == "input") continue;
      if (here.empty())
        for (Candidate& c : registry.candidates(net, at->second)) here[c.desc.name()] = c.supported;
      auto h = here.find(m.name);
      if (h == here.end()) return m.name + " (layer '" + ll.name + "') is not an implementation of this build";
      if (!h->second.is_ok()) return m.name + " (layer '" + ll.name + "') is refused here: " + h->second.message();
    }
  }
  return "";
}

std::string lut_unusable_here(const Lut& lut, const Network& net, const Registry& registry) {
  std::string why = lut_mismatch(lut, net);
  return why.empty() ? lut_refused_here(lut, net, registry) : why;
}

}  // namespace lw
