// Winograd F(2x2,3x3), F(4x4,3x3), F(6x6,3x3), and F(2x2,5x5), F(4x4,5x5) for the 5x5 convs
// (GoogLeNet's), after Lavin & Gray, run block by block so
// that the transformed input V and the products M of one block stay in L2: for a block of
// whole tile rows, V[p][tile][c] = B^T d B, M[p] = V[p] (tiles x C) * U[p] (C x K) for each of
// the t*t positions p, Y = A^T m A. The transforms and the GEMMs (conv_winograd_kernels.inc,
// built for baseline x86-64, AVX2 and AVX-512, picked at run time) are written out (no multiplies by
// the zeros of B and A) and work on a vector of channels at once (16 with AVX-512, 8 with
// AVX2), so they need channels contiguous: NHWC is read and written in place, NCHW blocks
// go through a channels-last staging copy.
#include <unistd.h>

#include <algorithm>

#include "libs/core/cpu.h"
#include "libs/native/conv_winograd.h"

namespace lw::native {
namespace {

constexpr int kLanes = kWinogradLanes;
// Bytes of V + M one block may take: half of this core's L2, leaving room for U[p]. The 1 MiB
// set on a 2 MiB L2 overflowed Zen 3's 512 KiB between the transforms and the GEMMs:
// SqueezeNet's fire2 F(4x4) 0.330 -> 0.303 ms, ResNet-50's layer1.0 F(4x4) 1.04 -> 0.96 with
// half of it (bench_conv, results/reference/winograd-gemm/). Blocks do not change the result:
// each product sums over the channels in the same order.
int64_t block_bytes() {
  static const int64_t bytes = [] {
    const long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    return l2 >= (64 << 10) ? int64_t(l2) / 2 : int64_t(1) << 20;
  }();
  return bytes;
}

// The transforms and the per-position GEMM of one build.
struct WinogradKernels {
  decltype(&generic::kernel_transform) kernel_transform;
  decltype(&generic::input_tiles) input_tiles;
  decltype(&generic::output_tiles) output_tiles;
  decltype(&generic::packed_u_floats) packed_u_floats;
  decltype(&generic::pack_u) pack_u;
  decltype(&generic::position_gemm) position_gemm;
};
#define LW_WINOGRAD_KERNELS(ns) \
  WinogradKernels { ns::kernel_transform, ns::input_tiles, ns::output_tiles, ns::packed_u_floats, ns::pack_u, ns::position_gemm }
const WinogradKernels kGeneric = LW_WINOGRAD_KERNELS(generic);
const WinogradKernels kAvx2 = LW_WINOGRAD_KERNELS(avx2);
const WinogradKernels kAvx512 = LW_WINOGRAD_KERNELS(avx512);
#undef LW_WINOGRAD_KERNELS

// F(M x M, R x R): the tile is T = M + R - 1 inputs a side, P = T * T positions.
template <int M, int R>
struct WinoSize {
  static constexpr int T = M + R - 1;
};

// NCHW <-> channels-last for channels [c0, c1) of `pixels` consecutive pixels: plane c
// starts at planes + c * plane, pixel i at pixels_last + i * C. 16 x 16 blocks keep both
// sides within a few cache lines.
void to_channels_last(const float* planes, int64_t plane, int c0, int c1, int C, int64_t pixels, float* last) {
  for (int64_t i0 = 0; i0 < pixels; i0 += kLanes)
    for (int cb = c0; cb < c1; cb += kLanes) {
      const int64_t i1 = std::min<int64_t>(i0 + kLanes, pixels);
      const int ce = std::min(cb + kLanes, c1);
      for (int64_t i = i0; i < i1; ++i)
        for (int c = cb; c < ce; ++c) last[i * C + c] = planes[c * plane + i];
    }
}
void from_channels_last(const float* last, int c0, int c1, int C, int64_t pixels, float* planes, int64_t plane) {
  for (int cb = c0; cb < c1; cb += kLanes)
    for (int64_t i0 = 0; i0 < pixels; i0 += kLanes) {
      const int64_t i1 = std::min<int64_t>(i0 + kLanes, pixels);
      const int ce = std::min(cb + kLanes, c1);
      for (int c = cb; c < ce; ++c)
        for (int64_t i = i0; i < i1; ++i) planes[c * plane + i] = last[i * C + c];
    }
}

// How the tiles are cut into blocks: `rows` tile rows of one image per block.
struct Plan {
  int tw, th, rows, per_image;
  int64_t blocks, max_tiles;
  // One slot of the workspace, each part a multiple of 16 floats so all stay 64-byte aligned.
  int64_t v_floats, m_floats, stage_floats;
  int64_t slot_floats() const { return v_floats + m_floats + stage_floats; }
};

template <int M, int R>
Plan plan_for(const ConvGeom& g, bool nchw, int threads) {
  constexpr int T = WinoSize<M, R>::T, P = T * T;
  Plan pl;
  pl.tw = (g.ow + M - 1) / M;
  pl.th = (g.oh + M - 1) / M;
  // Every block reads all of U. On one thread a block takes at least as many bytes of V + M
  // as U has, so that reading U again from the shared cache costs no more than the block's V
  // and M would spilling to memory: deep layers (few tiles, large U) stay one block per image,
  // and layers with many tiles and a U past the budget no longer spill V + M (GoogLeNet's
  // stem.conv3, U 1.8 MB, V + M 7.2 MB: F(4x4) 0.72-0.81x at 1 thread in the profiler,
  // results/reference/winograd-blocks/). With more threads, once U outgrows the budget the
  // image is one block split over them by positions, each reading its share of U: blocks
  // there were 0.89-1.10x, within this host's 2-thread noise, so that plan stays.
  const int64_t tile_bytes = int64_t(sizeof(float)) * P * (g.c + g.k), u_bytes = int64_t(sizeof(float)) * P * g.c * g.k;
  const int64_t budget = threads == 1 ? std::max(block_bytes(), u_bytes) : block_bytes();
  pl.rows = u_bytes > budget ? pl.th : int(std::clamp<int64_t>(budget / (tile_bytes * pl.tw), 1, pl.th));
  pl.per_image = (pl.th + pl.rows - 1) / pl.rows;
  pl.blocks = int64_t(g.n) * pl.per_image;
  pl.max_tiles = int64_t(pl.rows) * pl.tw;
  auto round = [](int64_t f) { return (f + kLanes - 1) / kLanes * kLanes; };
  pl.v_floats = round(P * pl.max_tiles * g.c);
  pl.m_floats = round(P * pl.max_tiles * g.k);
  // NCHW staging: the input rows of a block, later the output rows (channels last).
  const int64_t in_rows = std::min(pl.rows * M + T - M, g.h), out_rows = std::min(pl.rows * M, g.oh);
  pl.stage_floats = nchw ? round(std::max(in_rows * g.w * g.c, out_rows * g.ow * g.k)) : 0;
  return pl;
}

template <int M, int R>
class WinogradConv : public ConvBase {
  static constexpr int T = WinoSize<M, R>::T, P = T * T;

