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
/// nullptr (run on the caller) for thread set 1; the shared 2-thread pool for 2.
pthreadpool_t pool_for(int threads);
/// Sends the 2-thread pool's workers to kernel wait now instead of spinning (a no-op job
/// with PTHREADPOOL_FLAG_YIELD_WORKERS; see release_pool in libs/ops/thread_pool.h).
void release_pool2();
/// Two busy items of `item_us` on the 2-thread pool (register_pool_job).
void pool2_job(double item_us);
/// A parallel_for's two chunks on the 2-thread pool, one item each (register_pool_range).
void pool2_range(int64_t mid, int64_t n, detail::RangeFn fn, void* ctx);

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
