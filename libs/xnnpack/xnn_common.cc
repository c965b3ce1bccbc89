#include <cmath>
#include <limits>

#include "libs/ops/thread_pool.h"
#include "libs/xnnpack/xnn_common.h"

namespace lw::xnn {

Status check(xnn_status s, const char* what) {
  if (s == xnn_status_success) return Status::ok();
  std::string m = std::string(what) + ": xnn_status " + std::to_string(int(s));
  if (s == xnn_status_unsupported_parameter || s == xnn_status_unsupported_hardware) return unsupported(m);
  if (s == xnn_status_out_of_memory) return {StatusCode::kOutOfMemory, m};
  if (s == xnn_status_invalid_parameter) return invalid_argument(m);
  return failed(m);
}

Status initialize() {
  static const Status s = check(xnn_initialize(nullptr), "xnn_initialize");
  return s;
}

pthreadpool_t pool_for(int threads) {
  if (threads <= 1) return nullptr;
  // Created at registration and kept for the process lifetime: a handle to libgomp's
  // team (omp_pthreadpool.cc), prepared by prepare_omp_team.
  static pthreadpool_t pool2 = make_xnnpack_pool2();
  return pool2;
}

Status f32_bounds(LayerKind act, float* lo, float* hi) {
  *lo = -std::numeric_limits<float>::infinity();
  *hi = std::numeric_limits<float>::infinity();
  switch (act) {
    case LayerKind::kInput: return Status::ok();
    case LayerKind::kRelu: *lo = 0.f; return Status::ok();
    case LayerKind::kRelu6: *lo = 0.f; *hi = 6.f; return Status::ok();
    default: return unsupported(std::string("xnnpack fuses only relu / relu6 as an output clamp, not ") + to_string(act));
  }
}

XnnPrim::XnnPrim(const PrimitiveArgs& a)
    : Primitive(a.desc.name()), layer_(*a.layer), desc_(a.desc), pool_(pool_for(a.desc.threads)) {
  release_weights(layer_);
  out_dtype_ = a.desc.dtype_out;
}

XnnPrim::~XnnPrim() {
  if (op_) xnn_delete_operator(op_);
}

Status XnnPrim::reshape(const std::vector<Shape>& in) {
  in_ = in;
  return infer_layer_shape(layer_, in, &out_shape_);
}

Status XnnPrim::run() { return check(xnn_run_operator(op_, pool_), "xnn_run_operator"); }

}  // namespace lw::xnn
