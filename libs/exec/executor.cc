#include "libs/exec/executor.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>

#include "libs/core/heap.h"
#include "libs/ops/thread_pool.h"

namespace lw {

namespace {

struct Value {
  Shape shape;
  Format format;
  int layer = -1;  // whose output it holds
  QuantParams quant;
  // A slice of another value (a concat's output, which its producer wrote into with the
  // concat's pixel stride): that value, and the slice's first byte in it.
  int view_of = -1;
  size_t view_offset = 0;
  size_t bytes() const { return tensor_bytes(shape, format.dtype, format.layout); }
};

struct Step {
  std::unique_ptr<Primitive> prim;
  std::vector<int> in;
  int out = -1;
  int pool = -1;         // thread pool on cpu1 (ThreadPoolId value) for a 2-thread step, else -1
  bool release = false;  // park that pool's workers after this step (see release_pool)
};

// A 2-thread step whose next 2-thread step (cyclically: the next run starts over) uses
// another pool parks its pool's spinning workers, so they do not hold cpu1 against it.
void mark_pool_releases(std::vector<Step>& steps) {
  std::vector<size_t> t2;
  for (size_t s = 0; s < steps.size(); ++s)
    if (steps[s].pool >= 0) t2.push_back(s);
  for (size_t k = 0; k < t2.size(); ++k)
    steps[t2[k]].release = steps[t2[(k + 1) % t2.size()]].pool != steps[t2[k]].pool;
}

struct AlignedFree {
  void operator()(void* p) const { std::free(p); }
};

// Every output that only a concat reads takes the concat's quantisation (whose calibrated
// range covers theirs): an int8 concat then copies its inputs instead of requantising them
// (libs/native/concat_int8.cc), and each branch is rounded once, at the concat's scale,
// instead of at its own and again at the concat's. Outer concats first, so that a concat
// read only by another passes the outer one's on.
std::vector<QuantParams> concat_aligned_quant(const Network& net, std::vector<QuantParams> q) {
  const std::vector<std::vector<int>> consumers = net.consumers();
  for (int c = int(net.layers.size()) - 1; c >= 1; --c) {
    if (net.layers[c].kind != LayerKind::kConcat || size_t(c) >= q.size()) continue;
    for (int p : net.layers[c].inputs) {
      const auto& users = consumers[size_t(p)];
      if (p > 0 && std::all_of(users.begin(), users.end(), [c](int u) { return u == c; })) q[size_t(p)] = q[size_t(c)];
    }
  }
  return q;
}

}  // namespace

struct Executor::Impl {
  std::vector<Value> values;
  std::vector<Step> steps;
  std::vector<size_t> offsets;
  std::unique_ptr<void, AlignedFree> arena, workspace;
  int output_value = -1;
  Shape input_shape;
  bool time_steps = false;
  bool keep_outputs = false;
  std::vector<int> layer_value;  // value holding each layer's output in its produced format
};

namespace {

// Layer `concat`'s input `input` written straight into its output: from channel `channel`
// of each pixel, `stride` (the concat's channels) apart.
struct ConcatSlice {
  int concat, input;
  int64_t channel, stride;
};

// Builds values and steps layer by layer; a conversion chain is shared by every consumer
// that needs the same producer in the same (final) format.
class Planner {
 public:
  Planner(const Network& net, const std::vector<ImplDesc>& a, const PlanOptions& o, Executor::Impl& x,
          std::vector<ExecStep>& info)
      : net_(net), assign_(a), opt_(o), x_(x), info_(info), quant_(concat_aligned_quant(net, o.quant)) {}

