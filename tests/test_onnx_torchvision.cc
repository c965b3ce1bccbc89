// PyTorch as the judge of the importer on real architectures: torchvision CNNs exported by
// scripts/export_torchvision.py (random weights, seed 0, eval mode; the test fixture runs it
// into the build tree) are imported, run by the reference executor and by a random mixed
// deployment (every layer on a randomly drawn registered f32 implementation: libraries,
// algorithms, layouts and thread sets mixed, conversions in between), and compared with
// PyTorch's output for the same input. Also rewritten into the forms of opsets 18 and 27, and
// into float16 models.
#include <doctest/doctest.h>
#include <immintrin.h>

#include <cmath>
#include <cstring>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>

#include "libs/core/cpu.h"
#include "libs/data/npy.h"
#include "libs/exec/assignment.h"
#include "libs/exec/backends.h"
#include "libs/exec/executor.h"
#include "libs/ir/network_json.h"
#include "libs/onnx/onnx_import.h"
#include "libs/ref/reference.h"
#include "tests/onnx_newer_opsets.h"

using namespace lw;

namespace {

// f32 agreement with PyTorch: max |ours - torch| / max |torch| (the 1e-4 relative).
constexpr double kTolerance = 1e-4;
constexpr uint64_t kAssignmentSeed = 14;

double rel_error(const Tensor& y, const NpyArray& want) {
  Tensor g = to_layout(y, Layout::kNCHW);
  double err = 0, scale = 1e-12;
  for (int64_t i = 0; i < want.elements(); ++i) {
    double d = std::fabs(double(g.f32()[i]) - want.f32[i]);
    if (std::isnan(d)) return 1e30;
    err = std::max(err, d);
    scale = std::max(scale, double(std::fabs(want.f32[i])));
  }
  return err / scale;
}

std::string fs_name(const std::string& path) { return std::filesystem::path(path).filename().string(); }
std::string base_of(const std::string& name) { return std::string(LAYERWISE_TORCHVISION_DIR) + "/" + name; }

// `onnx_path` defaults to the export itself; PyTorch's input and output are the export's.
void check_model(const std::string& name, std::string onnx_path = "") {
  const std::string base = base_of(name);
  if (onnx_path.empty()) onnx_path = base + ".onnx";
  Network raw, net;
  Status s = import_onnx(onnx_path, &raw);
  REQUIRE_MESSAGE(s.is_ok(), s.message());
  REQUIRE(fold_affine(raw, &net).is_ok());
  NpyArray x, want;
  REQUIRE(read_npy(base + ".input.npy", &x).is_ok());
  REQUIRE(read_npy(base + ".output.npy", &want).is_ok());
  Tensor in = Tensor::create(net.input_shape());
  REQUIRE(int64_t(x.f32.size()) == in.shape().elements());
  std::copy(x.f32.begin(), x.f32.end(), in.f32());
  REQUIRE(net.output_shape().elements() == want.elements());

  std::vector<Tensor> ref;
  REQUIRE(reference_forward(net, in, &ref).is_ok());
  const double ref_err = rel_error(ref.back(), want);

  std::vector<ImplDesc> a;
  REQUIRE(random_assignment(net, default_registry(), kAssignmentSeed, &a).is_ok());
  std::set<std::string> libs, layouts;
  for (const ImplDesc& d : a) {
    libs.insert(to_string(d.library));
    layouts.insert(to_string(d.layout_in));
  }
  std::unique_ptr<Executor> ex;
  PlanOptions opt;
  opt.registry = &default_registry();
  s = Executor::plan(net, a, opt, &ex);
  REQUIRE_MESSAGE(s.is_ok(), s.message());
  Tensor y;
  REQUIRE(ex->run(in, &y).is_ok());
  const double mixed_err = rel_error(y, want);
  int conversions = 0;
  for (const ExecStep& st : ex->steps()) conversions += st.conversion;
  std::string lib_list;
  for (const auto& l : libs) lib_list += " " + l;
  std::printf("%-28s %3zu layers, %8.3f M params, %7.1f M MACs | vs PyTorch: reference %.2e, mixed %.2e "
              "(libraries:%s; %zu layouts; %d conversions)\n",
              fs_name(onnx_path).c_str(), net.layers.size() - 1, total_params(net) / 1e6, total_macs(net) / 1e6, ref_err, mixed_err,
              lib_list.c_str(), layouts.size(), conversions);
  CHECK_MESSAGE(ref_err <= kTolerance, name << ": reference vs PyTorch " << ref_err);
  CHECK_MESSAGE(mixed_err <= kTolerance, name << ": mixed deployment vs PyTorch " << mixed_err);
  CHECK(libs.size() >= 2);  // a mixed deployment, not one library
}

// Those scripts/export_torchvision.py exports by default.
const char* const kModels[] = {"resnet18",    "mobilenet_v2",       "shufflenet_v2_x1_0", "inception_v3",
                               "mnasnet1_0",  "squeezenet1_1",      "densenet121",        "mobilenet_v3_small",
                               "regnet_y_400mf", "convnext_tiny",   "efficientnet_b0"};

}  // namespace

