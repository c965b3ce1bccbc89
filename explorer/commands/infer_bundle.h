/// \file
/// `layerwise infer --bundle B`: a deployment bundle run from the CLI with the same reader,
/// checks and executor as the runtime API; on a Fashion-MNIST model it prints the accuracy
/// and latency percentiles that examples/classify_fmnist prints, for comparison.
#pragma once
#include "explorer/cli/cli.h"

namespace lw::cli {

/// Option names and flags it reads (merged into `layerwise infer`'s).
inline constexpr const char* kInferBundleOptions[] = {"bundle", "test-images", "data-dir"};
inline constexpr const char* kInferBundleFlags[] = {"force"};
extern const char* const kInferBundleHelp;

int infer_bundle(const Args& args);

}  // namespace lw::cli
