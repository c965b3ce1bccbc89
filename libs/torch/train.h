/// \file
/// Training networks of our IR on Fashion-MNIST with LibTorch (`layerwise train`). The
/// network is run through IrModule, so what is trained is exactly the IR; afterwards the
/// parameters and BatchNorm running statistics are written back into the Network, whose
/// weights file then loads into every Layerwise executor. Only LibTorch code includes this.
#pragma once
#include <cstdint>
#include <functional>
#include <string>

#include "libs/core/status.h"
#include "libs/data/fashion_mnist.h"
#include "libs/ir/network.h"

namespace lw {

constexpr int kDefaultTrainEpochs = 8;
constexpr int kDefaultTrainBatch = 128;
constexpr double kDefaultTrainLr = 2e-3;        // AdamW peak learning rate
constexpr double kDefaultWeightDecay = 5e-2;    // AdamW decoupled weight decay
constexpr double kWarmupFraction = 0.05;        // of all steps, linear warm-up before cosine decay
constexpr int kDefaultTrainThreads = 2;
constexpr int kMaxShift = 2;                    // augmentation: +-2 pixel shifts on the 32x32 canvas

struct TrainOptions {
  int epochs = kDefaultTrainEpochs;
  int batch = kDefaultTrainBatch;
  double lr = kDefaultTrainLr;
  double weight_decay = kDefaultWeightDecay;
  uint64_t seed = 1;             // weights init, data order, augmentation, torch::manual_seed
  int threads = kDefaultTrainThreads;
  bool augment = true;           // random shifts and left-right flips (train split only)
  int limit_train = 0;           // > 0: first N train images only (smoke tests)
};

struct EpochLog {
  int epoch;
  double loss, train_accuracy, seconds;
};

/// Called after every step with (epoch, step, steps per epoch, running loss, elapsed s).
using TrainProgress = std::function<void(int, int, int, double, double)>;

struct TrainResult {
  std::vector<EpochLog> epochs;
  double wall_seconds = 0;
};

/// Trains `net` in place (weights must be present, e.g. init_random_weights). The network
/// must take N x 1 x 32 x 32 and produce N x 10 scores; BatchNorm stays unfolded.
Status train_fashion_mnist(Network* net, const FashionMnist& train, const TrainOptions& options,
                           const TrainProgress& progress, TrainResult* result);

/// Top-1 accuracy of `net` (BatchNorm folded or not) on `data`, run by LibTorch.
Status torch_accuracy(const Network& net, const FashionMnist& data, int batch, double* accuracy);

}  // namespace lw
