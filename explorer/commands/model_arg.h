/// \file
/// The commands' --model option (explorer/pipeline/model.h), failing as a user error.
#pragma once
#include <string>

#include "explorer/cli/cli.h"
#include "explorer/pipeline/model.h"

namespace lw::cli {

/// The network as described (BatchNorm still present), with weights.
inline Network load_model_unfolded(const std::string& model, uint64_t weight_seed = kDefaultWeightSeed) {
  Network net;
  Status s = ::lw::load_model_unfolded(model, &net, weight_seed);
  if (!s.is_ok()) throw UsageError("--model: " + s.message());
  return net;
}

/// Ready to execute: BatchNorm folded.
inline Network load_model(const std::string& model, uint64_t weight_seed = kDefaultWeightSeed) {
  Network net;
  Status s = ::lw::load_model(model, &net, weight_seed);
  if (!s.is_ok()) throw UsageError("--model: " + s.message());
  return net;
}

}  // namespace lw::cli