  Status build() {
    if (assign_.size() != net_.layers.size())
      return invalid_argument("assignment has " + std::to_string(assign_.size()) + " entries for " +
                              std::to_string(net_.layers.size()) + " layers");
    x_.input_shape = net_.input_shape();
    x_.values.push_back({net_.input_shape(), Format{}, 0, quant_of(0)});
    produced_[{0, Format{}.name()}] = 0;
    source_.assign(net_.layers.size(), 0);
    layer_pool_.assign(net_.layers.size(), -1);
    for (size_t i = 1; i < net_.layers.size(); ++i) LW_RETURN_IF_ERROR(add_layer(int(i)));
    x_.layer_value.assign(net_.layers.size(), 0);
    for (size_t i = 1; i < net_.layers.size(); ++i) x_.layer_value[i] = native_.at(source_[i]);
    int last = source_[net_.layers.size() - 1];
    const Format& f = x_.values[native_[last]].format;
    const Format out = opt_.output_format.value_or(Format{Layout::kNCHW, DType::kF32, f.threads});
    if (out.layout != Layout::kNCHW || out.dtype != DType::kF32)
      return invalid_argument("the network output must be delivered as NCHW f32, not " + out.name());
    return value_in(last, out, int(net_.layers.size()) - 1, layer_pool_[last], &x_.output_value);
  }

 private:
  QuantParams quant_of(int layer) const { return size_t(layer) < quant_.size() ? quant_[layer] : QuantParams{}; }
  bool has_quant(int layer) const { return size_t(layer) < quant_.size(); }
  std::string where(int i) const { return "layer '" + net_.layers[i].name + "': "; }

  // A `fused` pseudo-implementation needs its absorber assigned `fused` in the same format;
  // a `fused` implementation needs what it absorbs assigned the pseudo-implementation.
  Status check_fusion(int i, const ImplDesc& d) {
    if (d.algorithm == Algorithm::kFused) {
      std::optional<ImplDesc> want = absorbed_partner(net_, assign_, i);
      const int p = absorber_of(net_, i);
      if (!want) return invalid_argument(where(i) + d.name() + " needs its producer to be a conv with a fused implementation");
      if (input_format(d) != output_format(assign_[p]))
        return invalid_argument(where(i) + d.name() + " must keep the format of its producer " + assign_[p].name());
      if (d.fused_activation != want->fused_activation)
        return invalid_argument(where(i) + d.name() + ": the absorbing conv " + assign_[p].name() + " needs " + want->name());
    }
    if (d.fused_activation) {
      const RuntimeFusion f = runtime_fusion(net_, d.algorithm == Algorithm::kFused ? absorber_of(net_, i) : i);
      const int next = d.algorithm == Algorithm::kFused ? f.activation_layer : f.add >= 0 ? f.add : f.activation_layer;
      if (next < 0 || assign_[next].algorithm != Algorithm::kFused)
        return invalid_argument(where(i) + d.name() + " needs the layer it absorbs (" +
                                (f.add >= 0 ? "a residual add" : "an activation") + ") assigned 'fused'");
    }
    return Status::ok();
  }

