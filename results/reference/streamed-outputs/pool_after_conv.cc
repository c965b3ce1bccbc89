// How a oneDNN max-pool's time depends on where its input is: straight from the oneDNN 3x3
// conv that wrote it (as in the network), read back into the caches (as the profiler's
// protocol leaves an input), written back dirty, or in memory. Medians of 41 rounds, 1 thread.
//   g++ -O2 -o pool_after_conv pool_after_conv.cc -ldnnl
//   OMP_NUM_THREADS=1 taskset -c 0 ./pool_after_conv C K H   (conv C->K 3x3 on HxH, nChw16c; pool 3x3 s2)
#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <dnnl.hpp>
#include <random>
#include <vector>

using namespace dnnl;
using tag = memory::format_tag;
using dt = memory::data_type;
using clk = std::chrono::steady_clock;
static volatile char sink;

void read_lines(const void* p, size_t bytes) {
  const volatile char* c = static_cast<const volatile char*>(p);
  char s = 0;
  for (size_t i = 0; i < bytes; i += 64) s += c[i];
  sink = s;
}
// volatile: a plain p[i] = p[i] is a no-op the compiler removes (a first version of this test
// did, and "written back" then meant "left where it was").
void write_lines(void* p, size_t bytes) {
  volatile char* c = static_cast<volatile char*>(p);
  for (size_t i = 0; i < bytes; i += 64) c[i] = c[i];
}
void flush_lines(const void* p, size_t bytes) {
  for (size_t i = 0; i < bytes; i += 64) _mm_clflush(static_cast<const char*>(p) + i);
  _mm_mfence();
}
void fill(memory& m, float lo, float hi, int seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  float* p = static_cast<float*>(m.get_data_handle());
  for (size_t i = 0; i < m.get_desc().get_size() / 4; ++i) p[i] = u(g);
}

int main(int argc, char** argv) {
  if (argc < 4) return std::fprintf(stderr, "usage: %s C K H\n", argv[0]), 2;
  const int C = std::atoi(argv[1]), K = std::atoi(argv[2]), H = std::atoi(argv[3]), OH = (H + 1 - 3) / 2 + 1;
  engine eng(engine::kind::cpu, 0);
  stream st(eng);
  memory::desc x_md({1, C, H, H}, dt::f32, tag::nChw16c), w_md({K, C, 3, 3}, dt::f32, tag::any),
      b_md({K}, dt::f32, tag::x), y_md({1, K, H, H}, dt::f32, tag::nChw16c), z_md({1, K, OH, OH}, dt::f32, tag::nChw16c);
  post_ops po;
  po.append_eltwise(1.f, algorithm::eltwise_relu, 0.f, 0.f);
  primitive_attr attr;
  attr.set_post_ops(po);
  auto cpd = convolution_forward::primitive_desc(
      convolution_forward::desc(prop_kind::forward_inference, algorithm::convolution_direct, x_md, w_md, b_md, y_md,
                                {1, 1}, {1, 1}, {1, 1}),
      attr, eng);
  auto ppd = pooling_forward::primitive_desc(pooling_forward::desc(prop_kind::forward_inference, algorithm::pooling_max,
                                                                   y_md, z_md, {2, 2}, {3, 3}, {0, 0}, {1, 1}),
                                             eng);
  memory x(x_md, eng), w(cpd.weights_desc(), eng), b(b_md, eng), y(y_md, eng), z(z_md, eng);
  fill(x, 0, 1, 1), fill(w, -0.05f, 0.05f, 2), fill(b, -0.1f, 0.1f, 3);
  convolution_forward conv(cpd);
  pooling_forward pool(ppd);
  std::vector<char> other(48 << 20, 1), l2(4 << 20, 1);  // other data; a private-cache eviction buffer
  auto flush_all = [&] { read_lines(other.data(), other.size()); };
  auto evict_private_dirty = [&] { write_lines(l2.data(), l2.size()); };
  auto run_conv = [&] { conv.execute(st, {{DNNL_ARG_SRC, x}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_BIAS, b}, {DNNL_ARG_DST, y}}); };
  auto time_pool = [&] {
    const auto t0 = clk::now();
    pool.execute(st, {{DNNL_ARG_SRC, y}, {DNNL_ARG_DST, z}});
    return std::chrono::duration<double, std::milli>(clk::now() - t0).count();
  };
  void* yp = y.get_data_handle();
  const size_t yb = y_md.get_size();
  const char* names[] = {"after the conv (network)", "read back (profiler)", "written back", "in memory",
                         "cached, then the conv"};
  std::vector<double> t[5];
  for (int it = 0; it < 41; ++it) {
    // Every state starts with other data through the caches and the pool's output in L3.
    flush_all(), read_lines(z.get_data_handle(), z_md.get_size()), run_conv();
    t[0].push_back(time_pool());
    flush_all(), read_lines(z.get_data_handle(), z_md.get_size()), run_conv(), evict_private_dirty(), read_lines(yp, yb);
    t[1].push_back(time_pool());
    flush_all(), read_lines(z.get_data_handle(), z_md.get_size()), run_conv(), evict_private_dirty(), write_lines(yp, yb);
    t[2].push_back(time_pool());
    flush_all(), read_lines(z.get_data_handle(), z_md.get_size()), evict_private_dirty(), flush_lines(yp, yb);
    t[3].push_back(time_pool());
    flush_all(), read_lines(z.get_data_handle(), z_md.get_size()), read_lines(yp, yb), run_conv();
    t[4].push_back(time_pool());
  }
  std::printf("conv %s -> pool %s, input %.2f MB: pool ms, input", cpd.impl_info_str(), ppd.impl_info_str(), yb / 1e6);
  for (int k = 0; k < 5; ++k) {
    std::sort(t[k].begin(), t[k].end());
    std::printf("%s %s %.4f", k ? " |" : "", names[k], t[k][20]);
  }
  std::printf("\n");
}
