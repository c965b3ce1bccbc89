#include "libs/exec/backends.h"

#include "libs/native/native.h"
#include "libs/onednn/onednn.h"
#include "libs/openblas/openblas.h"
#include "libs/torch/torch_backend.h"
#include "libs/xnnpack/xnnpack.h"

namespace lw {

void register_all_backends(Registry& r) {
  register_native(r);
  register_openblas(r);
  register_xnnpack(r);
  register_torch(r);
  register_onednn(r);
}

const Registry& default_registry() { return registry_of<register_all_backends>(); }

}  // namespace lw