  Status add_layer(int i) {
    const Layer& l = net_.layers[i];
    const ImplDesc& d = assign_[i];
    if (d.op != l.kind) return invalid_argument(where(i) + "assigned " + d.name() + " for a " + to_string(l.kind) + " layer");
    LW_RETURN_IF_ERROR(check_fusion(i, d));
    if (d.algorithm == Algorithm::kFused) {  // the producer already computed it
      source_[i] = source_[absorber_of(net_, i)];
      return Status::ok();
    }
    std::vector<int> in;
    const RuntimeFusion f = d.fused_activation ? runtime_fusion(net_, i) : RuntimeFusion{};
    // A conv that absorbed a relu / relu6 writes the relu's tensor, so it takes the relu's
    // quantisation, [0, max]: the conv's own [min, max] left the int8 values below zero
    // unused and gave the consumers a zero point other than -128 (oneDNN reads -128 as u8).
    // One that absorbed a residual add writes the add's tensor (conv + residual), whose
    // range the conv's own need not cover. (Taking an absorbed hardswish's the same way
    // lowered MobileNetV3-Large's opt-int8 from 21.2 to 15.4 dB, not yet understood: it
    // keeps the conv's.)
    const bool clamp = f.activation == LayerKind::kRelu || f.activation == LayerKind::kRelu6;
    const int written = f.activation_layer >= 0 && clamp ? f.activation_layer : f.add >= 0 ? f.add : i;
    PrimitiveArgs args{d, nullptr, {}, {}, quant_of(written)};
    const int pool = d.threads > 1 ? int(thread_pool_of(d.library, d.threads)) : -1;
    for (int p : l.inputs) {
      int v;
      LW_RETURN_IF_ERROR(value_in(source_[p], input_format(d), i, pool, &v));
      in.push_back(v);
      args.in_shapes.push_back(x_.values[v].shape);
      args.in_quant.push_back(x_.values[v].quant);
    }
    if (f.add >= 0) {  // the residual, in the format the conv writes and accumulates into
      int v;
      LW_RETURN_IF_ERROR(value_in(source_[f.residual], output_format(d), i, pool, &v));
      in.push_back(v);
      args.in_shapes.push_back(x_.values[v].shape);
      args.in_quant.push_back(x_.values[v].quant);
    }
    if ((d.dtype_in == DType::kI8 || d.dtype_out == DType::kI8) && !has_quant(i))
      return invalid_argument(where(i) + d.name() + " is int8 but the plan has no quantisation parameters");
    if (d.dtype_in == DType::kI8 && int8_keeps_input_quant(l.kind)) args.out_quant = args.in_quant[0];
    Layer fused = runtime_fusion_layer(l, f);
    args.layer = &fused;
    const std::optional<ConcatSlice> slice = concat_slice(i, d, f);
    if (slice) args.out_pixel_stride = slice->stride;
    std::unique_ptr<Primitive> prim;
    LW_RETURN_IF_ERROR(opt_.registry->create(args, &prim));
    x_.values.push_back({prim->output_shape(), output_format(d), i, args.out_quant});
    int v = int(x_.values.size()) - 1;
    if (slice && prim->output_pixel_stride() == slice->stride) slices_[v] = *slice;
    if (l.kind == LayerKind::kConcat) LW_RETURN_IF_ERROR(take_slices(i, *prim, in, v));
    add_step(std::move(prim), in, v, i, false, pool);
    layer_pool_[i] = pool;
    native_[i] = v;
    source_[i] = i;
    produced_[{i, output_format(d).name()}] = v;
    return Status::ok();
  }

  // Where layer i's output goes when its only reader is a concat that can leave it in place:
  // the native NHWC f32 concat, reading it in the format i writes (no conversion between).
  // Not for a conv that accumulates into a residual (it starts from the residual's copy),
  // nor when outputs must be kept or steps must not share buffers.
  std::optional<ConcatSlice> concat_slice(int i, const ImplDesc& d, const RuntimeFusion& f) const {
    if (!opt_.in_place || !opt_.concat_in_place || opt_.keep_outputs || f.add >= 0) return std::nullopt;
    const Format out = output_format(d);
    if (out.layout != Layout::kNHWC || out.dtype != DType::kF32) return std::nullopt;
    const int last = f.activation_layer >= 0 ? f.activation_layer : i;  // the tensor i's step writes
    const std::vector<int>& users = consumers_[size_t(last)];
    if (users.size() != 1) return std::nullopt;
    const int c = users[0];
    const Layer& cl = net_.layers[size_t(c)];
    const ImplDesc& cd = assign_[size_t(c)];
    if (cl.kind != LayerKind::kConcat || cd.library != Library::kNative || cd.algorithm != Algorithm::kDefault ||
        input_format(cd) != out || std::count(cl.inputs.begin(), cl.inputs.end(), last) != 1)
      return std::nullopt;
    ConcatSlice slice{c, 0, 0, 0};
    for (size_t k = 0; k < cl.inputs.size(); ++k) {
      const int p = cl.inputs[k];
      if (p == last) slice.input = int(k), slice.channel = slice.stride;
      slice.stride += net_.layers[size_t(p)].out.c;
    }
    if (slice.stride != cl.out.c) return std::nullopt;  // (shapes not inferred)
    return slice;
  }

