// Internal to libs/torch backend files: factories and checks (no LibTorch types here, so
// the registration TU compiles without LibTorch headers).
#pragma once
#include "libs/torch/torch_backend.h"

namespace lw::torch_ops {

/// at::conv2d, or (algorithm onednn) at::mkldnn_convolution on dense weights: the
/// pre-packing path, kept as bench_int8's baseline.
Status create_conv_f32(const PrimitiveArgs& a, std::unique_ptr<Primitive>* out);
/// oneDNN through LibTorch's prepacked conv ops: weights reordered once, output in our buffer.
Status create_conv_f32_prepacked(const PrimitiveArgs& a, std::unique_ptr<Primitive>* out);
/// Runs of the prepacked conv whose output LibTorch did not place in our buffer (copied).
int64_t prepacked_output_copies();
Status create_fc_f32(const PrimitiveArgs& a, std::unique_ptr<Primitive>* out);
Status create_conv_int8(const PrimitiveArgs& a, std::unique_ptr<Primitive>* out);

/// Whether an int8 conv's algorithm runs on LibTorch's oneDNN quantized engine (else QNNPACK).
inline bool onednn_engine(Algorithm a) { return a == Algorithm::kOnednn || a == Algorithm::kOnednnPerChannel; }

/// at::set_num_threads(threads): in setup (outside the timed region) and again in run (a no-op
/// there unless another primitive changed it; its cost is then part of the measurement).
/// LibTorch's parallel regions run on the caller's libgomp team, pinned by prepare_omp_team.
void set_threads(int threads);
/// The one CPU LibTorch's thread 1 is pinned to in a 2-thread at::parallel_for; -1 when it
/// has none or several (for tests).
int second_thread_pinned_cpu();

}  // namespace lw::torch_ops
