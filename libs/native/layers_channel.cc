// Native layers that move or scale whole channels, NCHW and NHWC f32: per-channel affine
// (an unfoldable BatchNorm), layer norm over the channels (ConvNeXt; also nChw16c / nChw8c,
// so that it sits between oneDNN's blocked convolutions without conversions), channel
// shuffle and channel slice (ShuffleNet's split).
#include <algorithm>
#include <cmath>
#include <cstring>

#include "libs/native/layer_prim.h"

namespace lw::native {
namespace {

class Affine : public LayerPrim {
 public:
  explicit Affine(const PrimitiveArgs& a) : LayerPrim(a), p_(a.layer->weights) {
    weight_bytes_ = p_.size() * sizeof(float);
  }
  bool can_run_in_place() const override { return true; }
  Status run() override {
    const Shape& s = out_shape_;
    const int C = s.c;
    const int64_t hw = int64_t(s.h) * s.w;
    const float *scale = p_.data(), *shift = p_.data() + C;
    // One task per (n, c) plane in NCHW, per pixel row of channels in NHWC.
    parallel_for(threads_, int64_t(s.n) * (nhwc_ ? hw : C), 16, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        if (nhwc_) {
          const float* x = x_[0] + r * C;
          float* y = y_ + r * C;
          for (int c = 0; c < C; ++c) y[c] = x[c] * scale[c] + shift[c];
        } else {
          const int c = int(r % C);
          const float* x = x_[0] + r * hw;
          float* y = y_ + r * hw;
          for (int64_t i = 0; i < hw; ++i) y[i] = x[i] * scale[c] + shift[c];
        }
      }
    });
    return Status::ok();
  }

 private:
  std::vector<float> p_;
};

// (x - mean) / sqrt(var + eps) * scale + shift over the C channels of each position. NHWC
// reads a position's channels as one row; NCHW walks the channel planes for a block of
// positions at a time, nChw<b>c its channel blocks (b channels of one position contiguous),
// so every read is contiguous in all of them. Every position is read whole before it is
// written: in place is safe.
class LayerNorm : public LayerPrim {
 public:
  explicit LayerNorm(const PrimitiveArgs& a)
      : LayerPrim(a), p_(a.layer->weights), eps_(a.layer->eps), block_(layout_block(a.desc.layout_in)) {
    weight_bytes_ = p_.size() * sizeof(float);
  }
  bool can_run_in_place() const override { return true; }
  Status run() override {
    const Shape& s = out_shape_;
    const int64_t hw = int64_t(s.h) * s.w;
    if (block_ == 16) return run_blocked<16>();
    if (block_ == 8) return run_blocked<8>();
    if (nhwc_) {
      parallel_for(threads_, s.n * hw, 16, [&](int64_t p0, int64_t p1) {
        for (int64_t p = p0; p < p1; ++p) normalise_row(x_[0] + p * s.c, y_ + p * s.c, s.c);
      });
      return Status::ok();
    }
    const int64_t blocks = (hw + kBlock - 1) / kBlock;
    parallel_for(threads_, s.n * blocks, 1, [&](int64_t b0, int64_t b1) {
      for (int64_t b = b0; b < b1; ++b) {
        const int64_t n = b / blocks, q0 = b % blocks * kBlock;
        const int64_t off = n * s.c * hw + q0;
        normalise_block(x_[0] + off, y_ + off, s.c, hw, std::min(kBlock, hw - q0));
      }
    });
    return Status::ok();
  }

 private:
  static constexpr int64_t kBlock = 64;

  template <int B>
  Status run_blocked() {
    const Shape& s = out_shape_;
    const int64_t hw = int64_t(s.h) * s.w, blocks = (hw + kBlock - 1) / kBlock;
    parallel_for(threads_, s.n * blocks, 1, [&](int64_t b0, int64_t b1) {
      for (int64_t b = b0; b < b1; ++b) {
        const int64_t n = b / blocks, q0 = b % blocks * kBlock;
        const int64_t off = (n * ((s.c + B - 1) / B) * hw + q0) * B;
        normalise_blocked<B>(x_[0] + off, y_ + off, s.c, hw, std::min(kBlock, hw - q0));
      }
    });
    return Status::ok();
  }

  // `len` positions of nChw<B>c starting at x (channel block stride hw * B). The padding
  // channels of the last block are left out of the statistics and written as zeros, as
  // oneDNN's blocked outputs keep them. Sums run lane-wise over the blocks (one vector per
  // position) and are reduced once: a per-block scalar reduction did not vectorise.
  template <int B>
  void normalise_blocked(const float* x, float* y, int C, int64_t hw, int64_t len) const {
    const int blocks = (C + B - 1) / B, tail = C - (blocks - 1) * B;
    const int64_t stride = hw * B;
    float mean[kBlock], inv[kBlock];
    for (int64_t q = 0; q < len; ++q) {
      const float* v = x + q * B;
      float s1[B] = {}, s2[B] = {};
      for (int cb = 0; cb + 1 < blocks; ++cb)
        for (int l = 0; l < B; ++l) s1[l] += v[cb * stride + l];
      for (int l = 0; l < tail; ++l) s1[l] += v[(blocks - 1) * stride + l];
      float m = 0;
      for (int l = 0; l < B; ++l) m += s1[l];
      m /= float(C);
      for (int cb = 0; cb + 1 < blocks; ++cb)
        for (int l = 0; l < B; ++l) s2[l] += (v[cb * stride + l] - m) * (v[cb * stride + l] - m);
      for (int l = 0; l < tail; ++l) s2[l] += (v[(blocks - 1) * stride + l] - m) * (v[(blocks - 1) * stride + l] - m);
      float var = 0;
      for (int l = 0; l < B; ++l) var += s2[l];
      mean[q] = m;
      inv[q] = 1.f / std::sqrt(var / float(C) + eps_);
    }
    for (int cb = 0; cb < blocks; ++cb) {
      const int lanes = cb + 1 < blocks ? B : tail;
      const float *scale = p_.data() + cb * B, *shift = p_.data() + C + cb * B;
      for (int64_t q = 0; q < len; ++q) {
        const float* v = x + cb * stride + q * B;
        float* w = y + cb * stride + q * B;
        for (int l = 0; l < lanes; ++l) w[l] = (v[l] - mean[q]) * inv[q] * scale[l] + shift[l];
        for (int l = lanes; l < B; ++l) w[l] = 0;
      }
    }
  }

