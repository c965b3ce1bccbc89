/// \file
/// The profiler's inside, for env/profiler*.cc only (env/profiler.h is its interface): the
/// Profiler that profile_network and remeasure_impls run. Its members live in four files:
/// profiler.cc (the layers and their implementations, timed one by one), profiler_cores.cc
/// (where the host put the two vCPUs while 2-thread implementations were timed; timing again
/// what ran far apart or on one core) and profiler_retime.cc (the passes that time rows of a
/// finished LUT again: weights an inference old, a bench's recheck). profiler_warm.cc sets up
/// the caches before a timed run as the network leaves them; profiler_lut.cc builds
/// the LUT the profile fills and checks a LUT against this build.
#pragma once
#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "env/profiler.h"
#include "env/speed_probe.h"
#include "libs/quant/quant.h"

namespace lw::profiling {

using clock_type = std::chrono::steady_clock;

/// The LUT a profile of `net` fills: its layers, formats and input row, no implementation yet.
Lut skeleton(const Network& net, const ProfileOptions& o);
/// Where f stands in lut.formats, -1 if it does not.
int format_index(const Lut& lut, const Format& f);
/// The rows o.out_path's checkpoint (<out>.partial) already holds, copied into *lut, and the
/// first layer still to time; an error when the checkpoint is of another model, device,
/// protocol or thread sets.
Status resume(const ProfileOptions& o, const Lut& fresh, Lut* lut, int* next_layer);
/// Whether the options select implementation d (its library and thread set).
bool wanted(const ImplDesc& d, const ProfileOptions& o);
int64_t weight_floats(const Layer& l);
int64_t network_weight_floats(const Network& net);
/// A row that ran when profiled: ok, or stopped early (not unsupported, failed or a fused
/// activation, which runs nothing).
bool was_timed(const Impl& m);

/// The row named `name` of `layer` (a LutLayer, const or not), null when there is none.
template <class AnyLutLayer>
auto find_impl(AnyLutLayer& layer, const std::string& name) -> decltype(&layer.impls.front()) {
  for (auto& m : layer.impls)
    if (m.name == name) return &m;
  return nullptr;
}

// Early stop: see env/profiler_early_stop.h for why it cannot change what a search finds.
enum class Look { kMayStop, kSecondLook, kToTheEnd };

class Profiler {
 public:
  Profiler(const Network& net, const Registry& reg, const ProfileOptions& o)
      : net_(net), reg_(reg), o_(o), non_negative_(non_negative_outputs(net)) {}
  Status run(Lut* lut);
  Status remeasure(const std::vector<std::pair<int, std::string>>& which, Lut* lut);

