// Every build of the native GEMM this CPU runs (libs/native/gemm_variant.h: generic x86-64,
// AVX2, AVX-512, dispatched at run time) against a naive GEMM on awkward shapes, with and
// without the packed operands, bias and activation; and the capability mask that the dispatch
// and the runtime's ISA check share (ctest also runs this binary with
// LAYERWISE_MASK_CPU_FEATURES).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "libs/core/cpu.h"
#include "libs/native/gemm_variant.h"

using namespace lw;
using namespace lw::native;

namespace {

struct Variant {
  const char* name;
  decltype(&generic::pack_a) pack_a;
  decltype(&generic::pack_b) pack_b;
  decltype(&generic::with_packed_a) with_packed_a;
  decltype(&generic::with_packed_b) with_packed_b;
  decltype(&generic::gemm_block) block;
  decltype(&generic::buffer_floats) buffer_floats;
};

std::vector<Variant> variants() {
  std::vector<Variant> v = {{"generic", generic::pack_a, generic::pack_b, generic::with_packed_a, generic::with_packed_b,
                             generic::gemm_block, generic::buffer_floats}};
  // The AVX2 and AVX-512 builds only where this CPU (unmasked) can run them.
  if (cpu_native_isa() >= NativeIsa::kAvx2)
    v.push_back({"avx2", avx2::pack_a, avx2::pack_b, avx2::with_packed_a, avx2::with_packed_b, avx2::gemm_block,
                 avx2::buffer_floats});
  if (cpu_native_isa() == NativeIsa::kAvx512)
    v.push_back({"avx512", avx512::pack_a, avx512::pack_b, avx512::with_packed_a, avx512::with_packed_b,
                 avx512::gemm_block, avx512::buffer_floats});
  return v;
}

std::vector<float> randoms(size_t n, int seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-1, 1);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

// 64-byte aligned storage of n floats (Eigen reads packed panels with aligned loads).
struct Aligned {
  std::vector<float> store;
  float* p;
  explicit Aligned(size_t n) : store(n + 16, 0.f), p(align64(store.data())) {}
};

void naive(int m, int n, int k, const float* a, const float* b, const float* row_bias, const float* col_bias,
           bool relu, std::vector<float>* c) {
  c->assign(size_t(m) * n, 0.f);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double s = row_bias ? row_bias[i] : col_bias ? col_bias[j] : 0;
      for (int p = 0; p < k; ++p) s += double(a[size_t(i) * k + p]) * b[size_t(p) * n + j];
      (*c)[size_t(i) * n + j] = relu ? std::max(0.f, float(s)) : float(s);
    }
}

void check_close(const std::vector<float>& got, const float* want, size_t n, int k) {
  int bad = 0;
  for (size_t i = 0; i < n; ++i) bad += std::fabs(got[i] - want[i]) > 1e-5f * float(k) + 1e-5f;
  CHECK(bad == 0);
}

struct Dims {
  int m, n, k;
};
const Dims kShapes[] = {{1, 1, 1}, {3, 5, 7}, {16, 17, 9}, {47, 33, 200}, {64, 129, 385}, {9, 600, 27}, {130, 7, 64}};

}  // namespace

TEST_CASE("every GEMM build matches the naive GEMM on awkward shapes") {
  for (const Variant& v : variants())
    for (const Dims& d : kShapes)
      for (int threads : {1, 2}) {
        CAPTURE(v.name);
        CAPTURE(d.m);
        CAPTURE(d.n);
        CAPTURE(d.k);
        CAPTURE(threads);
        std::vector<float> a = randoms(size_t(d.m) * d.k, 1), b = randoms(size_t(d.k) * d.n, 2);
        std::vector<float> row_bias = randoms(size_t(d.m), 3), col_bias = randoms(size_t(d.n), 4), want, got;
        // Weights as the left operand (NCHW convs): bias per row, ReLU fused.
        naive(d.m, d.n, d.k, a.data(), b.data(), row_bias.data(), nullptr, true, &want);
        Aligned pa(size_t(d.m) * d.k), buf(size_t(v.buffer_floats(threads, d.n, d.k))), c(size_t(d.m) * d.n);
        v.pack_a(d.m, d.k, a.data(), d.k, pa.p);
        v.with_packed_a(threads, d.m, d.n, d.k, pa.p, b.data(), d.n, c.p, d.n, buf.p, {row_bias.data(), LayerKind::kRelu});
        check_close(std::vector<float>(c.p, c.p + want.size()), want.data(), want.size(), d.k);
        // Weights as the right operand (NHWC convs): bias per column, no activation.
        naive(d.m, d.n, d.k, a.data(), b.data(), nullptr, col_bias.data(), false, &want);
        Aligned pb(size_t(d.k) * d.n), buf2(size_t(v.buffer_floats(threads, d.m, d.k)));
        v.pack_b(d.n, d.k, b.data(), d.n, pb.p);
        v.with_packed_b(threads, d.m, d.n, d.k, a.data(), d.k, pb.p, c.p, d.n, buf2.p, {col_bias.data(), LayerKind::kInput});
        check_close(std::vector<float>(c.p, c.p + want.size()), want.data(), want.size(), d.k);
        // Neither packed, accumulating into C.
        naive(d.m, d.n, d.k, a.data(), b.data(), nullptr, nullptr, false, &want);
        got.assign(want.size(), 1.f);
        v.block(d.m, d.n, d.k, a.data(), d.k, b.data(), d.n, got.data(), d.n, true);
        for (float& x : got) x -= 1.f;
        check_close(got, want.data(), want.size(), d.k);
      }
}

TEST_CASE("a masked feature is absent for the dispatch and for the capability check") {
  const char* mask = std::getenv(kMaskCpuFeaturesEnv);
  if (mask && std::strstr(mask, "avx512f")) {
    CHECK(!cpu_has("avx512f"));
    CHECK(cpu_native_isa() != NativeIsa::kAvx512);  // a narrower build runs: the whole test suite can use it
    CHECK(cpu_missing({"avx512f", "sse2"}) == std::vector<std::string>{"avx512f"});
  }
  if (mask && std::strstr(mask, "avx2")) CHECK(cpu_native_isa() == NativeIsa::kGeneric);
  if (!mask) {  // unmasked, the widest build this CPU runs
    const NativeIsa want = cpu_missing({"avx512f", "avx512bw", "avx512vl", "avx512dq", "avx2", "fma"}).empty()
                               ? NativeIsa::kAvx512
                           : cpu_missing({"avx2", "fma"}).empty() ? NativeIsa::kAvx2
                                                                  : NativeIsa::kGeneric;
    CHECK(cpu_native_isa() == want);
  }
  CHECK(cpu_has("sse2"));
  CHECK(!cpu_has("sse2", "avx2,sse2"));
  CHECK(cpu_missing({"sse2", "no_such_feature"}, "") == std::vector<std::string>{"no_such_feature"});
}
