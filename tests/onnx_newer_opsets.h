// Rewrites an ONNX model exported at opset 7 to 17 into the forms newer exporters write (opset 18
// on): attributes that became inputs as inputs (ReduceMean's axes among them), Pad with an axes
// input, Conv padding as an explicit Pad in front of the Conv (as TensorFlow's exporter writes
// SAME padding), AveragePool's dilations (opset 19), and a spelt-out LayerNorm and GELU as the
// LayerNormalization (17) and Gelu (20) ops. Debian's PyTorch exports up to opset 17 only, so
// this is how the importer's newer opsets meet real architectures in the tests (Split's
// num_outputs: test_onnx_opsets).
#pragma once
#include <onnx/onnx_pb.h>

#include <cstring>
#include <map>
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

// A constant by name: an initializer or a Constant node's value.
inline const onnx::TensorProto& find_constant(const onnx::GraphProto& g, const std::string& name) {
  for (const auto& t : g.initializer())
    if (t.name() == name) return t;
  for (const auto& n : g.node())
    if (n.op_type() == "Constant" && n.output(0) == name)
      for (const auto& a : n.attribute())
        if (a.name() == "value") return a.t();
  throw std::runtime_error("no constant '" + name + "'");
}

inline std::vector<int64_t> find_int64(const onnx::GraphProto& g, const std::string& name) {
  return int64_values(find_constant(g, name));
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

inline std::vector<int64_t> ints_attribute(const onnx::NodeProto& n, const std::string& name) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return std::vector<int64_t>(a.ints().begin(), a.ints().end());
  return {};
}

