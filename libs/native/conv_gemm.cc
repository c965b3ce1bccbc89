// GEMM-based convolutions: im2col (NCHW), im2row (NHWC), 1x1 as GEMM, kn2row (NCHW).
#include <cstring>

#include "libs/native/kernels.h"

namespace lw::native {
namespace {

// Lowers one group of one image to col[(ci*kh + r)*kw + s][oh*OW + ow] (zero padded).
void im2col(int threads, const ConvGeom& g, const float* x, float* col) {
  const int rows = g.cg() * g.kh * g.kw;
  parallel_for(threads, rows, [&](int64_t r0, int64_t r1) {
    for (int64_t row = r0; row < r1; ++row) {
      int s = int(row % g.kw), r = int(row / g.kw % g.kh), ci = int(row / (g.kw * g.kh));
      const float* plane = x + int64_t(ci) * g.hw();
      float* dst = col + row * g.ohw();
      // Output columns whose input column lies inside the image.
      int off = s * g.dw - g.pl;
      int ow0 = std::min(g.ow, std::max(0, (-off + g.sw - 1) / g.sw));
      int ow1 = std::max(ow0, std::min(g.ow, (g.w - off + g.sw - 1) / g.sw));
      for (int oh = 0; oh < g.oh; ++oh, dst += g.ow) {
        int ih = oh * g.sh - g.pt + r * g.dh;
        if (ih < 0 || ih >= g.h) {
          std::memset(dst, 0, sizeof(float) * g.ow);
          continue;
        }
        const float* src = plane + int64_t(ih) * g.w + off;
        std::fill(dst, dst + ow0, 0.f);
        if (g.sw == 1) std::memcpy(dst + ow0, src + ow0, sizeof(float) * (ow1 - ow0));
        else
          for (int ow = ow0; ow < ow1; ++ow) dst[ow] = src[ow * g.sw];
        std::fill(dst + ow1, dst + g.ow, 0.f);
      }
    }
  });
}

class Im2colConv : public ConvBase {
 public:
  Im2colConv(const PrimitiveArgs& a, GemmFn gemm) : ConvBase(a), gemm_(gemm) { packed_ = a.layer->weights; }
  Status run() override {
    const ConvGeom& g = g_;
    const int kdim = g.cg() * g.kh * g.kw;
    for (int n = 0; n < g.n; ++n)
      for (int gr = 0; gr < g.groups; ++gr) {
        const float* x = x_ + (int64_t(n) * g.c + int64_t(gr) * g.cg()) * g.hw();
        float* y = y_ + (int64_t(n) * g.k + int64_t(gr) * g.kg()) * g.ohw();
        const float* w = packed_.data() + int64_t(gr) * g.kg() * kdim;
        if (is_pointwise()) {  // the input already is the column matrix
          gemm_(threads_, g.kg(), int(g.ohw()), kdim, w, kdim, x, int(g.ohw()), y, int(g.ohw()), false);
        } else {
          im2col(threads_, g, x, ws_);
          gemm_(threads_, g.kg(), int(g.ohw()), kdim, w, kdim, ws_, int(g.ohw()), y, int(g.ohw()), false);
        }
      }
    epilogue(y_);
    return Status::ok();
  }

 protected:
  bool is_pointwise() const {
    const Window& w = layer_.window;
    return w.kh == 1 && w.kw == 1 && w.stride_h == 1 && w.stride_w == 1 && !w.pad_top && !w.pad_left && !w.pad_bottom &&
           !w.pad_right;
  }
  size_t workspace_for(const ConvGeom& g) const override {
    return is_pointwise() ? 0 : sizeof(float) * size_t(g.cg()) * g.kh * g.kw * g.ohw();
  }
  GemmFn gemm_;
};

// NHWC 1x1: the input is already [pixels][C]; out[pixels][K] = in * W^T per group.
class Gemm1x1NhwcConv : public ConvBase {
 public:
  Gemm1x1NhwcConv(const PrimitiveArgs& a, GemmFn gemm) : ConvBase(a), gemm_(gemm) { packed_ = pack_hwio(*a.layer, a.in_shapes[0].c / a.layer->groups); }
  Status run() override {
    const ConvGeom& g = g_;
    const int64_t pixels = int64_t(g.n) * g.hw();
    for (int gr = 0; gr < g.groups; ++gr)
      gemm_(threads_, int(pixels), g.kg(), g.cg(), x_ + int64_t(gr) * g.cg(), g.c,
            packed_.data() + int64_t(gr) * g.cg() * g.kg(), g.kg(), y_ + int64_t(gr) * g.kg(), g.k, false);
    epilogue(y_);
    return Status::ok();
  }

 private:
  GemmFn gemm_;
};

// NHWC: rows[(oh*OW + ow)][(r*kw + s)*Cg + ci], one image and group at a time.
class Im2rowConv : public ConvBase {
 public:
  explicit Im2rowConv(const PrimitiveArgs& a) : ConvBase(a) { packed_ = pack_hwio(*a.layer, a.in_shapes[0].c / a.layer->groups); }
  Status run() override {
    const ConvGeom& g = g_;
    const int kdim = g.kh * g.kw * g.cg();
    for (int n = 0; n < g.n; ++n)
      for (int gr = 0; gr < g.groups; ++gr) {
        const float* x = x_ + int64_t(n) * g.hw() * g.c + int64_t(gr) * g.cg();
        lower(x);
        native_gemm(threads_, int(g.ohw()), g.kg(), kdim, ws_, kdim, packed_.data() + int64_t(gr) * kdim * g.kg(), g.kg(),
                    y_ + int64_t(n) * g.ohw() * g.k + int64_t(gr) * g.kg(), g.k, false);
      }
    epilogue(y_);
    return Status::ok();
  }

