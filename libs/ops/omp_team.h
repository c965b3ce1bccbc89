/// \file
/// libgomp's team of the calling thread as the 2-thread pool ThreadPoolId::kOpenmp. oneDNN's,
/// LibTorch's, XNNPACK's (libs/xnnpack/omp_pthreadpool.cc) and, by default, the native
/// kernels' 2-thread steps all run on it: one cpu1 worker, which an OpenMP step leaves
/// spinning for the next (libs/ops/thread_pool.h).
#pragma once
#include <cstdint>

#include "libs/ops/thread_pool.h"

namespace lw {

/// Pins thread 1 of the calling thread's team to the thread set's second CPU (once; read the
/// allowed set while the caller is unpinned, at registration), leaves the caller's default
/// team size at 1, and registers the team as kOpenmp's job and range runner. Backends that
/// run on the team call it when they register.
void prepare_omp_team();

}  // namespace lw
