/// \file
/// pthreadpool's C API on libgomp's team, so that XNNPACK's 2-thread steps run on the same
/// cpu1 worker as oneDNN's, LibTorch's and the native kernels' (libs/ops/thread_pool.h).
///
/// Why: with two pools on cpu1, libgomp's worker spins ~0.3 ms after each OpenMP step
/// (GOMP_SPINCOUNT=10000) while XNNPACK's worker needs the CPU. A woken XNNPACK worker
/// preempts the spinner (its short wake slice), and the kernel (EEVDF) keeps the spinner's
/// lost share as a credit across its sleep; at the next OpenMP -> XNNPACK hand-off the woken
/// worker waits until that credit is spent, often the whole rest of the spin, and
/// pthreadpool's caller waits for every worker even when it ran all the items itself. On a
/// Zen 3 VM such hand-offs cost 0.15-0.32 ms after an XNNPACK job that followed an OpenMP
/// one, 0.012-0.023 ms without (results/reference/zen3/handoff-credit/), and no pool-pair
/// matrix can charge a cost that depends on what ran three steps before. One team removes the hand-off: the
/// worker that the OpenMP step left spinning takes the XNNPACK step at once.
///
/// The symbols replace libpthreadpool's for the whole process: the executable (or the
/// runtime library, which compiles this file itself: its archives' symbols stay hidden)
/// exports them, and the dynamic linker binds libXNNPACK's (and LibTorch's) references to
/// the first definition in load order, ours (PyTorch ships its own pthreadpool
/// implementation the same way). So every entry point of Debian's libpthreadpool 0.1 is
/// defined here, the deprecated compute_* ones included: a pool made by one implementation
/// must never reach the other. An application that loads libpthreadpool before Layerwise's
/// runtime binds XNNPACK there: make_xnnpack_pool2 then makes that library's pool.
#include <dlfcn.h>
#include <omp.h>
#include <pthreadpool.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <new>
#include <optional>

#include "libs/ops/thread_pool.h"
#include "libs/xnnpack/xnnpack.h"

struct pthreadpool {
  size_t threads;
};

namespace {

std::atomic<uint64_t> g_team_calls{0};

// Runs the items of one thread, under PTHREADPOOL_FLAG_DISABLE_DENORMALS with denormals
// flushed on it for the call (lw::ScopedFlushDenormals).
template <class Items>
void on_this_thread(uint32_t flags, const Items& items) {
  std::optional<lw::ScopedFlushDenormals> flush;
  if (flags & PTHREADPOOL_FLAG_DISABLE_DENORMALS) flush.emplace();
  items();
}

// Runs item(i) for every i < n: on the caller alone for a null pool or a 1-thread one,
// else on the team, each thread taking chunks of a shared counter (about eight per thread,
// so a thread that starts late loses only its chunks to the other, as pthreadpool's
// stealing does).
template <class Item>
void run_items(pthreadpool_t pool, size_t n, uint32_t flags, const Item& item) {
  if (n == 0) return;
  const size_t threads = pool ? std::min(pool->threads, n) : 1;
  if (threads <= 1) {
    on_this_thread(flags, [&] {
      for (size_t i = 0; i < n; ++i) item(i);
    });
    return;
  }
  g_team_calls.fetch_add(1, std::memory_order_relaxed);
  const size_t chunk = std::max<size_t>(1, n / (threads * 8));
  std::atomic<size_t> next{0};
#pragma omp parallel num_threads(int(threads))
  on_this_thread(flags, [&] {
    for (size_t b; (b = next.fetch_add(chunk, std::memory_order_relaxed)) < n;)
      for (size_t i = b, e = std::min(n, b + chunk); i < e; ++i) item(i);
  });
}

// An D-dimensional range cut into tiles (tile 1 where the API tiles nothing): calls
// f(start, size) for every tile, the last dimension varying fastest.
template <size_t D, class F>
void run_tiles(pthreadpool_t pool, const size_t (&range)[D], const size_t (&tile)[D], uint32_t flags, const F& f) {
  size_t count[D], total = 1;
  for (size_t d = 0; d < D; ++d) {
    if (range[d] == 0) return;
    count[d] = (range[d] + tile[d] - 1) / tile[d];
    total *= count[d];
  }
  run_items(pool, total, flags, [&](size_t t) {
    size_t start[D], size[D];
    for (size_t d = D; d-- > 0;) {
      const size_t k = t % count[d];
      t /= count[d];
      start[d] = k * tile[d];
      size[d] = std::min(tile[d], range[d] - start[d]);
    }
    f(start, size);
  });
}

using S = const size_t*;

}  // namespace

