// LibTorch f32 conv2d through oneDNN with the weights prepacked once, as a frozen,
// inference-optimised TorchScript module runs it: `mkldnn_prepacked::conv2d_prepack` at
// create (weights reordered into the primitive's own format, primitive descriptor built for
// the input shape), `mkldnn_prepacked::conv2d_run` in run. Debian's LibTorch 1.13 ships no
// header for these ops' context class, so both are called through the dispatcher (boxed)
// and the context is kept as an opaque IValue.
//
// The path it replaces, at::mkldnn_convolution on dense weights (libs/torch/torch_ops_f32.cc;
// bench_int8 still times it as the baseline), reorders the weights on every call and returns
// a fresh tensor that was copied into our buffer. conv2d_run also returns a fresh tensor,
// and 1.13 exports no out= form of it, so OutputRedirect hands LibTorch our buffer as that
// tensor's storage. Only relu runs inside the primitive: 1.13's prepack accepts the
// attributes "none" and "relu"; other fused activations follow in place on our buffer.
#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <c10/core/CPUAllocator.h>

#include <atomic>

#include "libs/torch/torch_ops_aten.h"

namespace lw::torch_ops {
namespace {

// A CPU allocator that wraps LibTorch's default one. While a run() is armed on this thread,
// the first allocation of exactly the output's size gets our output buffer (no-op deleter):
// that is the output tensor conv2d_run creates before it computes into it. Every other
// allocation, on every thread, goes to the default allocator unchanged. run() checks that the
// result really lies in our buffer with our layout and copies otherwise, so a LibTorch that
// allocates in another order stays correct, only slower.
class OutputRedirect final : public c10::Allocator {
 public:
  static OutputRedirect& instance() {
    static OutputRedirect* r = [] {
      auto* a = new OutputRedirect(c10::GetCPUAllocator());
      c10::SetCPUAllocator(a, /*priority=*/1);
      return a;
    }();
    return *r;
  }
  // Arms the redirect for the next allocation of `bytes` on this thread.
  static void arm(void* p, size_t bytes) { target() = {p, bytes}; }
  static void disarm() { target() = {nullptr, 0}; }

  c10::DataPtr allocate(size_t n) const override {
    Target& t = target();
    if (t.ptr && n == t.bytes) {
      void* p = t.ptr;
      t = {nullptr, 0};
      redirected().store(p);
      return {p, p, &keep, c10::Device(c10::DeviceType::CPU)};
    }
    return base_->allocate(n);
  }
  c10::DeleterFnPtr raw_deleter() const override { return &raw_delete; }

 private:
  struct Target {
    void* ptr = nullptr;
    size_t bytes = 0;
  };
  explicit OutputRedirect(c10::Allocator* base) : base_(base) { base_deleter() = base->raw_deleter(); }
  static Target& target() {
    static thread_local Target t;
    return t;
  }
  // raw_allocate callers (oneDNN's scratch via ideep) free through raw_deleter: never free
  // the buffer we lent.
  static std::atomic<void*>& redirected() {
    static std::atomic<void*> p{nullptr};
    return p;
  }
  static c10::DeleterFnPtr& base_deleter() {
    static c10::DeleterFnPtr d = nullptr;
    return d;
  }
  static void keep(void*) {}
  static void raw_delete(void* p) {
    if (p && p != redirected().load() && base_deleter()) base_deleter()(p);
  }

  c10::Allocator* base_;
};

std::atomic<int64_t> g_output_copies{0};

std::vector<int64_t> dims(const Shape& s) { return {s.n, s.c, s.h, s.w}; }

const c10::OperatorHandle& prepack_op() {
  static const c10::OperatorHandle op =
      c10::Dispatcher::singleton().findSchemaOrThrow("mkldnn_prepacked::conv2d_prepack", "");
  return op;
}

const c10::OperatorHandle& run_op() {
  static const c10::OperatorHandle op = c10::Dispatcher::singleton().findSchemaOrThrow("mkldnn_prepacked::conv2d_run", "");
  return op;
}

class PrepackedConv : public Primitive {
 public:
  explicit PrepackedConv(const PrimitiveArgs& a) : Primitive(a.desc.name()), layer_(*a.layer), desc_(a.desc) {
    OutputRedirect::instance();
    const Window& w = layer_.window;
    const int64_t cin = a.in_shapes[0].c / layer_.groups;
    w_ = at::from_blob(layer_.weights.data(), {layer_.out_channels, cin, w.kh, w.kw}).clone();
    if (channels_last()) w_ = w_.contiguous(at::MemoryFormat::ChannelsLast);  // picks oneDNN's nhwc primitive
    if (!layer_.bias.empty()) b_ = at::from_blob(layer_.bias.data(), {layer_.out_channels}).clone();
    weight_bytes_ = (layer_.weights.size() + layer_.bias.size()) * sizeof(float);
    symmetric_ = w.pad_top == w.pad_bottom && w.pad_left == w.pad_right;
    release_weights(layer_);
    pack(a.in_shapes[0]);
  }
  Status reshape(const std::vector<Shape>& in) override {
    in_ = in;
    LW_RETURN_IF_ERROR(infer_layer_shape(layer_, in, &out_shape_));
    if (!(in[0] == packed_for_)) {
      try {
        pack(in[0]);
      } catch (const std::exception& e) {
        return failed(std::string("failed to reshape ") + name_ + ": " + e.what());
      }
    }
    return Status::ok();
  }
  Status setup(const std::vector<const void*>& in, void* out, void*) override {
    if (in.size() != 1 || !in[0] || !out) return invalid_argument("conv2d takes one input and an output");
    x_ = wrap(const_cast<void*>(in[0]), in_[0]);
    out_ = out;
    y_ = wrap(out, out_shape_);
    set_threads(desc_.threads);
    return Status::ok();
  }
  void warm_call_path() override { warm_dispatcher(); }
  Status run() override {
    try {
      set_threads(desc_.threads);
      const Window& w = layer_.window;
      at::Tensor x = x_;
      if (!symmetric_)  // the packed primitive pads symmetrically: pad explicitly (a copy, paid here)
        x = at::constant_pad_nd(x_, {w.pad_left, w.pad_right, w.pad_top, w.pad_bottom}, 0.0).contiguous(format());
      stack_.clear();  // keeps its capacity: no allocation here after the first run
      stack_.emplace_back(x);
      stack_.emplace_back(context_);
      OutputRedirect::arm(out_, size_t(out_shape_.elements()) * sizeof(float));
      run_op().callBoxed(&stack_);
      OutputRedirect::disarm();
      at::Tensor y = stack_[0].toTensor();
      if (y.data_ptr() != out_ || !y.is_contiguous(format())) {
        y_.copy_(y);
        ++g_output_copies;
      }
      if (!relu_in_primitive_) apply_activation_(y_, layer_.fused_activation);
    } catch (const std::exception& e) {
      OutputRedirect::disarm();
      return failed(std::string("failed to run ") + name_ + ": " + e.what());
    }
    return Status::ok();
  }

