#include "libs/torch/train.h"

#include <torch/torch.h>

#include <chrono>
#include <cmath>
#include <random>

#include "libs/torch/ir_module.h"

namespace lw {
namespace {

constexpr int kPixels = kFashionMnistCanvas * kFashionMnistCanvas;

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Fisher-Yates with our own generator: std::shuffle's sequence differs between libraries.
void shuffle(std::vector<int>& v, std::mt19937_64& rng) {
  for (size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[rng() % i]);
}

// One training batch: images order[first..first+n), augmented with the run's generator.
void make_batch(const FashionMnist& d, const std::vector<int>& order, int first, int n, bool augment,
                std::mt19937_64& rng, at::Tensor* x, at::Tensor* y) {
  *x = at::empty({n, 1, kFashionMnistCanvas, kFashionMnistCanvas}, at::kFloat);
  *y = at::empty({n}, at::kLong);
  float* px = x->data_ptr<float>();
  int64_t* py = y->data_ptr<int64_t>();
  for (int k = 0; k < n; ++k) {
    int i = order[first + k];
    int dy = 0, dx = 0;
    bool flip = false;
    if (augment) {
      dy = int(rng() % (2 * kMaxShift + 1)) - kMaxShift;
      dx = int(rng() % (2 * kMaxShift + 1)) - kMaxShift;
      flip = rng() & 1;
    }
    fashion_mnist_image(d, i, px + int64_t(k) * kPixels, dy, dx, flip);
    py[k] = d.labels[i];
  }
}

// Linear warm-up, then cosine decay to zero over the remaining steps.
double learning_rate(const TrainOptions& o, int64_t step, int64_t total) {
  int64_t warm = std::max<int64_t>(1, int64_t(kWarmupFraction * total));
  if (step < warm) return o.lr * double(step + 1) / double(warm);
  double t = double(step - warm) / double(std::max<int64_t>(1, total - warm));
  return o.lr * 0.5 * (1.0 + std::cos(M_PI * t));
}

Status check_io(const Network& net) {
  Shape in = net.input_shape(), out = net.output_shape();
  if (in.c != 1 || in.h != kFashionMnistCanvas || in.w != kFashionMnistCanvas)
    return invalid_argument("train: network '" + net.name + "' takes " + in.to_string() + ", Fashion-MNIST needs Nx1x32x32");
  if (out.c != kFashionMnistClasses || out.h != 1 || out.w != 1)
    return invalid_argument("train: network '" + net.name + "' produces " + out.to_string() + ", expected Nx10x1x1");
  return Status::ok();
}

}  // namespace

Status train_fashion_mnist(Network* net, const FashionMnist& train, const TrainOptions& o,
                           const TrainProgress& progress, TrainResult* result) {
  LW_RETURN_IF_ERROR(check_io(*net));
  int n = o.limit_train > 0 ? std::min(o.limit_train, train.count) : train.count;
  if (o.epochs < 1 || o.batch < 2 || n < o.batch)
    return invalid_argument("train: need epochs >= 1, batch >= 2 and at least one full batch of images");
  torch::manual_seed(o.seed);
  at::set_num_threads(o.threads);
  ir_torch::IrModule m;
  LW_RETURN_IF_ERROR(ir_torch::IrModule::create(*net, &m));
  torch::optim::AdamW opt(m.parameters(), torch::optim::AdamWOptions(o.lr).weight_decay(o.weight_decay));
  std::mt19937_64 rng(o.seed);
  std::vector<int> order(n);
  for (int i = 0; i < n; ++i) order[i] = i;
  // Full batches only: a last batch of a few images would give BatchNorm noisy statistics.
  const int steps = n / o.batch;
  const int64_t total = int64_t(steps) * o.epochs;
  auto t0 = std::chrono::steady_clock::now();
  TrainResult r;
  try {
    for (int epoch = 0; epoch < o.epochs; ++epoch) {
      shuffle(order, rng);
      auto te = std::chrono::steady_clock::now();
      double loss_sum = 0;
      int64_t correct = 0;
      for (int s = 0; s < steps; ++s) {
        at::Tensor x, y, logits;
        make_batch(train, order, s * o.batch, o.batch, o.augment, rng, &x, &y);
        for (auto& g : opt.param_groups())
          static_cast<torch::optim::AdamWOptions&>(g.options()).lr(learning_rate(o, int64_t(epoch) * steps + s, total));
        LW_RETURN_IF_ERROR(m.forward(x, /*training=*/true, &logits));
        logits = logits.flatten(1);
        at::Tensor loss = at::cross_entropy_loss(logits, y);
        opt.zero_grad();
        loss.backward();
        opt.step();
        loss_sum += loss.item<double>();
        correct += logits.argmax(1).eq(y).sum().item<int64_t>();
        if (progress) progress(epoch, s, steps, loss_sum / (s + 1), seconds_since(t0));
      }
      r.epochs.push_back({epoch + 1, loss_sum / steps, double(correct) / (double(steps) * o.batch), seconds_since(te)});
    }
  } catch (const c10::Error& e) {
    return failed(std::string("train: ") + e.what_without_backtrace());
  }
  r.wall_seconds = seconds_since(t0);
  LW_RETURN_IF_ERROR(m.export_to(net));
  net->random_weights = false;  // trained now
  *result = std::move(r);
  return Status::ok();
}

Status torch_accuracy(const Network& net, const FashionMnist& data, int batch, double* accuracy) {
  LW_RETURN_IF_ERROR(check_io(net));
  ir_torch::IrModule m;
  LW_RETURN_IF_ERROR(ir_torch::IrModule::create(net, &m));
  at::NoGradGuard no_grad;
  int64_t correct = 0;
  for (int first = 0; first < data.count; first += batch) {
    int n = std::min(batch, data.count - first);
    at::Tensor logits;
    LW_RETURN_IF_ERROR(m.forward(ir_torch::to_aten(fashion_mnist_batch(data, first, n)), false, &logits));
    at::Tensor pred = logits.flatten(1).argmax(1);
    for (int k = 0; k < n; ++k) correct += pred[k].item<int64_t>() == data.labels[first + k];
  }
  *accuracy = double(correct) / data.count;
  return Status::ok();
}

}  // namespace lw
