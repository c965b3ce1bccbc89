/// \file
/// How fast the device runs right now, and a LUT's figures rescaled to it (issue 16 item 3).
///
/// Why: on a shared host (a cloud VM, a laptop that throttles) the same layer runs 5-20 %
/// faster or slower from one quarter hour to the next. A LUT profiled at one speed then
/// mispredicts a measurement taken at another, whatever the cost model does: in
/// results/reference/in-network/run3 the LUT was profiled while the host was ~8 % slower
/// than during the bench, and its predictions at 2 threads were 3-19 % high before the
/// model's own error. The probe is a fixed workload the profiler times between layers (the
/// LUT keeps its median per thread set, RuntimeCosts::speed_ms) and `bench` times between its
/// rounds; the ratio of the two is the device's drift since profiling, which bench reports
/// and also predicts with (lut_at_speed).
#pragma once
#include <functional>
#include <vector>

#include "env/lut.h"

namespace lw {

/// Runs per probe; the probe's figure is their median (one run ~1.2 ms).
constexpr int kSpeedProbeRuns = 3;

/// The probe on thread set `threads` (1 or 2), ms: on every core of the set at once, each
/// core runs independent multiply-adds on data in registers (its clock and its share of the
/// host) and then sums a buffer of its own 8x the size of its L1 + L2 (the bandwidth of
/// the shared cache and memory); a run lasts until the
/// slowest core is done. Median of kSpeedProbeRuns runs. 0 when the set has no cores here.
double probe_speed_ms(int threads);

/// How far apart the two CPUs of thread set 2 are now: the round trip of one cache line
/// between them (two threads pinned to thread-set slots 0 and 1 hand a counter back and
/// forth kCoreLinkTrips times), ns, median of kSpeedProbeRuns runs; 0 without a second CPU.
/// Why: a VM's vCPUs are placed by the host. On the Zen 4 VM of results/reference/zen4/ the
/// round trip was 50-75 ns most of the time and ~340 ns for tens of seconds at a time, and
/// MobileNetV2's 2-thread deployments, whose every step passes its output from one core to
/// the other, ran ~1.6x slower in such spells, while probe_speed_ms (each core on its own
/// data) read the same as ever. A 2-thread measurement is only comparable with a profile
/// whose cores were as close.
double probe_core_link_ns();
constexpr int kCoreLinkTrips = 20000;
/// `probe`'s figure when given (tests place the host's far spells with one), else
/// probe_core_link_ns().
double probe_core_link_ns(const std::function<double()>& probe);
/// A round trip more than kCoreLinkFar times the profile's: the cores sit farther apart
/// than when the LUT was made (0, not probed, never is).
constexpr double kCoreLinkFar = 2.0;
bool core_link_far(double now_ns, double profile_ns);
/// Either way: core_link_far(now, profile) or core_link_far(profile, now) (a profile taken
/// with the cores far apart, measured with them near, misses as much the other way).
bool core_link_moved(double now_ns, double profile_ns);
/// A deployment with a step on 2 or more threads, run while cores 0 and 1 sat otherwise than in
/// the profile (core_link_moved): its 2-thread steps ran at that placement's speed, not the
/// LUT's. False for a 1-thread deployment, whose steps the distance does not touch.
bool two_thread_steps_moved(bool two_threads, double now_ns, double profile_ns);
/// Whether the cores are near now (not core_link_far of `reference_ns`), probing with
/// `probe` (null: probe_core_link_ns) twice a second while they are not, until *waited_s
/// (the time waited so far, added to) reaches budget_s. `waiting` (optional) hears each far
/// figure before the pause. A host's far spells last seconds to minutes: the profiler and
/// `bench --near-wait` wait one out rather than time the cores far apart.
bool wait_for_near_cores(double reference_ns, double budget_s, double* waited_s,
                         const std::function<double()>& probe = nullptr,
                         const std::function<void(double ns)>& waiting = nullptr);
/// How much longer the two CPUs of thread set 2 take to compute together than cpu0 alone:
/// multiply-adds on registers (no memory), on cpu0 alone, then on both at once until the
/// slower is done; the ratio of the two times, median of kSpeedProbeRuns pairs. ~1 with the
/// vCPUs on two cores, ~2 when they share one (its two hyperthreads, or one hardware thread
/// the host time-slices); 0 without a second CPU.
/// Why: on the Zen 3 VM of results/reference/zen3/shared-core/ the host ran our two vCPUs on
/// one core for seconds at a time while the core link read as near as ever: a 2-thread 1x1
/// convolution then ran at 0.29 ms, its 1-thread speed (0.32; 0.17 on two cores), and whole
/// layers of a MobileNetV3-Large LUT were timed so (every 2-thread implementation within 10 %
/// of its 1-thread figure), which the network, run outside such spells, did not match.
double probe_core_pair_ratio();
/// `probe`'s figure when given (tests place the spells with one), else probe_core_pair_ratio().
double probe_core_pair_ratio(const std::function<double()>& probe);
/// A pair ratio above kCoresShared: the two vCPUs compute as one core.
constexpr double kCoresShared = 1.5;
bool cores_shared(double pair_ratio);
/// Round r ran between probes[r] and probes[r + 1]: for each of the probes.size() - 1 rounds,
/// whether `holds` holds for both probes around it (a spell that both miss most likely missed
/// the round too).
std::vector<bool> rounds_between(const std::vector<double>& probes, const std::function<bool(double)>& holds);
/// Which of n measurement rounds ran with the cores as close as in the profile: round r is
/// near when the probe before it (link_before[r]) and the one after it (link_before[r + 1],
/// or link_after for the last) are both not core_link_far. A spell of far placement lasts tens
/// of seconds, so a round bracketed by two near probes most likely ran near too. Empty when
/// there is nothing to compare (no profile figure, or fewer than n + 1 probes).
std::vector<bool> rounds_near(const std::vector<double>& link_before, double link_after, double profile_ns, int n);

/// Probe times collected over a profile or a bench run, per thread set.
class SpeedSamples {
 public:
  /// Times the probe once on each of `threads` (thread sets), and the core link when they
  /// include 2 (with `link_probe` when given, probe_core_link_ns otherwise); returns the
  /// link's figure, 0 when not probed.
  double sample(const std::vector<int>& threads, const std::function<double()>& link_probe = nullptr);
  /// Adds a figure measured earlier (a resumed profile's checkpoint).
  void add(int threads, double ms);
  void add_link(double ns);
  /// Median per thread set, index threads - 1; 0 for a set never sampled.
  std::vector<double> medians() const;
  /// The core link's samples in order, and their median (0: none).
  const std::vector<double>& link_ns() const { return link_ns_; }
  double link_median() const;
  /// The median of the link samples not core_link_far of the nearest one: the cores' distance
  /// outside the host's far spells.
  double near_link_median() const;

