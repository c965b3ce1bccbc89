// Where a oneDNN f32 convolution leaves its output: the time to read it right after the conv,
// against the same buffer after plain stores, after non-temporal stores and from memory (the
// buffer and 48 MB of other data written first each time). Medians of 31 rounds, 1 thread.
//   g++ -O2 -mavx512f -o conv_output conv_output.cc -ldnnl
//   OMP_NUM_THREADS=1 taskset -c 0 ./conv_output C K H R S [b]   (b: blocked source, format any)
#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dnnl.hpp>
#include <vector>

using namespace dnnl;
using tag = memory::format_tag;
using dt = memory::data_type;
using clk = std::chrono::steady_clock;
static volatile float sink;

double read_ms(const float* p, size_t n) {
  const auto t0 = clk::now();
  float s = 0;
  for (size_t i = 0; i < n; i += 16) s += p[i];
  sink = s;
  return std::chrono::duration<double, std::milli>(clk::now() - t0).count();
}

int main(int argc, char** argv) {
  if (argc < 6) return std::fprintf(stderr, "usage: %s C K H R S [b]\n", argv[0]), 2;
  const int C = std::atoi(argv[1]), K = std::atoi(argv[2]), H = std::atoi(argv[3]), R = std::atoi(argv[4]),
            S = std::atoi(argv[5]), P = R / 2, OH = (H + 2 * P - R) / S + 1;
  const bool any_src = argc > 6 && argv[6][0] == 'b';
  engine eng(engine::kind::cpu, 0);
  stream st(eng);
  memory::desc src_md({1, C, H, H}, dt::f32, any_src ? tag::any : tag::nchw);
  memory::desc w_md({K, C, R, R}, dt::f32, tag::any), b_md({K}, dt::f32, tag::x), dst_md({1, K, OH, OH}, dt::f32, tag::any);
  auto pd = convolution_forward::primitive_desc(
      convolution_forward::desc(prop_kind::forward_inference, algorithm::convolution_direct, src_md, w_md, b_md, dst_md,
                                {S, S}, {P, P}, {P, P}),
      eng);
  memory src(pd.src_desc(), eng), w(pd.weights_desc(), eng), b(b_md, eng), dst(pd.dst_desc(), eng);
  std::memset(src.get_data_handle(), 0, pd.src_desc().get_size());
  std::memset(w.get_data_handle(), 0, pd.weights_desc().get_size());
  std::memset(b.get_data_handle(), 0, K * 4);
  convolution_forward conv(pd);
  const size_t n = pd.dst_desc().get_size() / 4;
  float* y = static_cast<float*>(dst.get_data_handle());
  std::vector<char> other(48 << 20, 1);
  auto out_of_caches = [&] { for (size_t i = 0; i < other.size(); i += 64) other[i]++; };
  std::vector<double> t[4];
  for (int it = 0; it < 31; ++it) {
    out_of_caches();
    conv.execute(st, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_BIAS, b}, {DNNL_ARG_DST, dst}});
    t[0].push_back(read_ms(y, n));
    out_of_caches();
    std::memset(y, 0, n * 4);
    t[1].push_back(read_ms(y, n));
    out_of_caches();
    for (size_t i = 0; i < n; i += 16) _mm512_stream_ps(y + i, _mm512_setzero_ps());
    _mm_sfence();
    t[2].push_back(read_ms(y, n));
    out_of_caches();
    t[3].push_back(read_ms(y, n));
  }
  for (auto& v : t) std::sort(v.begin(), v.end());
  std::printf("%d->%d %dx%d on %d s%d, %s, output %.2f MB: read ms after the conv %.4f | plain stores %.4f | "
              "non-temporal stores %.4f | from memory %.4f\n",
              C, K, R, R, H, S, pd.impl_info_str(), n * 4 / 1e6, t[0][15], t[1][15], t[2][15], t[3][15]);
}
