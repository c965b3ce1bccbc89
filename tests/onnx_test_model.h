// A hand-made ONNX model for the importer's tests: one float input x [1, 3, 6, 5], nodes named
// after their first output, initializers, saved into a scratch folder.
#pragma once
#include <onnx/onnx_pb.h>

#include <fstream>
#include <string>
#include <vector>

#include "tests/onnx_newer_opsets.h"
#include "tests/scratch_dir.h"

namespace lw::testing {

struct Model {
  onnx::ModelProto m;

  explicit Model(int opset) {
    m.set_ir_version(8);
    m.add_opset_import()->set_version(opset);
    g()->set_name("forms");
    auto* in = g()->add_input();
    in->set_name("x");
    in->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
    for (int64_t v : {1, 3, 6, 5}) in->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(v);
  }
  onnx::GraphProto* g() { return m.mutable_graph(); }
  // Named after its first output, so that both forms name their layers alike.
  onnx::NodeProto* node(const std::string& op, const std::vector<std::string>& in, const std::vector<std::string>& out) {
    auto* n = g()->add_node();
    n->set_name(out[0]);
    n->set_op_type(op);
    for (const auto& s : in) n->add_input(s);
    for (const auto& s : out) n->add_output(s);
    return n;
  }
  void ints(const std::string& name, const std::vector<int64_t>& v) { *g()->add_initializer() = int64_tensor(name, v); }
  void floats(const std::string& name, const std::vector<int64_t>& dims, const std::vector<float>& v) {
    auto* t = g()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    for (int64_t d : dims) t->add_dims(d);
    for (float e : v) t->add_float_data(e);
  }
  void conv_weights(int out_channels) {
    auto* w = g()->add_initializer();
    w->set_name("w");
    w->set_data_type(onnx::TensorProto::FLOAT);
    for (int64_t v : {int64_t(out_channels), int64_t(3), int64_t(3), int64_t(3)}) w->add_dims(v);
    for (int i = 0; i < out_channels * 27; ++i) w->add_float_data(0.02f * float(i % 11) - 0.1f);
  }
  std::string save(const std::string& name) const {
    const std::string p = (scratch_dir("lw_onnx_opsets") / name).string();
    std::ofstream(p, std::ios::binary) << m.SerializeAsString();
    return p;
  }
};

}  // namespace lw::testing
