#include <chrono>
#include <cstdio>
#include <ctime>
#include <thread>
#include "env/speed_probe.h"
int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 20, gap = argc > 2 ? atoi(argv[2]) : 500;
  for (int i = 0; i < n; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    double r = lw::probe_core_pair_ratio();
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    double link = lw::probe_core_link_ns();
    std::printf("%ld pair %.2f (%.1f ms) link %.0f\n", (long)time(nullptr) % 100000, r, ms, link);
    std::fflush(stdout);
    std::this_thread::sleep_for(std::chrono::milliseconds(gap));
  }
}
