// Every native conv implementation against the reference executor on many shapes.
#include <map>

#include "libs/native/native.h"
#include "tests/op_testers.h"

using namespace lw;
using namespace lw::testing;

TEST_CASE("native conv implementations match the reference") {
  Registry r;
  register_native(r);
  auto shapes = conv_shapes(60, 42);
  std::map<std::string, int> tested;
  for (const ImplEntry& e : r.entries()) {
    if (e.desc.op != LayerKind::kConv2d) continue;
    tested[e.desc.name()] = 0;
    for (const ConvTester& t : shapes)
      if (t.Test(r, e.desc, conv_tolerance(e.desc))) ++tested[e.desc.name()];
  }
  // Every descriptor must have met several shapes it supports, or the test proves nothing.
  for (const auto& kv : tested) {
    // Named copies: clang 14 cannot capture structured bindings in doctest's INFO lambdas.
    const auto& name = kv.first;
    const auto& n = kv.second;
    INFO(name);
    CHECK(n >= 5);
  }
}