TEST_CASE("torchvision CNNs imported from ONNX agree with PyTorch") {
  for (const char* m : kModels) {
    CAPTURE(m);
    check_model(m);
  }
}

TEST_CASE("the same CNNs in the forms of opsets 18 and 27 agree with PyTorch") {
  for (const char* m : kModels) {
    for (int opset : {18, 27}) {
      CAPTURE(m);
      CAPTURE(opset);
      onnx::ModelProto model;
      {
        std::ifstream f(base_of(m) + ".onnx", std::ios::binary);
        REQUIRE(model.ParseFromIstream(&f));
      }
      lw::testing::to_newer_opset(&model, opset);
      const std::string path = base_of(m) + ".opset" + std::to_string(opset) + ".onnx";
      {
        std::ofstream f(path, std::ios::binary);
        REQUIRE(model.SerializeToOstream(&f));
      }
      check_model(m, path);
    }
  }
}

namespace {

// F16C's conversion (round to nearest even): independent of the importer's decoding.
__attribute__((target("f16c"))) uint16_t to_half(float f) {
  return uint16_t(_cvtss_sh(f, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}
__attribute__((target("f16c"))) float from_half(uint16_t h) { return _cvtsh_ss(h); }

onnx::ModelProto load_export(const std::string& name) {
  onnx::ModelProto m;
  std::ifstream f(base_of(name) + ".onnx", std::ios::binary);
  REQUIRE(m.ParseFromIstream(&f));
  return m;
}

std::vector<float> float_values(const onnx::TensorProto& t) {
  if (!t.raw_data().empty()) {
    std::vector<float> v(t.raw_data().size() / 4);
    std::memcpy(v.data(), t.raw_data().data(), v.size() * 4);
    return v;
  }
  return std::vector<float>(t.float_data().begin(), t.float_data().end());
}

// Every float initializer as float16 (`as_half`) or as float rounded through float16, and the
// graph's input and output cast to and from float16 as converters that keep float I/O write it.
onnx::ModelProto half_model(onnx::ModelProto m, bool as_half) {
  onnx::GraphProto* g = m.mutable_graph();
  for (auto& t : *g->mutable_initializer()) {
    if (t.data_type() != onnx::TensorProto::FLOAT) continue;
    const std::vector<float> v = float_values(t);
    t.clear_float_data();
    t.clear_raw_data();
    std::string raw;
    for (float f : v) {
      const uint16_t h = to_half(f);
      if (as_half) raw.append(reinterpret_cast<const char*>(&h), 2);
      const float r = from_half(h);
      if (!as_half) raw.append(reinterpret_cast<const char*>(&r), 4);
    }
    t.set_raw_data(raw);
    if (as_half) t.set_data_type(onnx::TensorProto::FLOAT16);
  }
  if (!as_half) return m;
  const std::string in = g->input(0).name(), out = g->output(0).name();
  for (auto& n : *g->mutable_node()) {
    for (auto& i : *n.mutable_input())
      if (i == in) i = in + "_half";
    for (auto& o : *n.mutable_output())
      if (o == out) o = out + "_half";
  }
  auto cast = [](const std::string& from, const std::string& to, int type) {
    onnx::NodeProto n;
    n.set_op_type("Cast");
    n.set_name(to);
    n.add_input(from);
    n.add_output(to);
    auto* a = n.add_attribute();
    a->set_name("to");
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(type);
    return n;
  };
  google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
  nodes.Swap(g->mutable_node());
  *g->add_node() = cast(in, in + "_half", onnx::TensorProto::FLOAT16);
  for (auto& n : nodes) *g->add_node() = n;
  *g->add_node() = cast(out + "_half", out, onnx::TensorProto::FLOAT);
  return m;
}

std::string save_model(const onnx::ModelProto& m, const std::string& path) {
  std::ofstream f(path, std::ios::binary);
  REQUIRE(m.SerializeToOstream(&f));
  return path;
}

}  // namespace

TEST_CASE("float16 models import as the float network with the weights rounded through float16") {
  if (!lw::cpu_has("f16c")) {
    MESSAGE("no F16C here: the independent float16 conversion is missing, skipped");
    return;
  }
  for (const char* m : kModels) {
    CAPTURE(m);
    const onnx::ModelProto f32 = load_export(m);
    lw::Network half, rounded;
    lw::Status s = import_onnx(save_model(half_model(f32, true), base_of(m) + ".fp16.onnx"), &half);
    REQUIRE_MESSAGE(s.is_ok(), s.message());
    REQUIRE(import_onnx(save_model(half_model(f32, false), base_of(m) + ".rounded.onnx"), &rounded).is_ok());
    half.name = rounded.name;
    CHECK(half.layers.size() == rounded.layers.size());
    CHECK(lw::network_to_json(half, "w.bin") == lw::network_to_json(rounded, "w.bin"));
    std::string a, b;
    REQUIRE(lw::weights_to_bytes(half, &a).is_ok());
    REQUIRE(lw::weights_to_bytes(rounded, &b).is_ok());
    CHECK(a == b);
    CHECK(a.size() > 100000);  // the weights are there
  }
}
