// LibTorch f32 conv2d through at::conv2d (the library's own choice of algorithm) and
// fully-connected (addmm), NCHW and channels-last, plus the thread-set handling shared with
// the int8 file. create_conv_f32 with the onednn algorithm is the pre-packing path
// (at::mkldnn_convolution on dense weights: a weight reorder per call, output copied), no
// longer registered (torch_conv_prepacked.cc replaced it) but timed by bench_int8 as the baseline.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <pthread.h>
#include <sched.h>

#include "libs/torch/torch_ops_aten.h"

namespace lw::torch_ops {

void set_threads(int threads) {
  if (at::get_num_threads() != threads) at::set_num_threads(threads);
}

int second_thread_pinned_cpu() {
  const int before = at::get_num_threads();
  set_threads(2);
  int cpu = -1;
  at::parallel_for(0, 2, 1, [&](int64_t, int64_t) {
    cpu_set_t set;
    if (at::get_thread_num() == 1 && pthread_getaffinity_np(pthread_self(), sizeof set, &set) == 0 && CPU_COUNT(&set) == 1)
      for (int c = 0; c < CPU_SETSIZE; ++c)
        if (CPU_ISSET(c, &set)) cpu = c;
  });
  set_threads(before);
  return cpu;
}

std::vector<int64_t> layout_strides(const Shape& s, Layout l) {
  if (l == Layout::kNCHW) return {int64_t(s.c) * s.h * s.w, int64_t(s.h) * s.w, s.w, 1};
  return {int64_t(s.c) * s.h * s.w, 1, int64_t(s.w) * s.c, s.c};
}

void apply_activation_(at::Tensor& y, LayerKind act) {
  switch (act) {
    case LayerKind::kRelu: at::relu_(y); break;
    case LayerKind::kRelu6: at::clamp_(y, 0.0, 6.0); break;
    case LayerKind::kHardSwish: at::hardswish_(y); break;
    case LayerKind::kHardSigmoid: at::hardsigmoid_(y); break;
    case LayerKind::kSigmoid: at::sigmoid_(y); break;
    case LayerKind::kGelu: at::gelu_(y); break;  // the exact (erf) form, as the layer
    default: break;
  }
}

namespace {

// Wraps our buffer (no copy); the tensor never owns it.
at::Tensor wrap(const void* p, const Shape& s, Layout l) {
  return at::from_blob(const_cast<void*>(p), {s.n, s.c, s.h, s.w}, layout_strides(s, l),
                       at::TensorOptions().dtype(at::kFloat));
}

class TorchPrim : public Primitive {
 public:
  explicit TorchPrim(const PrimitiveArgs& a) : Primitive(a.desc.name()), layer_(*a.layer), desc_(a.desc) {
    release_weights(layer_);
  }
  Status reshape(const std::vector<Shape>& in) override {
    in_ = in;
    return infer_layer_shape(layer_, in, &out_shape_);
  }
  void warm_call_path() override { warm_dispatcher(); }

