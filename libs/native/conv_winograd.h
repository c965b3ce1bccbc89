/// \file
/// The Winograd convolution's transforms in three builds (conv_winograd_kernels.inc):
/// `generic` for any x86-64 CPU, `avx2` and `avx512`; conv_winograd.cc picks one per
/// primitive from cpu_native_isa(). Plain data crosses between them, no code.
#pragma once
#include <cstdint>

#include "libs/native/kernels.h"

namespace lw::native {

/// Channels per transform step (one AVX-512 vector of floats).
constexpr int kWinogradLanes = 16;

// A channels-last image: pixel (h, w) starts at base + h * sh + w * sw (sw = C); rows outside
// [0, H) and columns outside [0, W) read as zero padding.
struct ChannelsLast {
  const float* base;
  int H, W;
  int64_t sh, sw;
};

/// One block's tiles for the tile transforms: tile t of [t0, t1) is tile row ty0 + t / tw,
/// column t % tw. Input: reads x, writes V[p][t][c] at v + p * nt * channels + t * channels
/// + c. Output: reads M[p][t][k] at m (same layout), writes bias + activated A^T m A into the
/// oh x ow channels-last image y (row stride ldh, pixel stride ldw: 0 for K) from output row oy0.
struct WinogradTiles {
  int ty0 = 0, tw = 0, channels = 0;  // channels: C for the input, K for the output
  int64_t nt = 0;
  // input
  ChannelsLast x{};
  int pad_top = 0, pad_left = 0;
  float* v = nullptr;
  // output
  const float* m = nullptr;
  const float* bias = nullptr;
  LayerKind act = LayerKind::kInput;
  float* y = nullptr;
  int64_t ldh = 0, ldw = 0;
  int oy0 = 0, oh = 0, ow = 0;
};

#define LW_DECLARE_WINOGRAD_VARIANT(ns)                                  \
  namespace ns {                                                         \
  /* F(m x m, r x r): U = G g G^T of one r x r filter g (row-major), */  \
  /* T x T row-major (T = m + r - 1) */                                   \
  void kernel_transform(int m, int r, const float* g, float* u);         \
  void input_tiles(int m, int r, const WinogradTiles& a, int64_t t0, int64_t t1); \
  void output_tiles(int m, int r, const WinogradTiles& a, int64_t t0, int64_t t1); \
  /* U of one position (C x K row-major) in this build's GEMM panels */   \
  int64_t packed_u_floats(int C, int K);                                  \
  void pack_u(int C, int K, const float* u, float* packed);               \
  /* M (nt x K) = V (nt x C) * U, U packed by pack_u */                   \
  void position_gemm(int nt, int C, int K, const float* v, const float* packed, float* m); \
  }
LW_DECLARE_WINOGRAD_VARIANT(generic)
LW_DECLARE_WINOGRAD_VARIANT(avx2)
LW_DECLARE_WINOGRAD_VARIANT(avx512)

}  // namespace lw::native
