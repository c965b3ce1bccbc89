// oneDNN f32 1x1 conv 112->672 on 14x14 (MobileNetV3-L features.12.expand), 2 OpenMP threads:
// median of 20 runs, then the FMA pair probe; repeated. Tells whether 2-thread slow spells are
// the vCPUs sharing a core.
#include <dnnl.hpp>
#include <omp.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cstring>
#include <unistd.h>
using namespace dnnl;
using tag = memory::format_tag;
using dt = memory::data_type;
static double now_ms() { return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
static void steal(long* s) {
  FILE* f = fopen("/proc/stat", "r"); char line[512]; int c = 0;
  while (fgets(line, sizeof line, f) && c < 2) {
    if (strncmp(line, "cpu", 3) == 0 && line[3] >= '0' && line[3] <= '9') {
      long v[8]; sscanf(line + 5, "%ld %ld %ld %ld %ld %ld %ld %ld", v, v+1, v+2, v+3, v+4, v+5, v+6, v+7); s[c++] = v[7]; } }
  fclose(f);
}
int main(int argc, char** argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 20;
  int ic = 112, oc = 672, hw = 14;
  engine eng(engine::kind::cpu, 0); stream s(eng);
  memory::desc src({1, ic, hw, hw}, dt::f32, tag::any), wei({oc, ic, 1, 1}, dt::f32, tag::any), dst({1, oc, hw, hw}, dt::f32, tag::any);
  auto d = convolution_forward::desc(prop_kind::forward_inference, algorithm::convolution_direct, src, wei, dst, {1, 1}, {0, 0}, {0, 0});
  auto pd = convolution_forward::primitive_desc(d, eng);
  memory S(pd.src_desc(), eng), W(pd.weights_desc(), eng), D(pd.dst_desc(), eng);
  std::fill((float*)S.get_data_handle(), (float*)S.get_data_handle() + pd.src_desc().get_size() / 4, 0.5f);
  std::fill((float*)W.get_data_handle(), (float*)W.get_data_handle() + pd.weights_desc().get_size() / 4, 0.01f);
  convolution_forward c(pd);
  printf("impl %s threads %d\n", pd.impl_info_str(), omp_get_max_threads());
  for (int r = 0; r < reps; ++r) {
    std::vector<double> t;
    long st0[2]; steal(st0);
    for (int k = 0; k < 21; ++k) {
      double a = now_ms();
      c.execute(s, {{DNNL_ARG_SRC, S}, {DNNL_ARG_WEIGHTS, W}, {DNNL_ARG_DST, D}});
      s.wait();
      if (k) t.push_back(now_ms() - a);
    }
    std::vector<double> u = t;
    std::sort(t.begin(), t.end());
    long st1[2]; steal(st1);
    printf("%.3f min %.3f max %.3f steal %ld %ld ", t[10], t[0], t[19], st1[0] - st0[0], st1[1] - st0[1]);
    if (t[10] > 0.5) { printf("runs"); for (double x : u) printf(" %.2f", x); printf(" | "); }
    fflush(stdout);
    system("./fma2 1 200000 0 | cut -d' ' -f2-");
    usleep(500000);
  }
}
