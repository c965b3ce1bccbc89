// Native non-conv layers (every registered descriptor) against the reference executor.
#include <map>

#include "libs/native/native.h"
#include "tests/testers/layer_testers.h"

using namespace lw;
using namespace lw::testers;

TEST_CASE("native layers match the reference") {
  Registry r;
  register_native(r);
  std::map<std::string, int> tested, reshaped;
  std::mt19937_64 rng(3);
  for (const LayerCase& c : layer_cases())
    for (const ImplDesc& d : descriptors(r, Library::kNative, c.layer.kind)) {
      if (d.algorithm == Algorithm::kFused) continue;
      // Native layers compute much as the reference does: held ten times tighter than f32's bound.
      Outcome o = check_case(r, d, c.layer, case_inputs(c, rng), 1e-5);
      CHECK(o.supported);  // every case here is supported
      ++tested[d.name()];
      reshaped[d.name()] += o.reshaped;
    }
  int descriptors = 0;
  for (const ImplEntry& e : r.entries())
    if (e.desc.op != LayerKind::kConv2d && e.desc.algorithm != Algorithm::kFused) {
      ++descriptors;
      INFO(e.desc.name());
      CHECK(tested[e.desc.name()] >= 4);
      CHECK(reshaped[e.desc.name()] >= 4);
    }
  CHECK(descriptors == 17 * 2 * 2);  // kinds x layouts x thread sets
}
