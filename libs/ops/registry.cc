#include "libs/ops/registry.h"

namespace lw {

Status primitive_error(const char* verb, const std::string& name, const Status& why) {
  return {why.code(), std::string("failed to ") + verb + " " + name + ": " + why.message()};
}

Layer runtime_fusion_layer(const Layer& layer, LayerKind activation) {
  Layer l = layer;
  l.fused_activation = activation;
  return l;
}

bool can_fuse_next_activation(const Network& net, int i) {
  if (i <= 0 || i >= int(net.layers.size())) return false;
  const Layer& l = net.layers[i];
  if (l.kind != LayerKind::kConv2d || l.fused_activation != LayerKind::kInput) return false;
  auto cons = net.consumers();
  return cons[i].size() == 1 && is_activation(net.layers[cons[i][0]].kind);
}

ImplDesc fused_partner(const ImplDesc& producer, LayerKind activation) {
  ImplDesc d = producer;
  d.op = activation;
  d.library = Library::kNative;  // the pseudo-implementation is registered once, by native
  d.algorithm = Algorithm::kFused;
  d.fused_activation = false;
  d.layout_in = producer.layout_out;
  d.dtype_in = producer.dtype_out;
  return d;
}

LayerKind fusable_activation(const Network& net, int i) {
  if (!can_fuse_next_activation(net, i)) return LayerKind::kInput;
  for (size_t j = i + 1; j < net.layers.size(); ++j)
    for (int p : net.layers[j].inputs)
      if (p == i) return net.layers[j].kind;
  return LayerKind::kInput;
}

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
  LayerKind absorbs = fusable_activation(net, i);
  Layer fused = absorbs == LayerKind::kInput ? layer : runtime_fusion_layer(layer, absorbs);
  bool absorbed = is_activation(layer.kind) && fusable_activation(net, layer.inputs[0]) == layer.kind;
  std::vector<Candidate> out;
  for (const ImplEntry& e : entries_) {
    if (e.desc.op != layer.kind) continue;
    Status s;
    if (e.desc.fused_activation)
      s = absorbs == LayerKind::kInput ? unsupported("no activation follows to fuse") : e.supports(e.desc, fused, in);
    else if (e.desc.algorithm == Algorithm::kFused)
      s = absorbed ? e.supports(e.desc, layer, in) : unsupported("the producer cannot absorb this activation");
    else
      s = e.supports(e.desc, layer, in);
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
