// Opsets 18 to 27: the forms newer exporters write (ReduceMean's axes as an input, Split's
// num_outputs, Pad's axes input, Cast's saturate; AveragePool's dilations in
// test_onnx_torchvision's DenseNet) import to the same network as the older forms that ONNX's node tests and PyTorch judge (test_onnx_node,
// test_onnx_torchvision); what these forms can get wrong is refused in one line.
#include <doctest/doctest.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "libs/ir/network_json.h"
#include "libs/onnx/onnx_import.h"
#include "libs/ref/reference.h"
#include "tests/onnx_newer_opsets.h"
#include "tests/onnx_test_model.h"

using namespace lw::testing;

namespace {

// x [1,3,6,5] -> Pad (H: 1 before, W: 2 after) -> Conv 3x3 to `channels` -> Split -> Concat in
// another order -> ReduceMean over H and W, as opset 13 writes it.
Model older_form(int channels, const std::vector<int64_t>& split) {
  Model f(13);
  f.conv_weights(channels);
  f.ints("pads", {0, 0, 1, 0, 0, 0, 0, 2});
  f.node("Pad", {"x", "pads"}, {"p"});
  f.node("Conv", {"p", "w"}, {"c"});
  f.ints("split", split);
  add_int_attribute(f.node("Split", {"c", "split"}, {"s0", "s1", "s2"}), "axis", 1);
  add_int_attribute(f.node("Concat", {"s2", "s0", "s1"}, {"cat"}), "axis", 1);
  add_ints_attribute(f.node("ReduceMean", {"cat"}, {"y"}), "axes", {2, 3});
  f.g()->add_output()->set_name("y");
  return f;
}

// The same network as opsets 7 to 10 write it: Pad's pads and Split's sizes as attributes.
Model oldest_form(int opset) {
  Model f(opset);
  f.conv_weights(7);
  auto* pad = f.node("Pad", {"x"}, {"p"});
  add_ints_attribute(pad, "pads", {0, 0, 1, 0, 0, 0, 0, 2});
  f.node("Conv", {"p", "w"}, {"c"});
  auto* split = f.node("Split", {"c"}, {"s0", "s1", "s2"});
  add_int_attribute(split, "axis", 1);
  add_ints_attribute(split, "split", {3, 3, 1});
  add_int_attribute(f.node("Concat", {"s2", "s0", "s1"}, {"cat"}), "axis", 1);
  add_ints_attribute(f.node("ReduceMean", {"cat"}, {"y"}), "axes", {2, 3});
  f.g()->add_output()->set_name("y");
  return f;
}

// The same network as opset 18 on writes it: Pad over axes [-1, 2], Split by num_outputs, an
// identity ReduceMean (no axes, noop_with_empty_axes), the axes of the last one as an input;
// from opset 19 on a Cast to float with `saturate` before it.
Model newer_form(int opset, int channels, int64_t num_outputs) {
  Model f(opset);
  f.conv_weights(channels);
  f.ints("pads", {0, 1, 2, 0});
  f.ints("pad_axes", {-1, 2});
  f.node("Pad", {"x", "pads", "", "pad_axes"}, {"p"});
  f.node("Conv", {"p", "w"}, {"c"});
  auto* split = f.node("Split", {"c"}, {"s0", "s1", "s2"});
  add_int_attribute(split, "axis", 1);
  add_int_attribute(split, "num_outputs", num_outputs);
  add_int_attribute(f.node("Concat", {"s2", "s0", "s1"}, {"cat"}), "axis", 1);
  std::string last = "cat";
  if (opset >= 19) {  // a Cast to float with opset 19's saturate (which only float8 targets read)
    auto* cast = f.node("Cast", {"cat"}, {"cast"});
    add_int_attribute(cast, "to", onnx::TensorProto::FLOAT);
    add_int_attribute(cast, "saturate", 1);
    last = "cast";
  }
  add_int_attribute(f.node("ReduceMean", {last}, {"same"}), "noop_with_empty_axes", 1);
  f.ints("axes", {-1, -2});
  f.node("ReduceMean", {"same", "axes"}, {"y"});
  f.g()->add_output()->set_name("y");
  return f;
}

// Imports `f`, checks its output shape and runs the reference executor on a fixed input.
struct Ran {
  lw::Tensor x, y;
};
Ran import_and_run(Model& f, const std::string& name, const lw::Shape& out_shape) {
  lw::Network net;
  lw::Status s = lw::import_onnx(f.save(name), &net);
  REQUIRE_MESSAGE(s.is_ok(), s.message());
  REQUIRE(net.output_shape() == out_shape);
  Ran r{lw::Tensor::create(net.input_shape()), {}};
  for (int64_t i = 0; i < r.x.shape().elements(); ++i) r.x.f32()[i] = float((i * 7) % 13) - 6;
  std::vector<lw::Tensor> out;
  REQUIRE(lw::reference_forward(net, r.x, &out).is_ok());
  r.y = out.back();
  return r;
}

std::string import_message(Model& f, const std::string& name) {
  lw::Network net;
  return lw::import_onnx(f.save(name), &net).message();
}

}  // namespace

