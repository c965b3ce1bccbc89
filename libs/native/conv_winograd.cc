// Winograd F(2x2,3x3) and F(4x4,3x3) (Lavin & Gray), run block by block so that the
// transformed input V and the products M of one block stay in L2: for a block of whole
// tile rows, V[p][tile][c] = B^T d B, M[p] = V[p] (tiles x C) * U[p] (C x K) for each of
// the t*t positions p, Y = A^T m A. The transforms are written out (no multiplies by the
// zeros of B and A) and work on 16 channels at once (one AVX-512 vector), so they need
// channels contiguous: NHWC is read and written in place, NCHW blocks go through a
// channels-last staging copy.
#include <cstring>

#include "libs/native/kernels.h"

namespace lw::native {
namespace {

// GCC/Clang vector extension: one AVX-512 register with -march=native on this CPU,
// lowered to narrower vectors elsewhere.
using Vec = float __attribute__((vector_size(64)));
constexpr int kLanes = 16;
// Bytes of V + M one block may take: about half of a 2 MiB L2, leaving room for U[p].
constexpr int64_t kBlockBytes = 1 << 20;

// The 1-D transforms, applied first along rows, then along columns. `i(k)` reads input k,
// `o(k, v)` writes output k.
template <int M>
struct Wino;
template <>
struct Wino<2> {
  static constexpr int T = 4;
  static constexpr float G[4][3] = {{1, 0, 0}, {.5f, .5f, .5f}, {.5f, -.5f, .5f}, {0, 0, 1}};
  template <class I, class O>
  static void input(I i, O o) {  // B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1]
    o(0, i(0) - i(2)), o(1, i(1) + i(2)), o(2, i(2) - i(1)), o(3, i(1) - i(3));
  }
  template <class I, class O>
  static void output(I i, O o) {  // A^T = [1 1 1 0; 0 1 -1 -1]
    o(0, i(0) + i(1) + i(2)), o(1, i(1) - i(2) - i(3));
  }
};
template <>
struct Wino<4> {
  static constexpr int T = 6;
  static constexpr float G[6][3] = {{1.f / 4, 0, 0},          {-1.f / 6, -1.f / 6, -1.f / 6}, {-1.f / 6, 1.f / 6, -1.f / 6},
                                    {1.f / 24, 1.f / 12, 1.f / 6}, {1.f / 24, -1.f / 12, 1.f / 6}, {0, 0, 1}};
  template <class I, class O>
  static void input(I i, O o) {  // rows of B^T: 4 0 -5 0 1 0 / 0 -4 -4 1 1 0 / 0 4 -4 -1 1 0 / ...
    const Vec d1 = i(1), d2 = i(2), d3 = i(3), d4 = i(4);
    const Vec a = d4 - 4 * d2, b = d3 - 4 * d1, c = d4 - d2, e = 2 * (d3 - d1);
    o(0, 4 * i(0) - 5 * d2 + d4), o(1, a + b), o(2, a - b), o(3, c + e), o(4, c - e), o(5, 4 * d1 - 5 * d3 + i(5));
  }
  template <class I, class O>
  static void output(I i, O o) {  // A^T = [1 1 1 1 1 0; 0 1 -1 2 -2 0; 0 1 1 4 4 0; 0 1 -1 8 -8 1]
    const Vec s = i(1) + i(2), d = i(1) - i(2), s2 = i(3) + i(4), d2 = i(3) - i(4);
    o(0, i(0) + s + s2), o(1, d + 2 * d2), o(2, s + 4 * s2), o(3, d + 8 * d2 + i(5));
  }
};

// Loads n <= 16 floats (the rest zero) and stores n floats: whole vectors in the common case.
inline Vec load(const float* p, int n) {
  Vec v = {};
  if (n == kLanes) std::memcpy(&v, p, sizeof(Vec));
  else
    for (int l = 0; l < n; ++l) v[l] = p[l];
  return v;
}
inline void store(float* p, Vec v, int n) {
  if (n == kLanes) std::memcpy(p, &v, sizeof(Vec));
  else
    for (int l = 0; l < n; ++l) p[l] = v[l];
}
// Bias + activation on the way out; the fixed-length loop lets the compiler vectorise f.
template <typename F>
inline void store_act(float* p, Vec v, const float* bias, int n, F f) {
  if (n == kLanes)
    for (int l = 0; l < kLanes; ++l) p[l] = f(v[l] + bias[l]);
  else
    for (int l = 0; l < n; ++l) p[l] = f(v[l] + bias[l]);
}

// A channels-last image: pixel (h, w) starts at base + h * sh + w * sw (sw = C); rows outside
// [0, H) and columns outside [0, W) read as zero padding.
struct ChannelsLast {
  const float* base;
  int H, W;
  int64_t sh, sw;
};

// B^T d B for the tile whose top-left input pixel is (h0, w0), channels [c0, c0 + n).
// Writes V[p][c] at v + p * pstride + c.
template <int M>
void input_tile(const ChannelsLast& x, int h0, int w0, int c0, int n, float* v, int64_t pstride) {
  constexpr int T = Wino<M>::T;
  Vec rows[T][T];  // rows[i] = row i of d transformed along w
  for (int i = 0; i < T; ++i) {
    const int h = h0 + i;
    const bool row_in = h >= 0 && h < x.H;
    const float* row = x.base + h * x.sh + c0;
    auto in = [&](int j) {
      const int w = w0 + j;
      return row_in && w >= 0 && w < x.W ? load(row + w * x.sw, n) : Vec{};
    };
    Wino<M>::input(in, [&](int j, Vec r) { rows[i][j] = r; });
  }
  for (int j = 0; j < T; ++j)
    Wino<M>::input([&](int i) { return rows[i][j]; }, [&](int i, Vec r) { store(v + (i * T + j) * pstride + c0, r, n); });
}

// A^T m A for one tile and channels [k0, k0 + n) (m + p * pstride holds M[p]), plus bias and
// activation, into the rows x cols valid outputs at y (pixel stride ldw, row stride ldh).
template <int M, typename F>
void output_tile(const float* m, int64_t pstride, int k0, int n, const float* bias, F f, float* y, int64_t ldh,
                 int64_t ldw, int rows, int cols) {
  constexpr int T = Wino<M>::T;
  Vec half[M][T];  // m transformed along the rows of the tile (its first index)
  for (int j = 0; j < T; ++j)
    Wino<M>::output([&](int i) { return load(m + (i * T + j) * pstride + k0, n); },
                    [&](int i, Vec r) { half[i][j] = r; });
  for (int i = 0; i < rows; ++i)
    Wino<M>::output([&](int j) { return half[i][j]; },
                    [&](int j, Vec r) {
                      if (j < cols) store_act(y + i * ldh + j * ldw + k0, r, bias + k0, n, f);
                    });
}

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
  int64_t v_floats, m_floats, pack_floats, stage_floats;
  int64_t slot_floats() const { return v_floats + m_floats + pack_floats + stage_floats; }
};

template <int M>
Plan plan_for(const ConvGeom& g, bool nchw) {
  constexpr int T = Wino<M>::T, P = T * T;
  Plan pl;
  pl.tw = (g.ow + M - 1) / M;
  pl.th = (g.oh + M - 1) / M;
  // Every block reads all of U; once U outgrows the block budget (deep layers, few tiles),
  // reading it again costs more than letting V and M spill, so the image is one block.
  const int64_t tile_bytes = int64_t(sizeof(float)) * P * (g.c + g.k), u_bytes = int64_t(sizeof(float)) * P * g.c * g.k;
  pl.rows = u_bytes > kBlockBytes ? pl.th : int(std::clamp<int64_t>(kBlockBytes / (tile_bytes * pl.tw), 1, pl.th));
  pl.per_image = (pl.th + pl.rows - 1) / pl.rows;
  pl.blocks = int64_t(g.n) * pl.per_image;
  pl.max_tiles = int64_t(pl.rows) * pl.tw;
  auto round = [](int64_t f) { return (f + kLanes - 1) / kLanes * kLanes; };
  pl.v_floats = round(P * pl.max_tiles * g.c);
  pl.m_floats = round(P * pl.max_tiles * g.k);
  pl.pack_floats = round(pl.max_tiles * g.c);
  // NCHW staging: the input rows of a block, later the output rows (channels last).
  const int64_t in_rows = std::min(pl.rows * M + T - M, g.h), out_rows = std::min(pl.rows * M, g.oh);
  pl.stage_floats = nchw ? round(std::max(in_rows * g.w * g.c, out_rows * g.ow * g.k)) : 0;
  return pl;
}

template <int M>
class WinogradConv : public ConvBase {
  static constexpr int T = Wino<M>::T, P = T * T;

