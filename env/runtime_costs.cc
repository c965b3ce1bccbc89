#include "env/runtime_costs.h"

#include <cstring>

#include "libs/core/tensor.h"

namespace lw {

namespace {

Status time_copy(const Shape& shape, const Protocol& protocol, double* ms) {
  Tensor src = Tensor::create(shape), dst = Tensor::create(shape);
  fill_random(src, 41);  // (an unwritten source reads as the zero page)
  fill_random(dst, 42);
  LatencyStats stats;
  Protocol warm = protocol;
  warm.cold_cache = false;
  LW_RETURN_IF_ERROR(measure(warm, [&] {
    std::memcpy(dst.data(), src.data(), src.bytes());
    return Status::ok();
  }, &stats));
  *ms = stats.median;
  return Status::ok();
}

}  // namespace

Status measure_runtime_costs(const Network& net, const Protocol& protocol, RuntimeCosts* out) {
  if (net.layers.empty()) return invalid_argument("runtime costs: empty network");
  LW_RETURN_IF_ERROR(time_copy(net.input_shape(), protocol, &out->input_copy_ms));
  return time_copy(net.layers.back().out, protocol, &out->output_copy_ms);
}

}  // namespace lw