// Attributes that became inputs (Unsqueeze / Squeeze / ReduceMean axes, Slice's starts, ends
// and axes, Clip's bounds, Pad's pads) move to initializers; BatchNormalization loses `spatial`.
inline void attributes_to_inputs(onnx::GraphProto* g, onnx::NodeProto* n, const std::string& id) {
  const std::string& op = n->op_type();
  auto move_ints = [&](const std::string& name, int slot) {
    if (!find_attribute(n, name)) return;
    *g->add_initializer() = int64_tensor(id + "_" + name, ints_attribute(*n, name));
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

// A float scalar constant by name (float or double).
inline double find_scalar(const onnx::GraphProto& g, const std::string& name) {
  const onnx::TensorProto& t = find_constant(g, name);
  const bool dbl = t.data_type() == onnx::TensorProto::DOUBLE;
  if (t.data_type() != onnx::TensorProto::FLOAT && !dbl) throw std::runtime_error(name + ": not a float scalar");
  if (!t.raw_data().empty()) {
    double d = 0;
    float f = 0;
    std::memcpy(dbl ? static_cast<void*>(&d) : &f, t.raw_data().data(), dbl ? 8 : 4);
    return dbl ? d : double(f);
  }
  return dbl ? t.double_data(0) : double(t.float_data(0));
}

// Who makes and who reads each value of a node list.
struct NodeIndex {
  const google::protobuf::RepeatedPtrField<onnx::NodeProto>& nodes;
  std::map<std::string, int> producer;
  std::map<std::string, std::vector<int>> readers;
  explicit NodeIndex(const google::protobuf::RepeatedPtrField<onnx::NodeProto>& n) : nodes(n) {
    for (int i = 0; i < n.size(); ++i) {
      for (const auto& o : n[i].output()) producer[o] = i;
      for (const auto& in : n[i].input()) readers[in].push_back(i);
    }
  }
  // The node of type `op` that makes `v`, or -1.
  int made_by(const std::string& v, const std::string& op) const {
    auto it = producer.find(v);
    return it != producer.end() && nodes[it->second].op_type() == op ? it->second : -1;
  }
  // The one node reading `v`, of type `op`, or -1.
  int read_only_by(const std::string& v, const std::string& op) const {
    auto it = readers.find(v);
    return it != readers.end() && it->second.size() == 1 && nodes[it->second[0]].op_type() == op ? it->second[0] : -1;
  }
};

// A two-input node's input other than `v`.
inline std::string other_input(const onnx::NodeProto& n, const std::string& v) {
  return n.input(0) == v ? n.input(1) : n.input(0);
}

inline onnx::NodeProto node_of(const std::string& op, const std::vector<std::string>& in, const std::string& out) {
  onnx::NodeProto n;
  n.set_op_type(op);
  n.set_name(out + "_" + op);
  for (const auto& i : in) n.add_input(i);
  n.add_output(out);
  return n;
}

// ConvNeXt's LayerNorm and GELU as PyTorch spells them before opsets 17 and 20 (ReduceMean, Sub,
// Pow, ReduceMean, Add, Sqrt, Div, Mul, Add; Div, Erf, Add, Mul, Mul) become the single
// LayerNormalization (opset 17) and Gelu (opset 20) nodes that exporters write from then on.
inline void spelt_out_to_ops(onnx::GraphProto* g, int opset) {
  const auto& nodes = g->node();
  const NodeIndex ix(nodes);
  std::vector<bool> drop(size_t(nodes.size()), false);
  std::map<int, onnx::NodeProto> replaced;
  for (int i = 0; i < nodes.size(); ++i) {
    const onnx::NodeProto& n = nodes[i];
    if (opset >= 20 && n.op_type() == "Erf") {
      const int div = ix.made_by(n.input(0), "Div"), add = ix.read_only_by(n.output(0), "Add");
      const int mul = add < 0 ? -1 : ix.read_only_by(nodes[add].output(0), "Mul");
      const int half = mul < 0 ? -1 : ix.read_only_by(nodes[mul].output(0), "Mul");
      if (div < 0 || half < 0 || other_input(nodes[mul], nodes[add].output(0)) != nodes[div].input(0)) continue;
      for (int k : {div, i, add, mul}) drop[size_t(k)] = true;
      replaced[half] = node_of("Gelu", {nodes[div].input(0)}, nodes[half].output(0));
    }
    if (opset >= 17 && n.op_type() == "Sqrt") {
      const int plus = ix.made_by(n.input(0), "Add");
      if (plus < 0) continue;
      const bool var_first = ix.made_by(nodes[plus].input(0), "ReduceMean") >= 0;
      const std::string eps = nodes[plus].input(var_first ? 1 : 0);
      const int var = ix.made_by(nodes[plus].input(var_first ? 0 : 1), "ReduceMean");
      const int pow = var < 0 ? -1 : ix.made_by(nodes[var].input(0), "Pow");
      const int sub = pow < 0 ? -1 : ix.made_by(nodes[pow].input(0), "Sub");
      const int mean = sub < 0 ? -1 : ix.made_by(nodes[sub].input(1), "ReduceMean");
      const int div = ix.read_only_by(n.output(0), "Div");
      const int scale = div < 0 ? -1 : ix.read_only_by(nodes[div].output(0), "Mul");
      const int shift = scale < 0 ? -1 : ix.read_only_by(nodes[scale].output(0), "Add");
      if (mean < 0 || shift < 0) continue;
      onnx::NodeProto ln = node_of("LayerNormalization",
                                   {nodes[sub].input(0), other_input(nodes[scale], nodes[div].output(0)),
                                    other_input(nodes[shift], nodes[scale].output(0))},
                                   nodes[shift].output(0));
      add_int_attribute(&ln, "axis", ints_attribute(nodes[mean], "axes").at(0));
      auto* e = ln.add_attribute();
      e->set_name("epsilon");
      e->set_type(onnx::AttributeProto::FLOAT);
      e->set_f(float(find_scalar(*g, eps)));
      for (int k : {mean, sub, pow, var, plus, i, div, scale}) drop[size_t(k)] = true;
      replaced[shift] = ln;
    }
  }
  google::protobuf::RepeatedPtrField<onnx::NodeProto> kept;
  for (int i = 0; i < nodes.size(); ++i)
    if (replaced.count(i)) *kept.Add() = replaced[i];
    else if (!drop[size_t(i)]) *kept.Add() = nodes[i];
  g->mutable_node()->Swap(&kept);
}

inline void to_newer_opset(onnx::ModelProto* m, int opset) {
  for (auto& o : *m->mutable_opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx") o.set_version(opset);
  onnx::GraphProto* g = m->mutable_graph();
  spelt_out_to_ops(g, opset);
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