 private:
  std::vector<std::vector<double>> ms_;  // [threads - 1]
  std::vector<double> link_ns_;
};

/// A probe ratio (now / then) more than 10 % off either way (above 1.1 or below 1 / 1.1): the
/// LUT describes another machine than the one measuring now, so bench and the run's summary
/// ask for a new profile. 0 (not probed) never is.
bool speed_drifted(double ratio);

/// What a recheck (a deployment's implementations timed again, alone, beside its
/// measurement) says of its LUT. kSteady: their prediction is within 10 % of the LUT's
/// (drift_pct, speed_drifted). kStale: it moved more than that and lies nearer the measurement
/// than the LUT's (|gap_rechecked_pct| < |gap_pct|, both in % of their prediction): profile
/// again. kMovedAlone: it moved, but the measurement stayed nearer the LUT, which is no sign
/// that a new profile, timing them so, predicts it better: the quickstart's replay ran -12 %
/// off its LUT and -21 % off a recheck 11.5 % slower, and the run's summary still said to
/// profile again.
enum class RecheckVerdict { kSteady, kStale, kMovedAlone };
RecheckVerdict recheck_verdict(double drift_pct, double gap_pct, double gap_rechecked_pct);

/// now / then per thread set (index threads - 1), 1 where either is missing.
std::vector<double> speed_ratios(const std::vector<double>& then_ms, const std::vector<double>& now_ms);

/// `lut` as it would have been profiled at the speed `now_ms` (probe medians, index
/// threads - 1): every implementation's figures and every conversion chain's cost multiplied
/// by now / then of its thread set (a chain's: the larger of its two formats'), the
/// executor's copies by thread set 1's. Hand-offs stay: they are wake-up latencies of the
/// scheduler, not work. The converters' own figures stay too: a bench re-plans no chain.
/// A LUT without RuntimeCosts::speed_ms comes back unchanged.
Lut lut_at_speed(const Lut& lut, const std::vector<double>& now_ms);

}  // namespace lw
