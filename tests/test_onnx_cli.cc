// Malformed and unsupported ONNX files through the CLI: one line on stderr naming the file
// (and the node, its op type and the opset where there is one), exit code 2, never a crash.
// The models are built here with ONNX's protobuf classes; a good one is checked first so that
// each bad one differs from it in exactly one way.
#include <doctest/doctest.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "libs/data/npy.h"
#include "libs/onnx/onnx_import.h"
#include "libs/ref/reference.h"
#include "tests/cli_fixtures.h"

namespace fs = std::filesystem;
using namespace lw::testing;

namespace {

using Result = CliResult;

fs::path temp_dir() { return scratch_dir("lw_onnx_cli"); }
Result run(const std::string& args) { return run_layerwise(temp_dir(), args); }

void add_dim(onnx::TensorShapeProto* s, int64_t v, const char* param = nullptr) {
  auto* d = s->add_dim();
  if (param) d->set_dim_param(param);
  else d->set_dim_value(v);
}

// input [1, 2, 5, 5] -> Conv(3 out, 3x3, pad 1) -> Relu -> output
onnx::ModelProto tiny_model() {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  auto* g = m.mutable_graph();
  g->set_name("tiny");
  auto* in = g->add_input();
  in->set_name("x");
  in->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  auto* shape = in->mutable_type()->mutable_tensor_type()->mutable_shape();
  for (int64_t v : {1, 2, 5, 5}) add_dim(shape, v);
  auto* w = g->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t v : {3, 2, 3, 3}) w->add_dims(v);
  for (int i = 0; i < 3 * 2 * 9; ++i) w->add_float_data(0.01f * float(i % 7) - 0.03f);
  auto* conv = g->add_node();
  conv->set_name("conv0");
  conv->set_op_type("Conv");
  conv->add_input("x");
  conv->add_input("w");
  conv->add_output("c");
  auto* pads = conv->add_attribute();
  pads->set_name("pads");
  pads->set_type(onnx::AttributeProto::INTS);
  for (int i = 0; i < 4; ++i) pads->add_ints(1);
  auto* relu = g->add_node();
  relu->set_name("relu0");
  relu->set_op_type("Relu");
  relu->add_input("c");
  relu->add_output("y");
  g->add_output()->set_name("y");
  return m;
}

std::string save(const std::string& name, const std::string& bytes) {
  const std::string p = (temp_dir() / name).string();
  std::ofstream(p, std::ios::binary) << bytes;
  return p;
}

std::string save(const std::string& name, const onnx::ModelProto& m) { return save(name, m.SerializeAsString()); }

// One line, exit 2, naming the file and containing `what`.
void check_refused(const std::string& path, const std::string& what) {
  Result r = run("models --describe " + path);
  INFO(path, ": ", r.err);
  CHECK(r.code == 2);
  CHECK(count_lines(r.err) == 1);
  CHECK(r.err.find(path) != std::string::npos);
  CHECK(r.err.find(what) != std::string::npos);
}

}  // namespace

