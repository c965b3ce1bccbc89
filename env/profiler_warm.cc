// How the caches are before a layer is timed: as the network leaves them. The rest of the
// network's weights and activation arena pass through between two runs of a layer (the
// flush's size), the inputs come from their writers, a residual it adds to is read back like
// an input (WarmSet, env/measure.h).
#include <algorithm>

#include "env/profiler_impl.h"
#include "libs/exec/memory_plan.h"
#include "libs/ops/thread_pool.h"

namespace lw {

namespace profiling {

namespace {

// Inside a network every other layer's weights and the activation arena pass through the
// caches between two runs of a layer, so big layers find their weights in memory, not in L2
// or the shared cache as they do when timed back to back (MobileNetV2's 1280x1000 FC ran 2x
// slower in the network than in a warm profile). The cold-cache protocol reads that many
// bytes of other data before each run (cold_flush_bytes, at most kMaxCopies - 1 times the
// layer's own packed weights) and evicts L1/L2 when they do not fit there. Packing that many
// copies of the primitive and running each once took half of a ResNet-50 profile for the
// same bytes (results/reference/profile-speed/).
constexpr int kMaxCopies = 32;

// The bytes the rest of the network moves through the caches between two runs of a layer,
// its weights and activation arena in `element_bytes` each: the implementation's own
// activation type, as an int8 layer's neighbours are int8 too. Counted in f32, MobileNetV2's int8 network
// (~10 MB, which stays in a 32 MiB L3 from one inference to the next) flushed the shared
// cache: on a Zen 4 VM the int8 deployments ran 7-14 % faster than predicted at 1 thread,
// 2 % slower to 4 % faster with this count (results/reference/core-distance/int8-bytes/).
int64_t passing_bytes(const Protocol& p, int64_t net_weight_floats, int64_t net_arena_floats,
                      size_t element_bytes) {
  return int64_t(element_bytes) * (net_weight_floats + (p.cover_activations ? net_arena_floats : 0));
}

}  // namespace

size_t Profiler::flush_bytes_for(const Layer& l, const Primitive& prim, DType activations) const {
  return cold_flush_bytes(o_.protocol, net_weights_, net_arena_, weight_floats(l),
                          prim.packed_weight_bytes(), shared_cache_bytes(), dtype_bytes(activations));
}

// The primitive's inputs and output, random, set up on it; and how the caches are to be before
// each run: as the network leaves them (WarmSet, env/measure.h).
Status Profiler::set_up_buffers(int i, const PrimitiveArgs& args, Primitive& prim, Buffers* b) {
  std::vector<const void*> in_ptrs;
  b->out = Tensor::create(prim.output_shape(), prim.output_dtype(), args.desc.layout_out);
  const int acc = prim.accumulate_input();
  for (size_t k = 0; k < args.in_shapes.size(); ++k) {
    if (int(k) == acc) {  // in place, as the executor places it (the sums grow; harmless)
      fill_random(b->out, 17 + k);
      in_ptrs.push_back(b->out.data());
      continue;
    }
    b->inputs.push_back(Tensor::create(args.in_shapes[k], args.desc.dtype_in, args.desc.layout_in));
    fill_random(b->inputs.back(), 17 + k);
    in_ptrs.push_back(b->inputs.back().data());
  }
  b->workspace.resize(prim.workspace_bytes() + 64);
  LW_RETURN_IF_ERROR(prim.setup(in_ptrs, b->out.data(), b->workspace.data()));
  const int64_t passing = passing_bytes(o_.protocol, net_weights_, net_arena_, dtype_bytes(args.desc.dtype_in));
  WarmSet& warm = b->warm;
  warm.threads = args.desc.threads;
  warm.input_writers = args.desc.threads;  // (a step's inputs come from a step on its thread set, mostly)
  warm.evict = size_t(passing) > private_cache_bytes();
  warm.flush_bytes = flush_bytes_for(*args.layer, prim, args.desc.dtype_in);
  warm.age_ms = weights_age_ms(i, args.desc, prim.packed_weight_bytes());
  for (const Tensor& t : b->inputs) warm.buffers.emplace_back(t.data(), t.bytes());
  warm.start_as_in_network(o_.protocol, b->out.data(), b->out.bytes(), thread_pool_of(args.desc.library, args.desc.threads));
  // An output the primitive reads first (a residual it adds to) is an input, in the network
  // made shortly before: read back after the eviction, before the inputs (so that a large
  // one does not push them out). Left to start in the shared cache, it came from there or
  // from memory from one profile to the next: ResNet-50's int8 convs that add a residual
  // timed ~0.17 or ~0.4 ms, 0.16 ms in the network (results/reference/int8-layers/final/).
  if (acc >= 0) warm.buffers.insert(warm.buffers.begin(), {b->out.data(), b->out.bytes()});
  return Status::ok();
}

}  // namespace profiling

// The distinct activation elements one inference touches: its outputs placed in one arena
// with reuse, as the executor plans them (libs/exec/memory_plan.h; without in-place steps,
// which only shrink it). Every output's sum overstated it 4.5-11x on the bench models: on a
// Zen 3 VM a 63.5 MiB flush (MobileNetV2's weights and every output) timed its oneDNN f32
// convs 1.6-2.9x slower than the network ran them (results/reference/zen3/).
int64_t network_arena_floats(const Network& net) {
  std::vector<Buffer> b(net.layers.size());
  for (size_t i = 0; i < b.size(); ++i) {
    b[i] = {size_t(net.layers[i].out.elements()), int(i), int(i), -1};
    for (int p : net.layers[i].inputs) b[p].last = std::max(b[p].last, int(i));
  }
  if (!b.empty()) b.back().last = int(b.size());  // the network's output is read after the run
  return int64_t(plan_arena(b).arena_bytes);
}

size_t cold_flush_bytes(const Protocol& p, int64_t net_weight_floats, int64_t net_arena_floats,
                        int64_t own_weight_floats, size_t packed_bytes, size_t shared_cache, size_t element_bytes) {
  if (!p.cold_cache || packed_bytes == 0) return 0;
  int64_t copies = 1;
  if (p.cover_activations) {
    const int64_t passing = profiling::passing_bytes(p, net_weight_floats, net_arena_floats, element_bytes);
    const int64_t own = int64_t(packed_bytes);
    copies = (passing + own - 1) / own;
  } else if (own_weight_floats > 0) {
    copies = (net_weight_floats + own_weight_floats - 1) / own_weight_floats;
  }
  const size_t all = size_t(std::max<int64_t>(copies, 1) - 1) * packed_bytes;
  size_t cap = size_t(profiling::kMaxCopies - 1) * packed_bytes;
  if (p.cover_shared_cache) cap = std::max(cap, shared_cache);
  return std::min(all, cap);
}

}  // namespace lw
