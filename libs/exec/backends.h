/// \file
/// Registers every backend linked into this build in one registry (explicit calls, no
/// static initialisers). The CLI, the profiler and the replay use default_registry();
/// tests of one backend build their own Registry.
#pragma once
#include "libs/ops/registry.h"

namespace lw {

/// native, openblas, xnnpack, torch and onednn.
void register_all_backends(Registry& registry);
/// A process-wide registry filled by register_all_backends on first use.
const Registry& default_registry();

}  // namespace lw