  // Tells concat layer c's primitive which of its inputs their producers wrote in place and
  // makes those values slices of its output `v`.
  Status take_slices(int c, Primitive& prim, const std::vector<int>& in, int v) {
    int taken = 0;
    for (size_t k = 0; k < in.size(); ++k) {
      auto it = slices_.find(in[k]);
      if (it == slices_.end() || it->second.concat != c || it->second.input != int(k)) continue;
      if (!prim.take_input_in_place(int(k)))
        return failed(where(c) + prim.name() + " cannot leave input " + std::to_string(k) + " in place");
      Value& slice = x_.values[size_t(in[k])];
      slice.view_of = v;
      slice.view_offset = size_t(it->second.channel) * dtype_bytes(slice.format.dtype);
      ++taken;
    }
    in_place_inputs_ = taken;
    return Status::ok();
  }

  // The value holding layer `src`'s output in format `f`, converting if needed. `pool`: the
  // pool of the step that reads it (-1: the caller).
  Status value_in(int src, const Format& f, int consumer, int pool, int* out) {
    auto it = produced_.find({src, f.name()});
    if (it != produced_.end()) {
      *out = it->second;
      return Status::ok();
    }
    int v = src == 0 ? 0 : native_.at(src);
    const Value from = x_.values[v];
    ConversionCostFn cost = opt_.conversion_cost ? opt_.conversion_cost : ConversionCostFn(estimated_conversion_cost);
    ConversionGraph graph(*opt_.registry, from.shape, cost);
    auto chain = graph.chain(from.format, f);
    if (chain.empty())
      return unsupported(where(consumer) + "no conversion from " + from.format.name() + " to " + f.name());
    for (const ConversionDesc& c : chain) {
      if ((c.from.dtype == DType::kI8) != (c.to.dtype == DType::kI8) && !has_quant(src))
        return invalid_argument(where(consumer) + c.name() + " needs quantisation parameters of layer '" +
                                net_.layers[src].name + "'");
      std::unique_ptr<Primitive> prim;
      // (the value's quantisation, not quant_of(src): a conv that absorbed a relu writes the relu's)
      LW_RETURN_IF_ERROR(opt_.registry->create_conversion(c, from.shape, from.quant, &prim));
      x_.values.push_back({from.shape, c.to, src, from.quant});
      int nv = int(x_.values.size()) - 1;
      // A thread-set change runs on the caller (it moves no data; as a native step it parked
      // the pool before and after it: MobileNetV3-Large's xnnpack mul after a 1-thread
      // hardsigmoid waited 0.23 ms, LUT 0.003). A 2-thread conversion that moves data runs on
      // the pool of the step that reads it (ScopedRangePool in run()); read by the caller, on
      // the pool of the step just before (its worker is awake); the native kernels' pool otherwise.
      ThreadPoolId on = conversion_pool(c);
      if (on != ThreadPoolId::kCaller) on = awake_pool(pool);
      add_step(std::move(prim), {v}, nv, consumer, true, on == ThreadPoolId::kCaller ? -1 : int(on));
      info_.back().source = src;
      v = nv;
    }
    // Only the chain's end is shared: a later consumer of an intermediate format runs its own
    // chain, exactly what the cost model charges (env/cost.h: once per producer and target).
    produced_[{src, f.name()}] = v;
    *out = v;
    return Status::ok();
  }

  // Where a 2-thread conversion read by a step on `reader` (-1: the caller) runs. Why the step
  // before for the caller's: a conversion that ends on the caller's thread set (MobileNetV3-
  // Large's f32 -> int8 of a squeezed SE tensor, then to 1 thread) woke our parked worker
  // between two OpenMP steps: 10-14 us a run against 0.4 in the LUT, a hand-off nothing charged.
  ThreadPoolId awake_pool(int reader) const {
    int p = reader;
    if (p < 0 && !x_.steps.empty()) p = x_.steps.back().pool;
    return p >= 0 && pool_runs_ranges(ThreadPoolId(p)) ? ThreadPoolId(p) : native_kernels_pool();
  }

  void add_step(std::unique_ptr<Primitive> prim, std::vector<int> in, int out, int layer, bool conversion, int pool) {
    info_.push_back({prim->name(), layer, conversion, 0, 0, false, -1, pool, in_place_inputs_});
    in_place_inputs_ = 0;
    x_.steps.push_back({std::move(prim), std::move(in), out, pool, false});
  }

