#include "libs/ops/registry.h"

#include <algorithm>

namespace lw {

Status primitive_error(const char* verb, const std::string& name, const Status& why) {
  return {why.code(), std::string("failed to ") + verb + " " + name + ": " + why.message()};
}

Layer runtime_fusion_layer(const Layer& layer, LayerKind activation) {
  Layer l = layer;
  l.fused_activation = activation;
  return l;
}

Layer runtime_fusion_layer(const Layer& layer, const RuntimeFusion& f) {
  Layer l = runtime_fusion_layer(layer, f.activation);
  l.fused_residual = f.add >= 0;
  return l;
}

namespace {
int only_consumer(const std::vector<std::vector<int>>& cons, int i) { return cons[i].size() == 1 ? cons[i][0] : -1; }
}  // namespace

bool int8_keeps_input_quant(LayerKind k) {
  return k == LayerKind::kMaxPool || k == LayerKind::kAvgPool || k == LayerKind::kGlobalAvgPool;
}

RuntimeFusion runtime_fusion(const Network& net, int i) {
  RuntimeFusion f;
  if (i <= 0 || i >= int(net.layers.size())) return f;
  const Layer& l = net.layers[i];
  if (l.kind != LayerKind::kConv2d || l.fused_activation != LayerKind::kInput) return f;
  auto cons = net.consumers();
  const int j = only_consumer(cons, i);
  if (j < 0) return f;
  const Layer& c = net.layers[j];
  if (conv_can_absorb(c.kind)) {
    f.activation = c.kind;
    f.activation_layer = j;
    return f;
  }
  if (c.kind != LayerKind::kAdd || c.inputs.size() != 2) return f;
  const int r = c.inputs[0] == i ? c.inputs[1] : c.inputs[0];
  // The residual must exist when the conv runs, and be added without broadcast.
  if (r >= i || net.layers[r].out != l.out) return f;
  f.add = j;
  f.residual = r;
  const int k = only_consumer(cons, j);
  if (c.fused_activation != LayerKind::kInput) {
    f.activation = c.fused_activation;
  } else if (k >= 0 && conv_can_absorb(net.layers[k].kind)) {
    f.activation = net.layers[k].kind;
    f.activation_layer = k;
  }
  return f;
}

int absorber_of(const Network& net, int j) {
  if (j <= 0 || j >= int(net.layers.size())) return -1;
  const Layer& l = net.layers[j];
  if (l.kind == LayerKind::kAdd && l.inputs.size() == 2) {
    const int p = std::max(l.inputs[0], l.inputs[1]);
    return runtime_fusion(net, p).add == j ? p : -1;
  }
  if (!conv_can_absorb(l.kind)) return -1;
  const int p = l.inputs[0];
  if (net.layers[p].kind == LayerKind::kConv2d) return runtime_fusion(net, p).activation_layer == j ? p : -1;
  const int conv = net.layers[p].kind == LayerKind::kAdd ? absorber_of(net, p) : -1;
  return conv >= 0 && runtime_fusion(net, conv).activation_layer == j ? p : -1;
}

bool can_fuse_next_activation(const Network& net, int i) { return runtime_fusion(net, i).any(); }

ImplDesc fused_partner(const ImplDesc& producer, LayerKind op) {
  ImplDesc d = producer;
  d.op = op;
  d.library = Library::kNative;  // the pseudo-implementation is registered once, by native
  d.algorithm = Algorithm::kFused;
  d.fused_activation = false;
  d.layout_in = producer.layout_out;
  d.dtype_in = producer.dtype_out;
  return d;
}

std::optional<ImplDesc> absorbed_partner(const Network& net, const std::vector<ImplDesc>& a, int i) {
  const int p = absorber_of(net, i);
  if (p < 0 || size_t(p) >= a.size() || !a[p].fused_activation) return std::nullopt;
  ImplDesc d = fused_partner(a[p], net.layers[i].kind);
  d.fused_activation = net.layers[i].kind == LayerKind::kAdd && runtime_fusion(net, p).activation_layer >= 0;
  return d;
}

LayerKind fusable_activation(const Network& net, int i) { return runtime_fusion(net, i).activation; }

void Registry::add(ImplEntry entry) {
  LW_CHECK(find(entry.desc) == nullptr);
  LW_CHECK(entry.supports && entry.create);
  entries_.push_back(std::move(entry));
}

void Registry::add_conversion(ConversionEntry entry) {
  LW_CHECK(find_conversion(entry.desc) == nullptr);
  LW_CHECK(entry.create != nullptr);
  conversions_.push_back(std::move(entry));
}

const ImplEntry* Registry::find(const ImplDesc& d) const {
  for (const ImplEntry& e : entries_)
    if (e.desc == d) return &e;
  return nullptr;
}

const ConversionEntry* Registry::find_conversion(const ConversionDesc& d) const {
  for (const ConversionEntry& e : conversions_)
    if (e.desc == d) return &e;
  return nullptr;
}

std::vector<Candidate> Registry::candidates(const Layer& layer, const std::vector<Shape>& in) const {
  std::vector<Candidate> out;
  for (const ImplEntry& e : entries_)
    if (e.desc.op == layer.kind) out.push_back({e.desc, e.supports(e.desc, layer, in)});
  return out;
}

std::vector<Candidate> Registry::candidates(const Network& net, int i) const {
  const Layer& layer = net.layers[i];
  auto in = input_shapes(net, i);
  const RuntimeFusion f = runtime_fusion(net, i);
  const Layer fused = runtime_fusion_layer(layer, f);
  auto fused_in = in;
  if (f.add >= 0) fused_in.push_back(layer.out);  // the residual, in the conv's output format
  const int absorber = absorber_of(net, i);
  // An absorbed add passes the absorption on (flagged) exactly when its activation is absorbed too.
  const bool passes_on = absorber >= 0 && layer.kind == LayerKind::kAdd && runtime_fusion(net, absorber).activation_layer >= 0;
  std::vector<Candidate> out;
  for (const ImplEntry& e : entries_) {
    if (e.desc.op != layer.kind) continue;
    Status s;
    if (e.desc.algorithm == Algorithm::kFused) {
      if (absorber < 0) s = unsupported("the producer cannot absorb this layer");
      else if (e.desc.fused_activation != passes_on)
        s = unsupported(passes_on ? "the activation after this add is absorbed too: the flagged form stands for both"
                                  : "nothing after this layer is absorbed");
      else s = e.supports(e.desc, layer, in);
    } else if (e.desc.fused_activation) {
      s = !f.any() ? unsupported("no activation or residual add follows to fuse") : e.supports(e.desc, fused, fused_in);
      if (!s.is_ok() && f.add >= 0) s = unsupported("with the residual add it would absorb: " + s.message());
    } else {
      s = e.supports(e.desc, layer, in);
    }
    out.push_back({e.desc, s});
  }
  return out;
}

Status Registry::supports(const ImplDesc& d, const Layer& layer, const std::vector<Shape>& in) const {
  const ImplEntry* e = find(d);
  if (!e) return {StatusCode::kNotFound, "no backend registered " + d.name()};
  if (d.op != layer.kind)
    return invalid_argument(std::string(to_string(d.op)) + " implementation for layer '" + layer.name + "' of kind " +
                            to_string(layer.kind));
  return e->supports(d, layer, in);
}

Status Registry::create(const PrimitiveArgs& args, std::unique_ptr<Primitive>* out) const {
  LW_CHECK(args.layer != nullptr);
  const std::string name = args.desc.name() + " for layer '" + args.layer->name + "'";
  Status s = supports(args.desc, *args.layer, args.in_shapes);
  if (!s.is_ok()) return primitive_error("create", name, s);
  std::unique_ptr<Primitive> p;
  s = find(args.desc)->create(args, &p);
  if (!s.is_ok()) return primitive_error("create", name, s);
  s = p->reshape(args.in_shapes);
  if (!s.is_ok()) return primitive_error("reshape", name, s);
  *out = std::move(p);
  return Status::ok();
}

Status Registry::create_conversion(const ConversionDesc& d, const Shape& shape, QuantParams q,
                                   std::unique_ptr<Primitive>* out) const {
  const ConversionEntry* e = find_conversion(d);
  if (!e) return primitive_error("create", d.name(), {StatusCode::kNotFound, "no backend registered it"});
  std::unique_ptr<Primitive> p;
  Status s = e->create(d, shape, q, &p);
  if (!s.is_ok()) return primitive_error("create", d.name(), s);
  s = p->reshape({shape});
  if (!s.is_ok()) return primitive_error("reshape", d.name(), s);
  *out = std::move(p);
  return Status::ok();
}

}  // namespace lw
