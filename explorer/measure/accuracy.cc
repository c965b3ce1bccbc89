#include "explorer/measure/accuracy.h"

#include <cmath>
#include <cstdio>
#include <limits>

namespace lw {

std::string AccuracyReport::label() const {
  char buf[128];
  if (metric == "top1")
    std::snprintf(buf, sizeof buf, "top-1 %.2f %% (%d test images)", 100 * top1, images);
  else
    std::snprintf(buf, sizeof buf, "fidelity: top-1 agreement %.1f %%, SQNR %.1f dB (%d inputs)", 100 * top1, sqnr_db,
                  images);
  return buf;
}

int argmax(const Tensor& t) {
  int best = 0;
  for (int64_t i = 1; i < t.shape().elements(); ++i)
    if (t.f32()[i] > t.f32()[best]) best = int(i);
  return best;
}

Status top1_accuracy(const Forward& f, const FashionMnist& data, int first, int count, AccuracyReport* out) {
  if (first < 0 || count < 1 || first + count > data.count)
    return invalid_argument("accuracy: images [" + std::to_string(first) + ", " + std::to_string(first + count) +
                            ") outside the split of " + std::to_string(data.count));
  int correct = 0;
  for (int i = first; i < first + count; ++i) {
    Tensor y;
    LW_RETURN_IF_ERROR(f(fashion_mnist_batch(data, i, 1), &y));
    correct += argmax(y) == data.labels[i];
  }
  *out = AccuracyReport{"top1", count, double(correct) / count, 0};
  return Status::ok();
}

Status top1_accuracy(const Forward& f, const std::vector<Tensor>& inputs, const std::vector<int64_t>& labels,
                     int count, AccuracyReport* out) {
  if (inputs.empty() || labels.size() != inputs.size()) return invalid_argument("accuracy: inputs and labels differ in number");
  const int n = count <= 0 || count > int(inputs.size()) ? int(inputs.size()) : count;
  int correct = 0;
  for (int i = 0; i < n; ++i) {
    Tensor y;
    LW_RETURN_IF_ERROR(f(inputs[i], &y));
    correct += argmax(y) == labels[i];
  }
  *out = AccuracyReport{"top1", n, double(correct) / n, 0};
  return Status::ok();
}

Status fidelity(const Forward& candidate, const Forward& reference, const std::vector<Tensor>& inputs,
                AccuracyReport* out) {
  if (inputs.empty()) return invalid_argument("fidelity: no inputs");
  int agree = 0;
  double signal = 0, noise = 0;
  for (const Tensor& x : inputs) {
    Tensor a, b;
    LW_RETURN_IF_ERROR(candidate(x, &a));
    LW_RETURN_IF_ERROR(reference(x, &b));
    if (a.shape() != b.shape())
      return invalid_argument("fidelity: output " + a.shape().to_string() + " vs reference " + b.shape().to_string());
    agree += argmax(a) == argmax(b);
    for (int64_t i = 0; i < b.shape().elements(); ++i) {
      double r = b.f32()[i], d = r - a.f32()[i];
      signal += r * r;
      noise += d * d;
    }
  }
  double sqnr = noise > 0 ? 10 * std::log10(signal / noise) : std::numeric_limits<double>::infinity();
  *out = AccuracyReport{"fidelity", int(inputs.size()), double(agree) / inputs.size(), sqnr};
  return Status::ok();
}

}  // namespace lw