uint64_t lw::xnnpack_team_calls() { return g_team_calls.load(std::memory_order_relaxed); }

// Where the process binds pthreadpool_parallelize_1d, the first entry point XNNPACK calls:
// this file's module (the executable or the runtime library) or another (libpthreadpool).
// Compared by module, not by address: inside a shared library our own name may resolve
// through the same global binding.
pthreadpool_t lw::make_xnnpack_pool2() {
  using Create = pthreadpool_t (*)(size_t);
  void* bound = dlsym(RTLD_DEFAULT, "pthreadpool_parallelize_1d");
  Dl_info at_bound{}, here{};
  const bool ours = bound && dladdr(bound, &at_bound) && dladdr(reinterpret_cast<void*>(&g_team_calls), &here) &&
                    at_bound.dli_fbase == here.dli_fbase;
  if (ours || !bound) return pthreadpool_create(2);
  auto create = reinterpret_cast<Create>(dlsym(RTLD_DEFAULT, "pthreadpool_create"));
  std::fprintf(stderr,
               "layerwise: XNNPACK's pthreadpool calls bind to %s (loaded before Layerwise): its 2-thread steps run on "
               "that library's worker, not on libgomp's team as profiled\n",
               at_bound.dli_fname ? at_bound.dli_fname : "another library");
  return create ? create(2) : nullptr;
}

