// Internal to libs/xnnpack: status mapping, thread pools and the primitive base class.
#pragma once
#include <xnnpack.h>

#include <string>
#include <vector>

#include "libs/ops/thread_pool.h"
#include "libs/xnnpack/xnnpack.h"

namespace lw::xnn {

/// ok, or failed("<what>: xnn_status <n>") (unsupported for xnn_status_unsupported_*).
Status check(xnn_status s, const char* what);
/// Initialises XNNPACK once; later calls return the first result.
Status initialize();
/// nullptr (run on the caller) for thread set 1; for 2, the shared 2-thread pool: libgomp's
/// team (omp_pthreadpool.cc), the kOpenmp pool of the executor and the cost model.
pthreadpool_t pool_for(int threads);

/// Output clamp of a fused activation for f32 operators: none, relu, relu6; otherwise
/// unsupported.
Status f32_bounds(LayerKind act, float* lo, float* hi);

/// Owns one xnn operator; run() is the only timed call and only runs the operator.
class XnnPrim : public Primitive {
 public:
  explicit XnnPrim(const PrimitiveArgs& a);
  ~XnnPrim() override;
  Status reshape(const std::vector<Shape>& in) override;
  Status run() override;

 protected:
  Layer layer_;  // geometry only; weights dropped once packed
  ImplDesc desc_;
  std::vector<Shape> in_;
  pthreadpool_t pool_;
  xnn_operator_t op_ = nullptr;
};

// Factories (xnn_conv.cc, xnn_layers.cc).
Status create_conv(const PrimitiveArgs& a, std::unique_ptr<Primitive>* out);
Status create_fc(const PrimitiveArgs& a, std::unique_ptr<Primitive>* out);
Status create_layer(const PrimitiveArgs& a, std::unique_ptr<Primitive>* out);
// Supports checks.
Status supports_conv(const ImplDesc& d, const Layer& l, const std::vector<Shape>& in);
Status supports_fc(const ImplDesc& d, const Layer& l, const std::vector<Shape>& in);
Status supports_layer(const ImplDesc& d, const Layer& l, const std::vector<Shape>& in);

}  // namespace lw::xnn
