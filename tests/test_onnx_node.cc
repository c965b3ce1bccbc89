// ONNX's own backend node tests (Debian's libonnx-testdata) as the judge of the importer:
// every case whose operators we support is imported, run by the reference executor and
// compared with ONNX's expected output; every layer of it is then run by every registered f32
// implementation of its kind and compared with the reference. Unsupported cases are skipped
// with the importer's one-line reason, listed in onnx_node_skipped.txt.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>

#include "libs/exec/backends.h"
#include "libs/onnx/onnx_import.h"
#include "libs/ref/reference.h"
#include "tests/testers/tester.h"

using namespace lw;
namespace fs = std::filesystem;

namespace {

constexpr char kNodeDir[] = "/usr/share/libonnx-testdata/data/node";
// ONNX's backend-test tolerance (onnx/backend/test/runner: rtol 1e-3, atol 1e-7).
constexpr double kRtol = 1e-3, kAtol = 1e-7;
// Each implementation against the reference executor, relative to max |reference|.
constexpr double kImplTolerance = 1e-4;

struct Outcome {
  bool imported = false;
  std::string reason;  // why skipped
  int impl_runs = 0;
};

Tensor tensor_of(const OnnxTensor& t) {
  Shape s;
  REQUIRE(onnx_dims_to_shape(t.dims, &s).is_ok());
  Tensor x = Tensor::create(s);
  std::copy(t.data.begin(), t.data.end(), x.f32());
  return x;
}

// Every registered f32 implementation of every layer, on the reference outputs of its inputs.
int check_implementations(const Network& net, const std::vector<Tensor>& ref, const std::string& name) {
  int runs = 0;
  const Registry& r = default_registry();
  for (size_t i = 1; i < net.layers.size(); ++i) {
    const Layer& l = net.layers[i];
    std::vector<Tensor> in;
    for (int p : l.inputs) in.push_back(ref[p]);
    for (const Candidate& c : r.candidates(l, input_shapes(net, int(i)))) {
      if (!c.supported.is_ok() || c.desc.fused_activation || c.desc.algorithm == Algorithm::kFused || c.desc.dtype_in != DType::kF32 || c.desc.dtype_out != DType::kF32)
        continue;
      INFO(name, ": ", c.desc.name(), " on layer ", l.name);
      if (!testers::check_case(r, c.desc, l, in, kImplTolerance).supported) continue;
      ++runs;
    }
  }
  return runs;
}

Outcome run_case(const fs::path& dir) {
  Outcome o;
  const std::string model = (dir / "model.onnx").string(), data = (dir / "test_data_set_0").string();
  std::vector<std::string> inputs;
  Status s = onnx_graph_inputs(model, &inputs);
  if (!s.is_ok()) return {false, s.message()};
  if (!fs::exists(data + "/input_0.pb") || !fs::exists(data + "/output_0.pb") || fs::exists(data + "/output_1.pb"))
    return {false, "not one input_0 and one output_0"};
  OnnxImportOptions opt;  // graph inputs after the first are weights / attributes: constants
  for (size_t k = 1; k < inputs.size(); ++k) opt.constant_files[inputs[k]] = data + "/input_" + std::to_string(k) + ".pb";
  Network raw, net;
  s = import_onnx(model, &raw, opt);
  if (!s.is_ok()) {
    // The reason without the file name (the case name says it).
    std::string m = s.message();
    return {false, m.rfind(model + ": ", 0) == 0 ? m.substr(model.size() + 2) : m};
  }
  REQUIRE_MESSAGE(fold_affine(raw, &net).is_ok(), dir.filename().string());
  OnnxTensor x, want;
  REQUIRE(read_onnx_tensor(data + "/input_0.pb", &x).is_ok());
  REQUIRE(read_onnx_tensor(data + "/output_0.pb", &want).is_ok());
  std::vector<Tensor> ref;
  s = reference_forward(net, tensor_of(x), &ref);
  REQUIRE_MESSAGE(s.is_ok(), dir.filename().string() << ": " << s.message());
  const Tensor& y = ref.back();
  REQUIRE_MESSAGE(y.shape().elements() == int64_t(want.data.size()), dir.filename().string());
  int bad = 0;
  for (size_t i = 0; i < want.data.size(); ++i)
    if (!(std::fabs(double(y.f32()[i]) - want.data[i]) <= kAtol + kRtol * std::fabs(want.data[i]))) ++bad;
  CHECK_MESSAGE(bad == 0, dir.filename().string() << ": " << bad << " of " << want.data.size()
                                                  << " outputs outside ONNX's tolerance");
  o.imported = true;
  o.impl_runs = check_implementations(net, ref, dir.filename().string());
  return o;
}

}  // namespace

TEST_CASE("ONNX node test suite: importer + reference executor + every implementation") {
  if (!fs::exists(kNodeDir)) {
    MESSAGE("skipped: " << kNodeDir << " missing (Debian package libonnx-testdata)");
    return;
  }
  std::vector<fs::path> cases;
  for (const auto& e : fs::directory_iterator(kNodeDir))
    if (fs::exists(e.path() / "model.onnx")) cases.push_back(e.path());
  std::sort(cases.begin(), cases.end());
  int passed = 0, impl_runs = 0;
  std::vector<std::string> passed_names;
  std::map<std::string, int> by_reason;
  FILE* list = std::fopen("onnx_node_skipped.txt", "w");
  for (const fs::path& dir : cases) {
    Outcome o = run_case(dir);
    if (o.imported) {
      ++passed;
      impl_runs += o.impl_runs;
      passed_names.push_back(dir.filename().string());
      continue;
    }
    if (list) std::fprintf(list, "%s: %s\n", dir.filename().string().c_str(), o.reason.c_str());
    // Group by the reason's last clause ("unsupported operator", "rank 1 tensor ...").
    std::string key = o.reason.substr(o.reason.rfind("): ") == std::string::npos ? 0 : o.reason.rfind("): ") + 3);
    by_reason[key.substr(0, 60)]++;
  }
  if (list) std::fclose(list);
  std::printf("ONNX node tests: %zu cases, %d passed, %zu skipped; %d implementation runs checked\n", cases.size(),
              passed, cases.size() - passed, impl_runs);
  std::printf("passed:");
  for (const auto& n : passed_names) std::printf(" %s", n.c_str());
  std::printf("\nskipped, by reason (full list with each case in onnx_node_skipped.txt):\n");
  for (const auto& [reason, n] : by_reason) std::printf("  %4d  %s\n", n, reason.c_str());
  // Cases every torchvision CNN relies on must stay supported.
  for (const char* must : {"test_conv_with_strides_padding", "test_conv_with_autopad_same", "test_maxpool_2d_pads",
                           "test_averagepool_2d_pads_count_include_pad", "test_averagepool_2d_ceil", "test_relu",
                           "test_sigmoid", "test_hardswish", "test_batchnorm_example", "test_gemm_default_vector_bias",
                           "test_matmul_2d", "test_flatten_axis1", "test_softmax_axis_1", "test_clip_default_min"})
    CHECK_MESSAGE(std::find(passed_names.begin(), passed_names.end(), must) != passed_names.end(), must << " not passed");
}
