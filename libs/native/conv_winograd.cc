// Winograd F(2x2,3x3) and F(4x4,3x3) (Lavin & Gray) with batched GEMMs over tiles:
// V[p][c][tile] = B^T d B, M[p] = U[p] (K x C) * V[p] (C x tiles) for each of the t*t
// positions p, Y = A^T m A. One kernel serves NCHW and NHWC through element strides.
#include "libs/native/kernels.h"

namespace lw::native {
namespace {

template <int M>
struct Mats;
template <>
struct Mats<2> {
  static constexpr int T = 4;
  static constexpr float BT[4][4] = {{1, 0, -1, 0}, {0, 1, 1, 0}, {0, -1, 1, 0}, {0, 1, 0, -1}};
  static constexpr float G[4][3] = {{1, 0, 0}, {.5f, .5f, .5f}, {.5f, -.5f, .5f}, {0, 0, 1}};
  static constexpr float AT[2][4] = {{1, 1, 1, 0}, {0, 1, -1, -1}};
};
template <>
struct Mats<4> {
  static constexpr int T = 6;
  static constexpr float BT[6][6] = {{4, 0, -5, 0, 1, 0},  {0, -4, -4, 1, 1, 0}, {0, 4, -4, -1, 1, 0},
                                     {0, -2, -1, 2, 1, 0}, {0, 2, -1, -2, 1, 0}, {0, 4, 0, -5, 0, 1}};
  static constexpr float G[6][3] = {{1.f / 4, 0, 0},          {-1.f / 6, -1.f / 6, -1.f / 6}, {-1.f / 6, 1.f / 6, -1.f / 6},
                                    {1.f / 24, 1.f / 12, 1.f / 6}, {1.f / 24, -1.f / 12, 1.f / 6}, {0, 0, 1}};
  static constexpr float AT[4][6] = {{1, 1, 1, 1, 1, 0}, {0, 1, -1, 2, -2, 0}, {0, 1, 1, 4, 4, 0}, {0, 1, -1, 8, -8, 1}};
};

// out = A in A^T with A: RO x RI, in: RI x RI.
template <int RO, int RI>
inline void sandwich(const float (&a)[RO][RI], const float (&in)[RI][RI], float (&out)[RO][RO]) {
  float tmp[RO][RI];
  for (int i = 0; i < RO; ++i)
    for (int j = 0; j < RI; ++j) {
      float s = 0;
      for (int k = 0; k < RI; ++k) s += a[i][k] * in[k][j];
      tmp[i][j] = s;
    }
  for (int i = 0; i < RO; ++i)
    for (int j = 0; j < RO; ++j) {
      float s = 0;
      for (int k = 0; k < RI; ++k) s += tmp[i][k] * a[j][k];
      out[i][j] = s;
    }
}

struct Strides {
  int64_t n, c, h, w;
};
Strides strides(Layout l, int C, int H, int W) {
  if (l == Layout::kNCHW) return {int64_t(C) * H * W, int64_t(H) * W, W, 1};
  return {int64_t(H) * W * C, 1, int64_t(W) * C, C};
}

template <int M>
class WinogradConv : public ConvBase {
  static constexpr int T = Mats<M>::T, P = T * T;

 public:
  explicit WinogradConv(const PrimitiveArgs& a) : ConvBase(a) {
    const Layer& l = *a.layer;
    const int K = l.out_channels, C = a.in_shapes[0].c;
    packed_.resize(size_t(P) * K * C);
    for (int k = 0; k < K; ++k)
      for (int c = 0; c < C; ++c) {
        float g[3][3], u[T][T];
        for (int i = 0; i < 9; ++i) g[i / 3][i % 3] = l.weights[(int64_t(k) * C + c) * 9 + i];
        kernel_transform(g, u);
        for (int p = 0; p < P; ++p) packed_[(int64_t(p) * K + k) * C + c] = u[p / T][p % T];
      }
  }
  Status run() override {
    float* v = ws_;
    float* m = ws_ + int64_t(P) * g_.c * tiles();
    input_transform(v);
    parallel_for(threads_, P, [&](int64_t p0, int64_t p1) {
      for (int64_t p = p0; p < p1; ++p)
        native_gemm(1, g_.k, int(tiles()), g_.c, packed_.data() + p * g_.k * g_.c, g_.c, v + p * g_.c * tiles(),
                    int(tiles()), m + p * g_.k * tiles(), int(tiles()), false);
    });
    output_transform(m);
    return Status::ok();
  }

