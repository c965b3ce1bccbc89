// The native format conversions (layout transposes, reorders to and from the blocked layouts,
// dtype changes) on the tensors a deployment converts most: the network input (3x224x224) and
// the stem's output (64x112x112), plus a deep narrow map (256x14x14). Only run() is timed; the counter is the
// bytes read and written per second.
//   bench_conversions --benchmark_filter='3x224x224/nchw_f32'
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "libs/exec/backends.h"

using namespace lw;

namespace {

void run_conversion(benchmark::State& st, ConversionDesc d, Shape s) {
  const Registry& r = default_registry();
  std::unique_ptr<Primitive> p;
  if (!r.create_conversion(d, s, QuantParams{0.05f, -3}, &p).is_ok()) return st.SkipWithError("not registered");
  Tensor x = Tensor::create(s, d.from.dtype, d.from.layout), y = Tensor::create(s, d.to.dtype, d.to.layout);
  for (int64_t i = 0; i < int64_t(x.bytes()); ++i) static_cast<uint8_t*>(x.data())[i] = uint8_t(i * 37 % 61);
  if (!p->reshape({s}).is_ok() || !p->setup({x.data()}, y.data(), nullptr).is_ok())
    return st.SkipWithError("setup failed");
  for (auto _ : st) {
    (void)p->run();
    benchmark::ClobberMemory();
  }
  st.SetBytesProcessed(int64_t(st.iterations()) * int64_t(x.bytes() + y.bytes()));
}

void register_all() {
  const Shape shapes[] = {{1, 3, 224, 224}, {1, 64, 112, 112}, {1, 256, 14, 14}};
  const Format nchw{Layout::kNCHW, DType::kF32, 1}, nhwc{Layout::kNHWC, DType::kF32, 1};
  const Format nhwc_i8{Layout::kNHWC, DType::kI8, 1}, nchw_i8{Layout::kNCHW, DType::kI8, 1};
  const Format b8{Layout::kNCHW8C, DType::kF32, 1}, b16{Layout::kNCHW16C, DType::kF32, 1};
  const Format nhwc_bf16{Layout::kNHWC, DType::kBF16, 1};
  const ConversionDesc descs[] = {{nchw, nhwc},       {nhwc, nchw},       {nchw_i8, nhwc_i8}, {nhwc_i8, nchw_i8},
                                  {nchw, nchw_i8},    {nhwc, nhwc_i8},    {nhwc_i8, nhwc},
                                  {nhwc, nhwc_bf16},  {nhwc_bf16, nhwc},  {nhwc_bf16, nhwc_i8},
                                  {nchw, b8},         {b8, nchw},         {nhwc, b8},         {b8, nhwc},
                                  {nchw, b16},        {b16, nchw},        {nhwc, b16},        {b16, nhwc}};
  for (const Shape& s : shapes)
    for (const ConversionDesc& d : descs) {
      const std::string name = std::to_string(s.c) + "x" + std::to_string(s.h) + "x" + std::to_string(s.w) + "/" + d.name();
      benchmark::RegisterBenchmark(name.c_str(), run_conversion, d, s)->Unit(benchmark::kMicrosecond);
    }
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  register_all();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
