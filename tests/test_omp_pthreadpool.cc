// pthreadpool's API on libgomp's team (libs/xnnpack/omp_pthreadpool.cc): every entry point
// calls its task once for every index (or tile) of its range and no other, with the tile's
// true size at the edges, on a null pool, a 1-thread and a 2-thread pool; the denormal flag
// holds during the call and is restored after it.
#include <doctest/doctest.h>
#include <pthreadpool.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

namespace {

// Counts per index of a D-dimensional range (at most 6), flattened, the last index fastest.
struct Grid {
  std::vector<size_t> range;
  std::vector<std::atomic<int>> hits;
  std::atomic<int> bad_tile{0};
  explicit Grid(std::vector<size_t> r) : range(std::move(r)), hits(total(range)) {}
  static size_t total(const std::vector<size_t>& r) {
    size_t n = 1;
    for (size_t x : r) n *= x;
    return n;
  }
  // Marks the box starting at `start` with sizes `size`; a size that is not the tile's true
  // size (min(tile, range - start)) is counted as bad.
  void mark(const std::vector<size_t>& start, const std::vector<size_t>& size, const std::vector<size_t>& tile) {
    for (size_t d = 0; d < range.size(); ++d)
      if (start[d] % tile[d] != 0 || size[d] != std::min(tile[d], range[d] - start[d])) bad_tile++;
    std::vector<size_t> idx(start);
    std::function<void(size_t)> walk = [&](size_t d) {
      if (d == range.size()) {
        size_t flat = 0;
        for (size_t k = 0; k < range.size(); ++k) flat = flat * range[k] + idx[k];
        hits[flat]++;
        return;
      }
      for (size_t i = start[d]; i < start[d] + size[d]; ++i) idx[d] = i, walk(d + 1);
    };
    walk(0);
  }
  bool each_once() const {
    for (const auto& h : hits)
      if (h.load() != 1) return false;
    return true;
  }
};

struct Case {
  const char* name;
  size_t dims;
  std::vector<size_t> tiled;  // which dimensions the entry point tiles
  // Calls the entry point on `pool` over `g`'s range with tiles `tile` (1 where untiled).
  std::function<void(pthreadpool_t, Grid&, const std::vector<size_t>&)> call;
};

std::vector<size_t> ones(size_t n) { return std::vector<size_t>(n, 1); }

// The task of each entry point marks its box in the grid of the calling test (passed as the
// context, since tasks run on other threads).
struct Ctx {
  Grid* grid;
  std::vector<size_t> tile;
};

std::vector<Case> cases() {
  using V = std::vector<size_t>;
  std::vector<Case> c;
  c.push_back({"1d", 1, {}, [](pthreadpool_t p, Grid& g, const V& t) {
                 Ctx x{&g, t};
                 pthreadpool_parallelize_1d(p, [](void* v, size_t i) { auto* x = static_cast<Ctx*>(v); x->grid->mark({i}, {1}, x->tile); }, &x, g.range[0], 0);
               }});
  c.push_back({"1d_with_uarch", 1, {}, [](pthreadpool_t p, Grid& g, const V& t) {
                 Ctx x{&g, t};
                 pthreadpool_parallelize_1d_with_uarch(
                     p, [](void* v, uint32_t u, size_t i) { auto* x = static_cast<Ctx*>(v); if (u == 3) x->grid->mark({i}, {1}, x->tile); }, &x, 3, 5, g.range[0], 0);
               }});
  c.push_back({"1d_tile_1d", 1, {0}, [](pthreadpool_t p, Grid& g, const V& t) {
                 Ctx x{&g, t};
                 pthreadpool_parallelize_1d_tile_1d(
                     p, [](void* v, size_t i, size_t n) { auto* x = static_cast<Ctx*>(v); x->grid->mark({i}, {n}, x->tile); }, &x, g.range[0], t[0], 0);
               }});
  c.push_back({"2d", 2, {}, [](pthreadpool_t p, Grid& g, const V& t) {
                 Ctx x{&g, t};
                 pthreadpool_parallelize_2d(
                     p, [](void* v, size_t i, size_t j) { auto* x = static_cast<Ctx*>(v); x->grid->mark({i, j}, {1, 1}, x->tile); }, &x, g.range[0], g.range[1], 0);
               }});
  c.push_back({"2d_tile_1d", 2, {1}, [](pthreadpool_t p, Grid& g, const V& t) {
                 Ctx x{&g, t};
                 pthreadpool_parallelize_2d_tile_1d(
                     p, [](void* v, size_t i, size_t j, size_t nj) { auto* x = static_cast<Ctx*>(v); x->grid->mark({i, j}, {1, nj}, x->tile); }, &x,
                     g.range[0], g.range[1], t[1], 0);
               }});
  c.push_back({"2d_tile_2d", 2, {0, 1}, [](pthreadpool_t p, Grid& g, const V& t) {
                 Ctx x{&g, t};
                 pthreadpool_parallelize_2d_tile_2d(
                     p, [](void* v, size_t i, size_t j, size_t ni, size_t nj) { auto* x = static_cast<Ctx*>(v); x->grid->mark({i, j}, {ni, nj}, x->tile); },
                     &x, g.range[0], g.range[1], t[0], t[1], 0);
               }});
  c.push_back({"2d_tile_2d_with_uarch", 2, {0, 1}, [](pthreadpool_t p, Grid& g, const V& t) {
                 Ctx x{&g, t};
                 pthreadpool_parallelize_2d_tile_2d_with_uarch(
                     p, [](void* v, uint32_t, size_t i, size_t j, size_t ni, size_t nj) { auto* x = static_cast<Ctx*>(v); x->grid->mark({i, j}, {ni, nj}, x->tile); },
                     &x, 0, 0, g.range[0], g.range[1], t[0], t[1], 0);
               }});
  c.push_back({"3d", 3, {}, [](pthreadpool_t p, Grid& g, const V& t) {
                 Ctx x{&g, t};
                 pthreadpool_parallelize_3d(
                     p, [](void* v, size_t i, size_t j, size_t k) { auto* x = static_cast<Ctx*>(v); x->grid->mark({i, j, k}, {1, 1, 1}, x->tile); }, &x,
                     g.range[0], g.range[1], g.range[2], 0);
               }});
  c.push_back({"3d_tile_1d", 3, {2}, [](pthreadpool_t p, Grid& g, const V& t) {
                 Ctx x{&g, t};
                 pthreadpool_parallelize_3d_tile_1d(
                     p, [](void* v, size_t i, size_t j, size_t k, size_t nk) { auto* x = static_cast<Ctx*>(v); x->grid->mark({i, j, k}, {1, 1, nk}, x->tile); },
                     &x, g.range[0], g.range[1], g.range[2], t[2], 0);
               }});
  c.push_back({"3d_tile_2d", 3, {1, 2}, [](pthreadpool_t p, Grid& g, const V& t) {
                 Ctx x{&g, t};
                 pthreadpool_parallelize_3d_tile_2d(
                     p, [](void* v, size_t i, size_t j, size_t k, size_t nj, size_t nk) { auto* x = static_cast<Ctx*>(v); x->grid->mark({i, j, k}, {1, nj, nk}, x->tile); },
                     &x, g.range[0], g.range[1], g.range[2], t[1], t[2], 0);
               }});
  c.push_back({"3d_tile_2d_with_uarch", 3, {1, 2}, [](pthreadpool_t p, Grid& g, const V& t) {
                 Ctx x{&g, t};
                 pthreadpool_parallelize_3d_tile_2d_with_uarch(
                     p, [](void* v, uint32_t, size_t i, size_t j, size_t k, size_t nj, size_t nk) { auto* x = static_cast<Ctx*>(v); x->grid->mark({i, j, k}, {1, nj, nk}, x->tile); },
                     &x, 0, 0, g.range[0], g.range[1], g.range[2], t[1], t[2], 0);
               }});
  c.push_back({"4d", 4, {}, [](pthreadpool_t p, Grid& g, const V& t) {
                 Ctx x{&g, t};
                 pthreadpool_parallelize_4d(
                     p, [](void* v, size_t i, size_t j, size_t k, size_t l) { auto* x = static_cast<Ctx*>(v); x->grid->mark({i, j, k, l}, {1, 1, 1, 1}, x->tile); },
                     &x, g.range[0], g.range[1], g.range[2], g.range[3], 0);
               }});
  c.push_back({"4d_tile_1d", 4, {3}, [](pthreadpool_t p, Grid& g, const V& t) {
                 Ctx x{&g, t};
                 pthreadpool_parallelize_4d_tile_1d(
                     p, [](void* v, size_t i, size_t j, size_t k, size_t l, size_t nl) { auto* x = static_cast<Ctx*>(v); x->grid->mark({i, j, k, l}, {1, 1, 1, nl}, x->tile); },
                     &x, g.range[0], g.range[1], g.range[2], g.range[3], t[3], 0);
               }});
  c.push_back({"4d_tile_2d", 4, {2, 3}, [](pthreadpool_t p, Grid& g, const V& t) {
                 Ctx x{&g, t};
                 pthreadpool_parallelize_4d_tile_2d(
                     p, [](void* v, size_t i, size_t j, size_t k, size_t l, size_t nk, size_t nl) { auto* x = static_cast<Ctx*>(v); x->grid->mark({i, j, k, l}, {1, 1, nk, nl}, x->tile); },
                     &x, g.range[0], g.range[1], g.range[2], g.range[3], t[2], t[3], 0);
               }});
  c.push_back({"4d_tile_2d_with_uarch", 4, {2, 3}, [](pthreadpool_t p, Grid& g, const V& t) {
                 Ctx x{&g, t};
                 pthreadpool_parallelize_4d_tile_2d_with_uarch(
                     p, [](void* v, uint32_t, size_t i, size_t j, size_t k, size_t l, size_t nk, size_t nl) { auto* x = static_cast<Ctx*>(v); x->grid->mark({i, j, k, l}, {1, 1, nk, nl}, x->tile); },
                     &x, 0, 0, g.range[0], g.range[1], g.range[2], g.range[3], t[2], t[3], 0);
               }});
  c.push_back({"5d", 5, {}, [](pthreadpool_t p, Grid& g, const V& t) {
                 Ctx x{&g, t};
                 pthreadpool_parallelize_5d(
                     p, [](void* v, size_t i, size_t j, size_t k, size_t l, size_t m) { auto* x = static_cast<Ctx*>(v); x->grid->mark({i, j, k, l, m}, ones(5), x->tile); },
                     &x, g.range[0], g.range[1], g.range[2], g.range[3], g.range[4], 0);
               }});
  c.push_back({"5d_tile_1d", 5, {4}, [](pthreadpool_t p, Grid& g, const V& t) {
                 Ctx x{&g, t};
                 pthreadpool_parallelize_5d_tile_1d(
                     p, [](void* v, size_t i, size_t j, size_t k, size_t l, size_t m, size_t nm) { auto* x = static_cast<Ctx*>(v); x->grid->mark({i, j, k, l, m}, {1, 1, 1, 1, nm}, x->tile); },
                     &x, g.range[0], g.range[1], g.range[2], g.range[3], g.range[4], t[4], 0);
               }});
  c.push_back({"5d_tile_2d", 5, {3, 4}, [](pthreadpool_t p, Grid& g, const V& t) {
                 Ctx x{&g, t};
                 pthreadpool_parallelize_5d_tile_2d(
                     p, [](void* v, size_t i, size_t j, size_t k, size_t l, size_t m, size_t nl, size_t nm) { auto* x = static_cast<Ctx*>(v); x->grid->mark({i, j, k, l, m}, {1, 1, 1, nl, nm}, x->tile); },
                     &x, g.range[0], g.range[1], g.range[2], g.range[3], g.range[4], t[3], t[4], 0);
               }});
  c.push_back({"6d", 6, {}, [](pthreadpool_t p, Grid& g, const V& t) {
                 Ctx x{&g, t};
                 pthreadpool_parallelize_6d(
                     p, [](void* v, size_t i, size_t j, size_t k, size_t l, size_t m, size_t n) { auto* x = static_cast<Ctx*>(v); x->grid->mark({i, j, k, l, m, n}, ones(6), x->tile); },
                     &x, g.range[0], g.range[1], g.range[2], g.range[3], g.range[4], g.range[5], 0);
               }});
  c.push_back({"6d_tile_1d", 6, {5}, [](pthreadpool_t p, Grid& g, const V& t) {
                 Ctx x{&g, t};
                 pthreadpool_parallelize_6d_tile_1d(
                     p, [](void* v, size_t i, size_t j, size_t k, size_t l, size_t m, size_t n, size_t nn) { auto* x = static_cast<Ctx*>(v); x->grid->mark({i, j, k, l, m, n}, {1, 1, 1, 1, 1, nn}, x->tile); },
                     &x, g.range[0], g.range[1], g.range[2], g.range[3], g.range[4], g.range[5], t[5], 0);
               }});
  c.push_back({"6d_tile_2d", 6, {4, 5}, [](pthreadpool_t p, Grid& g, const V& t) {
                 Ctx x{&g, t};
                 pthreadpool_parallelize_6d_tile_2d(
                     p, [](void* v, size_t i, size_t j, size_t k, size_t l, size_t m, size_t n, size_t nm, size_t nn) { auto* x = static_cast<Ctx*>(v); x->grid->mark({i, j, k, l, m, n}, {1, 1, 1, 1, nm, nn}, x->tile); },
                     &x, g.range[0], g.range[1], g.range[2], g.range[3], g.range[4], g.range[5], t[4], t[5], 0);
               }});
  return c;
}

}  // namespace

