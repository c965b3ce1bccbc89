#include <chrono>
#include <cstdio>
#include <vector>
#include <algorithm>
#include <cstring>
#include <cstdlib>
static volatile char sink;
using clk = std::chrono::steady_clock;
double read_ms(const char* p, size_t n) { auto t0 = clk::now(); char s = 0; for (size_t i = 0; i < n; i += 64) s += p[i]; sink = s; return std::chrono::duration<double, std::milli>(clk::now() - t0).count(); }
int main() {
  size_t n = 3 << 20; std::vector<char> y(n, 1), other(96 << 20, 1);
  for (size_t mb : {0, 1, 2, 4, 8, 12, 16, 24, 32, 64}) {
    std::vector<double> t, tw;
    for (int it = 0; it < 21; ++it) {
      for (size_t i = 0; i < other.size(); i += 64) sink += other[i];  // everything out
      memset(y.data(), it, n);  // y written (dirty), from memory
      for (size_t i = 0; i < (mb << 20); i += 64) sink += other[i];
      t.push_back(read_ms(y.data(), n));
      for (size_t i = 0; i < other.size(); i += 64) sink += other[i];
      sink += read_ms(y.data(), n);  // y read (clean)
      for (size_t i = 0; i < (mb << 20); i += 64) sink += other[i];
      tw.push_back(read_ms(y.data(), n));
    }
    std::sort(t.begin(), t.end()); std::sort(tw.begin(), tw.end());
    printf("3 MiB, then %2zu MiB of other reads: read back %.4f ms (written) %.4f ms (read)\n", mb, t[10], tw[10]);
  }
}