TEST_CASE("a good ONNX model is described and inferred; malformed ones give one line and exit 2") {
  const onnx::ModelProto good = tiny_model();
  const std::string good_path = save("good.onnx", good);
  Result ok = run("models --describe " + good_path);
  INFO(ok.err);
  REQUIRE(ok.code == 0);
  CHECK(ok.out.find("conv0") != std::string::npos);
  CHECK(ok.out.find("total: 2 layers, 54 params") != std::string::npos);
  CHECK(ok.out.find("1350 MACs") != std::string::npos);  // 3 x 5 x 5 outputs x 2 x 3 x 3 taps

  const std::string bytes = good.SerializeAsString();
  check_refused(save("truncated.onnx", bytes.substr(0, bytes.size() / 2)), "not an ONNX model");
  check_refused(save("magic.onnx", "\x89PNG\r\n\x1a\n" + bytes), "not an ONNX model");
  check_refused(save("empty.onnx", ""), "empty file");

  onnx::ModelProto missing = good;
  missing.mutable_graph()->clear_initializer();
  check_refused(save("missing_init.onnx", missing), "node 'conv0' (Conv, opset 13): input 'w' is neither an initializer");

  onnx::ModelProto op = good;
  op.mutable_graph()->mutable_node(1)->set_op_type("Celu");
  check_refused(save("unsupported_op.onnx", op), "node 'relu0' (Celu, opset 13): unsupported operator");
  // Every operator the importer does not read is named in the same line, with its count.
  auto add_selu = [](onnx::ModelProto* m, const char* in, const char* out) {
    auto* n = m->mutable_graph()->add_node();
    n->set_op_type("Selu");
    n->add_input(in);
    n->add_output(out);
  };
  add_selu(&op, "y", "e1");
  add_selu(&op, "e1", "e2");
  check_refused(save("unsupported_ops.onnx", op),
                "(Celu, opset 13): unsupported operator (operators in the model the importer does not read: Celu x1, Selu x2)");

  // Found by fuzzing: a node without outputs crashed the importer.
  onnx::ModelProto no_out = good;
  no_out.mutable_graph()->mutable_node(1)->clear_output();
  check_refused(save("no_output.onnx", no_out), "node 'relu0' (Relu, opset 13): no output");

  // Found by fuzzing: a Transpose whose perm names an axis the input lacks crashed the importer.
  onnx::ModelProto perm = good;
  auto* tr = perm.mutable_graph()->mutable_node(1);
  tr->set_op_type("Transpose");
  auto* pa = tr->add_attribute();
  pa->set_name("perm");
  pa->set_type(onnx::AttributeProto::INTS);
  for (int64_t axis : {0, 1, 2, 7}) pa->add_ints(axis);
  check_refused(save("bad_perm.onnx", perm), "node 'relu0' (Transpose, opset 13): perm is not a permutation");

  // Found by fuzzing: a zero stride divided by zero in the importer's shape arithmetic.
  onnx::ModelProto stride0 = good;
  auto* st = stride0.mutable_graph()->mutable_node(0)->add_attribute();
  st->set_name("strides");
  st->set_type(onnx::AttributeProto::INTS);
  for (int64_t v : {0, 0}) st->add_ints(v);
  check_refused(save("stride0.onnx", stride0), "node 'conv0' (Conv, opset 13): kernel_shape, strides and dilations must be positive");
  add_selu(&stride0, "y", "e1");  // an operator it does not read, after the refused Conv: named too
  check_refused(save("stride0_selu.onnx", stride0),
                "must be positive and pads not negative (operators in the model the importer does not read: Selu x1)");

  onnx::ModelProto attr = good;
  auto* a = attr.mutable_graph()->mutable_node(0)->add_attribute();
  a->set_name("fancy");
  a->set_type(onnx::AttributeProto::INT);
  check_refused(save("unsupported_attr.onnx", attr), "node 'conv0' (Conv, opset 13): unsupported attribute 'fancy'");

  onnx::ModelProto dynamic = good;
  auto* d = dynamic.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(2);
  d->set_dim_param("height");
  check_refused(save("dynamic.onnx", dynamic), "dynamic shape in dimension 2 ('height')");

  onnx::ModelProto old = good;
  old.mutable_opset_import(0)->set_version(6);
  check_refused(save("opset6.onnx", old), "opset 6 (supported: 7 to 27)");

  // A symbolic batch is fine: it becomes 1.
  onnx::ModelProto batch = good;
  batch.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0)->set_dim_param("N");
  CHECK(run("models --describe " + save("batch.onnx", batch)).code == 0);
}

TEST_CASE("initializers in an external data file are read; a missing one is one line") {
  onnx::ModelProto m = tiny_model();
  onnx::TensorProto* w = m.mutable_graph()->mutable_initializer(0);
  std::string raw;
  for (float f : w->float_data()) raw.append(reinterpret_cast<const char*>(&f), 4);
  w->clear_float_data();
  w->set_data_location(onnx::TensorProto::EXTERNAL);
  auto add = [&](const char* k, const std::string& v) {
    auto* e = w->add_external_data();
    e->set_key(k);
    e->set_value(v);
  };
  add("location", "ext_weights.bin");
  add("offset", "16");
  add("length", std::to_string(raw.size()));
  save("ext_weights.bin", std::string(16, 'x') + raw);
  lw::Network ext, inline_net;
  const std::string path = save("external.onnx", m);
  lw::Status s = lw::import_onnx(path, &ext);
  INFO(s.message());
  REQUIRE(s.is_ok());
  REQUIRE(lw::import_onnx(save("inline.onnx", tiny_model()), &inline_net).is_ok());
  CHECK(ext.layers[1].weights == inline_net.layers[1].weights);
  fs::remove(temp_dir() / "ext_weights.bin");
  check_refused(path, "initializer 'w': external data file");
}

