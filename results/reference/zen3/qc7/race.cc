// oneDNN 2.6 int8 1x1 stride-2 conv, u8 src with a src zero point, NHWC, 2 threads: deterministic?
#include <dnnl.hpp>
#include <omp.h>
#include <cstdio>
#include <cstring>
#include <vector>
#include <random>
#include <unordered_map>
#include <algorithm>
using namespace dnnl; using tag = memory::format_tag; using dt = memory::data_type;
int main(int argc, char** argv) {
  engine eng(engine::kind::cpu, 0); stream st(eng);
  int zp = argc > 1 ? atoi(argv[1]) : 100; int user_sp = argc > 2 ? atoi(argv[2]) : 1; int stride = argc > 3 ? atoi(argv[3]) : 2;
  const int N = argc > 4 ? atoi(argv[4]) : 1, C = 24, H = argc > 5 ? atoi(argv[5]) : 12, K = 40, OH = (H - 1) / stride + 1;
  memory::desc src({N, C, H, H}, (getenv("S8") ? dt::s8 : dt::u8), tag::nhwc), dst({N, K, OH, OH}, dt::s8, tag::nhwc), wei({K, C, 1, 1}, dt::s8, tag::any), bia({K}, dt::f32, tag::x);
  convolution_forward::desc cd(prop_kind::forward_inference, algorithm::convolution_direct, src, wei, bia, dst, {stride, stride}, {0, 0}, {0, 0});
  primitive_attr attr; if (user_sp) attr.set_scratchpad_mode(scratchpad_mode::user);
  std::vector<float> sc(K, 0.01f); attr.set_output_scales(2, sc);
  if (zp) attr.set_zero_points(DNNL_ARG_SRC, 0, {zp});
  attr.set_zero_points(DNNL_ARG_DST, 0, {3});
  std::mt19937 rng(1);
  std::vector<uint8_t> x(N * C * H * H); for (auto& v : x) v = rng() % 256;
  std::vector<int8_t> w(K * C); for (auto& v : w) v = int(rng() % 127) - 63;
  std::vector<float> b(K, 1.f);
  std::vector<std::vector<int8_t>> outs;
  for (int threads : {1, 2}) {
    omp_set_num_threads(threads);
    convolution_forward::primitive_desc pd(cd, attr, eng);
    if (threads == 1) printf("%s, scratchpad %zu bytes (1 thread)\n", pd.impl_info_str(), pd.scratchpad_desc().get_size());
    else printf("scratchpad %zu bytes (2 threads)\n", pd.scratchpad_desc().get_size());
    memory W(pd.weights_desc(), eng); memory Wu({{K, C, 1, 1}, dt::s8, tag::oihw}, eng, w.data());
    reorder(Wu, W).execute(st, Wu, W);
    memory S(src, eng, x.data()), B(bia, eng, b.data()), D(dst, eng);
    std::vector<uint8_t> sp(pd.scratchpad_desc().get_size() + 4096, 0xee);
    memory P(pd.scratchpad_desc(), eng, sp.data());
    convolution_forward conv(pd);
    for (int r = 0; r < 200; ++r) {
      memset(D.get_data_handle(), 0, dst.get_size());
      std::unordered_map<int, memory> args{{DNNL_ARG_SRC, S}, {DNNL_ARG_WEIGHTS, W}, {DNNL_ARG_BIAS, B}, {DNNL_ARG_DST, D}};
      if (user_sp) args[DNNL_ARG_SCRATCHPAD] = P;
      conv.execute(st, args); st.wait();
      const int8_t* o = (const int8_t*)D.get_data_handle();
      outs.emplace_back(o, o + dst.get_size());
    }
    int past = 0; for (size_t i = pd.scratchpad_desc().get_size(); i < sp.size(); ++i) past += sp[i] != 0xee;
    printf("threads %d: bytes written past the scratchpad %d\n", threads, past);
  }
  int diff = 0, maxd = 0;
  for (size_t r = 1; r < outs.size(); ++r) { int d = 0; for (size_t i = 0; i < outs[0].size(); ++i) { int e = abs(outs[r][i] - outs[0][i]); d += e > 0; maxd = std::max(maxd, e); } diff += d > 0; }
  printf("zp %d user_sp %d stride %d: %d of %zu runs differ from the first 1-thread run, max diff %d\n", zp, user_sp, stride, diff, outs.size() - 1, maxd);
}