TEST_CASE("the forms of opsets 7 to 10 and 18 to 27 import to the same network as opset 13's") {
  lw::Network older, newer;
  REQUIRE(lw::import_onnx(older_form(7, {3, 3, 1}).save("older.onnx"), &older).is_ok());
  for (int opset : {18, 19, 27}) {
    CAPTURE(opset);
    lw::Status s = lw::import_onnx(newer_form(opset, 7, 3).save("newer.onnx"), &newer);
    REQUIRE_MESSAGE(s.is_ok(), s.message());
    newer.name = older.name;
    CHECK(lw::network_to_json(newer, "w.bin") == lw::network_to_json(older, "w.bin"));
    std::string a, b;
    REQUIRE(lw::weights_to_bytes(older, &a).is_ok());
    REQUIRE(lw::weights_to_bytes(newer, &b).is_ok());
    CHECK(a == b);
  }
  for (int opset : {7, 10}) {
    CAPTURE(opset);
    lw::Status s = lw::import_onnx(oldest_form(opset).save("oldest.onnx"), &newer);
    REQUIRE_MESSAGE(s.is_ok(), s.message());
    newer.name = older.name;
    CHECK(lw::network_to_json(newer, "w.bin") == lw::network_to_json(older, "w.bin"));
  }
  Model valued = oldest_form(10);
  auto* value = valued.g()->mutable_node(0)->add_attribute();
  value->set_name("value");
  value->set_type(onnx::AttributeProto::FLOAT);
  value->set_f(1);
  CHECK(import_message(valued, "valued.onnx").find("(Pad, opset 10): padding with a value other than 0") != std::string::npos);
  // Integers a file can hold but no model has: refused before any arithmetic on them.
  const int64_t huge = std::numeric_limits<int64_t>::max();
  Model huge_pads = oldest_form(10), huge_split = oldest_form(10), huge_conv_pads = oldest_form(10);
  huge_pads.g()->mutable_node(0)->mutable_attribute(0)->set_ints(3, huge);
  CHECK(import_message(huge_pads, "huge_pads.onnx").find("(Pad, opset 10): pads beyond 2^30") != std::string::npos);
  huge_split.g()->mutable_node(2)->mutable_attribute(1)->set_ints(0, huge);
  CHECK(import_message(huge_split, "huge_split.onnx").find("(Split, opset 10): split size 9223372036854775807 out of range") !=
        std::string::npos);
  add_ints_attribute(huge_conv_pads.g()->mutable_node(1), "pads", {0, int64_t(1) << 40, 0, 0});
  CHECK(import_message(huge_conv_pads, "huge_conv_pads.onnx").find("(Conv, opset 10): kernel_shape, strides, dilations or pads beyond 2^30") !=
        std::string::npos);
  // num_outputs with channels that do not split evenly: the last part is smaller (8 -> 3, 3, 2).
  REQUIRE(lw::import_onnx(older_form(8, {3, 3, 2}).save("older8.onnx"), &older).is_ok());
  REQUIRE(lw::import_onnx(newer_form(18, 8, 3).save("newer8.onnx"), &newer).is_ok());
  newer.name = older.name;
  CHECK(lw::network_to_json(newer, "w.bin") == lw::network_to_json(older, "w.bin"));
}