 protected:
  Layer layer_;
  ImplDesc desc_;
  std::vector<Shape> in_;
  at::Tensor w_, b_, x_, y_;
};

class Conv : public TorchPrim {
 public:
  Conv(const PrimitiveArgs& a) : TorchPrim(a) {
    const Layer& l = *a.layer;
    const Window& w = l.window;
    w_ = at::from_blob(const_cast<float*>(l.weights.data()), {l.out_channels, a.in_shapes[0].c / l.groups, w.kh, w.kw}).clone();
    if (desc_.layout_in == Layout::kNHWC) w_ = w_.contiguous(at::MemoryFormat::ChannelsLast);
    if (!l.bias.empty()) b_ = at::from_blob(const_cast<float*>(l.bias.data()), {l.out_channels}).clone();
    weight_bytes_ = (l.weights.size() + l.bias.size()) * sizeof(float);
    symmetric_ = w.pad_top == w.pad_bottom && w.pad_left == w.pad_right;
  }
  Status setup(const std::vector<const void*>& in, void* out, void*) override {
    if (in.size() != 1 || !in[0] || !out) return invalid_argument("conv2d takes one input and an output");
    x_ = wrap(in[0], in_[0], desc_.layout_in);
    y_ = wrap(out, out_shape_, desc_.layout_out);
    set_threads(desc_.threads);
    return Status::ok();
  }
  Status run() override {
    try {
      set_threads(desc_.threads);
      const Window& w = layer_.window;
      at::Tensor x = x_;
      std::vector<int64_t> pad = {w.pad_top, w.pad_left};
      if (!symmetric_) {  // torch pads symmetrically: pad explicitly (a copy, paid here)
        x = at::constant_pad_nd(x_, {w.pad_left, w.pad_right, w.pad_top, w.pad_bottom}, 0.0);
        pad = {0, 0};
      }
      c10::optional<at::Tensor> bias;
      if (b_.defined()) bias = b_;
      at::Tensor y = desc_.algorithm == Algorithm::kOnednn
                         ? at::mkldnn_convolution(x, w_, bias, pad, {w.stride_h, w.stride_w}, {w.dil_h, w.dil_w}, layer_.groups)
                         : at::conv2d(x, w_, bias, {w.stride_h, w.stride_w}, pad, {w.dil_h, w.dil_w}, layer_.groups);
      y_.copy_(y);
      apply_activation_(y_, layer_.fused_activation);
    } catch (const std::exception& e) {
      return failed(std::string("failed to run ") + name_ + ": " + e.what());
    }
    return Status::ok();
  }

 private:
  bool symmetric_ = true;
};

// y = x W^T + b straight into our buffer (addmm_out / mm_out: no allocation).
class FullyConnected : public TorchPrim {
 public:
  FullyConnected(const PrimitiveArgs& a) : TorchPrim(a) {
    const Layer& l = *a.layer;
    const Shape& s = a.in_shapes[0];
    const int64_t f = int64_t(s.c) * s.h * s.w, hw = int64_t(s.h) * s.w;
    at::Tensor w = at::from_blob(const_cast<float*>(l.weights.data()), {l.out_channels, s.c, hw});
    if (desc_.layout_in == Layout::kNHWC) w = w.permute({0, 2, 1});  // NHWC flatten order
    wt_ = w.reshape({l.out_channels, f}).t().contiguous();              // [F][O]
    if (!l.bias.empty()) b_ = at::from_blob(const_cast<float*>(l.bias.data()), {l.out_channels}).clone();
    weight_bytes_ = (l.weights.size() + l.bias.size()) * sizeof(float);
  }
  Status setup(const std::vector<const void*>& in, void* out, void*) override {
    if (in.size() != 1 || !in[0] || !out) return invalid_argument("fully-connected takes one input and an output");
    const Shape& s = in_[0];
    x_ = at::from_blob(const_cast<void*>(in[0]), {s.n, int64_t(s.c) * s.h * s.w});
    y_ = at::from_blob(out, {s.n, int64_t(layer_.out_channels)});
    set_threads(desc_.threads);
    return Status::ok();
  }
  Status run() override {
    try {
      set_threads(desc_.threads);
      if (b_.defined()) at::addmm_out(y_, b_, x_, wt_);
      else at::mm_out(y_, x_, wt_);
      apply_activation_(y_, layer_.fused_activation);
    } catch (const std::exception& e) {
      return failed(std::string("failed to run ") + name_ + ": " + e.what());
    }
    return Status::ok();
  }

 private:
  at::Tensor wt_;
};

template <typename P>
Status make(const PrimitiveArgs& a, std::unique_ptr<Primitive>* out) {
  if (a.in_shapes.size() != 1) return invalid_argument("expects one input shape");
  try {
    *out = std::make_unique<P>(a);
  } catch (const std::exception& e) {
    return failed(e.what());
  }
  return Status::ok();
}

}  // namespace

Status create_conv_f32(const PrimitiveArgs& a, std::unique_ptr<Primitive>* out) { return make<Conv>(a, out); }
Status create_fc_f32(const PrimitiveArgs& a, std::unique_ptr<Primitive>* out) { return make<FullyConnected>(a, out); }

}  // namespace lw::torch_ops
