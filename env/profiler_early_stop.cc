#include "env/profiler_early_stop.h"

namespace lw {

void Rivals::add(const Impl& impl) {
  if (impl.ok() && !impl.is_fused_consumer())
    groups_[group_of(impl)].push_back(
        {impl.latency_ms.median, impl.memory_bytes.weights, impl.memory_bytes.workspace, impl.name, impl});
}

const Rival* Rivals::rival_for(const Lut& lut, LayerKind kind, const Impl& impl, const StopRule& rule) const {
  auto it = groups_.find(group_of(impl));
  if (it == groups_.end()) return nullptr;
  const Rival* best = nullptr;
  for (const Rival& r : it->second)
    if (r.weights <= impl.memory_bytes.weights && r.workspace <= impl.memory_bytes.workspace &&
        (!best || r.median < best->median) && (!rule || rule(lut, kind, impl, r.impl)))
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