TEST_CASE("what the newer forms can get wrong is refused with the node, its op and the opset") {
  Model opset28 = newer_form(28, 7, 3), outs = newer_form(18, 7, 2);
  CHECK(import_message(opset28, "opset28.onnx").find("opset 28 (supported: 7 to 27)") != std::string::npos);
  CHECK(import_message(outs, "outs.onnx").find("(Split, opset 18): num_outputs 2 but 3 outputs") !=
        std::string::npos);
  Model both = newer_form(18, 7, 3);
  both.ints("sizes", {3, 3, 1});
  both.g()->mutable_node(2)->add_input("sizes");
  CHECK(import_message(both, "both.onnx").find("both num_outputs and split sizes") != std::string::npos);
  // 5 channels in 3 parts: 2, 2, 1; in 4 parts of 2 the last one would be empty.
  Model five = newer_form(18, 5, 3);
  CHECK(import_message(five, "five.onnx").empty());
  Model empty = newer_form(18, 5, 4);
  empty.g()->mutable_node(2)->add_output("s3");
  CHECK(import_message(empty, "empty.onnx").find("(Split, opset 18): num_outputs leaves an empty part") !=
        std::string::npos);
  Model pads = newer_form(18, 7, 3);
  pads.g()->mutable_initializer(1)->add_int64_data(0);  // 5 pads over 2 axes
  pads.g()->mutable_initializer(1)->set_dims(0, 5);
  CHECK(import_message(pads, "pads.onnx").find("(Pad, opset 18): pads do not match the axes") != std::string::npos);
  Model repeated = newer_form(18, 7, 3);
  repeated.g()->mutable_initializer(2)->set_int64_data(1, -1);
  CHECK(import_message(repeated, "repeated.onnx").find("axis -1 out of range or repeated") != std::string::npos);
  Model all_axes = newer_form(18, 7, 3);
  all_axes.g()->mutable_node(4)->clear_attribute();  // no axes, no noop: the mean over every axis
  CHECK(import_message(all_axes, "all_axes.onnx").find("(ReduceMean, opset 18): ReduceMean other than over H and W") !=
        std::string::npos);
}

TEST_CASE("ceil_mode drops a last window that would start in the end padding, as opset 22 spells out") {
  for (int opset : {13, 22}) {
    CAPTURE(opset);
    // W = 5, kernel 2, stride 2, pads 1 and 1: windows start at -1, 1, 3 and (ceil) 5, which is
    // in the end padding, so 3 outputs, not 4.
    Model f(opset);
    auto* pool = f.node("MaxPool", {"x"}, {"y"});
    add_ints_attribute(pool, "kernel_shape", {1, 2});
    add_ints_attribute(pool, "strides", {1, 2});
    add_ints_attribute(pool, "pads", {0, 1, 0, 1});
    add_int_attribute(pool, "ceil_mode", 1);
    f.g()->add_output()->set_name("y");
    const Ran r = import_and_run(f, "ceil.onnx", lw::Shape{1, 3, 6, 3});
    for (int64_t row = 0; row < 3 * 6; ++row) {
      const float* in = r.x.f32() + row * 5;
      const float* y = r.y.f32() + row * 3;
      CHECK(y[0] == in[0]);  // the window over the start padding and x0
      CHECK(y[1] == std::max(in[1], in[2]));
      CHECK(y[2] == std::max(in[3], in[4]));
    }
  }
}

TEST_CASE("a zero Pad in front of an AveragePool is counted in the average, as PyTorch exports count_include_pad") {
  // x [1,3,6,5] -> Pad 1 on every side of H and W -> AveragePool 3x3 stride 1 (Inception v3's).
  auto model = [](const std::string& pool_op, int64_t ceil_mode) {
    Model f(13);
    f.ints("pads", {0, 0, 1, 1, 0, 0, 1, 1});
    f.node("Pad", {"x", "pads"}, {"p"});
    auto* pool = f.node(pool_op, {"p"}, {"y"});
    add_ints_attribute(pool, "kernel_shape", {3, 3});
    add_int_attribute(pool, "ceil_mode", ceil_mode);
    f.g()->add_output()->set_name("y");
    return f;
  };
  Model avg = model("AveragePool", 0);
  const Ran r = import_and_run(avg, "avg.onnx", lw::Shape{1, 3, 6, 5});
  const lw::Tensor& x = r.x;
  int checked = 0;
  for (int ch = 0; ch < 3; ++ch)
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 5; ++j) {
        float sum = 0;  // the padded tensor's zeros count: always 9 values
        for (int di = -1; di <= 1; ++di)
          for (int dj = -1; dj <= 1; ++dj)
            if (i + di >= 0 && i + di < 6 && j + dj >= 0 && j + dj < 5) sum += x.f32()[(ch * 6 + i + di) * 5 + j + dj];
        CHECK(r.y.f32()[(ch * 6 + i) * 5 + j] == doctest::Approx(sum / 9).epsilon(1e-6));
        ++checked;
      }
  CHECK(checked == 90);
  Model max = model("MaxPool", 0), ceil = model("AveragePool", 1);
  CHECK(import_message(max, "max.onnx").find("a zero Pad in front of a MaxPool") != std::string::npos);
  CHECK(import_message(ceil, "ceil_avg.onnx").find("a zero Pad in front of a ceil_mode AveragePool") != std::string::npos);
}

