// Rewrites an ONNX model exported at opset 7 to 17 into the forms newer exporters write (opset 18
// on): attributes that became inputs as inputs (ReduceMean's axes among them), Pad with an axes
// input, Conv padding as an explicit Pad in front of the Conv (as TensorFlow's exporter writes
// SAME padding) and AveragePool's dilations (opset 19). Debian's PyTorch exports up to opset 17
// only, so this is how the importer's newer opsets meet real architectures in the tests (Split's
// num_outputs: test_onnx_opsets).
#pragma once
#include <onnx/onnx_pb.h>

#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace lw::testing {

inline onnx::TensorProto int64_tensor(const std::string& name, const std::vector<int64_t>& v) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(onnx::TensorProto::INT64);
  t.add_dims(int64_t(v.size()));
  for (int64_t e : v) t.add_int64_data(e);
  return t;
}

inline std::vector<int64_t> int64_values(const onnx::TensorProto& t) {
  if (t.data_type() != onnx::TensorProto::INT64) throw std::runtime_error(t.name() + ": not int64");
  if (!t.raw_data().empty()) {
    std::vector<int64_t> v(t.raw_data().size() / 8);
    std::memcpy(v.data(), t.raw_data().data(), v.size() * 8);
    return v;
  }
  return std::vector<int64_t>(t.int64_data().begin(), t.int64_data().end());
}

// An int64 constant by name: an initializer or a Constant node's value.
inline std::vector<int64_t> find_int64(const onnx::GraphProto& g, const std::string& name) {
  for (const auto& t : g.initializer())
    if (t.name() == name) return int64_values(t);
  for (const auto& n : g.node())
    if (n.op_type() == "Constant" && n.output(0) == name)
      for (const auto& a : n.attribute())
        if (a.name() == "value") return int64_values(a.t());
  throw std::runtime_error("no int64 constant '" + name + "'");
}

