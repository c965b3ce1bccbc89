// The openblas backend (im2col + sgemm, NCHW) against the reference executor.
#include "libs/openblas/openblas.h"
#include "tests/testers/conv_tester.h"

using namespace lw;
using namespace lw::testers;

TEST_CASE("openblas conv implementations match the reference") {
  Registry r;
  register_openblas(r);
  for (const ImplEntry& e : r.entries()) CHECK(e.desc.library == Library::kOpenBLAS);
  const auto descs = descriptors(r, Library::kOpenBLAS, LayerKind::kConv2d);
  CHECK(descs.size() == 8);  // {im2col, gemm_1x1} x {plain, fused} x {t1, t2}
  const auto ran = test_convs(r, descs, conv_shapes(40, 7));
  for (size_t i = 0; i < descs.size(); ++i) {
    INFO(descs[i].name());
    CHECK(ran[i].supported >= 3);
    CHECK(ran[i].reshaped >= 3);
  }
}