TEST_CASE(".npy files: round trip, integer labels, errors naming the file") {
  const std::string p = (temp_dir() / "a.npy").string();
  const float v[6] = {1.5f, -2, 3, 4, 5, 6.25f};
  REQUIRE(lw::write_npy(p, {2, 3}, v).is_ok());
  lw::NpyArray a;
  REQUIRE(lw::read_npy(p, &a).is_ok());
  CHECK(a.dims == std::vector<int64_t>{2, 3});
  CHECK(a.f32 == std::vector<float>(v, v + 6));
  // numpy.save(np.array([3, -1, 7], dtype=np.int32)), written by hand.
  std::string hdr = "{'descr': '<i4', 'fortran_order': False, 'shape': (3,), }";
  hdr.append(128 - 10 - hdr.size() - 1, ' ');
  hdr += '\n';
  std::string npy = std::string("\x93NUMPY\x01\x00", 8) + char(hdr.size()) + '\0' + hdr;
  for (int32_t x : {3, -1, 7}) npy.append(reinterpret_cast<const char*>(&x), 4);
  std::vector<int64_t> labels;
  REQUIRE(lw::read_npy_labels(save("labels.npy", npy), 3, &labels).is_ok());
  CHECK(labels == std::vector<int64_t>{3, -1, 7});
  CHECK(lw::read_npy_labels(save("labels.npy", npy), 4, &labels).message().find("expected 4 integer labels") != std::string::npos);
  CHECK(lw::read_npy(save("bad.npy", "PK\x03\x04 not numpy"), &a).message() == (temp_dir() / "bad.npy").string() + ": not a .npy file (bad magic)");
  CHECK(lw::read_npy(save("short.npy", npy.substr(0, npy.size() - 2)), &a).message().find("data bytes") != std::string::npos);
  std::vector<lw::Tensor> samples;
  CHECK(lw::read_npy_samples(p, lw::Shape{1, 3, 2, 2}, &samples).code() == lw::StatusCode::kInvalidArgument);
}

TEST_CASE("MODEL@HxW / @NxCxHxW: dynamic dimensions filled, a batch, a zoo model at another resolution; bad shapes one line") {
  onnx::ModelProto dynamic = tiny_model();
  auto* shape = dynamic.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape();
  shape->mutable_dim(0)->set_dim_param("N");
  shape->mutable_dim(2)->set_dim_param("H");
  shape->mutable_dim(3)->set_dim_param("W");
  const std::string path = save("dyn.onnx", dynamic);
  Result r = run("models --describe " + path + "@7x9");
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("model dyn@1x2x7x9: input 1x2x7x9") != std::string::npos);
  CHECK(r.out.find("3402 MACs") != std::string::npos);  // 3 x 7 x 9 outputs x 2 x 3 x 3 taps
  // A fixed shape is replaced too, where the graph fits it.
  const std::string fixed = save("fixed.onnx", tiny_model());
  CHECK(run("models --describe " + fixed + "@6x4").out.find("input 1x2x6x4") != std::string::npos);

  // A batch of 3: each sample's output is the batch-1 reference's for that sample.
  std::vector<float> x(3 * 2 * 5 * 5);
  for (size_t i = 0; i < x.size(); ++i) x[i] = float(int(i % 13) - 6) * 0.25f;
  const std::string in = (temp_dir() / "x3.npy").string(), out = (temp_dir() / "y3.npy").string();
  REQUIRE(lw::write_npy(in, {3, 2, 5, 5}, x.data()).is_ok());
  r = run("infer --model " + path + "@3x2x5x5 --input " + in + " --output " + out + " --all xnnpack --repeats 1");
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("top-5 [2]") != std::string::npos);
  lw::NpyArray y;
  REQUIRE(lw::read_npy(out, &y).is_ok());
  REQUIRE(y.dims == std::vector<int64_t>{3, 3, 5, 5});
  // The same file into the batch-1 model: one line that says how to take it as a batch.
  Result batch1 = run("infer --model " + fixed + " --input " + in);
  CHECK(batch1.code == 2);
  CHECK(count_lines(batch1.err) == 1);
  CHECK(batch1.err.find("holds 3 samples, the network takes 1 (--model M@3x2x5x5 takes them as one batch)") != std::string::npos);
  lw::Network one;
  REQUIRE(lw::import_onnx(fixed, &one).is_ok());
  for (int k = 0; k < 3; ++k) {
    lw::Tensor t = lw::Tensor::create(one.input_shape());
    std::copy(x.begin() + k * 50, x.begin() + (k + 1) * 50, t.f32());
    std::vector<lw::Tensor> ref;
    REQUIRE(lw::reference_forward(one, t, &ref).is_ok());
    double err = 0, scale = 0;
    for (int i = 0; i < 75; ++i) {
      err = std::max(err, double(std::fabs(y.f32[size_t(k * 75 + i)] - ref.back().f32()[i])));
      scale = std::max(scale, double(std::fabs(ref.back().f32()[i])));
    }
    CAPTURE(k);
    CHECK(scale > 0);
    CHECK(err <= 1e-5 * scale);
  }

  // Zoo models are built and every layer's shape inferred again.
  r = run("models --describe mobilenetv2@160x160");
  REQUIRE(r.code == 0);
  CHECK(r.out.find("model mobilenetv2@1x3x160x160: input 1x3x160x160") != std::string::npos);
  CHECK(r.out.find("1x32x80x80") != std::string::npos);  // the stride-2 stem
  Result small = run("models --describe alexnet@16x16");
  CHECK(small.code == 2);
  CHECK(count_lines(small.err) == 1);
  CHECK(small.err.find("alexnet@16x16: layer '") != std::string::npos);
  for (const std::string bad : {"@5", "@1x2x5", "@0x5", "@5xx5", "@axb", "@1x2x99999999x5"}) {
    Result b = run("models --describe " + path + bad);
    INFO(bad, ": ", b.err);
    CHECK(b.code == 2);
    CHECK(count_lines(b.err) == 1);
    CHECK(b.err.find("after '@' an input shape HxW or NxCxHxW") != std::string::npos);
  }
  // An '@' in a directory's or an existing file's name is the path's.
  fs::create_directories(temp_dir() / "me@host");
  const fs::path at_dir = temp_dir() / "me@host" / "fixed.onnx", at_name = temp_dir() / "net@v2.onnx";
  fs::copy_file(fixed, at_dir, fs::copy_options::overwrite_existing);
  fs::copy_file(fixed, at_name, fs::copy_options::overwrite_existing);
  CHECK(run("models --describe " + at_dir.string()).code == 0);
  CHECK(run("models --describe " + at_name.string()).code == 0);
  CHECK(run("models --describe " + at_dir.string() + "@6x6").out.find("input 1x2x6x6") != std::string::npos);
  // Without a shape the dynamic file is refused, and the error says how to give one.
  check_refused(path, "give one after the file name (net.onnx@HxW)");
}

