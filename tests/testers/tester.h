/// \file
/// The one tester family of the primitive tests (XNNPACK style): a case is a layer with
/// seeded random weights and NCHW f32 inputs; check_case() puts one registered
/// implementation through the whole life cycle a backend promises,
///   create -> reshape -> setup -> run -> run -> reshape to another shape -> setup -> run,
/// and compares every output with the reference executor (libs/ref; int8: the naive int8
/// reference of libs/quant) by one error measure with one bound per dtype. Outputs are
/// poisoned before each run and followed by guard bytes that must stay untouched.
#pragma once
#include <doctest/doctest.h>

#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "libs/exec/backends.h"
#include "libs/ops/registry.h"

namespace lw::testers {

// --- Inputs ---------------------------------------------------------------------------

void fill_uniform(std::vector<float>& v, std::mt19937_64& rng, float lo, float hi);
Tensor random_tensor(Shape s, std::mt19937_64& rng, float lo = -1.f, float hi = 1.f);
/// Seeded random weights, and a bias where l.has_bias, in [-0.5, 0.5] for `l` on inputs `in`.
void fill_weights(Layer& l, const std::vector<Shape>& in, uint64_t seed);
/// Copy of an f32 tensor as bf16 (round to nearest even) or back, same layout.
Tensor to_float_dtype(const Tensor& t, DType to);
/// A zoo model on a size x size RGB input, 10 classes, seeded random weights, BatchNorm
/// folded: whole networks for the executor tests, small enough to run many assignments.
Network small_model(const std::string& name, int size = 64);

// --- The error measure ----------------------------------------------------------------

/// f32 bound: 1e-4 of max|ref|; Winograd, whose tile transforms round more, 1e-3 (the
/// bounds the native conv work set).
constexpr double kF32Tolerance = 1e-4, kWinogradTolerance = 1e-3;
/// bf16 vs the f32 reference, relative to max|ref|. bf16 keeps 8 significant bits: rounding
/// to nearest is off by at most u = 2^-9 relative. The input and the weights are each
/// rounded once (2u per product, accumulated in f32 by oneDNN) and the output once more
/// (u): 3u = 0.0059 of the largest term for a layer whose output is not cancelled out. On
/// random data a sum of K products of random sign has errors that grow like the sum
/// itself (both ~ sqrt(K)), so 3u of max|ref| holds with a margin of ~2.5x: 2^-6.
constexpr double kBf16Tolerance = 1.0 / 64;
/// int8: one quantisation step of the int8 reference (float vs integer accumulation and
/// requantisation may flip one rounding tie).
constexpr double kInt8Tolerance = 1;

/// The bound of `d`'s output dtype (and algorithm): one of the four above.
double tolerance(const ImplDesc& d);
/// The one error measure, both tensors read in logical NCHW order. int8 `want`: the
/// largest difference in quantisation steps. Otherwise max|got - want| / max|want|. Any
/// NaN in `got` (an output element left at the poison) is an infinite error.
double output_error(const Tensor& got, const Tensor& want);

// --- The life cycle -------------------------------------------------------------------

/// What one implementation did on one case.
struct Outcome {
  bool supported = false;  // supports() accepted the case (nothing ran otherwise)
  bool reshaped = false;   // supports() accepted the second shape too, and it ran
  double error = 0;        // worst output_error over every run
};

/// The shapes the life cycle reshapes to: batch 1 <-> 2; H and W (where not 1, so a
/// squeeze-excite broadcast stays one) grown by 2, or halved (+1) when above 24, so that the
/// large shapes' extra run is cheap and every window still fits; fully-connected keeps
/// C x H x W, which its weights fix.
std::vector<Shape> reshaped(const Layer& layer, const std::vector<Shape>& in);

/// References computed once per case and reused by every implementation checked on it:
/// the naive reference costs more than most kernels. Keyed by what decides a reference
/// (fused activation, f32 / int8 per-tensor / int8 per-channel, input shapes); one cache
/// belongs to one layer and one set of inputs.
struct ReferenceCache {
  std::map<std::string, Tensor> want;
  std::map<std::string, std::pair<std::vector<QuantParams>, QuantParams>> quant;  // int8: inputs, output
};

/// The life cycle of `desc` on `layer` with inputs `in` (NCHW f32; converted to desc's
/// layout and dtype; int8 inputs are quantised with their range, the output with the range
/// of the f32 layer on the dequantised input, as calibration would choose them). The
/// reshaped run's inputs are drawn from `in`'s values. REQUIREs every call to succeed.
Outcome run_case(const Registry& r, const ImplDesc& desc, const Layer& layer, const std::vector<Tensor>& in,
                 ReferenceCache* cache = nullptr);
/// run_case, then CHECK(error <= tol); tol < 0 means tolerance(desc).
Outcome check_case(const Registry& r, const ImplDesc& desc, const Layer& layer, const std::vector<Tensor>& in,
                   double tol = -1, ReferenceCache* cache = nullptr);

/// Descriptor of every registered implementation of `lib` for `op`.
std::vector<ImplDesc> descriptors(const Registry& r, Library lib, LayerKind op);

}  // namespace lw::testers