 private:
  bool channels_last() const { return desc_.layout_in == Layout::kNHWC; }
  at::MemoryFormat format() const {
    return channels_last() ? at::MemoryFormat::ChannelsLast : at::MemoryFormat::Contiguous;
  }
  at::Tensor wrap(void* p, const Shape& s) const {  // our buffer, never owned
    return at::from_blob(p, dims(s), layout_strides(s, desc_.layout_in), at::TensorOptions().dtype(at::kFloat));
  }
  // Reorders the weights and builds the primitive for input shape `s` (outside run()).
  void pack(const Shape& s) {
    // oneDNN sizes its blocking and thread partition when the primitive is created: create it
    // under the thread count it will run with.
    set_threads(desc_.threads);
    const Window& w = layer_.window;
    Shape padded = s;
    std::vector<int64_t> pad{w.pad_top, w.pad_left};
    if (!symmetric_) {
      padded.h += w.pad_top + w.pad_bottom;
      padded.w += w.pad_left + w.pad_right;
      pad = {0, 0};
    }
    // oneDNN's relu post-op runs inside the primitive; the other activations follow in place.
    relu_in_primitive_ = layer_.fused_activation == LayerKind::kRelu;
    c10::optional<at::Tensor> bias;
    if (b_.defined()) bias = b_;
    std::vector<c10::IValue> stack{w_, bias, std::vector<int64_t>{w.stride_h, w.stride_w}, pad,
                                   std::vector<int64_t>{w.dil_h, w.dil_w}, int64_t(layer_.groups), dims(padded),
                                   std::string(relu_in_primitive_ ? "relu" : "none")};
    prepack_op().callBoxed(&stack);
    context_ = stack[0];
    packed_for_ = s;
  }

  Layer layer_;
  ImplDesc desc_;
  std::vector<Shape> in_;
  Shape packed_for_{};
  at::Tensor w_, b_, x_, y_;
  c10::IValue context_;
  std::vector<c10::IValue> stack_ = std::vector<c10::IValue>(2);
  void* out_ = nullptr;
  bool symmetric_ = true, relu_in_primitive_ = false;
};

}  // namespace

void warm_dispatcher() {
  struct Tiny {  // never freed: LibTorch may be torn down before static destructors run
    at::Tensor x;
    c10::IValue context;
    std::vector<c10::IValue> stack;
  };
  try {
    static Tiny* tiny = [] {
      auto* t = new Tiny;
      const std::vector<int64_t> one{1, 1};
      std::vector<c10::IValue> s{at::ones({8, 8, 3, 3}), c10::optional<at::Tensor>(), one, one, one, int64_t(1),
                                 std::vector<int64_t>{1, 8, 8, 8}, std::string("none")};
      prepack_op().callBoxed(&s);
      t->context = s[0];
      t->x = at::ones({1, 8, 8, 8});
      return t;
    }();
    tiny->stack.clear();
    tiny->stack.emplace_back(tiny->x);
    tiny->stack.emplace_back(tiny->context);
    run_op().callBoxed(&tiny->stack);
  } catch (const std::exception&) {
  }
}

int64_t prepacked_output_copies() { return g_output_copies.load(); }

Status create_conv_f32_prepacked(const PrimitiveArgs& a, std::unique_ptr<Primitive>* out) {
  if (a.in_shapes.size() != 1) return invalid_argument("expects one input shape");
  try {
    *out = std::make_unique<PrepackedConv>(a);
  } catch (const std::exception& e) {
    return failed(std::string("failed to create ") + a.desc.name() + ": " + e.what());
  }
  return Status::ok();
}

}  // namespace lw::torch_ops
