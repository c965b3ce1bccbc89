/// \file
/// The `torch` backend (LibTorch 1.13, Debian): f32 conv2d through at::conv2d (`default`)
/// and at::mkldnn_convolution (`onednn`) in NCHW and channels-last (our NHWC), f32
/// fully-connected (addmm into our buffer), and quantized int8 conv2d through
/// quantized::conv2d_prepack + ConvPackedParamsBase::apply with the QNNPACK (`qnnpack`)
/// and oneDNN (`onednn`) engines, per-tensor or per-channel (`*_pc`) weights.
///
/// Costs paid inside run() (so the LUT sees them): at::set_num_threads for the thread set;
/// torch convs allocate their output, which is then copied into our buffer; int8 tensors
/// are signed with our zero point while torch wants quint8, so run() converts the input
/// (x + 128 into a quint8 tensor made at setup) and the output back (and applies a fused
/// relu / relu6 as the int8 clamp in that copy). Weights are prepacked in the factory.
/// Switching the count is expensive (bench_int8 BM_torch_set_num_threads_switch: ~6 ms per
/// switch on the shared 2-vCPU machine under load), so run() only calls it when the count
/// differs; the profiler should treat a torch thread-set change as a real cost.
/// Thread set 2: the OpenMP worker of the calling thread is pinned to the second CPU at
/// setup; QNNPACK's own pthreadpool workers cannot be reached and float.
#pragma once
#include "libs/ops/registry.h"

namespace lw {

/// Registers every torch implementation (conv2d f32 / int8, fully-connected f32).
void register_torch(Registry& registry);

}  // namespace lw
