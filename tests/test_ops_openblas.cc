// The openblas backend (im2col + sgemm, NCHW) against the reference executor.
#include <map>

#include "libs/native/native.h"
#include "libs/openblas/openblas.h"
#include "tests/op_testers.h"

using namespace lw;
using namespace lw::testing;

TEST_CASE("openblas conv implementations match the reference") {
  Registry r;
  register_openblas(r);
  auto shapes = conv_shapes(40, 7);
  std::map<std::string, int> tested;
  for (const ImplEntry& e : r.entries()) {
    CHECK(e.desc.library == Library::kOpenBLAS);
    for (const ConvTester& t : shapes)
      if (t.Test(r, e.desc, conv_tolerance(e.desc))) ++tested[e.desc.name()];
  }
  CHECK(tested.size() == 8);  // {im2col, gemm_1x1} x {plain, fused} x {t1, t2}
  for (const auto& kv : tested) {
    // Named copies: clang 14 cannot capture structured bindings in doctest's INFO lambdas.
    const auto& name = kv.first;
    const auto& n = kv.second;
    INFO(name);
    CHECK(n >= 3);
  }
}