 public:
  // U[p] = (G g G^T)[p] as the C x K right operand of position p, in the GEMM's panels
  // (packed_ starts 64-byte aligned at u(0)).
  WinogradConv(const PrimitiveArgs& a, const WinogradKernels& kernels) : ConvBase(a), k_(kernels) {
    const Layer& l = *a.layer;
    const int K = l.out_channels, C = a.in_shapes[0].c;
    std::vector<float> u_all(size_t(P) * K * C);
    for (int k = 0; k < K; ++k)
      for (int c = 0; c < C; ++c) {
        float u[P];
        k_.kernel_transform(M, R, l.weights.data() + (int64_t(k) * C + c) * R * R, u);
        for (int p = 0; p < P; ++p) u_all[(int64_t(p) * C + c) * K + k] = u[p];
      }
    u_floats_ = k_.packed_u_floats(C, K);  // each position 64-byte aligned
    // NHWC output tiles are stored pixel by pixel, so any pixel stride costs nothing: a
    // concat's slice.
    if (!nchw() && a.desc.layout_out == Layout::kNHWC && a.out_pixel_stride > K) out_pixel_stride_ = a.out_pixel_stride;
    packed_.resize(size_t(P * u_floats_ + kLanes));
    for (int p = 0; p < P; ++p) k_.pack_u(C, K, u_all.data() + int64_t(p) * C * K, u(p));
  }

  // Blocks go to the threads whole when there are enough of them; otherwise each block
  // splits its stages (tiles, positions) over the threads.
  Status run() override {
    const Plan pl = plan_for<M, R>(g_, nchw(), threads_);
    float* ws = align64(ws_);
    const int slots = pl.blocks >= threads_ ? threads_ : 1;
    if (slots == 1) {
      for (int64_t b = 0; b < pl.blocks; ++b) run_block(pl, b, ws, threads_);
      return Status::ok();
    }
    parallel_for(threads_, slots, [&](int64_t s0, int64_t s1) {
      for (int64_t s = s0; s < s1; ++s)
        for (int64_t b = s; b < pl.blocks; b += slots) run_block(pl, b, ws + s * pl.slot_floats(), 1);
    });
    return Status::ok();
  }

 private:
  bool nchw() const { return layout_ == Layout::kNCHW; }
  float* u(int64_t p) { return align64(packed_.data()) + p * u_floats_; }
  const float* u(int64_t p) const { return align64(packed_.data()) + p * u_floats_; }

  // One block: tile rows [ty0, ty1) of image n, using the slot's V, M and staging areas.
  void run_block(const Plan& pl, int64_t b, float* slot, int threads) const {
    const int n = int(b / pl.per_image), ty0 = int(b % pl.per_image) * pl.rows;
    const int ty1 = std::min(ty0 + pl.rows, pl.th);
    const int64_t nt = int64_t(ty1 - ty0) * pl.tw;
    float* v = slot;
    float* m = slot + pl.v_floats;
    float* stage = m + pl.m_floats;
    input_transform(pl, n, ty0, nt, stage, v, threads);
    parallel_for(threads, P, [&](int64_t p0, int64_t p1) {
      for (int64_t p = p0; p < p1; ++p) k_.position_gemm(int(nt), g_.c, g_.k, v + p * nt * g_.c, u(p), m + p * nt * g_.k);
    });
    output_transform(pl, n, ty0, nt, m, stage, threads);
  }

