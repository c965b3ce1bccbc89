/// \file
/// The memory pool's planner: liveness-based buffer reuse in one arena (greedy by size,
/// as TFLite's arena planner). The executor uses it for real allocations; the environment
/// can call it with LUT sizes to predict an assignment's peak activation memory.
#pragma once
#include <cstddef>
#include <vector>

namespace lw {

struct Buffer {
  size_t bytes = 0;
  int first = 0, last = 0;  // steps where it is written first and read last (inclusive)
  /// Shares the storage of another buffer (an in-place step; a concat's slice); -1 if it
  /// has its own.
  int alias_of = -1;
  /// Where it starts in that buffer (bytes; a concat's slice).
  size_t alias_offset = 0;
};

struct ArenaPlan {
  std::vector<size_t> offsets;      // per buffer (aliases get their root's offset)
  size_t arena_bytes = 0;           // the arena with reuse
  size_t naive_bytes = 0;           // every non-alias buffer separately (no reuse)
};

constexpr size_t kArenaAlignment = 64;

/// Places buffers so that no two whose lifetimes overlap share bytes. Aliases extend
/// their root's lifetime. Deterministic.
ArenaPlan plan_arena(const std::vector<Buffer>& buffers);

}  // namespace lw