TEST_CASE("omp pthreadpool: every entry point covers its range once, tiles sized at the edges, on 0, 1 and 2 threads") {
  pthreadpool_t one = pthreadpool_create(1), two = pthreadpool_create(2);
  REQUIRE(one);
  REQUIRE(two);
  CHECK(pthreadpool_get_threads_count(nullptr) == 1);
  CHECK(pthreadpool_get_threads_count(one) == 1);
  CHECK(pthreadpool_get_threads_count(two) == 2);
  // Awkward ranges: 1, a prime, one below and one above a tile; tiles 1, 3 and larger than
  // the range.
  const std::vector<std::vector<size_t>> ranges = {{1}, {7}, {2}, {5}, {4}, {3}};
  const std::vector<size_t> tile_sizes = {1, 3, 16};
  int checked = 0;
  for (const Case& c : cases())
    for (pthreadpool_t pool : {static_cast<pthreadpool_t>(nullptr), one, two})
      for (size_t tile : tile_sizes)
        for (size_t shift = 0; shift < ranges.size(); ++shift) {
          std::vector<size_t> range, tiles(c.dims, 1);
          for (size_t d = 0; d < c.dims; ++d) range.push_back(ranges[(d + shift) % ranges.size()][0]);
          for (size_t d : c.tiled) tiles[d] = tile;
          Grid g(range);
          c.call(pool, g, tiles);
          INFO(c.name << " threads " << pthreadpool_get_threads_count(pool) << " tile " << tile << " shift " << shift);
          CHECK(g.each_once());
          CHECK(g.bad_tile.load() == 0);
          ++checked;
        }
  CHECK(checked == 21 * 3 * 3 * 6);
  {  // an empty range calls nothing
    Grid g({3});
    pthreadpool_parallelize_2d(two, [](void*, size_t, size_t) { FAIL("called on an empty range"); }, &g, 0, 3, 0);
  }
  pthreadpool_destroy(one);
  pthreadpool_destroy(two);
}

