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

// Rounds a float count up to whole 64-byte lines, so that what follows stays aligned.
int64_t round16(int64_t floats) { return (floats + 15) / 16 * 16; }

// The GEMM convolutions' shared storage: weights packed once per group into the GEMM's
// panel format (so run() never re-packs them), and a workspace of [lowered input][GEMM
// buffer], both 64-byte aligned.
class GemmConv : public ConvBase {
 protected:
  using ConvBase::ConvBase;
  // pack(gr, dst) writes group gr's `floats` packed floats to dst.
  template <typename Pack>
  void pack_groups(int groups, int64_t floats, Pack pack) {
    group_floats_ = round16(floats);
    packed_.assign(size_t(groups * group_floats_ + 16), 0.f);
    for (int gr = 0; gr < groups; ++gr) pack(gr, align64(packed_.data()) + gr * group_floats_);
  }
  const float* weights(int gr) const { return align64(packed_.data()) + gr * group_floats_; }
  // Workspace of `lowered` floats of lowered input followed by `buffer` floats for the GEMM.
  static size_t workspace_bytes(int64_t lowered, int64_t buffer) {
    return lowered + buffer == 0 ? 0 : sizeof(float) * size_t(round16(lowered) + buffer + 16);
  }
  float* lowered() const { return align64(ws_); }
  float* gemm_buffer(int64_t lowered) const { return align64(ws_) + round16(lowered); }
  // Bias and activation of group gr's output channels, applied inside the GEMM.
  GemmEpilogue group_epilogue(int gr) const { return {bias_.data() + int64_t(gr) * g_.kg(), act_}; }

  int64_t group_floats_ = 0;  // packed floats per group, whole 64-byte lines
};

class Im2colConv : public GemmConv {
 public:
  Im2colConv(const PrimitiveArgs& a, GemmFn gemm) : GemmConv(a), gemm_(gemm) {
    const Layer& l = *a.layer;
    const int kg = l.out_channels / l.groups, kdim = a.in_shapes[0].c / l.groups * l.window.kh * l.window.kw;
    if (!packs()) {
      packed_ = l.weights;
      return;
    }
    pack_groups(l.groups, int64_t(kg) * kdim, [&](int gr, float* dst) {
      native_gemm_pack_a(kg, kdim, l.weights.data() + int64_t(gr) * kg * kdim, kdim, dst);
    });
  }
  Status run() override {
    const ConvGeom& g = g_;
    const int kdim = g.cg() * g.kh * g.kw, ohw = int(g.ohw());
    for (int n = 0; n < g.n; ++n)
      for (int gr = 0; gr < g.groups; ++gr) {
        const float* x = x_ + (int64_t(n) * g.c + int64_t(gr) * g.cg()) * g.hw();
        float* y = y_ + (int64_t(n) * g.k + int64_t(gr) * g.kg()) * g.ohw();
        const float* cols = x;  // a pointwise input already is the column matrix
        if (!is_pointwise()) {
          im2col(threads_, g, x, lowered());
          cols = lowered();
        }
        if (packs())
          native_gemm_with_packed_a(threads_, g.kg(), ohw, kdim, weights(gr), cols, ohw, y, ohw,
                                    gemm_buffer(lowered_floats(g)), group_epilogue(gr));
        else
          gemm_(threads_, g.kg(), ohw, kdim, packed_.data() + int64_t(gr) * g.kg() * kdim, kdim, cols, ohw, y, ohw,
                false);
      }
    if (!packs()) epilogue(y_);
    return Status::ok();
  }

 protected:
  // Only Eigen's GEMM takes pre-packed weights; another backend's GEMM (openblas) gets the
  // plain [K][C*kh*kw] matrix.
  bool packs() const { return gemm_ == native_gemm; }
  bool is_pointwise() const {
    const Window& w = layer_.window;
    return w.kh == 1 && w.kw == 1 && w.stride_h == 1 && w.stride_w == 1 && !w.pad_top && !w.pad_left && !w.pad_bottom &&
           !w.pad_right;
  }
  int64_t lowered_floats(const ConvGeom& g) const { return is_pointwise() ? 0 : int64_t(g.cg()) * g.kh * g.kw * g.ohw(); }
  size_t workspace_for(const ConvGeom& g) const override {
    const int64_t buffer = packs() ? native_gemm_buffer_floats(threads_, g.ohw(), g.cg() * g.kh * g.kw) : 0;
    return workspace_bytes(lowered_floats(g), buffer);
  }
  GemmFn gemm_;
};

// NHWC 1x1: the input is already [pixels][C]; out[pixels][K] = in * W^T per group.
class Gemm1x1NhwcConv : public GemmConv {
 public:
  Gemm1x1NhwcConv(const PrimitiveArgs& a, GemmFn gemm) : GemmConv(a), gemm_(gemm) {
    const Layer& l = *a.layer;
    const int cg = a.in_shapes[0].c / l.groups, kg = l.out_channels / l.groups;
    packed_ = pack_hwio(l, cg);
    if (!packs()) return;
    const std::vector<float> hwio = std::move(packed_);
    pack_groups(l.groups, int64_t(cg) * kg, [&](int gr, float* dst) {
      native_gemm_pack_b(kg, cg, hwio.data() + int64_t(gr) * cg * kg, kg, dst);
    });
  }
  Status run() override {
    const ConvGeom& g = g_;
    const int pixels = int(int64_t(g.n) * g.hw());
    for (int gr = 0; gr < g.groups; ++gr) {
      const float* x = x_ + int64_t(gr) * g.cg();
      float* y = y_ + int64_t(gr) * g.kg();
      if (packs())
        native_gemm_with_packed_b(threads_, pixels, g.kg(), g.cg(), x, g.c, weights(gr), y, g.k, gemm_buffer(0),
                                  group_epilogue(gr));
      else
        gemm_(threads_, pixels, g.kg(), g.cg(), x, g.c, packed_.data() + int64_t(gr) * g.cg() * g.kg(), g.kg(), y, g.k,
              false);
    }
    if (!packs()) epilogue(y_);
    return Status::ok();
  }

