// f32 vs int8 conv2d latency of the xnnpack and torch backends (both quantized engines)
// on ResNet-50 / MobileNetV2 conv shapes, thread sets 1 and 2; plus the cost of switching
// LibTorch's thread count, which every torch primitive pays inside run().
//   ./build/tests/bench_int8 --benchmark_min_time=0.2
// Each torch f32 oneDNN conv (weights prepacked once, output written in place) is followed
// by `<name>/dense`, the path it replaced (at::mkldnn_convolution on dense weights: weights
// reordered on every call, output copied), so before and after run side by side:
//   ./build/tests/bench_int8 --benchmark_filter='f32_torch_onednn' --benchmark_min_time=0.2
// Weights are random; int8 params are fixed plausible ranges (latency does not depend on
// the values). Packing happens outside the timed loop, as in the profiler.
#include <ATen/Parallel.h>
#include <benchmark/benchmark.h>

#include <iterator>
#include <random>
#include <vector>

#include "libs/ops/thread_pool.h"
#include "tests/bench_conv_shapes.h"
#include "libs/quant/quant.h"
#include "libs/torch/torch_backend.h"
#include "libs/torch/torch_ops_common.h"
#include "libs/xnnpack/xnnpack.h"

using namespace lw;

namespace {

using lw_bench::ConvShape;
// Besides the shared shapes: ResNet-50's widest 1x1.
const ConvShape kExtraShapes[] = {{"r50_conv5_1x1_expand", 512, 7, 7, 2048, 1, 1, 1}};
const char* kImpls[] = {
    "conv2d_nhwc_f32_xnnpack_default",  "conv2d_nhwc_int8_xnnpack_default", "conv2d_nhwc_int8_xnnpack_qc8",
    "conv2d_nchw_f32_torch_onednn",     "conv2d_nhwc_f32_torch_onednn",     "conv2d_nhwc_int8_torch_qnnpack",
    "conv2d_nhwc_int8_torch_onednn",
};

const Registry& registry() {
  static Registry r = [] {
    Registry reg;
    register_xnnpack(reg);
    register_torch(reg);
    return reg;
  }();
  return r;
}

Layer conv_layer(const ConvShape& s) {
  Layer l;
  l.name = s.name;
  l.kind = LayerKind::kConv2d;
  l.out_channels = s.k;
  l.groups = s.groups;
  l.has_bias = true;
  l.window.kh = l.window.kw = s.kernel;
  l.window.stride_h = l.window.stride_w = s.stride;
  l.window.pad_top = l.window.pad_left = l.window.pad_bottom = l.window.pad_right = s.kernel / 2;
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<float> d(-0.1f, 0.1f);
  l.weights.resize(weight_count(l, {{1, s.c, s.h, s.w}}));
  for (float& x : l.weights) x = d(rng);
  l.bias.assign(s.k, 0.01f);
  return l;
}

// dense: the torch f32 oneDNN conv as it was before prepacking (the baseline).
void BM_conv(benchmark::State& st, ConvShape s, std::string impl, bool dense) {
  ImplDesc d;
  if (!parse_impl_name(impl, &d).is_ok()) return st.SkipWithError("bad name");
  ScopedPin pin;
  Layer l = conv_layer(s);
  Shape in{1, s.c, s.h, s.w};
  std::unique_ptr<Primitive> p;
  PrimitiveArgs args{d, &l, {in}, {choose_quant_params(-1.f, 1.f)}, choose_quant_params(-4.f, 4.f)};
  Status ok = dense ? torch_ops::create_conv_f32(args, &p) : registry().create(args, &p);
  if (ok.is_ok()) ok = p->reshape({in});
  if (!ok.is_ok()) return st.SkipWithError(ok.message().c_str());
  Tensor x = Tensor::create(in, d.dtype_in, d.layout_in), y = Tensor::create(p->output_shape(), d.dtype_out, d.layout_out);
  // Real values (a byte pattern would make f32 denormals, which x86 computes very slowly).
  std::mt19937_64 rng(2);
  std::uniform_int_distribution<int> q(-100, 100);
  for (int64_t i = 0; i < in.elements(); ++i)
    if (d.dtype_in == DType::kI8) x.i8()[i] = int8_t(q(rng));
    else x.f32()[i] = q(rng) / 100.f;
  std::vector<unsigned char> ws(p->workspace_bytes() + 1);
  if (!p->setup({x.data()}, y.data(), ws.data()).is_ok() || !p->run().is_ok()) return st.SkipWithError("setup/run failed");
  for (auto _ : st) benchmark::DoNotOptimize(p->run());
  st.counters["GMAC/s"] = benchmark::Counter(double(int64_t(p->output_shape().elements()) * (s.c / s.groups) * s.kernel * s.kernel),
                                             benchmark::Counter::kIsIterationInvariantRate, benchmark::Counter::kIs1000);
}

// What a torch primitive pays when the previous primitive ran on the other thread set.
void BM_torch_set_num_threads_switch(benchmark::State& st) {
  ScopedPin pin;
  int t = 1;
  for (auto _ : st) {
    t = 3 - t;
    at::set_num_threads(t);
  }
  at::set_num_threads(1);
}
BENCHMARK(BM_torch_set_num_threads_switch);

// The same call when the count does not change (what torch primitives skip).
void BM_torch_get_num_threads(benchmark::State& st) {
  for (auto _ : st) benchmark::DoNotOptimize(at::get_num_threads());
}
BENCHMARK(BM_torch_get_num_threads);

}  // namespace

int main(int argc, char** argv) {
  start_thread_sets();
  registry();
  std::vector<ConvShape> shapes(std::begin(lw_bench::kInt8ConvShapes), std::end(lw_bench::kInt8ConvShapes));
  shapes.insert(shapes.end(), std::begin(kExtraShapes), std::end(kExtraShapes));
  for (const ConvShape& s : shapes)
    for (const char* impl : kImpls)
      for (int t : {1, 2}) {
        std::string name = std::string(impl) + "_t" + std::to_string(t);
        for (bool dense : {false, true}) {
          if (dense && name.find("f32_torch_onednn") == std::string::npos) continue;
          std::string label = std::string("conv/") + s.name + "/" + name + (dense ? "/dense" : "");
          benchmark::RegisterBenchmark(label.c_str(), BM_conv, s, name, dense)
              ->Unit(benchmark::kMicrosecond)
              ->UseRealTime();
        }
      }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
}