 public:
  // U[p] = (G g G^T)[p] as the C x K right operand of position p, in the GEMM's packed
  // form (packed_ starts 64-byte aligned at u(0)).
  explicit WinogradConv(const PrimitiveArgs& a) : ConvBase(a) {
    const Layer& l = *a.layer;
    const int K = l.out_channels, C = a.in_shapes[0].c;
    std::vector<float> u_all(size_t(P) * K * C);
    for (int k = 0; k < K; ++k)
      for (int c = 0; c < C; ++c) {
        float g[3][3], u[T][T];
        for (int i = 0; i < 9; ++i) g[i / 3][i % 3] = l.weights[(int64_t(k) * C + c) * 9 + i];
        kernel_transform(g, u);
        for (int p = 0; p < P; ++p) u_all[(int64_t(p) * C + c) * K + k] = u[p / T][p % T];
      }
    u_floats_ = (int64_t(C) * K + kLanes - 1) / kLanes * kLanes;  // each position 64-byte aligned
    packed_.resize(size_t(P * u_floats_ + kLanes));
    for (int p = 0; p < P; ++p) native_gemm_pack_b(K, C, u_all.data() + int64_t(p) * C * K, K, u(p));
  }

  // Blocks go to the threads whole when there are enough of them; otherwise each block
  // splits its stages (tiles, positions) over the threads.
  Status run() override {
    const Plan pl = plan_for<M>(g_, nchw());
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
  static void kernel_transform(const float (&g)[3][3], float (&u)[T][T]) {
    const auto& G = Wino<M>::G;
    float tmp[T][3];
    for (int i = 0; i < T; ++i)
      for (int j = 0; j < 3; ++j) tmp[i][j] = G[i][0] * g[0][j] + G[i][1] * g[1][j] + G[i][2] * g[2][j];
    for (int i = 0; i < T; ++i)
      for (int j = 0; j < T; ++j) u[i][j] = tmp[i][0] * G[j][0] + tmp[i][1] * G[j][1] + tmp[i][2] * G[j][2];
  }
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
    float* pack = m + pl.m_floats;
    float* stage = pack + pl.pack_floats;
    input_transform(pl, n, ty0, nt, stage, v, threads);
    parallel_for(threads, P, [&](int64_t p0, int64_t p1) {
      // A second thread only runs here when one block has all threads (slot 0): it packs into
      // the idle slot 1.
      float* a_buffer = p0 == 0 ? pack : pack + pl.slot_floats();
      for (int64_t p = p0; p < p1; ++p)
        native_gemm_packed_b(int(nt), g_.k, g_.c, v + p * nt * g_.c, g_.c, u(p), m + p * nt * g_.k, g_.k, a_buffer);
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
    parallel_for(threads, nt, [&](int64_t t0, int64_t t1) {
      for (int64_t t = t0; t < t1; ++t) {
        const int ty = ty0 + int(t / pl.tw), tx = int(t % pl.tw);
        for (int c0 = 0; c0 < g_.c; c0 += kLanes)
          input_tile<M>(x, ty * M - g_.pt, tx * M - g_.pl, c0, std::min(kLanes, g_.c - c0), v + t * g_.c, nt * g_.c);
      }
    });
  }

  // Y = A^T m A + bias, activated; NCHW output is written channels-last to the staging area
  // first, then transposed into place.
  void output_transform(const Plan& pl, int n, int ty0, int64_t nt, const float* m, float* stage, int threads) const {
    const int64_t ohw = g_.ohw(), ldh = int64_t(g_.ow) * g_.k;
    const int oy0 = ty0 * M, oy1 = std::min(oy0 + int(nt / pl.tw) * M, g_.oh);
    float* y = nchw() ? stage - oy0 * ldh : y_ + n * ohw * g_.k;
    with_activation(act_, [&](auto f) {
      parallel_for(threads, nt, [&](int64_t t0, int64_t t1) {
        for (int64_t t = t0; t < t1; ++t) {
          const int oy = oy0 + int(t / pl.tw) * M, ox = int(t % pl.tw) * M;
          float* dst = y + oy * ldh + int64_t(ox) * g_.k;
          for (int k0 = 0; k0 < g_.k; k0 += kLanes)
            output_tile<M>(m + t * g_.k, nt * g_.k, k0, std::min(kLanes, g_.k - k0), bias_.data(), f, dst, ldh, g_.k,
                           std::min(M, g_.oh - oy), std::min(M, g_.ow - ox));
        }
      });
    });
    if (!nchw()) return;
    float* out = y_ + n * ohw * g_.k + int64_t(oy0) * g_.ow;
    parallel_for(threads, g_.k, kLanes, [&](int64_t k0, int64_t k1) {
      from_channels_last(stage, int(k0), int(k1), g_.k, int64_t(oy1 - oy0) * g_.ow, out, ohw);
    });
  }

  size_t workspace_for(const ConvGeom& g) const override {
    return sizeof(float) * (size_t(std::max(threads_, 1)) * size_t(plan_for<M>(g, nchw()).slot_floats()) + kLanes);
  }

  int64_t u_floats_ = 0;  // floats between positions of U: C * K rounded up to 16
};

}  // namespace

Status create_winograd_conv(const PrimitiveArgs& a, std::unique_ptr<Primitive>* out) {
  if (a.desc.algorithm == Algorithm::kWinogradF2) *out = std::make_unique<WinogradConv<2>>(a);
  else *out = std::make_unique<WinogradConv<4>>(a);
  return Status::ok();
}

}  // namespace lw::native
