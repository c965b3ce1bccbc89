/// \file
/// Layer costs timed inside network inferences, as QS-DNN's inference controller measures
/// them (§V-A): "we only need to infer the whole network ... as many times as different
/// global implementations exist. In each inference, the execution time ... for each layer
/// are measured." The profiler (env/profiler.h) times every implementation alone, under a
/// cache protocol that imitates the network around it; on some hosts no such imitation
/// holds (on a Zen 3 VM oneDNN's f32 convolutions ran 1.5-2.6x faster between two other
/// steps of a running network than after any preparation of a few ms, while memory-bound
/// steps matched: results/reference/zen3/in-network/).
///
/// `refine_in_network` therefore runs, per thread set, one deployment per implementation
/// signature (the name without its layer kind: library, layouts, dtype, algorithm, fusion,
/// threads — QS-DNN's "global implementation") on every layer where that signature is a
/// contender, the other layers filled with their cheapest implementation of the same dtype,
/// and times every step of a few inferences. Each implementation that ran as a step gets the
/// median of its in-network times as its latency; the figure timed alone is kept beside it.
/// Implementations that are no contender anywhere keep their alone figure (the search would
/// not pick them either way).
#pragma once
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "env/lut.h"
#include "libs/ir/network.h"
#include "libs/ops/registry.h"
#include "libs/quant/calibration.h"

namespace lw {

constexpr int kDefaultInNetworkRounds = 10;
constexpr double kDefaultContenderMargin = 1.0;

struct InNetworkOptions {
  const Registry* registry = nullptr;
  /// Timed inferences per deployment (after one discarded).
  int rounds = kDefaultInNetworkRounds;
  /// An implementation is a contender at a layer when timed alone it is at most (1 + margin)
  /// times the layer's fastest implementation of the same thread set.
  double contender_margin = kDefaultContenderMargin;
  /// Calibration of the int8 deployments (explorer/measure/deployment.h).
  int calibration_samples = 4;
  CalibrationMethod calibration_method = kDefaultCalibrationMethod;
  /// Called after each deployment: done, total, the signature just measured.
  std::function<void(int, int, const std::string&)> progress;
};

struct InNetworkReport {
  int deployments = 0;          // deployments measured (all thread sets)
  int refined = 0;              // implementations whose latency now comes from the network
  /// Deployments that could not be planned or run ("signature tN: why"); their
  /// implementations keep the figures timed alone.
  std::vector<std::string> failed;
  double seconds = 0;           // wall time of the stage
  /// Per "library dtype tN": the median over its refined implementations of in-network /
  /// alone, and how many there were.
  std::map<std::string, std::pair<double, int>> ratio_by_library;
};

/// The signature of an implementation name: what follows its layer kind
/// ("conv2d_nchw8c_f32_onednn_default_fused_t1" -> "nchw8c_f32_onednn_default_fused_t1").
std::string impl_signature(const std::string& name);

/// Times the contenders of `lut` (profiled for `net` on this device) inside network
/// inferences and writes their in-network medians over their latencies (Impl::alone_ms keeps
/// the profiler's figure; a LUT refined before keeps its first alone figure). Records
/// {"in_network": {...}} in the LUT's protocol.
Status refine_in_network(const Network& net, const InNetworkOptions& o, Lut* lut, InNetworkReport* report);

/// "onednn f32 t1 0.49 (297), ..." from report.ratio_by_library.
std::string ratios_line(const InNetworkReport& report);

/// Whether `lut` was refined (its protocol records "in_network").
bool lut_in_network(const Lut& lut);

/// What follows a profile: `lut` refined with `o` and written over `path` (atomically).
/// o.rounds == 0: nothing.
Status refine_and_save(const Network& net, const InNetworkOptions& o, const std::string& path, Lut* lut,
                       InNetworkReport* report);

}  // namespace lw
