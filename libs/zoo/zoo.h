/// \file
/// The model zoo: published CNNs built in C++ on the network IR (torchvision's
/// definitions, except GoogLeNet, which follows the paper). Weights are random unless a
/// trained weights file is loaded; the same builders make the small Fashion-MNIST
/// members (other input shape, class count and width).
#pragma once
#include <string>
#include <vector>

#include "libs/core/status.h"
#include "libs/ir/network.h"

namespace lw {

struct ZooOptions {
  Shape input{1, 3, 224, 224};
  int classes = 1000;
  /// Channel width multiplier (MobileNets round to multiples of 8; others scale plainly).
  float width = 1.0f;
};

struct ZooEntry {
  const char* name;
  const char* description;
  Network (*build)(const ZooOptions&);
};

const std::vector<ZooEntry>& zoo_models();
Status build_zoo_model(const std::string& name, const ZooOptions& options, Network* out);
/// Comma-separated zoo names, for error messages and --help.
std::string zoo_names();

}  // namespace lw
