/// \file
/// Accuracy on the device (QS-DNN §V-C): a deployment's accuracy cost (int8, Winograd) is
/// only known by running it. Trained Fashion-MNIST models report top-1 on the test split;
/// random-weight ImageNet-shaped zoo models report *fidelity* instead — top-1 agreement with
/// the f32 reference and SQNR in dB — and are labelled so everywhere.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "libs/core/status.h"
#include "libs/core/tensor.h"
#include "libs/data/fashion_mnist.h"

namespace lw {

/// Runs one deployment on one input (N x C x H x W, NCHW f32) into NCHW f32 logits.
using Forward = std::function<Status(const Tensor& input, Tensor* output)>;

struct AccuracyReport {
  std::string metric;      // "top1" (Fashion-MNIST test split) or "fidelity" (vs f32 reference)
  int images = 0;
  double top1 = 0;         // top1: fraction correct; fidelity: top-1 agreement with the reference
  double sqnr_db = 0;      // fidelity only: 10 log10(sum ref^2 / sum (ref - out)^2)
  std::string label() const;  // "top-1 91.23 %" or "fidelity: agreement 99.0 %, SQNR 38.1 dB"
};

/// Top-1 accuracy on images [first, first + count) of `data`, one image per forward call.
Status top1_accuracy(const Forward& f, const FashionMnist& data, int first, int count, AccuracyReport* out);

/// Top-1 accuracy on a user's labelled samples (one input tensor per forward call); `count`
/// 0 or beyond the data means all of them.
Status top1_accuracy(const Forward& f, const std::vector<Tensor>& inputs, const std::vector<int64_t>& labels,
                     int count, AccuracyReport* out);

/// Top-1 agreement and SQNR of `candidate` against `reference` over `inputs`.
Status fidelity(const Forward& candidate, const Forward& reference, const std::vector<Tensor>& inputs,
                AccuracyReport* out);

/// Index of the largest element (first one on ties).
int argmax(const Tensor& t);

}  // namespace lw
