#include "env/profiler_early_stop.h"

namespace lw {

void Rivals::add(const Impl& impl) {
  if (impl.ok() && !impl.is_fused_consumer())
    groups_[group_of(impl)].push_back(
        {impl.latency_ms.median, impl.memory_bytes.weights, impl.memory_bytes.workspace, impl.name, impl});
}

namespace {

WeightQuantization weights_of(const Impl& m) {
  const std::optional<Algorithm> a = parse_algorithm(m.algorithm);
  return a ? weight_quantization(*a) : WeightQuantization{};
}

}  // namespace

bool weights_no_coarser(const Impl& rival, const Impl& slow) {
  if (slow.dtype != DType::kI8) return true;
  const WeightQuantization r = weights_of(rival), s = weights_of(slow);
  return r.qmax >= s.qmax && (r.per_channel || !s.per_channel);
}

const Rival* Rivals::rival_for(const Lut& lut, LayerKind kind, const Impl& impl, const StopRule& rule) const {
  auto it = groups_.find(group_of(impl));
  if (it == groups_.end()) return nullptr;
  const Rival* best = nullptr;
  for (const Rival& r : it->second)
    if (r.weights <= impl.memory_bytes.weights && r.workspace <= impl.memory_bytes.workspace &&
        weights_no_coarser(r.impl, impl) && (!best || r.median < best->median) && (!rule || rule(lut, kind, impl, r.impl)))
      best = &r;
  return best;
}

double Rivals::best_median(const Impl& impl) const {
  auto it = groups_.find(group_of(impl));
  double best = 0;
  if (it != groups_.end())
    for (const Rival& r : it->second) best = best > 0 ? std::min(best, r.median) : r.median;
  return best;
}

}  // namespace lw