inline onnx::AttributeProto* find_attribute(onnx::NodeProto* n, const std::string& name) {
  for (auto& a : *n->mutable_attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

inline void remove_attribute(onnx::NodeProto* n, const std::string& name) {
  auto* attrs = n->mutable_attribute();
  for (int i = 0; i < attrs->size(); ++i)
    if (attrs->Get(i).name() == name) {
      attrs->DeleteSubrange(i, 1);
      return;
    }
}

inline void add_ints_attribute(onnx::NodeProto* n, const std::string& name, const std::vector<int64_t>& v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t e : v) a->add_ints(e);
}

inline void add_int_attribute(onnx::NodeProto* n, const std::string& name, int64_t v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}

// Pads given for every axis ([begins..., ends...] over `rank` axes) as opset 18's pads over an
// axes input that lists the axes backwards and negative, so that the mapping is exercised.
inline void pads_with_axes(onnx::GraphProto* g, onnx::NodeProto* pad, const std::vector<int64_t>& full,
                           const std::string& prefix) {
  const size_t rank = full.size() / 2;
  std::vector<int64_t> axes, begins, ends;
  for (size_t k = rank; k-- > 0;) {
    if (full[k] == 0 && full[rank + k] == 0 && !axes.empty()) continue;  // left out: padded by 0
    axes.push_back(int64_t(k) - int64_t(rank));
    begins.push_back(full[k]);
    ends.push_back(full[rank + k]);
  }
  begins.insert(begins.end(), ends.begin(), ends.end());
  *g->add_initializer() = int64_tensor(prefix + "_pads", begins);
  *g->add_initializer() = int64_tensor(prefix + "_axes", axes);
  while (pad->input_size() < 4) pad->add_input("");
  pad->set_input(1, prefix + "_pads");
  pad->set_input(3, prefix + "_axes");
}

inline std::vector<int64_t> ints_attribute(onnx::NodeProto* n, const std::string& name) {
  onnx::AttributeProto* a = find_attribute(n, name);
  return a ? std::vector<int64_t>(a->ints().begin(), a->ints().end()) : std::vector<int64_t>{};
}

// Attributes that became inputs (Unsqueeze / Squeeze / ReduceMean axes, Slice's starts, ends
// and axes, Clip's bounds, Pad's pads) move to initializers; BatchNormalization loses `spatial`.
inline void attributes_to_inputs(onnx::GraphProto* g, onnx::NodeProto* n, const std::string& id) {
  const std::string& op = n->op_type();
  auto move_ints = [&](const std::string& name, int slot) {
    if (!find_attribute(n, name)) return;
    *g->add_initializer() = int64_tensor(id + "_" + name, ints_attribute(n, name));
    remove_attribute(n, name);
    while (n->input_size() <= slot) n->add_input("");
    n->set_input(slot, id + "_" + name);
  };
  if (op == "Unsqueeze" || op == "Squeeze" || op == "ReduceMean") move_ints("axes", 1);
  if (op == "Slice") move_ints("starts", 1), move_ints("ends", 2), move_ints("axes", 3);
  if (op == "Pad") {
    move_ints("pads", 1);
    if (find_attribute(n, "value") && find_attribute(n, "value")->f() == 0) remove_attribute(n, "value");
  }
  if (op == "BatchNormalization") remove_attribute(n, "spatial");
  if (op == "Clip")
    for (const char* bound : {"min", "max"}) {
      onnx::AttributeProto* a = find_attribute(n, bound);
      if (!a) continue;
      onnx::TensorProto t;
      t.set_name(id + "_" + bound);
      t.set_data_type(onnx::TensorProto::FLOAT);
      t.add_float_data(a->f());
      *g->add_initializer() = t;
      const int slot = bound[1] == 'i' ? 1 : 2;
      remove_attribute(n, bound);
      while (n->input_size() <= slot) n->add_input("");
      n->set_input(slot, t.name());
    }
}

inline void to_newer_opset(onnx::ModelProto* m, int opset) {
  for (auto& o : *m->mutable_opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx") o.set_version(opset);
  onnx::GraphProto* g = m->mutable_graph();
  google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
  nodes.Swap(g->mutable_node());
  int fresh = 0;
  for (onnx::NodeProto& n : nodes) {
    const std::string id = "newer" + std::to_string(fresh++);
    attributes_to_inputs(g, &n, id);
    if (n.op_type() == "Pad" && n.input_size() >= 2 && !n.input(1).empty()) {
      pads_with_axes(g, &n, find_int64(*g, n.input(1)), id);
    } else if (n.op_type() == "Conv" && !find_attribute(&n, "auto_pad") && find_attribute(&n, "pads")) {
      onnx::AttributeProto* p = find_attribute(&n, "pads");
      std::vector<int64_t> pads(p->ints().begin(), p->ints().end());
      bool any = false;
      for (int64_t v : pads) any |= v != 0;
      if (any) {  // N and C unpadded in front, the spatial pads as they were
        const size_t sp = pads.size() / 2;
        std::vector<int64_t> full(2 * (sp + 2), 0);
        for (size_t k = 0; k < sp; ++k) full[2 + k] = pads[k], full[sp + 4 + k] = pads[sp + k];
        onnx::NodeProto* pad = g->add_node();
        pad->set_name(id + "_pad");
        pad->set_op_type("Pad");
        pad->add_input(n.input(0));
        pad->add_output(id + "_padded");
        pads_with_axes(g, pad, full, id);
        n.set_input(0, id + "_padded");
        for (auto& v : *p->mutable_ints()) v = 0;
      }
    } else if (n.op_type() == "AveragePool" && opset >= 19 && !find_attribute(&n, "dilations")) {
      add_ints_attribute(&n, "dilations", std::vector<int64_t>(size_t(find_attribute(&n, "kernel_shape")->ints_size()), 1));
    }
    *g->add_node() = n;
  }
}

}  // namespace lw::testing
