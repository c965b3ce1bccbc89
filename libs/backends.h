/// \file
/// Every backend Layerwise ships, registered into one registry. The profiler, the executor
/// and the CLI get their implementations from here; a new library is one more line.
#pragma once
#include "libs/ops/registry.h"

namespace lw {

/// Registers the native, OpenBLAS, XNNPACK and LibTorch implementations (those built in).
void register_all_backends(Registry& registry);

}  // namespace lw