 private:
  void lower(const float* x) const {
    const ConvGeom& g = g_;
    const int cg = g.cg();
    parallel_for(threads_, g.ohw(), 8, [&](int64_t p0, int64_t p1) {
      for (int64_t p = p0; p < p1; ++p) {
        int oh = int(p / g.ow), ow = int(p % g.ow);
        float* dst = ws_ + p * g.kh * g.kw * cg;
        for (int r = 0; r < g.kh; ++r) {
          int ih = oh * g.sh - g.pt + r * g.dh;
          for (int s = 0; s < g.kw; ++s, dst += cg) {
            int iw = ow * g.sw - g.pl + s * g.dw;
            if (ih < 0 || ih >= g.h || iw < 0 || iw >= g.w) std::memset(dst, 0, sizeof(float) * cg);
            else std::memcpy(dst, x + (int64_t(ih) * g.w + iw) * g.c, sizeof(float) * cg);
          }
        }
      }
    });
  }
  size_t workspace_for(const ConvGeom& g) const override { return sizeof(float) * size_t(g.kh) * g.kw * g.cg() * g.ohw(); }
};

// kn2row (Anderson & Gregg): one GEMM of all kernel taps against the unlowered input,
// tmp[(r*kw + s)*K + k][ih*W + iw], then shifted adds of the kh*kw partial planes.
class Kn2rowConv : public ConvBase {
 public:
  explicit Kn2rowConv(const PrimitiveArgs& a) : ConvBase(a) {
    const Layer& l = *a.layer;
    int K = l.out_channels, C = a.in_shapes[0].c, kh = l.window.kh, kw = l.window.kw;
    packed_.resize(l.weights.size());
    for (int k = 0; k < K; ++k)
      for (int c = 0; c < C; ++c)
        for (int t = 0; t < kh * kw; ++t) packed_[(int64_t(t) * K + k) * C + c] = l.weights[(int64_t(k) * C + c) * kh * kw + t];
  }
  Status run() override {
    const ConvGeom& g = g_;
    const int taps = g.kh * g.kw;
    for (int n = 0; n < g.n; ++n) {
      const float* x = x_ + int64_t(n) * g.c * g.hw();
      float* y = y_ + int64_t(n) * g.k * g.ohw();
      native_gemm(threads_, taps * g.k, int(g.hw()), g.c, packed_.data(), g.c, x, int(g.hw()), ws_, int(g.hw()), false);
      parallel_for(threads_, g.k, [&](int64_t k0, int64_t k1) {
        for (int64_t k = k0; k < k1; ++k) shift_add(k, y + k * g.ohw());
      });
    }
    epilogue(y_);
    return Status::ok();
  }

 private:
  void shift_add(int64_t k, float* out) const {
    const ConvGeom& g = g_;
    std::fill(out, out + g.ohw(), 0.f);
    for (int r = 0; r < g.kh; ++r)
      for (int s = 0; s < g.kw; ++s) {
        const float* t = ws_ + ((int64_t(r) * g.kw + s) * g.k + k) * g.hw();
        int ow0 = std::max(0, g.pl - s), ow1 = std::min(g.ow, g.w + g.pl - s);
        for (int oh = 0; oh < g.oh; ++oh) {
          int ih = oh - g.pt + r;
          if (ih < 0 || ih >= g.h) continue;
          const float* src = t + int64_t(ih) * g.w + (s - g.pl);
          float* dst = out + int64_t(oh) * g.ow;
          for (int ow = ow0; ow < ow1; ++ow) dst[ow] += src[ow];
        }
      }
  }
  size_t workspace_for(const ConvGeom& g) const override { return sizeof(float) * size_t(g.kh) * g.kw * g.k * g.hw(); }
};

}  // namespace

Status create_im2row_conv(const PrimitiveArgs& a, std::unique_ptr<Primitive>* out) {
  *out = std::make_unique<Im2rowConv>(a);
  return Status::ok();
}
Status create_kn2row_conv(const PrimitiveArgs& a, std::unique_ptr<Primitive>* out) {
  *out = std::make_unique<Kn2rowConv>(a);
  return Status::ok();
}

}  // namespace lw::native

namespace lw {

Status create_im2col_conv(const PrimitiveArgs& a, GemmFn gemm, std::unique_ptr<Primitive>* out) {
  if (a.desc.layout_in != Layout::kNCHW) return unsupported("im2col needs NCHW");
  *out = std::make_unique<native::Im2colConv>(a, gemm);
  return Status::ok();
}

Status create_gemm_1x1_conv(const PrimitiveArgs& a, GemmFn gemm, std::unique_ptr<Primitive>* out) {
  LW_RETURN_IF_ERROR(supports_conv_algorithm(Algorithm::kGemm1x1, a.desc.layout_in, *a.layer, a.in_shapes));
  // NCHW 1x1 is im2col without the lowering (Im2colConv detects the pointwise case).
  if (a.desc.layout_in == Layout::kNCHW) *out = std::make_unique<native::Im2colConv>(a, gemm);
  else *out = std::make_unique<native::Gemm1x1NhwcConv>(a, gemm);
  return Status::ok();
}

}  // namespace lw
