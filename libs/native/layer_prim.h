// Internal to libs/native: the common state of the non-conv layer primitives (geometry,
// input shapes, bound pointers) and their registration (NCHW and NHWC f32, every thread set).
#pragma once
#include <initializer_list>
#include <memory>

#include "libs/native/kernels.h"

namespace lw::native {

// Common state: layer geometry, input shapes and bound pointers.
class LayerPrim : public Primitive {
 public:
  explicit LayerPrim(const PrimitiveArgs& a)
      : Primitive(a.desc.name()), layer_(*a.layer), nhwc_(a.desc.layout_in == Layout::kNHWC), threads_(a.desc.threads) {
    // The copy keeps geometry only; packed weights live in each primitive.
    release_weights(layer_);
  }
  Status reshape(const std::vector<Shape>& in) override {
    in_ = in;
    return infer_layer_shape(layer_, in, &out_shape_);
  }
  Status setup(const std::vector<const void*>& in, void* out, void* workspace) override {
    if (in.size() != in_.size() || !out) return invalid_argument("wrong number of inputs or null output");
    x_.clear();
    for (const void* p : in) {
      if (!p) return invalid_argument("null input");
      x_.push_back(static_cast<const float*>(p));
    }
    y_ = static_cast<float*>(out);
    return Status::ok();
  }

 protected:
  Layer layer_;
  bool nhwc_;
  int threads_;
  std::vector<Shape> in_;
  std::vector<const float*> x_;
  float* y_ = nullptr;
};

template <typename P>
Status make(const PrimitiveArgs& a, std::unique_ptr<Primitive>* out) {
  *out = std::make_unique<P>(a);
  return Status::ok();
}

struct KindFactory {
  LayerKind kind;
  CreateFn create;
};

Status supports_layer(const ImplDesc& d, const Layer& l, const std::vector<Shape>& in);
/// Adds native f32 implementations of `kind` in each of `layouts` at every thread set.
void register_layer_kind(Registry& r, LayerKind kind, CreateFn create,
                         std::initializer_list<Layout> layouts = {Layout::kNCHW, Layout::kNHWC});

/// Affine, layer norm, channel shuffle and channel slice (layers_channel.cc).
void register_channel_layers(Registry& r);
/// int8 concat, NCHW and NHWC (concat_int8.cc), and the int8 activations.
void register_int8_layers(Registry& r);
/// int8 activations through a 256-entry table, NCHW and NHWC (activation_int8.cc).
void register_activations_int8(Registry& r);
/// Adds a native int8 implementation of `kind` in NCHW and NHWC at every thread set.
void register_int8_kind(Registry& r, LayerKind kind, SupportsFn supports, CreateFn create);
/// y[i] = table[x[i] + 128] for n bytes: a scalar loop, and 64 at a time with AVX512-VBMI
/// (table_lookup_avx512.cc; call it only where cpu_has("avx512vbmi")).
void lookup_scalar(const int8_t* table, const int8_t* x, int8_t* y, int64_t n);
void lookup_vbmi(const int8_t* table, const int8_t* x, int8_t* y, int64_t n);

}  // namespace lw::native
