/// \file
/// Phase 1 of QS-DNN (§V-A): measure on this device the latency and memory of every
/// applicable implementation of every layer, and the cost of every format conversion the
/// search may need, and write them as a LUT (env/lut.h). Kernels run only through the
/// libs/ registry. Entries are flushed atomically after each layer to `<out>.partial`, so a
/// killed run resumes where it stopped and loses nothing.
#pragma once
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "env/lut.h"
#include "env/measure.h"
#include "env/profiler_early_stop.h"
#include "libs/ir/network.h"
#include "libs/ops/registry.h"

namespace lw {

struct ProfileProgress {
  int layer = 0, layers = 0;          // current layer (1-based) of all
  int64_t done = 0, total = 0;        // implementations measured / to measure
  std::string current;                // implementation being measured
  double elapsed_s = 0, eta_s = 0;
};

/// Where a profile's wall-clock time went, so the protocol can be cut where it costs: per
/// library, layer kind and thread set, the primitive creation (weight packing, setup, timing
/// inputs) and the measurement (cache preparation, warm-up, timed runs), and of that the timed
/// runs themselves (timed_s: runs x their mean): on mobilenetv3_small@96x96 with every library
/// 4.6 s of a 7-minute profile, the rest each run's cold-cache preparation (the computing
/// before each run, Protocol::computing_us, ~60 % of the profile's cycles; the read of other
/// data ~11 %; the private eviction ~5 %: perf, results/reference/zen5-dec7/).
struct ProfileSpent {
  struct Split {
    double create_s = 0, measure_s = 0, timed_s = 0;
    int64_t measured = 0, runs = 0, skipped = 0;  // impls timed (not from the cache), timed runs
    double total_s() const { return create_s + measure_s; }
  };
  std::map<std::string, Split> by_library, by_kind, by_threads;
  double conversions_s = 0, runtime_s = 0, total_s = 0;
  /// Implementations timed again with their weights an inference old (Protocol::
  /// age_streamed_weights): the LUT keeps aged_ms; fresh_ms is the first timing (a
  /// skipped one's fastest run).
  struct Aged {
    std::string layer, impl;
    double age_ms = 0, fresh_ms = 0, aged_ms = 0;
  };
  std::vector<Aged> aged;
  double aged_s = 0;  // the time those second timings took
  /// 2-thread implementations timed again because the cores were far apart, or shared one
  /// core, while their layer was timed (Protocol::far_cores_wait_s; link_ns: the farther of
  /// the probes around the first timing). The LUT keeps again_ms; first_ms is the first timing (a skipped
  /// one's fastest run).
  struct Retimed {
    std::string layer, impl;
    double link_ns = 0, first_ms = 0, again_ms = 0;
    double pair_ratio = 0;  // the larger pair probe around the first timing (speed_probe.h)
  };
  std::vector<Retimed> retimed_far;
  /// 2-thread implementations whose runs the pair probe found on one core (speed_probe.h
  /// cores_shared) and timed again at once; and those still so at their last try.
  int shared_retried = 0, shared_kept = 0;
  double nearest_link_ns = 0;  // the profile's nearest core link, what "far" is measured from
  double far_wait_s = 0;       // waiting for the cores to be near again, and apart (polls included)
  double retimed_far_s = 0;    // the second timings
  int far_kept = 0;            // far-timed implementations kept: the cores stayed far past the wait
  std::vector<std::string> far_stages_again;  // "conversions", "hand-offs": run again, far by their end (or inside)
};

struct ProfileOptions {
  std::vector<Library> libraries;     // empty: every registered library
  std::vector<int> threads{1, 2};     // thread sets to measure
  Protocol protocol;
  /// Identical layers (same kind, parameters and shapes) share one measurement per
  /// implementation: ResNet-50 repeats most of its blocks.
  bool reuse_identical_layers = true;
  /// Implementations stopped early (Protocol::early_stop_margin) are measured to the end as
  /// well, keeping status "skipped": one LUT then shows, on the same timings, whether the
  /// stops changed what the search finds. Costs the time the stops save.
  bool audit_early_stop = false;
  /// Which rivals may stop an implementation early (env/profiler_early_stop.h). The
  /// explorer sets it (baselines_stop_rule) so that no baseline loses an implementation it
  /// needs; null: any rival with the same formats, fusion and no more memory.
  StopRule stop_rule;
  std::string out_path;               // LUT path; "<out_path>.partial" holds the checkpoint
  std::function<void(const ProfileProgress&)> progress;
  /// Polled between layers (e.g. set by SIGINT): when true, the profiler stops after the
  /// layer it is on is flushed and returns kFailed "interrupted".
  std::function<bool()> should_stop;
  /// When set, filled with where the time went.
  ProfileSpent* spent = nullptr;
  /// The cores' distance now, ns (null: env/speed_probe.h probe_core_link_ns); tests put
  /// the host's far spells where they want them.
  std::function<double()> core_link_probe;
  /// How much slower the two cores compute together than one now (null: env/speed_probe.h
  /// probe_core_pair_ratio), asked before layer `layer` (impl ""), around the runs of its
  /// 2-thread implementation `impl`, and while waiting (layer -1); tests put the host's
  /// shared-core spells where they want them.
  std::function<double(int layer, const std::string& impl)> core_pair_probe;
};

/// The distinct activation elements one inference of `net` touches: its outputs placed in
/// one arena with reuse (libs/exec/memory_plan.h plan_arena, no in-place steps).
int64_t network_arena_floats(const Network& net);

/// The bytes of other data the cold-cache protocol reads before each timed run of a layer:
/// what passes through the caches between two of its runs in the network, less the layer's
/// own packed weights, capped at 31 times them or, with Protocol::cover_shared_cache, at
/// `shared_cache` bytes if that is more. With Protocol::cover_activations, the network's
/// weights and activation arena (network_arena_floats) of `element_bytes` each (the
/// implementation's activation type: an int8 layer's neighbours are int8 too, so an int8
/// network moves a quarter of the f32 bytes), counted in copies of the implementation's
/// packed weights; otherwise the network's f32 weights counted in the layer's f32 weights.
/// 0 for a warm protocol or a layer without weights. (On a noisy Zen 5 VM whose cores sat ~480 ns apart the int8 count was
/// tried and not adopted, results/reference/int8-flush/; on a quiet Zen 4 VM it brought the
/// int8 deployments from 7-14 % under their measurement to within 4 %, f32 unchanged,
/// results/reference/core-distance/int8-bytes/.)
size_t cold_flush_bytes(const Protocol& p, int64_t net_weight_floats, int64_t net_arena_floats,
                        int64_t own_weight_floats, size_t packed_bytes, size_t shared_cache,
                        size_t element_bytes = 4);

/// Profiles `net` (BatchNorm folded). Resumes from "<out_path>.partial" when it exists and
/// matches the model, device and protocol; otherwise refuses (delete it to start over).
Status profile_network(const Network& net, const Registry& registry, const ProfileOptions& options, Lut* lut);

/// Times again, now, with `options`' protocol and no early stop, the implementations `which`
/// names (layer index, implementation name) and writes their figures over those in `lut`;
/// every other entry, the conversions and the runtime costs stay. Identical layers share one
/// measurement, as in a profile. `bench --recheck` predicts with the result: a gap between
/// the LUT's prediction and this one is the machine's drift since profiling (a VM's vCPU
/// speed, other load), a gap between this one and the end-to-end run is what the cost model
/// misses. An entry whose re-timing fails is an error (the LUT said it ran). An entry timed
/// in the network (Impl::alone_ms, `lut refine`) is timed alone again and carried to the
/// network by its own ratio (latency / alone), so that the recheck still tells the drift.
Status remeasure_impls(const Network& net, const Registry& registry, const ProfileOptions& options,
                       const std::vector<std::pair<int, std::string>>& which, Lut* lut);

/// Why `lut` does not describe what this build can run for `net` here ("" when it does):
/// an implementation it measured that `registry` now refuses (or no longer has), e.g. after
/// a Layerwise update that found a kernel wrong on this CPU. A cached LUT like that is
/// profiled anew; a given one is an error, since a search on it can pick what cannot run.
std::string lut_refused_here(const Lut& lut, const Network& net, const Registry& registry);

/// Why `lut` cannot be used for `net` here ("" when it can): lut_mismatch (env/device.h),
/// else lut_refused_here.
std::string lut_unusable_here(const Lut& lut, const Network& net, const Registry& registry);

}  // namespace lw
