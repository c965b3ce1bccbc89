// Every native conv implementation against the reference executor on many shapes.
#include "libs/native/native.h"
#include "tests/testers/conv_tester.h"

using namespace lw;
using namespace lw::testers;

TEST_CASE("native conv implementations match the reference") {
  Registry r;
  register_native(r);
  const auto descs = descriptors(r, Library::kNative, LayerKind::kConv2d);
  const auto ran = test_convs(r, descs, conv_shapes(60, 42));
  REQUIRE(!descs.empty());
  // Every descriptor must have met several shapes it supports, or the test proves nothing.
  for (size_t i = 0; i < descs.size(); ++i) {
    INFO(descs[i].name());
    CHECK(ran[i].supported >= 5);
    CHECK(ran[i].reshaped >= 5);
  }
}