  // V[p][t][c] for the block's nt tiles; NCHW input is first staged channels-last.
  void input_transform(const Plan& pl, int n, int ty0, int64_t nt, float* stage, float* v, int threads) const {
    const int64_t hw = g_.hw();
    ChannelsLast x{x_ + n * hw * g_.c, g_.h, g_.w, int64_t(g_.w) * g_.c, g_.c};
    if (nchw()) {
      const int r0 = std::max(ty0 * M - g_.pt, 0), r1 = std::min(ty0 * M - g_.pt + int(nt / pl.tw) * M + T - M, g_.h);
      if (r1 > r0) {
        const float* src = x_ + n * hw * g_.c + int64_t(r0) * g_.w;
        parallel_for(threads, g_.c, kLanes, [&](int64_t c0, int64_t c1) {
          to_channels_last(src, hw, int(c0), int(c1), g_.c, int64_t(r1 - r0) * g_.w, stage);
        });
      }
      x.base = stage - int64_t(r0) * x.sh;
    }
    WinogradTiles t;
    t.ty0 = ty0, t.tw = pl.tw, t.channels = g_.c, t.nt = nt;
    t.x = x, t.pad_top = g_.pt, t.pad_left = g_.pl, t.v = v;
    parallel_for(threads, nt, [&](int64_t t0, int64_t t1) { k_.input_tiles(M, R, t, t0, t1); });
  }

  // Y = A^T m A + bias, activated; NCHW output is written channels-last to the staging area
  // first, then transposed into place.
  void output_transform(const Plan& pl, int n, int ty0, int64_t nt, const float* m, float* stage, int threads) const {
    const int64_t ohw = g_.ohw(), ldw = out_pixel_stride_ > 0 ? out_pixel_stride_ : g_.k, ldh = int64_t(g_.ow) * ldw;
    const int oy0 = ty0 * M, oy1 = std::min(oy0 + int(nt / pl.tw) * M, g_.oh);
    WinogradTiles t;
    t.ty0 = ty0, t.tw = pl.tw, t.channels = g_.k, t.nt = nt;
    t.m = m, t.bias = bias_.data(), t.act = act_, t.ldh = ldh, t.ldw = ldw, t.oy0 = oy0, t.oh = g_.oh, t.ow = g_.ow;
    t.y = nchw() ? stage - oy0 * ldh : y_ + n * ohw * ldw;
    parallel_for(threads, nt, [&](int64_t t0, int64_t t1) { k_.output_tiles(M, R, t, t0, t1); });
    if (!nchw()) return;
    float* out = y_ + n * ohw * g_.k + int64_t(oy0) * g_.ow;
    parallel_for(threads, g_.k, kLanes, [&](int64_t k0, int64_t k1) {
      from_channels_last(stage, int(k0), int(k1), g_.k, int64_t(oy1 - oy0) * g_.ow, out, ohw);
    });
  }

  size_t workspace_for(const ConvGeom& g) const override {
    return sizeof(float) * (size_t(std::max(threads_, 1)) * size_t(plan_for<M, R>(g, nchw(), threads_).slot_floats()) + kLanes);
  }

  const WinogradKernels& k_;  // the transforms' build for this CPU
  int64_t u_floats_ = 0;     // floats between positions of U: C * K rounded up to 16
};

}  // namespace

Status create_winograd_conv(const PrimitiveArgs& a, std::unique_ptr<Primitive>* out) {
  const NativeIsa isa = cpu_native_isa();
  const WinogradKernels& k = isa == NativeIsa::kAvx512 ? kAvx512 : isa == NativeIsa::kAvx2 ? kAvx2 : kGeneric;
  // The algorithm names the output tile; the layer's kernel (3x3 or 5x5) the filter.
  const bool r5 = a.layer->window.kh == 5;
  switch (a.desc.algorithm) {
    case Algorithm::kWinogradF2:
      if (r5) *out = std::make_unique<WinogradConv<2, 5>>(a, k);
      else *out = std::make_unique<WinogradConv<2, 3>>(a, k);
      return Status::ok();
    case Algorithm::kWinogradF4:
      if (r5) *out = std::make_unique<WinogradConv<4, 5>>(a, k);
      else *out = std::make_unique<WinogradConv<4, 3>>(a, k);
      return Status::ok();
    case Algorithm::kWinogradF6:
      if (!r5) {
        *out = std::make_unique<WinogradConv<6, 3>>(a, k);
        return Status::ok();
      }
      break;
    default: break;
  }
  return unsupported(std::string("no Winograd tile for '") + to_string(a.desc.algorithm) + "' on a " +
                     std::to_string(a.layer->window.kh) + "x" + std::to_string(a.layer->window.kw) + " kernel");
}

}  // namespace lw::native