TEST_CASE("omp pthreadpool: both threads take items, and a 2-thread call from the deprecated API covers its range") {
  pthreadpool_t two = pthreadpool_create(2);
  std::atomic<int> items{0};
  struct Seen {
    std::atomic<int>* items;
    std::atomic<uint64_t> threads_mask{0};
  } seen{&items};
  // Items long enough that the second thread starts before the first ran them all.
  pthreadpool_parallelize_1d(
      two,
      [](void* v, size_t) {
        auto* s = static_cast<Seen*>(v);
        volatile double x = 0;
        for (int i = 0; i < 20000; ++i) x = x + 1e-9;
        (*s->items)++;
        static std::atomic<int> next_id{0};
        thread_local int id = next_id++;
        s->threads_mask |= uint64_t(1) << (id % 64);
      },
      &seen, 256, 0);
  CHECK(items.load() == 256);
  CHECK(__builtin_popcountll(seen.threads_mask.load()) == 2);
  Grid g({5, 4});
  struct X {
    Grid* g;
  } x{&g};
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"  // (LibTorch 1.13 still calls it)
  pthreadpool_compute_2d_tiled(
      two, [](void* v, size_t i, size_t j, size_t ni, size_t nj) { static_cast<X*>(v)->g->mark({i, j}, {ni, nj}, {2, 3}); }, &x, 5, 4, 2, 3);
#pragma GCC diagnostic pop
  CHECK(g.each_once());
  CHECK(g.bad_tile.load() == 0);
  pthreadpool_destroy(two);
}

#if defined(__x86_64__) || defined(__i386__)
TEST_CASE("omp pthreadpool: PTHREADPOOL_FLAG_DISABLE_DENORMALS holds on every thread during the call and is restored") {
  pthreadpool_t two = pthreadpool_create(2);
  const unsigned before = _mm_getcsr();
  std::atomic<int> flushed{0}, items{0};
  struct S {
    std::atomic<int>*flushed, *items;
  } s{&flushed, &items};
  pthreadpool_parallelize_1d(
      two,
      [](void* v, size_t) {
        auto* s = static_cast<S*>(v);
        (*s->items)++;
        if ((_mm_getcsr() & 0x8040u) == 0x8040u) (*s->flushed)++;
      },
      &s, 64, PTHREADPOOL_FLAG_DISABLE_DENORMALS);
  CHECK(items.load() == 64);
  CHECK(flushed.load() == 64);
  CHECK(_mm_getcsr() == before);
  pthreadpool_destroy(two);
}
#endif
