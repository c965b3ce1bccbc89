/// \file
/// Resolves a model name (zoo name, network JSON path or .onnx file) to a ready network:
/// weights loaded or seeded at random, BatchNorm folded. The commands' --model and the
/// experiment config's "model" both come here. `MODEL@HxW` or `MODEL@NxCxHxW` gives the
/// model another input shape (a resolution, a batch; an ONNX file's symbolic dimensions):
/// the network is then named `<name>@NxCxHxW`.
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
/// A short label for a model name in file names and reports: a file's stem or the zoo name,
/// with its "@shape" kept (`dir/net.onnx@160x160` -> `net@160x160`).
std::string model_label(const std::string& model);
/// Seeded random input of the network's input shape (uniform in [-1, 1]).
Tensor random_input(const Network& net, uint64_t seed);

}  // namespace lw
