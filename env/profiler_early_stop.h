/// \file
/// The profiler's early stop (Protocol::early_stop_margin): which finished implementation a
/// slower one is compared with, and why that comparison cannot change what a search finds.
#pragma once
#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "env/lut.h"

namespace lw {

// Early stop (Protocol::early_stop_margin), and why it cannot change what any search finds.
//
// The search charges an assignment the sum of its implementations' medians plus, on every
// edge, the conversion chain from the producer's output format to the consumer's input
// format (env/cost.h); a fused producer frees its activation. Memory objectives and budgets
// add packed weights, workspace and output bytes. So take implementations A and B of the
// same layer with the same input format, output format and fusion, B needing no more
// weight and workspace bytes than A (output bytes are equal: same format and shape). Swap A
// for B in any deployment: every conversion, every other layer and the fused activation stay
// exactly as they were, latency changes by median(B) - median(A), and no memory figure
// grows. If median(A) > median(B), no deployment that uses A is optimal for latency, nor
// on any latency-memory front, so A need not be measured to the end. A could only win by
// bringing conversions that B does not (another layout, dtype or thread set, or fusion); it
// has none here, which is why implementations are only compared within one such group: the
// largest conversion saving A could bring over B is zero. (Across groups the saving is
// bounded by the chain costs between the two formats on each edge, but those are measured
// after the layers; comparing across groups is left out rather than guessed.)
//
// median(A) is not known when we stop; the fastest run so far is the evidence, taken after
// at least kGiveUpRuns runs so that one slow start cannot decide. A is abandoned when
// min(A) > (1 + margin) x median(B): A's runs are then all well above B's typical run, so
// its median is too. Two things can still make A's first runs slow on a busy machine: a
// burst of load from another process (on 2 cores a 2-thread run can wait a whole time
// slice: 20 ms for a 0.01 ms layer) and the first runs of a fresh primitive. So the stop is
// a suspicion first: at the end of the layer, after the others were measured, A gets a
// second look on a fresh primitive (SecondLook), and only when that also loses to the then
// best rival is A recorded "skipped", with both comparisons as its reason; otherwise it is
// measured to the end. The margin (default 0.25) covers the rest. Rivals are only ever
// implementations measured to the end ("ok"); the env masks "skipped" like "unsupported".
// --audit-early-stop measures skipped ones to the end too (status and reason kept), so one
// LUT shows what the stops cost: the search with them masked vs unmasked, same timings.
//
// The argument above is about the search over the whole LUT. The baselines restrict the LUT
// (ref-fp32: openblas im2col + native NCHW; native / xnnpack / torch: one library), and a
// stop must not change their optimum either: B must stay in every restriction that keeps A,
// or A, missing from the restriction, leaves it without that layer (ref-fp32 could not be
// planned when openblas im2col lost to a native conv). The caller says which rivals qualify
// (StopRule; the explorer's baselines define it), so rivals are filtered by it.
constexpr int kGiveUpRuns = 3;

/// Whether `slow` may be stopped in favour of `rival` (same layer, formats and fusion, no
/// more memory) beyond that argument, e.g. because some restriction of the LUT keeps `slow`
/// but not `rival`. Null: any rival qualifies.
/// `lut` is the LUT being profiled (its formats, which the impls' format indices refer to).
using StopRule = std::function<bool(const Lut& lut, LayerKind kind, const Impl& slow, const Impl& rival)>;

/// Whether `rival`'s int8 weights are quantised at least as finely as `slow`'s (per output
/// channel where slow's are, at least as many levels: libs/ops weight_quantization). The
/// argument above is about latency and memory; a faster rival with coarser weights (per
/// tensor, or qc7's 7 bits against qc8's 8) can still fail an accuracy floor that `slow`
/// passes, so it stops nothing. Other dtypes: true.
bool weights_no_coarser(const Impl& rival, const Impl& slow);

/// An implementation measured to the end ("ok"): what a slower one is compared with.
struct Rival {
  double median = 0;
  int64_t weights = 0, workspace = 0;
  std::string name;
  Impl impl;  // what a StopRule looks at
};

/// The finished implementations of one layer, grouped by input format, output format and fusion.
class Rivals {
 public:
  void clear() { groups_.clear(); }
  /// Adds `impl` when it is ok and runs (not a fused consumer).
  void add(const Impl& impl);
  /// The fastest finished implementation of impl's group needing no more weight and
  /// workspace bytes than it (the only ones it cannot beat in any search), with weights no
  /// coarser (weights_no_coarser), that `rule` accepts, or null.
  const Rival* rival_for(const Lut& lut, LayerKind kind, const Impl& impl, const StopRule& rule) const;
  /// Best median of impl's group (0 when empty).
  double best_median(const Impl& impl) const;

 private:
  using GroupKey = std::tuple<int, int, bool>;  // in format, out format, fused activation
  static GroupKey group_of(const Impl& m) { return {m.in_format, m.out_format, m.fused_activation}; }
  std::map<GroupKey, std::vector<Rival>> groups_;
};

}  // namespace lw