  const Network& net_;
  const std::vector<ImplDesc>& assign_;
  const PlanOptions& opt_;
  Executor::Impl& x_;
  std::vector<ExecStep>& info_;
  const std::vector<QuantParams> quant_;  // the calibrated quantisation, concat-aligned
  std::vector<int> source_;       // layer whose output layer i's output is (fused: producer)
  std::map<int, int> native_;     // layer -> value it produced
  std::vector<int> layer_pool_;   // layer -> pool of its step (-1: the caller, or no step)
  std::map<std::pair<int, std::string>, int> produced_;  // (layer, format) -> value
  const std::vector<std::vector<int>> consumers_ = net_.consumers();
  std::map<int, ConcatSlice> slices_;  // value -> the concat slice its step writes
  int in_place_inputs_ = 0;            // of the concat step being added
};

// Lifetimes (in steps) and in-place aliases of every value; the input is written at step -1.
std::vector<Buffer> buffers_of(const Executor::Impl& x, bool in_place, bool keep_outputs) {
  std::vector<Buffer> b(x.values.size());
  for (size_t v = 0; v < b.size(); ++v)
    b[v] = {x.values[v].bytes(), v == 0 ? -1 : 0, v == 0 ? -1 : 0, x.values[v].view_of, x.values[v].view_offset};
  for (size_t s = 0; s < x.steps.size(); ++s) {
    b[x.steps[s].out].first = b[x.steps[s].out].last = int(s);
    for (int v : x.steps[s].in) b[v].last = std::max(b[v].last, int(s));
  }
  b[x.output_value].last = int(x.steps.size());
  if (keep_outputs)
    for (Buffer& buf : b) buf.last = int(x.steps.size());
  if (!in_place || keep_outputs) return b;
  for (size_t s = 0; s < x.steps.size(); ++s) {
    const Step& st = x.steps[s];
    int in0 = st.in.empty() ? -1 : st.in[0];
    if (b[st.out].alias_of >= 0) continue;  // a concat's slice
    if (in0 >= 0 && st.prim->can_run_in_place() && b[in0].last == int(s) && b[in0].bytes == b[st.out].bytes)
      b[st.out].alias_of = in0;
    // A conv that absorbed a residual add writes over the residual when it dies here and is
    // not also what the conv reads (x + conv(x)); else the primitive copies it first.
    const int acc = st.prim->accumulate_input();
    const int r = acc >= 0 && acc < int(st.in.size()) ? st.in[acc] : -1;
    const bool also_read = r >= 0 && std::count(st.in.begin(), st.in.end(), r) > 1;
    if (r >= 0 && !also_read && b[r].last == int(s) && b[r].bytes == b[st.out].bytes) b[st.out].alias_of = r;
  }
  return b;
}

}  // namespace

Executor::Executor(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Executor::~Executor() = default;

Status Executor::plan(const Network& net, const std::vector<ImplDesc>& assignment, const PlanOptions& options,
                      std::unique_ptr<Executor>* out) {
  if (!options.registry) return invalid_argument("plan: no registry");
  const size_t heap0 = heap_in_use();
  auto impl = std::make_unique<Impl>();
  std::vector<ExecStep> info;
  Planner planner(net, assignment, options, *impl, info);
  Status s = planner.build();
  if (!s.is_ok()) return {s.code(), "failed to plan " + net.name + ": " + s.message()};
  mark_pool_releases(impl->steps);
  for (size_t k = 0; k < info.size(); ++k) info[k].parks_pool = impl->steps[k].release;
  ArenaPlan arena = plan_arena(buffers_of(*impl, options.in_place, options.keep_outputs));
  impl->offsets = arena.offsets;
  MemoryReport mem;
  mem.arena_bytes = arena.arena_bytes;
  mem.naive_activation_bytes = arena.naive_bytes;
  for (const Step& st : impl->steps) {
    mem.workspace_bytes = std::max(mem.workspace_bytes, st.prim->workspace_bytes());
    mem.weight_bytes += st.prim->packed_weight_bytes();
  }
  auto alloc = [](size_t bytes) { return std::aligned_alloc(kArenaAlignment, (bytes + 64 + 63) / 64 * 64); };
  impl->arena.reset(alloc(mem.arena_bytes));
  impl->workspace.reset(alloc(mem.workspace_bytes));
  if (!impl->arena || !impl->workspace) return {StatusCode::kOutOfMemory, "failed to plan " + net.name + ": arena"};
  auto* base = static_cast<uint8_t*>(impl->arena.get());
  for (Step& st : impl->steps) {
    std::vector<const void*> in;
    for (int v : st.in) in.push_back(base + impl->offsets[v]);
    s = st.prim->setup(in, base + impl->offsets[st.out], impl->workspace.get());
    if (!s.is_ok()) return primitive_error("setup", st.prim->name(), s);
  }
  impl->time_steps = options.time_steps;
  impl->keep_outputs = options.keep_outputs;
  mem.measured_heap_bytes = heap_growth_since(heap0);
  out->reset(new Executor(std::move(impl)));
  (*out)->memory_ = mem;
  (*out)->info_ = std::move(info);
  return Status::ok();
}

Status Executor::run(const Tensor& input, Tensor* output) {
  Impl& x = *impl_;
  if (input.shape() != x.input_shape || input.dtype() != DType::kF32 || input.layout() != Layout::kNCHW)
    return invalid_argument("failed to run: input must be NCHW f32 " + x.input_shape.to_string());
  ScopedPin pin;  // before the input's copy, which then lands in cpu0's caches as profiled
  auto* base = static_cast<uint8_t*>(x.arena.get());
  std::memcpy(base + x.offsets[0], input.data(), input.bytes());
  for (size_t s = 0; s < x.steps.size(); ++s) {
    auto t0 = x.time_steps ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
    const uint64_t alone0 = x.time_steps ? caller_ran_alone_count() : 0;
    // A step's parallel_for runs on its pool: a native kernel's on native_kernels_pool(), a
    // conversion's on the pool of the step that reads it (see value_in).
    ScopedRangePool lend(x.steps[s].pool);
    Status st = x.steps[s].prim->run();
    if (!st.is_ok()) return primitive_error("run", x.steps[s].prim->name(), st);
    if (x.steps[s].release) release_pool(x.steps[s].pool);
    if (x.time_steps) {
      info_[s].last_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      info_[s].last_alone = int(caller_ran_alone_count() - alone0);
    }
  }
  const Value& ov = x.values[x.output_value];
  if (output->shape() != ov.shape || output->dtype() != DType::kF32 || output->layout() != Layout::kNCHW)
    *output = Tensor::create(ov.shape);
  std::memcpy(output->data(), base + x.offsets[x.output_value], ov.bytes());
  return Status::ok();
}

void Executor::set_time_steps(bool on) { impl_->time_steps = on; }

Status Executor::layer_output(int layer, Tensor* out) const {
  const Impl& x = *impl_;
  if (!x.keep_outputs) return invalid_argument("layer_output: plan with PlanOptions::keep_outputs");
  if (layer < 0 || layer >= int(x.layer_value.size())) return invalid_argument("layer_output: no layer " + std::to_string(layer));
  const Value& v = x.values[x.layer_value[layer]];
  auto* base = static_cast<uint8_t*>(x.arena.get()) + x.offsets[x.layer_value[layer]];
  Tensor t = Tensor::view(base, v.shape, v.format.dtype, v.format.layout);
  t.set_quant(v.quant);
  Tensor nchw = to_layout(t, Layout::kNCHW);
  if (nchw.dtype() == DType::kI8) {
    Tensor f = Tensor::create(v.shape);
    for (int64_t i = 0; i < v.shape.elements(); ++i) f.f32()[i] = v.quant.scale * (nchw.i8()[i] - v.quant.zero_point);
    nchw = f;
  } else if (nchw.dtype() == DType::kBF16) {
    Tensor f = Tensor::create(v.shape);
    for (int64_t i = 0; i < v.shape.elements(); ++i) f.f32()[i] = bf16_to_f32(nchw.bf16()[i]);
    nchw = f;
  }
  *out = std::move(nchw);
  return Status::ok();
}

}  // namespace lw
