/// \file
/// The `xnnpack` backend (Debian's XNNPACK, git 2022-02): NHWC f32 convolution (dense,
/// grouped, depthwise; asymmetric padding; relu / relu6 fused as the output clamp),
/// fully-connected, max / average / global-average pooling, add, multiply, clamp-based
/// relu / relu6, hardswish, sigmoid, softmax; int8 (qs8) convolution and fully-connected
/// with per-tensor weights (algorithm `default`) and convolution with per-channel weights
/// (`qc8`). Operators are created (weights packed) in the factory; run() only calls
/// xnn_run_operator. Thread set 1 runs on the caller (no pool); thread set 2 runs on
/// libgomp's 2-thread team, the pool of oneDNN's steps: omp_pthreadpool.cc defines
/// pthreadpool's API on it, and XNNPACK's calls bind to that (not to libpthreadpool).
#pragma once
#include <cstdint>

#include "libs/ops/registry.h"

struct pthreadpool;  // (pthreadpool.h's pthreadpool_t points to it)

namespace lw {

/// Initialises XNNPACK, makes the 2-thread pool and registers every implementation.
/// If XNNPACK cannot initialise on this CPU nothing is registered (the reason is logged
/// to stderr once).
void register_xnnpack(Registry& registry);

/// Calls of pthreadpool's API that ran on libgomp's team (two threads) in this process: the
/// evidence that XNNPACK's 2-thread operators reach omp_pthreadpool.cc.
uint64_t xnnpack_team_calls();
/// The 2-thread pool XNNPACK's operators get: a handle to libgomp's team, or, where the
/// process binds pthreadpool's API to another library (an application that loaded
/// libpthreadpool first), that library's pool, with a note on stderr.
::pthreadpool* make_xnnpack_pool2();

}  // namespace lw