 private:
  Status measure_layer(int i, Lut& lut);
  Status measure_graph_costs(Lut& lut);
  Impl measure_impl(int i, const ImplDesc& d, const Status& supported, const Lut& lut, Look look,
                    bool* from_cache = nullptr);
  Status time_primitive(int i, const PrimitiveArgs& args, Look look, Impl* impl);
  // A primitive's buffers while it is timed (set_up_buffers): the WarmSet points into them.
  struct Buffers {
    std::vector<Tensor> inputs;
    Tensor out;
    std::vector<uint8_t> workspace;
    WarmSet warm;
  };
  Status set_up_buffers(int i, const PrimitiveArgs& args, Primitive& prim, Buffers* b);
  Status time_input_in_memory(Primitive& prim, const WarmSet& warm, Impl* impl);
  /// Runs of the input-in-memory timing: a second figure of cheap steps, compared as a difference.
  static constexpr int kInputInMemoryRuns = 5;
  double pair_probe_for(int i, const ImplDesc& d) const;
  bool timed_on_one_core(int i, const ImplDesc& d, double pair, int attempt, double* polled);
  double inference_estimate_ms(int i, const ImplDesc& d) const;
  double weights_age_ms(int i, const ImplDesc& d, size_t packed_bytes) const;
  Status age_streamed_weights(Lut& lut);
  struct AgedRow {  // a LUT row age_streamed_weights times again
    int layer;
    Candidate c;
    Impl* row;
    std::string key;  // its cache key
  };
  std::vector<AgedRow> rows_to_age(Lut& lut) const;
  bool two_thread_set() const;
  bool far_aware() const;
  using Stage = std::function<Status(const std::function<void()>& probe_between)>;
  Status near_throughout(const char* what, const Stage& stage);
  double probe_link() const;
  double probe_pair(int layer, const std::string& impl = "") const;
  double nearest_link() const;
  bool apart_now(double nearest) const;
  bool wait_for_near_cores(double nearest);
  // An implementation timed again with the cores near, and how far they were the first time.
  struct NearTiming {
    Impl impl;
    double far_link_ns = 0, pair_ratio = 0;
  };
  double far_link_at(size_t i) const;
  double pair_ratio_at(size_t i) const;
  std::string timed_apart_why(size_t i, double nearest) const;
  bool timed_far(size_t i, double nearest) const;
  size_t figure_of(size_t i, const std::string& key) const;
  Status retime_far_layers(Lut& lut);
  std::map<std::string, NearTiming> time_far_layers_again(const Lut& lut, double nearest);
  Status keep_near_timings(const std::map<std::string, NearTiming>& again, double nearest, Lut& lut);
  std::vector<size_t> likely_fastest_first(LayerKind kind, const std::vector<Candidate>& cands) const;
  void second_look(int i, const ImplDesc& d, const Lut& lut, Impl* first);
  std::string cache_key(int i, const ImplDesc& d) const;
  size_t flush_bytes_for(const Layer& l, const Primitive& prim, DType activations) const;
  int64_t count_work(int from) const;
  void report(int layer, const std::string& current);
  /// A pass of its own after the layers (ageing, a recheck): `total` timings, counted in
  /// done_ from 0, with the ETA taken from the pass's own pace.
  void begin_pass(int64_t total);
  void charge(const ImplDesc& d, double create_s, double measure_s, const Impl& impl);

  const Network& net_;
  const Registry& reg_;
  const ProfileOptions& o_;
  std::map<std::string, Impl> cache_;  // signature + impl name -> measured impl
  // Which layer's timing a cache key holds, and which one each (layer, key) row took: a layer
  // near the cores' far spell may hold an identical layer's figure timed inside it.
  std::map<std::string, int> timed_on_;
  std::map<std::pair<int, std::string>, int> figure_of_;
  std::vector<bool> non_negative_;     // per layer: its output is never negative (libs/quant)
  Rivals rivals_;  // ok impls of the layer being measured
  const Lut* lut_ = nullptr;  // the LUT being filled (its formats)
  bool ageing_ = false;  // timing with weights an inference old (weights_age_ms)
  // Per layer kind and impl name: median / best median of its group on the last layer of that
  // kind. Measuring the likely fastest first lets the early stop cut the slower ones short.
  std::map<std::pair<int, std::string>, double> rank_;
  SpeedSamples speed_;  // the device's speed, probed before every layer (RuntimeCosts::speed_ms)
  // The core link probed before layer i was timed (index i; 0: not probed, a resumed
  // profile's layers) and after the last one (index layers): Protocol::far_cores_wait_s.
  std::vector<double> link_at_;
  // The cores' pair ratio probed at the same places (speed_probe.h probe_core_pair_ratio; 0:
  // not probed): a layer timed with both vCPUs on one core is timed again like a far one.
  std::vector<double> pair_at_;
  double waited_s_ = 0;  // spent waiting for the cores to be near again
  const int64_t net_weights_ = network_weight_floats(net_);
  const int64_t net_arena_ = network_arena_floats(net_);
  clock_type::time_point start_ = clock_type::now();
  clock_type::time_point pass_start_ = start_;  // the ETA's: the profile's, or begin_pass's
  int64_t done_ = 0, total_ = 0;
};

}  // namespace lw::profiling
