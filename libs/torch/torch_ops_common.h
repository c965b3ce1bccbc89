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

/// Sets the intra-op thread count and, for 2, pins the calling thread's OpenMP worker to
/// the second CPU (outside timed regions: register and setup).
void prepare_threads(int threads);
/// at::set_num_threads(threads) (inside run: its cost is part of the measurement).
void set_threads(int threads);

}  // namespace lw::torch_ops
