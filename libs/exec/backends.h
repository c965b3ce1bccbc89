/// \file
/// Registers every backend linked into this build in one registry (explicit calls, no
/// static initialisers). The CLI, the profiler and the replay use default_registry();
/// tests of one backend use registry_of<register_that_backend>().
#pragma once
#include "libs/ops/registry.h"

namespace lw {

/// native, openblas, xnnpack, torch and onednn.
void register_all_backends(Registry& registry);
/// A process-wide registry filled by register_all_backends on first use.
const Registry& default_registry();

/// A process-wide registry filled by `Register` (one register_<backend>, or a function
/// calling several) on first use: backends that initialise a library or pin threads do it once.
template <void (*Register)(Registry&)>
const Registry& registry_of() {
  static const Registry r = [] {
    Registry reg;
    Register(reg);
    return reg;
  }();
  return r;
}

}  // namespace lw