 private:
  static void kernel_transform(const float (&g)[3][3], float (&u)[T][T]) {
    float tmp[T][3];
    for (int i = 0; i < T; ++i)
      for (int j = 0; j < 3; ++j) tmp[i][j] = Mats<M>::G[i][0] * g[0][j] + Mats<M>::G[i][1] * g[1][j] + Mats<M>::G[i][2] * g[2][j];
    for (int i = 0; i < T; ++i)
      for (int j = 0; j < T; ++j) u[i][j] = tmp[i][0] * Mats<M>::G[j][0] + tmp[i][1] * Mats<M>::G[j][1] + tmp[i][2] * Mats<M>::G[j][2];
  }
  int th() const { return (g_.oh + M - 1) / M; }
  int tw() const { return (g_.ow + M - 1) / M; }
  int64_t tiles() const { return int64_t(g_.n) * th() * tw(); }

  void input_transform(float* v) const {
    const Strides s = strides(layout_, g_.c, g_.h, g_.w);
    const int64_t nt = tiles();
    parallel_for(threads_, nt, 4, [&](int64_t t0, int64_t t1) {
      for (int64_t t = t0; t < t1; ++t) {
        int n = int(t / (th() * tw())), ty = int(t / tw() % th()), tx = int(t % tw());
        int h0 = ty * M - g_.pt, w0 = tx * M - g_.pl;
        for (int c = 0; c < g_.c; ++c) {
          const float* base = x_ + n * s.n + c * s.c;
          float d[T][T], out[T][T];
          for (int i = 0; i < T; ++i)
            for (int j = 0; j < T; ++j) {
              int ih = h0 + i, iw = w0 + j;
              d[i][j] = (ih >= 0 && ih < g_.h && iw >= 0 && iw < g_.w) ? base[ih * s.h + iw * s.w] : 0.f;
            }
          sandwich(Mats<M>::BT, d, out);
          for (int p = 0; p < P; ++p) v[(int64_t(p) * g_.c + c) * nt + t] = out[p / T][p % T];
        }
      }
    });
  }

  void output_transform(const float* m) const {
    const Strides s = strides(layout_, g_.k, g_.oh, g_.ow);
    const int64_t nt = tiles();
    with_activation(act_, [&](auto f) {
      parallel_for(threads_, nt, 4, [&](int64_t t0, int64_t t1) {
        for (int64_t t = t0; t < t1; ++t) {
          int n = int(t / (th() * tw())), ty = int(t / tw() % th()), tx = int(t % tw());
          for (int k = 0; k < g_.k; ++k) {
            float in[T][T], y[M][M];
            for (int p = 0; p < P; ++p) in[p / T][p % T] = m[(int64_t(p) * g_.k + k) * nt + t];
            sandwich(Mats<M>::AT, in, y);
            float* base = y_ + n * s.n + k * s.c;
            for (int i = 0; i < M && ty * M + i < g_.oh; ++i)
              for (int j = 0; j < M && tx * M + j < g_.ow; ++j)
                base[(ty * M + i) * s.h + (tx * M + j) * s.w] = f(y[i][j] + bias_[k]);
          }
        }
      });
    });
  }

  size_t workspace_for(const ConvGeom& g) const override {
    int64_t nt = int64_t(g.n) * ((g.oh + M - 1) / M) * ((g.ow + M - 1) / M);
    return sizeof(float) * size_t(P) * (g.c + g.k) * nt;
  }
};

}  // namespace

Status create_winograd_conv(const PrimitiveArgs& a, std::unique_ptr<Primitive>* out) {
  if (a.desc.algorithm == Algorithm::kWinogradF2) *out = std::make_unique<WinogradConv<2>>(a);
  else *out = std::make_unique<WinogradConv<4>>(a);
  return Status::ok();
}

}  // namespace lw::native
