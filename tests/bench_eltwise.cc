// Every library's f32 activation and add on MobileNetV2-sized maps (1x32x112x112 and
// 1x192x28x28), out of place and in place (the output over the first input, as the executor
// places them in a network). Only run() is timed; the counter is the bytes read and written
// per second.
//   bench_eltwise --benchmark_filter='relu6.*native'
#include <benchmark/benchmark.h>
#include <xmmintrin.h>

#include <cstring>
#include <string>
#include <vector>

#include "libs/exec/backends.h"

using namespace lw;

namespace {

void run_case(benchmark::State& st, ImplDesc d, Shape s, bool in_place) {
  const Registry& r = default_registry();
  Layer l;
  l.kind = d.op;
  const int inputs = d.op == LayerKind::kAdd ? 2 : 1;
  std::vector<Shape> in(size_t(inputs), s);
  std::unique_ptr<Primitive> p;
  if (!r.supports(d, l, in).is_ok() || !r.create({d, &l, in, {}, {}}, &p).is_ok()) return st.SkipWithError("unsupported");
  std::vector<Tensor> x;
  for (int k = 0; k < inputs; ++k) {
    x.push_back(Tensor::create(s, DType::kF32, d.layout_in));
    for (int64_t i = 0; i < s.elements(); ++i) x.back().f32()[i] = float((i * 7919 + k) % 2001) / 100.f - 10.f;
  }
  Tensor y = Tensor::create(p->output_shape(), DType::kF32, d.layout_out);
  std::vector<const void*> ptrs;
  for (auto& t : x) ptrs.push_back(t.data());
  if (in_place) {
    if (!p->can_run_in_place()) return st.SkipWithError("not in place");
    ptrs[0] = y.data();
    std::memcpy(y.data(), x[0].data(), y.bytes());
  }
  std::vector<float> ws(p->workspace_bytes() / sizeof(float) + 16);
  if (!p->setup(ptrs, y.data(), ws.data()).is_ok()) return st.SkipWithError("setup failed");
  for (auto _ : st) {
    (void)p->run();
    benchmark::ClobberMemory();
  }
  st.SetBytesProcessed(int64_t(st.iterations()) * int64_t(y.bytes()) * (inputs + 1));
}

void register_all() {
  const Registry& r = default_registry();
  for (const Shape& s : {Shape{1, 32, 112, 112}, Shape{1, 192, 28, 28}})
    for (const ImplEntry& e : r.entries()) {
      const ImplDesc& d = e.desc;
      const bool kind = d.op == LayerKind::kRelu || d.op == LayerKind::kRelu6 || d.op == LayerKind::kHardSwish ||
                        d.op == LayerKind::kAdd;
      if (!kind || d.threads != 1 || d.dtype_in != DType::kF32 || d.fused_activation) continue;
      Layer l;
      l.kind = d.op;
      if (!r.supports(d, l, std::vector<Shape>(d.op == LayerKind::kAdd ? 2 : 1, s)).is_ok()) continue;
      for (bool in_place : {false, true}) {
        const std::string name = std::to_string(s.c) + "x" + std::to_string(s.h) + "x" + std::to_string(s.w) + "/" +
                                 d.name() + (in_place ? "/in_place" : "");
        benchmark::RegisterBenchmark(name.c_str(), run_case, d, s, in_place)->Unit(benchmark::kMicrosecond);
      }
    }
}

}  // namespace

int main(int argc, char** argv) {
  // Denormals flushed, as the executor runs a deployment: in place, hardswish run on its own
  // output again and again would otherwise decay to denormals and time those.
  _mm_setcsr(_mm_getcsr() | 0x8040);
  benchmark::Initialize(&argc, argv);
  register_all();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
