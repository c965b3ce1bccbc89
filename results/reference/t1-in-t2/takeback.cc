// g++ -O2 -std=c++17 -I. -o takeback results/reference/t1-in-t2/takeback.cc build/libs/ops/liblayerwise_ops.a build/libs/liblayerwise_core.a -lpthread (built at 39d825d..HEAD: parallel_for with its take-back)
// How often parallel_for's second chunk runs on cpu1 when the worker was parked before (as
// env/measure.cc on_each_core leaves it), by the size of the chunks' work.
#include <sched.h>
#include <unistd.h>
#include <cstdio>
#include <vector>
#include "libs/ops/thread_pool.h"
int main() {
  lw::start_thread_sets();
  for (size_t bytes : {size_t(16) << 10, size_t(186) << 10, size_t(1) << 20, size_t(4) << 20}) {
    std::vector<char> buf(2 * bytes, 1);
    int on_cpu1 = 0;
    for (int r = 0; r < 200; ++r) {
      lw::park_thread_set_worker();
      usleep(300);
      int cpu_of_k1 = -1;
      lw::parallel_for(2, 2, 1, [&](int64_t b, int64_t e) {
        for (int64_t k = b; k < e; ++k) {
          volatile char* p = buf.data() + k * bytes;
          for (size_t i = 0; i < bytes; i += 64) p[i] = p[i];
          if (k == 1) cpu_of_k1 = sched_getcpu();
        }
      });
      on_cpu1 += cpu_of_k1 == 1;
    }
    std::printf("%6zu KiB per core: the second half ran on cpu1 in %3d of 200\n", bytes >> 10, on_cpu1);
  }
}