 private:
  bool packs() const { return gemm_ == native_gemm; }  // as in Im2colConv
  size_t workspace_for(const ConvGeom& g) const override {
    return packs() ? workspace_bytes(0, native_gemm_buffer_floats(threads_, int64_t(g.n) * g.hw(), g.cg())) : 0;
  }
  GemmFn gemm_;
};

// NHWC: rows[(oh*OW + ow)][(r*kw + s)*Cg + ci], one image and group at a time.
class Im2rowConv : public GemmConv {
 public:
  explicit Im2rowConv(const PrimitiveArgs& a) : GemmConv(a) {
    const Layer& l = *a.layer;
    const int cg = a.in_shapes[0].c / l.groups, kg = l.out_channels / l.groups;
    const int kdim = l.window.kh * l.window.kw * cg;
    const std::vector<float> hwio = pack_hwio(l, cg);
    pack_groups(l.groups, int64_t(kdim) * kg, [&](int gr, float* dst) {
      native_gemm_pack_b(kg, kdim, hwio.data() + int64_t(gr) * kdim * kg, kg, dst);
    });
  }
  Status run() override {
    const ConvGeom& g = g_;
    const int kdim = g.kh * g.kw * g.cg();
    for (int n = 0; n < g.n; ++n)
      for (int gr = 0; gr < g.groups; ++gr) {
        const float* x = x_ + int64_t(n) * g.hw() * g.c + int64_t(gr) * g.cg();
        lower(x);
        native_gemm_with_packed_b(threads_, int(g.ohw()), g.kg(), kdim, lowered(), kdim, weights(gr),
                                  y_ + int64_t(n) * g.ohw() * g.k + int64_t(gr) * g.kg(), g.k,
                                  gemm_buffer(lowered_floats(g)), group_epilogue(gr));
      }
    return Status::ok();
  }

 private:
  void lower(const float* x) const {
    const ConvGeom& g = g_;
    const int cg = g.cg();
    float* rows = lowered();
    parallel_for(threads_, g.ohw(), 8, [&](int64_t p0, int64_t p1) {
      for (int64_t p = p0; p < p1; ++p) {
        int oh = int(p / g.ow), ow = int(p % g.ow);
        float* dst = rows + p * g.kh * g.kw * cg;
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
  static int64_t lowered_floats(const ConvGeom& g) { return int64_t(g.kh) * g.kw * g.cg() * g.ohw(); }
  size_t workspace_for(const ConvGeom& g) const override {
    return workspace_bytes(lowered_floats(g), native_gemm_buffer_floats(threads_, g.ohw(), g.kh * g.kw * g.cg()));
  }
};

// kn2row (Anderson & Gregg): one GEMM of all kernel taps against the unlowered input,
// tmp[(r*kw + s)*K + k][ih*W + iw], then shifted adds of the kh*kw partial planes.
class Kn2rowConv : public GemmConv {
 public:
  explicit Kn2rowConv(const PrimitiveArgs& a) : GemmConv(a) {
    const Layer& l = *a.layer;
    int K = l.out_channels, C = a.in_shapes[0].c, taps = l.window.kh * l.window.kw;
    std::vector<float> tap_major(l.weights.size());  // [tap][K][C]
    for (int k = 0; k < K; ++k)
      for (int c = 0; c < C; ++c)
        for (int t = 0; t < taps; ++t) tap_major[(int64_t(t) * K + k) * C + c] = l.weights[(int64_t(k) * C + c) * taps + t];
    pack_groups(1, int64_t(taps) * K * C, [&](int, float* dst) { native_gemm_pack_a(taps * K, C, tap_major.data(), C, dst); });
  }
  Status run() override {
    const ConvGeom& g = g_;
    const int taps = g.kh * g.kw, hw = int(g.hw());
    for (int n = 0; n < g.n; ++n) {
      const float* x = x_ + int64_t(n) * g.c * g.hw();
      float* y = y_ + int64_t(n) * g.k * g.ohw();
      native_gemm_with_packed_a(threads_, taps * g.k, hw, g.c, weights(0), x, hw, lowered(), hw,
                                gemm_buffer(lowered_floats(g)));
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
        const float* t = lowered() + ((int64_t(r) * g.kw + s) * g.k + k) * g.hw();
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
  static int64_t lowered_floats(const ConvGeom& g) { return int64_t(g.kh) * g.kw * g.k * g.hw(); }
  size_t workspace_for(const ConvGeom& g) const override {
    return workspace_bytes(lowered_floats(g), native_gemm_buffer_floats(threads_, g.hw(), g.c));
  }
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