  // One NHWC position. Sums run in kLanes partial sums (a strict-FP scalar sum does not
  // vectorise: ConvNeXt's first LayerNorm took 0.44-0.52 ms so, 0.19 now, NCHW 0.12-0.20).
  void normalise_row(const float* x, float* y, int C) const {
    constexpr int kLanes = 16;
    const int body = C / kLanes * kLanes;
    float s1[kLanes] = {}, s2[kLanes] = {};
    for (int c = 0; c < body; c += kLanes)
      for (int l = 0; l < kLanes; ++l) s1[l] += x[c + l];
    float mean = 0;
    for (int l = 0; l < kLanes; ++l) mean += s1[l];
    for (int c = body; c < C; ++c) mean += x[c];
    mean /= float(C);
    for (int c = 0; c < body; c += kLanes)
      for (int l = 0; l < kLanes; ++l) s2[l] += (x[c + l] - mean) * (x[c + l] - mean);
    float var = 0;
    for (int l = 0; l < kLanes; ++l) var += s2[l];
    for (int c = body; c < C; ++c) var += (x[c] - mean) * (x[c] - mean);
    const float inv = 1.f / std::sqrt(var / float(C) + eps_);
    const float *scale = p_.data(), *shift = p_.data() + C;
    for (int c = 0; c < C; ++c) y[c] = (x[c] - mean) * inv * scale[c] + shift[c];
  }

  // `len` positions of channel stride `hw`.
  void normalise_block(const float* x, float* y, int C, int64_t hw, int64_t len) const {
    float mean[kBlock] = {}, var[kBlock] = {};
    for (int c = 0; c < C; ++c)
      for (int64_t q = 0; q < len; ++q) mean[q] += x[c * hw + q];
    for (int64_t q = 0; q < len; ++q) mean[q] /= float(C);
    for (int c = 0; c < C; ++c)
      for (int64_t q = 0; q < len; ++q) var[q] += (x[c * hw + q] - mean[q]) * (x[c * hw + q] - mean[q]);
    for (int64_t q = 0; q < len; ++q) var[q] = 1.f / std::sqrt(var[q] / float(C) + eps_);  // now 1 / stddev
    for (int c = 0; c < C; ++c) {
      const float scale = p_[c], shift = p_[C + c];
      for (int64_t q = 0; q < len; ++q) y[c * hw + q] = (x[c * hw + q] - mean[q]) * var[q] * scale + shift;
    }
  }

  std::vector<float> p_;
  float eps_;
  int block_;  // 1: NCHW / NHWC
};

// Output channel dst(c) of input channel c; NCHW copies planes, NHWC gathers per pixel.
class ChannelMove : public LayerPrim {
 public:
  using LayerPrim::LayerPrim;
  Status run() override {
    const Shape &is = in_[0], &os = out_shape_;
    const int64_t hw = int64_t(is.h) * is.w;
    if (!nhwc_) {
      for (int n = 0; n < is.n; ++n)
        for (int oc = 0; oc < os.c; ++oc)
          std::memcpy(y_ + (int64_t(n) * os.c + oc) * hw, x_[0] + (int64_t(n) * is.c + src(oc, is.c)) * hw,
                      sizeof(float) * hw);
      return Status::ok();
    }
    parallel_for(threads_, int64_t(is.n) * hw, 64, [&](int64_t p0, int64_t p1) {
      for (int64_t p = p0; p < p1; ++p) {
        const float* x = x_[0] + p * is.c;
        float* y = y_ + p * os.c;
        if (layer_.kind == LayerKind::kChannelSlice)
          std::memcpy(y, x + layer_.channel_begin, sizeof(float) * os.c);
        else
          for (int oc = 0; oc < os.c; ++oc) y[oc] = x[src(oc, is.c)];
      }
    });
    return Status::ok();
  }

 private:
  // Input channel of output channel oc. Shuffle: out j*g + i <- in i*(C/g) + j.
  int src(int oc, int in_c) const {
    if (layer_.kind == LayerKind::kChannelSlice) return layer_.channel_begin + oc;
    const int g = layer_.groups, per = in_c / g;
    return (oc % g) * per + oc / g;
  }
};

}  // namespace

void register_channel_layers(Registry& r) {
  register_layer_kind(r, LayerKind::kAffine, make<Affine>);
  register_layer_kind(r, LayerKind::kLayerNorm, make<LayerNorm>,
                      {Layout::kNCHW, Layout::kNHWC, Layout::kNCHW16C, Layout::kNCHW8C});
  register_layer_kind(r, LayerKind::kChannelShuffle, make<ChannelMove>);
  register_layer_kind(r, LayerKind::kChannelSlice, make<ChannelMove>);
}

}  // namespace lw::native