TEST_CASE("infer reads the input from a file and writes the output tensor to a file") {
  const std::string model = save("infer.onnx", tiny_model());
  std::vector<float> x(2 * 5 * 5);
  for (size_t i = 0; i < x.size(); ++i) x[i] = float(int(i % 11) - 5) * 0.3f;
  const std::string in = (temp_dir() / "x.npy").string(), out = (temp_dir() / "y.npy").string();
  REQUIRE(lw::write_npy(in, {1, 2, 5, 5}, x.data()).is_ok());
  Result r = run("infer --model " + model + " --input " + in + " --output " + out + " --all xnnpack --repeats 1");
  INFO(r.err);
  REQUIRE(r.code == 0);
  lw::NpyArray y;
  REQUIRE(lw::read_npy(out, &y).is_ok());
  CHECK(y.dims == std::vector<int64_t>{1, 3, 5, 5});
  // The same input through the importer and the reference executor here.
  lw::Network net;
  REQUIRE(lw::import_onnx(model, &net).is_ok());
  lw::Tensor t = lw::Tensor::create(net.input_shape());
  std::copy(x.begin(), x.end(), t.f32());
  std::vector<lw::Tensor> ref;
  REQUIRE(lw::reference_forward(net, t, &ref).is_ok());
  double err = 0, scale = 0;
  for (size_t i = 0; i < y.f32.size(); ++i) {
    err = std::max(err, double(std::fabs(y.f32[i] - ref.back().f32()[i])));
    scale = std::max(scale, double(std::fabs(ref.back().f32()[i])));
  }
  CHECK(scale > 0);
  CHECK(err <= 1e-5 * scale);
  // An input of another shape: one line, exit 2.
  REQUIRE(lw::write_npy(in, {1, 2, 4, 5}, x.data()).is_ok());
  Result bad = run("infer --model " + model + " --input " + in);
  CHECK(bad.code == 2);
  CHECK(count_lines(bad.err) == 1);
  CHECK(bad.err.find("expected float32 samples of 2x5x5") != std::string::npos);
}

TEST_CASE("a config with eval_inputs but no eval_labels is refused with its JSON path") {
  const std::string cfg = save("cfg.json", R"({"model": ")" + save("cfg.onnx", tiny_model()) +
                                                R"(", "filter": {"eval_inputs": "x.npy"}})");
  Result r = run("run " + cfg);
  CHECK(r.code == 2);
  CHECK(count_lines(r.err) == 1);
  CHECK(r.err.find("/filter/eval_labels: eval_inputs and eval_labels go together") != std::string::npos);
}
