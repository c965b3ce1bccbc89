// Direct convolutions (no lowering): NCHW accumulates output planes, NHWC accumulates
// output channel vectors; depthwise is the groups == C == K special case of both.
#include <cstring>

#include "libs/native/kernels.h"

namespace lw::native {
namespace {

// out[oh][ow] += wt * plane[oh*sh - pt + r*dh][ow*sw - pl + s*dw] over valid positions.
inline void accumulate_tap(const ConvGeom& g, const float* plane, float* out, float wt, int r, int s) {
  int off = s * g.dw - g.pl;
  int ow0 = std::min(g.ow, std::max(0, (-off + g.sw - 1) / g.sw));
  int ow1 = std::max(ow0, std::min(g.ow, (g.w - off + g.sw - 1) / g.sw));
  for (int oh = 0; oh < g.oh; ++oh) {
    int ih = oh * g.sh - g.pt + r * g.dh;
    if (ih < 0 || ih >= g.h) continue;
    const float* src = plane + int64_t(ih) * g.w + off;
    float* dst = out + int64_t(oh) * g.ow;
    if (g.sw == 1)
      for (int ow = ow0; ow < ow1; ++ow) dst[ow] += wt * src[ow];
    else
      for (int ow = ow0; ow < ow1; ++ow) dst[ow] += wt * src[ow * g.sw];
  }
}

// NCHW direct (any groups): one output plane per task; depthwise is cg == 1.
class DirectNchwConv : public ConvBase {
 public:
  explicit DirectNchwConv(const PrimitiveArgs& a) : ConvBase(a) { packed_ = a.layer->weights; }
  Status run() override {
    const ConvGeom& g = g_;
    const int taps = g.kh * g.kw;
    parallel_for(threads_, int64_t(g.n) * g.k, [&](int64_t t0, int64_t t1) {
      for (int64_t t = t0; t < t1; ++t) {
        int n = int(t / g.k), k = int(t % g.k), gr = k / g.kg();
        float* out = y_ + t * g.ohw();
        std::fill(out, out + g.ohw(), bias_[k]);
        for (int ci = 0; ci < g.cg(); ++ci) {
          const float* plane = x_ + (int64_t(n) * g.c + int64_t(gr) * g.cg() + ci) * g.hw();
          const float* w = packed_.data() + (int64_t(k) * g.cg() + ci) * taps;
          for (int r = 0; r < g.kh; ++r)
            for (int s = 0; s < g.kw; ++s) accumulate_tap(g, plane, out, w[r * g.kw + s], r, s);
        }
        with_activation(act_, [&](auto f) {
          for (int64_t i = 0; i < g.ohw(); ++i) out[i] = f(out[i]);
        });
      }
    });
    return Status::ok();
  }
};

// NHWC direct: weights [g][kh][kw][Cg][Kg]; each output pixel's K-vector accumulates
// input-channel x K-row products (vectorised over K).
class DirectNhwcConv : public ConvBase {
 public:
  explicit DirectNhwcConv(const PrimitiveArgs& a) : ConvBase(a) { packed_ = pack_hwio(*a.layer, a.in_shapes[0].c / a.layer->groups); }
  Status run() override {
    const ConvGeom& g = g_;
    const int cg = g.cg(), kg = g.kg();
    parallel_for(threads_, int64_t(g.n) * g.ohw(), 4, [&](int64_t p0, int64_t p1) {
      for (int64_t p = p0; p < p1; ++p) {
        int n = int(p / g.ohw()), oh = int(p % g.ohw() / g.ow), ow = int(p % g.ow);
        float* out = y_ + p * g.k;
        std::memcpy(out, bias_.data(), sizeof(float) * g.k);
        for (int r = 0; r < g.kh; ++r) {
          int ih = oh * g.sh - g.pt + r * g.dh;
          if (ih < 0 || ih >= g.h) continue;
          for (int s = 0; s < g.kw; ++s) {
            int iw = ow * g.sw - g.pl + s * g.dw;
            if (iw < 0 || iw >= g.w) continue;
            const float* in = x_ + ((int64_t(n) * g.h + ih) * g.w + iw) * g.c;
            for (int gr = 0; gr < g.groups; ++gr) {
              const float* w = packed_.data() + (((int64_t(gr) * g.kh + r) * g.kw + s) * cg) * kg;
              float* o = out + gr * kg;
              for (int ci = 0; ci < cg; ++ci) {
                const float v = in[gr * cg + ci];
                const float* wr = w + int64_t(ci) * kg;
                for (int ko = 0; ko < kg; ++ko) o[ko] += v * wr[ko];
              }
            }
          }
        }
        with_activation(act_, [&](auto f) {
          for (int k = 0; k < g.k; ++k) out[k] = f(out[k]);
        });
      }
    });
    return Status::ok();
  }
};

// NHWC depthwise: weights [kh][kw][C]; per output row, vectorised over channels.
class DepthwiseNhwcConv : public ConvBase {
 public:
  explicit DepthwiseNhwcConv(const PrimitiveArgs& a) : ConvBase(a) {
    const Layer& l = *a.layer;
    int C = l.out_channels, taps = l.window.kh * l.window.kw;
    packed_.resize(l.weights.size());
    for (int c = 0; c < C; ++c)
      for (int t = 0; t < taps; ++t) packed_[int64_t(t) * C + c] = l.weights[int64_t(c) * taps + t];
  }
  Status run() override {
    const ConvGeom& g = g_;
    const int C = g.c;
    parallel_for(threads_, int64_t(g.n) * g.oh, [&](int64_t r0, int64_t r1) {
      for (int64_t row = r0; row < r1; ++row) {
        int n = int(row / g.oh), oh = int(row % g.oh);
        for (int ow = 0; ow < g.ow; ++ow) {
          float* out = y_ + ((int64_t(n) * g.oh + oh) * g.ow + ow) * C;
          std::memcpy(out, bias_.data(), sizeof(float) * C);
          for (int r = 0; r < g.kh; ++r) {
            int ih = oh * g.sh - g.pt + r * g.dh;
            if (ih < 0 || ih >= g.h) continue;
            for (int s = 0; s < g.kw; ++s) {
              int iw = ow * g.sw - g.pl + s * g.dw;
              if (iw < 0 || iw >= g.w) continue;
              const float* in = x_ + ((int64_t(n) * g.h + ih) * g.w + iw) * C;
              const float* w = packed_.data() + int64_t(r * g.kw + s) * C;
              for (int c = 0; c < C; ++c) out[c] += in[c] * w[c];
            }
          }
          with_activation(act_, [&](auto f) {
            for (int c = 0; c < C; ++c) out[c] = f(out[c]);
          });
        }
      }
    });
    return Status::ok();
  }
};

}  // namespace

Status create_direct_conv(const PrimitiveArgs& a, std::unique_ptr<Primitive>* out) {
  if (a.desc.layout_in == Layout::kNCHW) *out = std::make_unique<DirectNchwConv>(a);
  else *out = std::make_unique<DirectNhwcConv>(a);
  return Status::ok();
}

Status create_depthwise_conv(const PrimitiveArgs& a, std::unique_ptr<Primitive>* out) {
  // NCHW depthwise is the direct plane kernel with one input channel per output plane.
  if (a.desc.layout_in == Layout::kNCHW) *out = std::make_unique<DirectNchwConv>(a);
  else *out = std::make_unique<DepthwiseNhwcConv>(a);
  return Status::ok();
}

}  // namespace lw::native
