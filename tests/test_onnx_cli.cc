// Malformed and unsupported ONNX files through the CLI: one line on stderr naming the file
// (and the node, its op type and the opset where there is one), exit code 2, never a crash.
// The models are built here with ONNX's protobuf classes; a good one is checked first so that
// each bad one differs from it in exactly one way.
#include <doctest/doctest.h>
#include <onnx/onnx_pb.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

#include "libs/data/npy.h"

namespace fs = std::filesystem;

namespace {

struct Result {
  int code;
  std::string out, err;
};

std::string slurp(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

fs::path temp_dir() {
  fs::path d = fs::temp_directory_path() / ("lw_onnx_cli_" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d;
}

Result run(const std::string& args) {
  const fs::path d = temp_dir();
  const std::string out = (d / "out").string(), err = (d / "err").string();
  int raw = std::system((std::string(LAYERWISE_BIN) + " " + args + " >" + out + " 2>" + err).c_str());
  return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, slurp(out), slurp(err)};
}

int lines(const std::string& s) { return int(std::count(s.begin(), s.end(), '\n')); }

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
  CHECK(lines(r.err) == 1);
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
  old.mutable_opset_import(0)->set_version(9);
  check_refused(save("opset9.onnx", old), "opset 9 (supported: 11 to 17)");

  // A symbolic batch is fine: it becomes 1.
  onnx::ModelProto batch = good;
  batch.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0)->set_dim_param("N");
  CHECK(run("models --describe " + save("batch.onnx", batch)).code == 0);
}
