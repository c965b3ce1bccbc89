/// \file
/// The implementation registry: every backend registers, per descriptor, a `supports`
/// check and a factory. The profiler enumerates candidates(layer) (unsupported ones come
/// with their reason, which goes into the LUT); the executor creates primitives by
/// descriptor. Backends register explicitly (register_<backend>(Registry&)); no static
/// initialisers, so static libraries keep working.
#pragma once
#include <functional>
#include <memory>
#include <vector>

#include "libs/ops/primitive.h"

namespace lw {

using SupportsFn = std::function<Status(const ImplDesc&, const Layer&, const std::vector<Shape>&)>;
using CreateFn = std::function<Status(const PrimitiveArgs&, std::unique_ptr<Primitive>*)>;
using CreateConversionFn = std::function<Status(const ConversionDesc&, const Shape&, QuantParams, std::unique_ptr<Primitive>*)>;

struct ImplEntry {
  ImplDesc desc;
  SupportsFn supports;  // ok, or unsupported + reason
  CreateFn create;
};

struct ConversionEntry {
  ConversionDesc desc;
  CreateConversionFn create;  // (desc, shape, quant params of the tensor, out)
};

struct Candidate {
  ImplDesc desc;
  Status supported;  // ok, or why not
};

class Registry {
 public:
  /// Adding a descriptor twice is a programmer error (LW_CHECK).
  void add(ImplEntry entry);
  void add_conversion(ConversionEntry entry);

  const std::vector<ImplEntry>& entries() const { return entries_; }
  const std::vector<ConversionEntry>& conversions() const { return conversions_; }
  const ImplEntry* find(const ImplDesc& d) const;
  const ConversionEntry* find_conversion(const ConversionDesc& d) const;

  /// Every registered descriptor for layer.kind, in registration order, with supported
  /// status. `fused` descriptors are included; whether the network allows them is
  /// can_fuse_next_activation()'s business.
  std::vector<Candidate> candidates(const Layer& layer, const std::vector<Shape>& in) const;
  /// Candidates for layer i in its network, runtime fusion resolved: a `fused` conv is
  /// checked against the activation it would absorb (unsupported when none follows), and an
  /// activation's `fused` pseudo-implementation is supported only when its producer can
  /// absorb it. What the profiler measures and assignments draw from.
  std::vector<Candidate> candidates(const Network& net, int i) const;
  Status supports(const ImplDesc& d, const Layer& layer, const std::vector<Shape>& in) const;

  /// create + reshape, errors as "failed to create <name>: <reason>".
  Status create(const PrimitiveArgs& args, std::unique_ptr<Primitive>* out) const;
  Status create_conversion(const ConversionDesc& d, const Shape& shape, QuantParams q, std::unique_ptr<Primitive>* out) const;

 private:
  std::vector<ImplEntry> entries_;
  std::vector<ConversionEntry> conversions_;
};

}  // namespace lw
