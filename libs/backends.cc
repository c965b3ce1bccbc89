#include "libs/backends.h"

#include "libs/native/native.h"
#include "libs/openblas/openblas.h"

namespace lw {

void register_all_backends(Registry& registry) {
  register_native(registry);
  register_openblas(registry);
}

}  // namespace lw
