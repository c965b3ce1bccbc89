// Host-speed probes, each timed as a median of 5: compute (FMA chain), L3-size sum,
// 256 MiB streaming sum, 256 MiB random pointer chase (ns per load).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>
using clk = std::chrono::steady_clock;
static double ms(clk::time_point a) { return std::chrono::duration<double, std::milli>(clk::now() - a).count(); }
volatile double sink;
template <class F> double med(F f) { std::vector<double> v; for (int i = 0; i < 5; ++i) { auto t = clk::now(); f(); v.push_back(ms(t)); } std::sort(v.begin(), v.end()); return v[2]; }
int main() {
  const size_t l3 = 32u << 20, big = 256u << 20;
  std::vector<float> a(l3 / 4, 1.f), b(big / 4, 1.f);
  std::vector<uint32_t> chase(big / 64);
  { std::vector<uint32_t> p(chase.size()); std::iota(p.begin(), p.end(), 0); std::shuffle(p.begin(), p.end(), std::mt19937(1));
    for (size_t i = 0; i < p.size(); ++i) chase[p[i]] = p[(i + 1) % p.size()]; }
  std::vector<uint32_t> lines(big / 4);  // chase stride: one uint32 per 64-byte line
  for (size_t i = 0; i < chase.size(); ++i) lines[i * 16] = chase[i] * 16;
  double c = med([] { double x = 1; for (int i = 0; i < 20000000; ++i) x = x * 1.0000001 + 1e-9; sink = x; });
  double s3 = med([&] { double s = 0; for (int r = 0; r < 4; ++r) for (size_t i = 0; i < a.size(); i += 16) s += a[i]; sink = s; });
  double sb = med([&] { double s = 0; for (size_t i = 0; i < b.size(); i += 16) s += b[i]; sink = s; });
  const int loads = 1 << 20;
  double ch = med([&] { uint32_t j = 0; for (int i = 0; i < loads; ++i) j = lines[j]; sink = j; });
  std::printf("compute_ms %.3f l3x4_ms %.3f stream256_ms %.3f chase_ns %.1f\n", c, s3, sb, ch * 1e6 / loads);
}
