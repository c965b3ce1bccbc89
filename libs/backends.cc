#include "libs/backends.h"

#include "libs/native/native.h"

namespace lw {

void register_all_backends(Registry& registry) {
  register_native(registry);
}

}  // namespace lw