TEST_CASE("float16 and bfloat16 tensors widen exactly; constants cast to them round to nearest even") {
  auto read = [&](const onnx::TensorProto& t) {
    const std::string p = (scratch_dir("lw_onnx_opsets") / (t.name() + ".pb")).string();
    std::ofstream(p, std::ios::binary) << t.SerializeAsString();
    lw::OnnxTensor out;
    lw::Status s = lw::read_onnx_tensor(p, &out);
    REQUIRE_MESSAGE(s.is_ok(), s.message());
    return std::vector<double>(out.data.begin(), out.data.end());
  };
  // float16 in raw bytes: zeros, the smallest subnormal, the largest subnormal, the smallest
  // normal, 1, -2, the largest finite value, infinity.
  const std::vector<uint16_t> half_bits = {0x0000, 0x8000, 0x0001, 0x03ff, 0x0400, 0x3c00, 0xc000, 0x7bff, 0x7c00};
  const std::vector<double> half_values = {0, -0.0, std::ldexp(1, -24), 1023 * std::ldexp(1, -24), std::ldexp(1, -14),
                                           1, -2, 65504, INFINITY};
  onnx::TensorProto h;
  h.set_name("half");
  h.set_data_type(onnx::TensorProto::FLOAT16);
  h.add_dims(int64_t(half_bits.size()));
  h.set_raw_data(std::string(reinterpret_cast<const char*>(half_bits.data()), half_bits.size() * 2));
  CHECK(read(h) == half_values);
  // bfloat16 as bit patterns in int32_data: 1, -3, the smallest subnormal, 2^100.
  onnx::TensorProto b;
  b.set_name("bf16");
  b.set_data_type(onnx::TensorProto::BFLOAT16);
  b.add_dims(4);
  for (int32_t v : {0x3f80, 0xc040, 0x0001, 0x7180}) b.add_int32_data(v);
  CHECK(read(b) == std::vector<double>{1, -3, std::ldexp(1, -133), std::ldexp(1, 100)});
  // x + Cast(0.1 -> type): the affine layer's shift is 0.1 rounded to the type.
  for (const auto& type_want : {std::pair<int, double>{onnx::TensorProto::FLOAT16, 0.0999755859375},
                                std::pair<int, double>{onnx::TensorProto::BFLOAT16, 0.10009765625}}) {
    const int type = type_want.first;
    const double want = type_want.second;
    CAPTURE(type);
    Model f(17);
    f.g()->mutable_input(0)->mutable_type()->mutable_tensor_type()->set_elem_type(type);  // a float16 / bfloat16 input
    auto* k = f.g()->add_initializer();
    k->set_name("tenth");
    k->set_data_type(onnx::TensorProto::FLOAT);
    k->add_float_data(0.1f);
    add_int_attribute(f.node("Cast", {"tenth"}, {"tenth_cast"}), "to", type);
    f.node("Add", {"x", "tenth_cast"}, {"y"});
    f.g()->add_output()->set_name("y");
    lw::Network net;
    lw::Status s = lw::import_onnx(f.save("cast16.onnx"), &net);
    REQUIRE_MESSAGE(s.is_ok(), s.message());
    REQUIRE(net.layers.back().kind == lw::LayerKind::kAffine);
    CHECK(net.layers.back().weights[3] == float(want));  // scales 1, 1, 1, then the shifts
  }
}
