// `layerwise infer`: runs a model end to end on a seeded random input, with the reference
// executor or with the real executor under an assignment (--all <library> | --assign file).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <numeric>

#include "explorer/cli/cli.h"
#include "explorer/commands/infer_bundle.h"
#include "explorer/commands/model_arg.h"
#include "libs/exec/assignment.h"
#include "libs/exec/backends.h"
#include "libs/data/npy.h"
#include "libs/exec/executor.h"
#include "libs/onnx/onnx_import.h"
#include "libs/ref/reference.h"
#include "libs/ops/thread_pool.h"

namespace lw::cli {
namespace {

constexpr int kDefaultRepeats = 5;

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// The five largest outputs of each sample (a batch of N prints N lines).
void print_top(const Tensor& y) {
  const int64_t batch = std::max<int64_t>(y.shape().n, 1), n = y.shape().elements() / batch;
  const int k = int(std::min<int64_t>(5, n));
  for (int64_t s = 0; s < batch; ++s) {
    const float* v = y.f32() + s * n;
    std::vector<int> idx(static_cast<size_t>(n));
    std::iota(idx.begin(), idx.end(), 0);
    std::partial_sort(idx.begin(), idx.begin() + k, idx.end(), [v](int a, int b) { return v[a] > v[b]; });
    if (batch == 1) std::printf("top-%d   ", k);
    else std::printf("top-%d [%lld] ", k, static_cast<long long>(s));
    for (int i = 0; i < k; ++i) std::printf(" %d (%.4f)", idx[i], v[idx[i]]);
    std::printf("\n");
  }
}

std::vector<ImplDesc> assignment_from_args(const Args& args, const Network& net) {
  std::vector<ImplDesc> a;
  if (args.has("assign")) {
    ok_or_throw(load_assignment(args.get("assign"), net, default_registry(), &a));
    return a;
  }
  auto lib = parse_library(args.get("all"));
  if (!lib) throw UsageError("--all: unknown library '" + args.get("all") + "'");
  int threads = args.get_int("threads", 1);
  if (!valid_threads(threads)) throw UsageError("--threads: 1 or 2");
  ok_or_throw(library_assignment(net, default_registry(), *lib, threads, &a));
  return a;
}

Tensor run_executor(const Args& args, const Network& net, const Tensor& x, const Tensor& ref) {
  std::vector<ImplDesc> a = assignment_from_args(args, net);
  if (args.has("save-assign")) {
    FILE* f = std::fopen(args.get("save-assign").c_str(), "w");
    if (!f) throw UsageError("--save-assign: cannot write " + args.get("save-assign"));
    std::fprintf(f, "%s\n", assignment_to_json(net, a).c_str());
    std::fclose(f);
  }
  PlanOptions opt;
  opt.registry = &default_registry();
  opt.time_steps = args.flag("per-layer");
  std::unique_ptr<Executor> ex;
  ok_or_throw(Executor::plan(net, a, opt, &ex));
  ScopedPin pin;  // once for all runs, as an application holding layerwise::CallerPin
  Tensor y;
  ok_or_throw(ex->run(x, &y));  // warm-up
  int reps = std::max(1, args.get_int("repeats", kDefaultRepeats));
  std::vector<double> times;
  for (int r = 0; r < reps; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    ok_or_throw(ex->run(x, &y));
    times.push_back(ms_since(t0));
  }
  std::sort(times.begin(), times.end());
  double max_abs = 0, scale = 1e-12;
  for (int64_t i = 0; i < y.shape().elements(); ++i) {
    max_abs = std::max(max_abs, double(std::fabs(y.f32()[i] - ref.f32()[i])));
    scale = std::max(scale, double(std::fabs(ref.f32()[i])));
  }
  const MemoryReport& m = ex->memory();
  int convs = 0;
  for (const ExecStep& s : ex->steps()) convs += s.conversion;
  std::printf("executor %s (%zu steps, %d conversions)\n", args.has("assign") ? args.get("assign").c_str() : ("--all " + args.get("all")).c_str(),
              ex->steps().size(), convs);
  std::printf("time     median %.3f ms, min %.3f ms over %d runs\n", times[times.size() / 2], times[0], reps);
  std::printf("memory   peak %.2f MiB = arena %.2f (no reuse: %.2f) + workspace %.2f + weights %.2f; heap measured at plan %.2f MiB\n",
              m.peak_bytes() / 1048576.0, m.arena_bytes / 1048576.0, m.naive_activation_bytes / 1048576.0,
              m.workspace_bytes / 1048576.0, m.weight_bytes / 1048576.0, m.measured_heap_bytes / 1048576.0);
  std::printf("error    max abs %.3g, max rel %.3g (vs reference, relative to max |ref|)\n", max_abs, max_abs / scale);
  if (args.flag("per-layer"))
    for (const ExecStep& s : ex->steps()) std::printf("  %8.3f ms  %s\n", s.last_ms, s.name.c_str());
  print_top(y);
  return y;
}

// --input: a .npy of the network's input shape (numpy.save) or an ONNX TensorProto (.pb).
Tensor read_input(const std::string& path, const Network& net) {
  const Shape want = net.input_shape();
  if (path.size() > 3 && path.compare(path.size() - 3, 3, ".pb") == 0) {
    OnnxTensor t;
    ok_or_throw(read_onnx_tensor(path, &t));
    Shape s;
    Status st = onnx_dims_to_shape(t.dims, &s);
    if (!st.is_ok() || s != want) throw UsageError("--input: " + path + ": not of the network's input shape " + want.to_string());
    Tensor x = Tensor::create(want);
    std::copy(t.data.begin(), t.data.end(), x.f32());
    return x;
  }
  std::vector<Tensor> samples;
  ok_or_throw(read_npy_samples(path, Shape{1, want.c, want.h, want.w}, &samples));
  if (int(samples.size()) != want.n) {
    const Shape batch{int(samples.size()), want.c, want.h, want.w};
    throw UsageError("--input: " + path + " holds " + std::to_string(samples.size()) + " samples, the network takes " +
                     std::to_string(want.n) + " (--model M@" + batch.to_string() + " takes them as one batch)");
  }
  Tensor x = Tensor::create(want);
  const int64_t per = samples[0].shape().elements();
  for (size_t i = 0; i < samples.size(); ++i) std::copy(samples[i].f32(), samples[i].f32() + per, x.f32() + i * per);
  return x;
}

// --output: NCHW f32 .npy; [N, C] when the output is N x C x 1 x 1 (a classifier's logits).
void write_output(const std::string& path, const Tensor& y_any) {
  Tensor y = to_layout(y_any, Layout::kNCHW);
  const Shape& s = y.shape();
  std::vector<int64_t> dims = {s.n, s.c};
  if (s.h * s.w != 1) dims.insert(dims.end(), {int64_t(s.h), int64_t(s.w)});
  ok_or_throw(write_npy(path, dims, y.f32()));
  std::printf("wrote    %s (%s)\n", path.c_str(), s.to_string().c_str());
}

int run_infer(const std::vector<std::string>& argv) {
  std::set<std::string> flags = {"per-layer"}, names = {"model", "seed", "all", "assign", "threads", "repeats",
                                                        "save-assign", "input", "output"};
  flags.insert(std::begin(kInferBundleFlags), std::end(kInferBundleFlags));
  names.insert(std::begin(kInferBundleOptions), std::end(kInferBundleOptions));
  Args args(argv, flags, names);
  if (args.has("bundle")) return infer_bundle(args);
  if (!args.has("model")) throw UsageError("--model is required (zoo name, network .json or .onnx)");
  if (args.has("all") && args.has("assign")) throw UsageError("give --all or --assign, not both");
  Network net = load_model(args.get("model"));
  Tensor x = args.has("input") ? read_input(args.get("input"), net) : random_input(net, uint64_t(args.get_int("seed", 0)));
  std::vector<Tensor> outs;
  auto t0 = std::chrono::steady_clock::now();
  ok_or_throw(reference_forward(net, x, &outs));
  double ms = ms_since(t0);
  const Tensor& y = outs.back();
  std::printf("model    %s (%zu layers after BatchNorm folding)\n", net.name.c_str(), net.layers.size() - 1);
  std::printf("input    %s\noutput   %s\n", x.shape().to_string().c_str(), y.shape().to_string().c_str());
  std::printf("reference (naive f32 NCHW) %.1f ms\n", ms);
  Tensor result = y;
  if (args.has("all") || args.has("assign")) result = run_executor(args, net, x, y);
  else print_top(y);
  if (args.has("output")) write_output(args.get("output"), result);
  return 0;
}

Registrar reg({"infer", "run a model end to end on a random input or an input file, or a deployment bundle",
               std::string("usage: layerwise infer --model <zoo name | network.json | net.onnx> [--seed N | --input X.npy]\n"
               "                       [--all <library> [--threads 1|2] | --assign <assignment.json>]\n"
               "                       [--repeats N] [--per-layer] [--save-assign <file>] [--output Y.npy]\n") +
               kInferBundleHelp +
               "Runs the network with the reference executor on a seeded random input, or on --input (a\n"
               "float32 .npy of the input shape, e.g. numpy.save of a 1x3x224x224 array, or an ONNX\n"
               "TensorProto .pb; a batch of N samples needs the model at batch N: --model M@NxCxHxW). --output writes the output tensor as float32 .npy ([N, C] for logits;\n"
               "the executor's output with --all / --assign, else the reference's). With --all or\n"
               "--assign it also runs the real executor under that per-layer assignment and prints the\n"
               "median time, peak memory (arena + workspace + weights) and the error vs the reference.\n\n"
               "assignment.json: {\"model\": \"mobilenetv2\", \"default\": \"native\",\n"
               "                  \"layers\": {\"<layer name>\": \"conv2d_nchw_f32_native_im2col_t1\", ...}}\n"
               "  \"default\" (a library) covers unlisted layers; without it every layer must be listed.\n"
               "  An activation after a conv assigned a '_fused_' implementation may be left out.\n",
               run_infer});

}  // namespace
}  // namespace lw::cli
