// Would u8 activations make oneDNN's int8 convolution faster? Layerwise's int8 is per-tensor
// asymmetric s8 (libs/quant): a non-negative tensor (after relu / relu6) gets zero point
// -128, i.e. exactly the values of u8 with zero point 0, top bit flipped. So u8 buys no
// precision here, only speed: oneDNN applies a source zero point with a compensation pass,
// and VNNI multiplies u8 x s8 natively. Three variants per ResNet-50 / MobileNetV2 shape,
// 1 thread (OMP_NUM_THREADS=1), oneDNN picks the formats (`any`), relu fused, per-channel
// output scales, as libs/onednn/dnnl_conv.cc builds them:
//   s8_zp     s8 src and dst with zero point -128 (today)
//   u8_src    u8 src (zero point 0), s8 dst with zero point -128
//   u8_u8     u8 src and dst, no zero points
//   OMP_NUM_THREADS=1 ./build/tests/bench_onednn_u8 --benchmark_min_time=0.2
#include <benchmark/benchmark.h>

#include <oneapi/dnnl/dnnl.hpp>
#include <string>
#include <unordered_map>
#include <vector>

#include "tests/bench_conv_shapes.h"

namespace {

using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;

using lw_bench::ConvShape;

enum Variant { kS8Zp, kU8Src, kU8U8 };
const char* kVariantNames[] = {"s8_zp", "u8_src", "u8_u8"};

void BM_conv(benchmark::State& state, ConvShape s, Variant v) {
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream strm(eng);
  const int pad = s.kernel / 2, oh = (s.h + 2 * pad - s.kernel) / s.stride + 1, ow = (s.w + 2 * pad - s.kernel) / s.stride + 1;
  const bool u8_src = v != kS8Zp, u8_dst = v == kU8U8;
  dnnl::memory::desc src({1, s.c, s.h, s.w}, u8_src ? dt::u8 : dt::s8, tag::any);
  dnnl::memory::desc dst({1, s.k, oh, ow}, u8_dst ? dt::u8 : dt::s8, tag::any);
  dnnl::memory::desc wei = s.groups == 1
                               ? dnnl::memory::desc({s.k, s.c, s.kernel, s.kernel}, dt::s8, tag::any)
                               : dnnl::memory::desc({s.groups, s.k / s.groups, s.c / s.groups, s.kernel, s.kernel}, dt::s8, tag::any);
  dnnl::memory::desc bias({s.k}, dt::s32, tag::x);
  dnnl::primitive_attr attr;
  attr.set_output_scales(1 << 1, std::vector<float>(size_t(s.k), 0.01f));
  if (!u8_src) attr.set_zero_points(DNNL_ARG_SRC, 0, {-128});
  if (!u8_dst) attr.set_zero_points(DNNL_ARG_DST, 0, {-128});
  dnnl::post_ops po;
  po.append_eltwise(1.f, dnnl::algorithm::eltwise_relu, 0.f, 0.f);
  attr.set_post_ops(po);
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  dnnl::convolution_forward::desc d(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, src, wei,
                                    bias, dst, {s.stride, s.stride}, {pad, pad}, {pad, pad});
  dnnl::convolution_forward::primitive_desc pd(d, attr, eng);
  dnnl::memory ms(pd.src_desc(), eng), mw(pd.weights_desc(), eng), mb(pd.bias_desc(), eng), md(pd.dst_desc(), eng),
      mp(pd.scratchpad_desc(), eng);
  std::fill_n(static_cast<char*>(ms.get_data_handle()), pd.src_desc().get_size(), 3);
  std::fill_n(static_cast<char*>(mw.get_data_handle()), pd.weights_desc().get_size(), 1);
  std::fill_n(static_cast<char*>(mb.get_data_handle()), pd.bias_desc().get_size(), 0);
  dnnl::convolution_forward conv(pd);
  std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_SRC, ms}, {DNNL_ARG_WEIGHTS, mw}, {DNNL_ARG_BIAS, mb},
                                             {DNNL_ARG_DST, md}, {DNNL_ARG_SCRATCHPAD, mp}};
  for (auto _ : state) {
    conv.execute(strm, args);
    strm.wait();
  }
  state.SetLabel(pd.impl_info_str());
}

const bool kRegistered = [] {
  for (const ConvShape& s : lw_bench::kInt8ConvShapes)
    for (Variant v : {kS8Zp, kU8Src, kU8U8})
      benchmark::RegisterBenchmark((std::string(s.name) + "/" + kVariantNames[v]).c_str(),
                                   [s, v](benchmark::State& st) { BM_conv(st, s, v); })
          ->Unit(benchmark::kMillisecond);
  return true;
}();

}  // namespace

BENCHMARK_MAIN();
