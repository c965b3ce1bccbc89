// Every conv implementation (native, openblas) on the conv shapes of ResNet-50 and
// MobileNetV2 (224x224, batch 1). Names: <model>/<layer>/<implementation>; unsupported
// pairs are not registered. Only run() is timed; create/pack/setup happen before.
//   bench_conv --benchmark_filter='resnet50/layer1.0.conv2/' --benchmark_min_time=0.2
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <set>

#include "libs/exec/backends.h"
#include "libs/ops/thread_pool.h"
#include "libs/zoo/zoo.h"

using namespace lw;

namespace {

struct ConvCase {
  std::string model;
  Layer layer;
  Shape in;
};

std::vector<ConvCase> conv_cases() {
  std::vector<ConvCase> out;
  for (const char* name : {"resnet50", "mobilenetv2"}) {
    Network raw, net;
    if (!build_zoo_model(name, ZooOptions{}, &raw).is_ok()) continue;
    init_random_weights(raw, 1);
    if (!fold_batch_norm(raw, &net).is_ok()) continue;
    std::set<std::string> seen;  // one case per distinct shape
    for (size_t i = 1; i < net.layers.size(); ++i) {
      const Layer& l = net.layers[i];
      if (l.kind != LayerKind::kConv2d) continue;
      Shape in = input_shapes(net, int(i))[0];
      const Window& w = l.window;
      std::string key = in.to_string() + "/" + std::to_string(l.out_channels) + "/" + std::to_string(w.kh) + "x" +
                        std::to_string(w.kw) + "/s" + std::to_string(w.stride_h) + "/g" + std::to_string(l.groups);
      if (seen.insert(key).second) out.push_back({name, l, in});
    }
  }
  return out;
}

void run_case(benchmark::State& state, const ConvCase& c, const ImplDesc& d) {
  const Registry& r = default_registry();
  Layer l = c.layer;
  if (d.fused_activation) l.fused_activation = LayerKind::kRelu;
  std::unique_ptr<Primitive> p;
  Status s = r.create({d, &l, {c.in}, {}, {}}, &p);
  if (!s.is_ok()) {
    state.SkipWithError(s.message().c_str());
    return;
  }
  Tensor x = Tensor::create(c.in, DType::kF32, d.layout_in);
  for (int64_t i = 0; i < c.in.elements(); ++i) x.f32()[i] = float((i * 7919) % 2001) / 1000.f - 1.f;
  Tensor y = Tensor::create(p->output_shape(), DType::kF32, d.layout_out);
  std::vector<float> ws(p->workspace_bytes() / sizeof(float) + 16);
  if (!p->setup({x.data()}, y.data(), ws.data()).is_ok()) {
    state.SkipWithError("setup failed");
    return;
  }
  ScopedPin pin;
  for (auto _ : state) {
    if (!p->run().is_ok()) {
      state.SkipWithError("run failed");
      break;
    }
    benchmark::ClobberMemory();
  }
  const Shape& o = p->output_shape();
  double flops = 2.0 * o.elements() * (c.in.c / l.groups) * l.window.kh * l.window.kw;
  state.counters["GFLOPS"] = benchmark::Counter(flops, benchmark::Counter::kIsIterationInvariantRate, benchmark::Counter::kIs1000);
  state.counters["ws_MiB"] = double(p->workspace_bytes()) / 1048576.0;
}

}  // namespace

int main(int argc, char** argv) {
  static const std::vector<ConvCase> cases = conv_cases();
  const Registry& r = default_registry();
  for (const ConvCase& c : cases)
    for (const ImplEntry& e : r.entries()) {
      if (e.desc.op != LayerKind::kConv2d || !r.supports(e.desc, c.layer, {c.in}).is_ok()) continue;
      std::string name = c.model + "/" + c.layer.name + "/" + e.desc.name();
      benchmark::RegisterBenchmark(name.c_str(), [&c, d = e.desc](benchmark::State& st) { run_case(st, c, d); })
          ->Unit(benchmark::kMillisecond);
    }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
