// Every conv implementation (native, openblas, xnnpack, torch, onednn) on the conv shapes
// of ResNet-50, MobileNetV2, SqueezeNet 1.1 and GoogLeNet (224x224, batch 1). Names:
// <model>/<layer>/<implementation>; unsupported pairs are not registered. Only run() is
// timed; create/pack/setup happen before.
//   bench_conv --benchmark_filter='resnet50/layer1.0.conv2/' --benchmark_min_time=0.2
// `bench_conv --onednn_vs_gemm` instead prints, for every 1x1 conv of ResNet-50 at one
// thread, oneDNN's f32 GFLOP/s (best of its layouts) against the best f32 GEMM (Eigen's
// or OpenBLAS's sgemm through the gemm_1x1 / im2col convs, which for 1x1 are one GEMM).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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
  for (const char* name : {"resnet50", "mobilenetv2", "squeezenet1_1", "googlenet"}) {
    Network raw, net;
    if (!build_zoo_model(name, ZooOptions{}, &raw).is_ok()) continue;
    init_random_weights(raw, 1);
    if (!fold_affine(raw, &net).is_ok()) continue;
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

// A deterministic input in d's dtype and layout (bf16 / int8 get the same values' bits).
Tensor input_for(const Shape& s, const ImplDesc& d) {
  Tensor x = Tensor::create(s, d.dtype_in, d.layout_in);
  const int64_t n = stored_elements(s, d.layout_in);
  for (int64_t i = 0; i < n; ++i) {
    float v = float((i * 7919) % 2001) / 1000.f - 1.f;
    if (d.dtype_in == DType::kF32) x.f32()[i] = v;
    else if (d.dtype_in == DType::kBF16) x.bf16()[i] = f32_to_bf16(v);
    else x.i8()[i] = int8_t(v * 100);
  }
  return x;
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
  Tensor x = input_for(c.in, d);
  Tensor y = Tensor::create(p->output_shape(), d.dtype_out, d.layout_out);
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

// Median ms of `reps` runs of d on c (after 3 warm-up runs); -1 when it cannot run.
double median_ms(const ConvCase& c, const ImplDesc& d, int reps) {
  const Registry& r = default_registry();
  std::unique_ptr<Primitive> p;
  if (!r.supports(d, c.layer, {c.in}).is_ok() || !r.create({d, &c.layer, {c.in}, {}, {}}, &p).is_ok()) return -1;
  Tensor x = input_for(c.in, d), y = Tensor::create(p->output_shape(), d.dtype_out, d.layout_out);
  std::vector<float> ws(p->workspace_bytes() / sizeof(float) + 16);
  if (!p->setup({x.data()}, y.data(), ws.data()).is_ok()) return -1;
  ScopedPin pin;
  std::vector<double> ms;
  for (int i = 0; i < reps + 3; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    if (!p->run().is_ok()) return -1;
    if (i >= 3) ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::nth_element(ms.begin(), ms.begin() + ms.size() / 2, ms.end());
  return ms[ms.size() / 2];
}

// The oneDNN-vs-GEMM table (a convolution should reach >= 80 % of the best f32 GEMM on the same machine). Candidates of each
// side are timed interleaved, round by round, so a busy neighbour hurts both alike.
int onednn_vs_gemm() {
  const Registry& r = default_registry();
  std::printf("%-28s %-22s %9s %9s %9s  %s\n", "resnet50 1x1 conv", "input", "oneDNN", "GEMM", "ratio", "best oneDNN / best GEMM");
  double sum_ratio = 0;
  int n = 0;
  for (const ConvCase& c : conv_cases()) {
    if (c.model != "resnet50" || c.layer.window.kh != 1 || c.layer.window.kw != 1) continue;
    double flops = 2.0 * double(c.layer.out_channels) * c.in.c * c.in.h * c.in.w /
                   (c.layer.window.stride_h * c.layer.window.stride_w);
    double best_dnn = 0, best_gemm = 0;
    std::string dnn_name, gemm_name;
    for (int round = 0; round < 3; ++round)
      for (const ImplEntry& e : r.entries()) {
        const ImplDesc& d = e.desc;
        bool dnn = d.library == Library::kOnednn, gemm = d.library == Library::kNative && d.algorithm == Algorithm::kGemm1x1;
        gemm = gemm || (d.library == Library::kOpenBLAS && (d.algorithm == Algorithm::kGemm1x1 || d.algorithm == Algorithm::kIm2col));
        if (d.op != LayerKind::kConv2d || d.threads != 1 || d.fused_activation || d.dtype_in != DType::kF32 || !(dnn || gemm))
          continue;
        double ms = median_ms(c, d, 10);
        if (ms <= 0) continue;
        double gf = flops / ms / 1e6;
        double& best = dnn ? best_dnn : best_gemm;
        if (gf > best) (dnn ? dnn_name : gemm_name) = d.name(), best = gf;
      }
    std::printf("%-28s %-22s %9.1f %9.1f %8.0f%%  %s / %s\n", c.layer.name.c_str(), c.in.to_string().c_str(), best_dnn,
                best_gemm, 100 * best_dnn / best_gemm, dnn_name.c_str(), gemm_name.c_str());
    sum_ratio += best_dnn / best_gemm;
    ++n;
  }
  std::printf("mean ratio over %d shapes: %.0f%% (GFLOP/s, 1 thread, median of 10 runs, best of 3 rounds)\n", n, 100 * sum_ratio / n);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--onednn_vs_gemm") == 0) return onednn_vs_gemm();
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
