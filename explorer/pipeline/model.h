/// \file
/// Resolves a model name (zoo name, network JSON path or .onnx file) to a ready network:
/// weights loaded or seeded at random, BatchNorm folded. The commands' --model and the
/// experiment config's "model" both come here.
#pragma once
#include <cstdint>
#include <string>

#include "libs/core/status.h"
#include "libs/ir/network.h"

namespace lw {

constexpr uint64_t kDefaultWeightSeed = 1;

/// The network as described (BatchNorm still present), with weights.
Status load_model_unfolded(const std::string& model, Network* out, uint64_t weight_seed = kDefaultWeightSeed);
/// Ready to execute: BatchNorm folded into its producer.
Status load_model(const std::string& model, Network* out, uint64_t weight_seed = kDefaultWeightSeed);
/// Seeded random input of the network's input shape (uniform in [-1, 1]).
Tensor random_input(const Network& net, uint64_t seed);

}  // namespace lw
