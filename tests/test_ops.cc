// Descriptor names round-trip; registry enumerates candidates with reasons.
#include <doctest/doctest.h>

#include "libs/native/native.h"
#include "libs/ops/registry.h"

using namespace lw;

TEST_CASE("implementation names round-trip") {
  for (const char* name : {"conv2d_nchw_f32_native_im2col_t1", "conv2d_nhwc_f32_native_winograd_f4_fused_t2",
                           "max-pool_nhwc_f32_native_default_t1", "conv2d_nhwc_int8-f32_xnnpack_default_t1",
                           "conv2d_nchw-nhwc_f32_torch_default_t2", "relu_nchw_f32_native_fused_t1",
                           "fully-connected_nchw_f32_openblas_gemm_1x1_t1"}) {
    ImplDesc d;
    Status s = parse_impl_name(name, &d);
    REQUIRE_MESSAGE(s.is_ok(), s.message());
    CHECK(d.name() == name);
  }
  ImplDesc d;
  CHECK(parse_impl_name("conv2d_nchw_f32_native_winograd_f4_fused_t2", &d).is_ok());
  CHECK(d.algorithm == Algorithm::kWinogradF4);
  CHECK(d.fused_activation);
  CHECK(d.threads == 2);
}

TEST_CASE("bad implementation names say which token is wrong") {
  ImplDesc d;
  Status s = parse_impl_name("conv2d_nchw_f32_native_im2col_t3", &d);
  CHECK(s.code() == StatusCode::kParseError);
  CHECK(s.message().find("t3") != std::string::npos);
  s = parse_impl_name("conv2d_nchw_f32_mkl_im2col_t1", &d);
  CHECK(s.message().find("library 'mkl'") != std::string::npos);
  s = parse_impl_name("conv2d_nchw_f32_native_fft_t1", &d);
  CHECK(s.message().find("algorithm 'fft'") != std::string::npos);
  CHECK(!parse_impl_name("conv2d_nchw", &d).is_ok());
}

TEST_CASE("conversion names round-trip") {
  for (const Format& a : all_formats())
    for (const Format& b : all_formats()) {
      ConversionDesc c{a, b}, back;
      REQUIRE(parse_conversion_name(c.name(), &back).is_ok());
      CHECK(back == c);
    }
  ConversionDesc c;
  CHECK(!parse_conversion_name("convert_nchw_f32_t1_nhwc_f32_t1", &c).is_ok());
}

TEST_CASE("registry lists native candidates with reasons") {
  Registry r;
  register_native(r);
  Layer l;
  l.name = "c";
  l.kind = LayerKind::kConv2d;
  l.out_channels = 8;
  l.window.kh = l.window.kw = 3;
  l.window.stride_h = l.window.stride_w = 2;
  std::vector<Shape> in{{1, 4, 9, 9}};
  l.weights.assign(weight_count(l, in), 0.1f);
  auto cands = r.candidates(l, in);
  REQUIRE(!cands.empty());
  int ok = 0, winograd_rejected = 0;
  for (const Candidate& c : cands) {
    CHECK(c.desc.op == LayerKind::kConv2d);
    if (c.supported.is_ok()) ++ok;
    if (c.desc.algorithm == Algorithm::kWinogradF2) {
      CHECK(!c.supported.is_ok());
      CHECK(c.supported.message().find("stride 1") != std::string::npos);
      ++winograd_rejected;
    }
  }
  CHECK(ok > 0);
  CHECK(winograd_rejected > 0);
  // Unknown descriptors fail with "failed to create <name>: ...".
  ImplDesc d;
  REQUIRE(parse_impl_name("conv2d_nchw_f32_xnnpack_default_t1", &d).is_ok());
  std::unique_ptr<Primitive> p;
  Status s = r.create({d, &l, in, {}, {}}, &p);
  CHECK(s.code() == StatusCode::kNotFound);
  CHECK(s.message().rfind("failed to create conv2d_nchw_f32_xnnpack_default_t1", 0) == 0);
}