// (default visibility: the runtime library compiles its sources with hidden visibility)
#pragma GCC visibility push(default)
extern "C" {

pthreadpool_t pthreadpool_create(size_t threads_count) {
  if (threads_count == 0) threads_count = size_t(std::max(1, omp_get_num_procs()));
  return new (std::nothrow) pthreadpool{threads_count};
}

void pthreadpool_destroy(pthreadpool_t threadpool) { delete threadpool; }

size_t pthreadpool_get_threads_count(pthreadpool_t threadpool) { return threadpool ? threadpool->threads : 1; }

void pthreadpool_parallelize_1d(pthreadpool_t p, pthreadpool_task_1d_t f, void* c, size_t r, uint32_t flags) {
  run_items(p, r, flags, [&](size_t i) { f(c, i); });
}

void pthreadpool_parallelize_1d_with_uarch(pthreadpool_t p, pthreadpool_task_1d_with_id_t f, void* c, uint32_t uarch,
                                           uint32_t, size_t r, uint32_t flags) {
  run_items(p, r, flags, [&](size_t i) { f(c, uarch, i); });
}

void pthreadpool_parallelize_1d_tile_1d(pthreadpool_t p, pthreadpool_task_1d_tile_1d_t f, void* c, size_t r, size_t t,
                                        uint32_t flags) {
  run_tiles<1>(p, {r}, {t}, flags, [&](S s, S n) { f(c, s[0], n[0]); });
}

void pthreadpool_parallelize_2d(pthreadpool_t p, pthreadpool_task_2d_t f, void* c, size_t ri, size_t rj, uint32_t flags) {
  run_tiles<2>(p, {ri, rj}, {1, 1}, flags, [&](S s, S) { f(c, s[0], s[1]); });
}

void pthreadpool_parallelize_2d_tile_1d(pthreadpool_t p, pthreadpool_task_2d_tile_1d_t f, void* c, size_t ri, size_t rj,
                                        size_t tj, uint32_t flags) {
  run_tiles<2>(p, {ri, rj}, {1, tj}, flags, [&](S s, S n) { f(c, s[0], s[1], n[1]); });
}

void pthreadpool_parallelize_2d_tile_2d(pthreadpool_t p, pthreadpool_task_2d_tile_2d_t f, void* c, size_t ri, size_t rj,
                                        size_t ti, size_t tj, uint32_t flags) {
  run_tiles<2>(p, {ri, rj}, {ti, tj}, flags, [&](S s, S n) { f(c, s[0], s[1], n[0], n[1]); });
}

void pthreadpool_parallelize_2d_tile_2d_with_uarch(pthreadpool_t p, pthreadpool_task_2d_tile_2d_with_id_t f, void* c,
                                                   uint32_t uarch, uint32_t, size_t ri, size_t rj, size_t ti, size_t tj,
                                                   uint32_t flags) {
  run_tiles<2>(p, {ri, rj}, {ti, tj}, flags, [&](S s, S n) { f(c, uarch, s[0], s[1], n[0], n[1]); });
}

void pthreadpool_parallelize_3d(pthreadpool_t p, pthreadpool_task_3d_t f, void* c, size_t ri, size_t rj, size_t rk,
                                uint32_t flags) {
  run_tiles<3>(p, {ri, rj, rk}, {1, 1, 1}, flags, [&](S s, S) { f(c, s[0], s[1], s[2]); });
}

void pthreadpool_parallelize_3d_tile_1d(pthreadpool_t p, pthreadpool_task_3d_tile_1d_t f, void* c, size_t ri, size_t rj,
                                        size_t rk, size_t tk, uint32_t flags) {
  run_tiles<3>(p, {ri, rj, rk}, {1, 1, tk}, flags, [&](S s, S n) { f(c, s[0], s[1], s[2], n[2]); });
}

void pthreadpool_parallelize_3d_tile_2d(pthreadpool_t p, pthreadpool_task_3d_tile_2d_t f, void* c, size_t ri, size_t rj,
                                        size_t rk, size_t tj, size_t tk, uint32_t flags) {
  run_tiles<3>(p, {ri, rj, rk}, {1, tj, tk}, flags, [&](S s, S n) { f(c, s[0], s[1], s[2], n[1], n[2]); });
}

void pthreadpool_parallelize_3d_tile_2d_with_uarch(pthreadpool_t p, pthreadpool_task_3d_tile_2d_with_id_t f, void* c,
                                                   uint32_t uarch, uint32_t, size_t ri, size_t rj, size_t rk, size_t tj,
                                                   size_t tk, uint32_t flags) {
  run_tiles<3>(p, {ri, rj, rk}, {1, tj, tk}, flags, [&](S s, S n) { f(c, uarch, s[0], s[1], s[2], n[1], n[2]); });
}

void pthreadpool_parallelize_4d(pthreadpool_t p, pthreadpool_task_4d_t f, void* c, size_t ri, size_t rj, size_t rk,
                                size_t rl, uint32_t flags) {
  run_tiles<4>(p, {ri, rj, rk, rl}, {1, 1, 1, 1}, flags, [&](S s, S) { f(c, s[0], s[1], s[2], s[3]); });
}

void pthreadpool_parallelize_4d_tile_1d(pthreadpool_t p, pthreadpool_task_4d_tile_1d_t f, void* c, size_t ri, size_t rj,
                                        size_t rk, size_t rl, size_t tl, uint32_t flags) {
  run_tiles<4>(p, {ri, rj, rk, rl}, {1, 1, 1, tl}, flags, [&](S s, S n) { f(c, s[0], s[1], s[2], s[3], n[3]); });
}

void pthreadpool_parallelize_4d_tile_2d(pthreadpool_t p, pthreadpool_task_4d_tile_2d_t f, void* c, size_t ri, size_t rj,
                                        size_t rk, size_t rl, size_t tk, size_t tl, uint32_t flags) {
  run_tiles<4>(p, {ri, rj, rk, rl}, {1, 1, tk, tl}, flags,
               [&](S s, S n) { f(c, s[0], s[1], s[2], s[3], n[2], n[3]); });
}

void pthreadpool_parallelize_4d_tile_2d_with_uarch(pthreadpool_t p, pthreadpool_task_4d_tile_2d_with_id_t f, void* c,
                                                   uint32_t uarch, uint32_t, size_t ri, size_t rj, size_t rk, size_t rl,
                                                   size_t tk, size_t tl, uint32_t flags) {
  run_tiles<4>(p, {ri, rj, rk, rl}, {1, 1, tk, tl}, flags,
               [&](S s, S n) { f(c, uarch, s[0], s[1], s[2], s[3], n[2], n[3]); });
}

void pthreadpool_parallelize_5d(pthreadpool_t p, pthreadpool_task_5d_t f, void* c, size_t ri, size_t rj, size_t rk,
                                size_t rl, size_t rm, uint32_t flags) {
  run_tiles<5>(p, {ri, rj, rk, rl, rm}, {1, 1, 1, 1, 1}, flags, [&](S s, S) { f(c, s[0], s[1], s[2], s[3], s[4]); });
}

void pthreadpool_parallelize_5d_tile_1d(pthreadpool_t p, pthreadpool_task_5d_tile_1d_t f, void* c, size_t ri, size_t rj,
                                        size_t rk, size_t rl, size_t rm, size_t tm, uint32_t flags) {
  run_tiles<5>(p, {ri, rj, rk, rl, rm}, {1, 1, 1, 1, tm}, flags,
               [&](S s, S n) { f(c, s[0], s[1], s[2], s[3], s[4], n[4]); });
}

void pthreadpool_parallelize_5d_tile_2d(pthreadpool_t p, pthreadpool_task_5d_tile_2d_t f, void* c, size_t ri, size_t rj,
                                        size_t rk, size_t rl, size_t rm, size_t tl, size_t tm, uint32_t flags) {
  run_tiles<5>(p, {ri, rj, rk, rl, rm}, {1, 1, 1, tl, tm}, flags,
               [&](S s, S n) { f(c, s[0], s[1], s[2], s[3], s[4], n[3], n[4]); });
}

void pthreadpool_parallelize_6d(pthreadpool_t p, pthreadpool_task_6d_t f, void* c, size_t ri, size_t rj, size_t rk,
                                size_t rl, size_t rm, size_t rn, uint32_t flags) {
  run_tiles<6>(p, {ri, rj, rk, rl, rm, rn}, {1, 1, 1, 1, 1, 1}, flags,
               [&](S s, S) { f(c, s[0], s[1], s[2], s[3], s[4], s[5]); });
}

void pthreadpool_parallelize_6d_tile_1d(pthreadpool_t p, pthreadpool_task_6d_tile_1d_t f, void* c, size_t ri, size_t rj,
                                        size_t rk, size_t rl, size_t rm, size_t rn, size_t tn, uint32_t flags) {
  run_tiles<6>(p, {ri, rj, rk, rl, rm, rn}, {1, 1, 1, 1, 1, tn}, flags,
               [&](S s, S n) { f(c, s[0], s[1], s[2], s[3], s[4], s[5], n[5]); });
}

void pthreadpool_parallelize_6d_tile_2d(pthreadpool_t p, pthreadpool_task_6d_tile_2d_t f, void* c, size_t ri, size_t rj,
                                        size_t rk, size_t rl, size_t rm, size_t rn, size_t tm, size_t tn,
                                        uint32_t flags) {
  run_tiles<6>(p, {ri, rj, rk, rl, rm, rn}, {1, 1, 1, 1, tm, tn}, flags,
               [&](S s, S n) { f(c, s[0], s[1], s[2], s[3], s[4], s[5], n[4], n[5]); });
}

// The deprecated API (LibTorch 1.13 still references it).
void pthreadpool_compute_1d(pthreadpool_t p, pthreadpool_function_1d_t f, void* a, size_t r) {
  run_items(p, r, 0, [&](size_t i) { f(a, i); });
}

void pthreadpool_compute_1d_tiled(pthreadpool_t p, pthreadpool_function_1d_tiled_t f, void* a, size_t r, size_t t) {
  run_tiles<1>(p, {r}, {t}, 0, [&](S s, S n) { f(a, s[0], n[0]); });
}

void pthreadpool_compute_2d(pthreadpool_t p, pthreadpool_function_2d_t f, void* a, size_t ri, size_t rj) {
  run_tiles<2>(p, {ri, rj}, {1, 1}, 0, [&](S s, S) { f(a, s[0], s[1]); });
}

void pthreadpool_compute_2d_tiled(pthreadpool_t p, pthreadpool_function_2d_tiled_t f, void* a, size_t ri, size_t rj,
                                  size_t ti, size_t tj) {
  run_tiles<2>(p, {ri, rj}, {ti, tj}, 0, [&](S s, S n) { f(a, s[0], s[1], n[0], n[1]); });
}

void pthreadpool_compute_3d_tiled(pthreadpool_t p, pthreadpool_function_3d_tiled_t f, void* a, size_t ri, size_t rj,
                                  size_t rk, size_t ti, size_t tj, size_t tk) {
  run_tiles<3>(p, {ri, rj, rk}, {ti, tj, tk}, 0, [&](S s, S n) { f(a, s[0], s[1], s[2], n[0], n[1], n[2]); });
}

void pthreadpool_compute_4d_tiled(pthreadpool_t p, pthreadpool_function_4d_tiled_t f, void* a, size_t ri, size_t rj,
                                  size_t rk, size_t rl, size_t ti, size_t tj, size_t tk, size_t tl) {
  run_tiles<4>(p, {ri, rj, rk, rl}, {ti, tj, tk, tl}, 0,
               [&](S s, S n) { f(a, s[0], s[1], s[2], s[3], n[0], n[1], n[2], n[3]); });
}

}  // extern "C"
#pragma GCC visibility pop
