// oneDNN f32 1x1 conv 672->112 on 14x14 NHWC (MobileNetV3-L features.12.project), 2 OpenMP
// threads, timed under several preparations, interleaved: which one makes it run at 0.30 ms
// (the LUT) instead of 0.17 (the network)?
#include <dnnl.hpp>
#include <omp.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>
using namespace dnnl;
using tag = memory::format_tag;
using dt = memory::data_type;
static double now_ms() { return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
static std::vector<char> big(64 << 20, 1), priv[2] = {std::vector<char>(4 << 20, 1), std::vector<char>(4 << 20, 1)};
volatile long sink;
int main(int argc, char** argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 30;
  int ic = 672, oc = 112, hw = 14;
  engine eng(engine::kind::cpu, 0); stream s(eng);
  memory::desc src({1, ic, hw, hw}, dt::f32, tag::nhwc), wei({oc, ic, 1, 1}, dt::f32, tag::any), dst({1, oc, hw, hw}, dt::f32, tag::nhwc);
  auto d = convolution_forward::desc(prop_kind::forward_inference, algorithm::convolution_direct, src, wei, dst, {1, 1}, {0, 0}, {0, 0});
  auto pd = convolution_forward::primitive_desc(d, eng);
  memory S(pd.src_desc(), eng), W(pd.weights_desc(), eng), D(pd.dst_desc(), eng);
  float* sp = (float*)S.get_data_handle(); size_t sn = pd.src_desc().get_size() / 4;
  for (size_t i = 0; i < sn; ++i) sp[i] = 0.5f + (i % 7) * 0.1f;
  std::fill((float*)W.get_data_handle(), (float*)W.get_data_handle() + pd.weights_desc().get_size() / 4, 0.01f);
  convolution_forward c(pd);
  printf("impl %s threads %d\n", pd.impl_info_str(), omp_get_max_threads());
  auto run = [&] { double a = now_ms(); c.execute(s, {{DNNL_ARG_SRC, S}, {DNNL_ARG_WEIGHTS, W}, {DNNL_ARG_DST, D}}); s.wait(); return now_ms() - a; };
  auto flush_priv = [&] {
#pragma omp parallel num_threads(2)
    { auto& v = priv[omp_get_thread_num()]; for (size_t i = 0; i < v.size(); i += 64) v[i]++; }
  };
  auto read_big = [&] {
#pragma omp parallel num_threads(2)
    { int t = omp_get_thread_num(); long x = 0; size_t h = big.size() / 2; for (size_t i = t * h; i < (t + 1) * h; i += 64) x += big[i]; sink += x; }
  };
  auto halves = [&] {  // input written back by halves
#pragma omp parallel num_threads(2)
    { int t = omp_get_thread_num(); size_t h = sn / 2; for (size_t i = t * h; i < (t ? sn : h); i += 16) sp[i] = sp[i]; }
  };
  auto wake = [&] {
#pragma omp parallel num_threads(2)
    { sink += omp_get_thread_num(); }
  };
  const char* names[] = {"warm", "flushpriv", "flushpriv+big", "flushpriv+big+halves", "idle1ms", "idle1ms+wake"};
  std::vector<double> t[6];
  for (int r = 0; r < reps; ++r)
    for (int m = 0; m < 6; ++m) {
      run();  // a warm one before each (not counted)
      if (m == 1) flush_priv();
      if (m == 2) { read_big(); flush_priv(); }
      if (m == 3) { read_big(); flush_priv(); halves(); }
      if (m >= 4) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      if (m == 5) wake();
      t[m].push_back(run());
    }
  for (int m = 0; m < 6; ++m) { std::sort(t[m].begin(), t[m].end()); printf("%-22s median %.3f  min %.3f  p90 %.3f\n", names[m], t[m][t[m].size() / 2], t[m][0], t[m][t[m].size() * 9 / 10]); }
}
