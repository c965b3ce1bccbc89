#include "libs/exec/memory_plan.h"

#include <algorithm>
#include <numeric>

namespace lw {
namespace {

size_t align_up(size_t x) { return (x + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment; }

int root_of(const std::vector<Buffer>& b, int i) {
  while (b[i].alias_of >= 0) i = b[i].alias_of;
  return i;
}

// Bytes from the root's start to buffer i's.
size_t offset_in_root(const std::vector<Buffer>& b, int i) {
  size_t at = 0;
  for (; b[i].alias_of >= 0; i = b[i].alias_of) at += b[i].alias_offset;
  return at;
}

}  // namespace

ArenaPlan plan_arena(const std::vector<Buffer>& buffers) {
  const int n = int(buffers.size());
  std::vector<Buffer> roots(buffers);  // lifetimes of roots widened by their aliases
  std::vector<int> root(n);
  for (int i = 0; i < n; ++i) {
    root[i] = root_of(buffers, i);
    Buffer& r = roots[root[i]];
    r.first = std::min(r.first, buffers[i].first);
    r.last = std::max(r.last, buffers[i].last);
    r.bytes = std::max(r.bytes, offset_in_root(buffers, i) + buffers[i].bytes);
  }
  std::vector<int> order;
  for (int i = 0; i < n; ++i)
    if (root[i] == i) order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return roots[a].bytes > roots[b].bytes; });

  ArenaPlan plan;
  plan.offsets.assign(n, 0);
  std::vector<int> placed;
  for (int i : order) {
    plan.naive_bytes += align_up(roots[i].bytes);
    // Live neighbours sorted by offset; take the first gap that fits.
    std::vector<int> live;
    for (int j : placed)
      if (roots[j].first <= roots[i].last && roots[i].first <= roots[j].last) live.push_back(j);
    std::sort(live.begin(), live.end(), [&](int a, int b) { return plan.offsets[a] < plan.offsets[b]; });
    size_t offset = 0;
    for (int j : live) {
      if (plan.offsets[j] >= offset + align_up(roots[i].bytes)) break;
      offset = std::max(offset, plan.offsets[j] + align_up(roots[j].bytes));
    }
    plan.offsets[i] = offset;
    plan.arena_bytes = std::max(plan.arena_bytes, offset + align_up(roots[i].bytes));
    placed.push_back(i);
  }
  for (int i = 0; i < n; ++i) plan.offsets[i] = plan.offsets[root[i]] + offset_in_root(buffers, i);
  return plan;
}

}  // namespace lw
