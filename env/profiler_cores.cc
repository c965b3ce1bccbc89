// Where the host put the two vCPUs while the profiler timed 2-thread implementations: far
// apart (a cache line's round trip well above the profile's nearest) or on one core (the pair
// probe), waiting for them to be near and apart again, and timing again what ran otherwise
// (env/speed_probe.h says why a VM needs this).
#include <algorithm>
#include <cstdio>
#include <thread>

#include "env/profiler_impl.h"
#include "libs/ops/thread_pool.h"

namespace lw::profiling {

namespace {

// Timings of a 2-thread implementation while the pair probe reads one core; between them the
// probe is polled every kApartPollMs until it reads two cores, at most kApartWaitMs
// (Profiler::timed_on_one_core).
constexpr int kApartTries = 3;
constexpr int kApartPollMs = 20, kApartWaitMs = 300;

}  // namespace

// The pair probe around a 2-thread implementation's runs (0: not probed, for a 1-thread one
// or without the far-cores wait).
double Profiler::pair_probe_for(int i, const ImplDesc& d) const {
  return d.threads >= 2 && far_aware() ? probe_pair(i, d.name()) : 0;
}

// Whether the runs just timed ran with the two cores computing as one (the larger pair probe
// around them, `pair`) and are to be timed again: once the probe reads two cores again (or
// kApartWaitMs passed), up to kApartTries timings in all, while Protocol::far_cores_wait_s
// lasts (the far waits' budget, which the polling draws on too). A host's shared-core spell lasts a
// fraction of a second to seconds (results/reference/zen3/shared-core/); one that outlasts the
// tries keeps the last timing, which the layer's own probes then leave to retime_far_layers.
// `polled`: the last poll's reading.
bool Profiler::timed_on_one_core(int i, const ImplDesc& d, double pair, int attempt, double* polled) {
  if (!cores_shared(pair)) return false;
  const bool again = attempt < kApartTries && waited_s_ < o_.protocol.far_cores_wait_s;  // (one budget for all waits)
  if (o_.spent) ++(again ? o_.spent->shared_retried : o_.spent->shared_kept);
  if (!again) return false;
  char what[80];
  std::snprintf(what, sizeof what, " (the two cores computed as one: pair ratio %.2f)", pair);
  report(i, d.name() + what);
  const auto t0 = clock_type::now();
  for (int waited = 0; waited < kApartWaitMs; waited += kApartPollMs) {
    std::this_thread::sleep_for(std::chrono::milliseconds(kApartPollMs));
    *polled = pair_probe_for(i, d);
    if (!cores_shared(*polled)) break;
  }
  waited_s_ += std::chrono::duration<double>(clock_type::now() - t0).count();
  if (o_.spent) o_.spent->far_wait_s = waited_s_;
  return true;
}

bool Profiler::two_thread_set() const {
  return std::count(o_.threads.begin(), o_.threads.end(), 2) && available_thread_set_cpus() > 1;
}

bool Profiler::far_aware() const { return two_thread_set() && o_.protocol.far_cores_wait_s > 0; }

// A stage timed over all edges or pools at once (the conversions, the hand-off matrix): it
// starts with the cores near, and runs again (up to three times in all, while the wait lasts)
// when they are far by its end or at a probe it takes between its parts (`probe_between`: the
// conversions probe before each tensor shape, so a spell that begins and ends inside the
// stage is caught too).
Status Profiler::near_throughout(const char* what, const Stage& stage) {
  for (int attempt = 0;; ++attempt) {
    if (far_aware()) wait_for_near_cores(nearest_link());
    bool far_inside = false;
    const std::function<void()> probe_between = [&] {
      if (far_aware() && !far_inside) far_inside = apart_now(nearest_link());
    };
    LW_RETURN_IF_ERROR(stage(probe_between));
    const bool may_wait = far_aware() && waited_s_ < o_.protocol.far_cores_wait_s;  // (else it would run far again)
    if (!may_wait || attempt == 2 || (!far_inside && !apart_now(nearest_link()))) return Status::ok();
    if (o_.spent) o_.spent->far_stages_again.push_back(what);
  }
}

double Profiler::probe_link() const { return probe_core_link_ns(o_.core_link_probe); }

double Profiler::probe_pair(int layer, const std::string& impl) const {
  return o_.core_pair_probe ? o_.core_pair_probe(layer, impl) : probe_core_pair_ratio();
}

// The cores are placed otherwise than for the profile's near timings: far apart, or on one core.
bool Profiler::apart_now(double nearest) const { return core_link_far(probe_link(), nearest) || cores_shared(probe_pair(-1)); }

// What "far" is measured from: the nearest the cores were at any probe of this profile. A
// profile spent far throughout flags nothing, and its LUT describes the cores far apart.
double Profiler::nearest_link() const {
  double nearest = 0;
  for (double ns : link_at_)
    if (ns > 0 && (nearest == 0 || ns < nearest)) nearest = ns;
  return nearest;
}

// Whether the cores are near now, and on two cores of their own, waiting for that within
// what is left of Protocol::far_cores_wait_s.
bool Profiler::wait_for_near_cores(double nearest) {
  auto waiting = [&](double ns) {
    char what[160];
    std::snprintf(what, sizeof what, "waiting for the cores to be near again (%.0f ns, nearest %.0f ns; %.0f s of %.0f)",
                  ns, nearest, waited_s_, o_.protocol.far_cores_wait_s);
    report(int(net_.layers.size()) - 1, what);
  };
  for (;;) {
    const bool near =
        lw::wait_for_near_cores(nearest, o_.protocol.far_cores_wait_s, &waited_s_, o_.core_link_probe, waiting);
    if (o_.spent) o_.spent->far_wait_s = waited_s_;
    if (!near) return false;
    const double pair = probe_pair(-1);
    if (!cores_shared(pair)) return true;
    if (waited_s_ >= o_.protocol.far_cores_wait_s) return false;
    char what[160];
    std::snprintf(what, sizeof what, "waiting for the cores to compute apart again (pair ratio %.2f; %.0f s of %.0f)",
                  pair, waited_s_, o_.protocol.far_cores_wait_s);
    report(int(net_.layers.size()) - 1, what);
    const auto t = clock_type::now();
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    waited_s_ += std::chrono::duration<double>(clock_type::now() - t).count();
  }
}

// The layers timed while the host had put the two vCPUs far apart (a probe before or after
// the layer core_link_far of the profile's nearest) or on one core (cores_shared): their
// 2-thread implementations are timed again, to the end, with the cores near and apart
// (time_far_layers_again), and every layer that took one of those figures from the cache (an
// identical layer) gets the new one (keep_near_timings). 1-thread implementations run on cpu0
// alone and stay as they are.
Status Profiler::retime_far_layers(Lut& lut) {
  if (!far_aware()) return Status::ok();
  const double nearest = nearest_link();
  if (o_.spent) o_.spent->nearest_link_ns = nearest;
  bool any_far = false;
  for (size_t i = 1; i + 1 < link_at_.size(); ++i) any_far |= timed_far(i, nearest);
  if (!any_far) return Status::ok();  // (the common case: no walk over every layer's rows)
  const auto t0 = clock_type::now();
  const double waited_before = waited_s_;  // (the first pass's polls wait on the same budget)
  std::map<std::string, NearTiming> again = time_far_layers_again(lut, nearest);
  LW_RETURN_IF_ERROR(keep_near_timings(again, nearest, lut));
  if (o_.spent)
    o_.spent->retimed_far_s =
        std::chrono::duration<double>(clock_type::now() - t0).count() - (waited_s_ - waited_before);
  return Status::ok();
}

double Profiler::far_link_at(size_t i) const { return std::max(link_at_[i], link_at_[i + 1]); }

double Profiler::pair_ratio_at(size_t i) const { return std::max(pair_at_[i], pair_at_[i + 1]); }

bool Profiler::timed_far(size_t i, double nearest) const {
  return core_link_far(far_link_at(i), nearest) || cores_shared(pair_ratio_at(i));
}

// How layer i's timing was placed, for a row that keeps it: far apart, or on one core.
std::string Profiler::timed_apart_why(size_t i, double nearest) const {
  char why[120];
  if (core_link_far(far_link_at(i), nearest))
    std::snprintf(why, sizeof why, "timed with the cores far apart (%.0f ns, nearest %.0f ns", far_link_at(i), nearest);
  else
    std::snprintf(why, sizeof why, "timed with the two cores computing as one (pair ratio %.2f", pair_ratio_at(i));
  return why;
}

size_t Profiler::figure_of(size_t i, const std::string& key) const {
  auto it = figure_of_.find({int(i), key});
  return it == figure_of_.end() ? i : size_t(it->second);
}

// The second timings, by cache key. A layer whose second timing ends with the cores far again
// is timed once more (three tries); once the wait runs out no more layers are timed.
std::map<std::string, Profiler::NearTiming> Profiler::time_far_layers_again(const Lut& lut, double nearest) {
  std::map<std::string, NearTiming> again;
  for (size_t i = 1; i + 1 < link_at_.size(); ++i) {
    if (!timed_far(i, nearest)) continue;
    std::vector<Candidate> todo;
    for (const Candidate& c : reg_.candidates(net_, int(i))) {
      const Impl* row = find_impl(lut.layers[i], c.desc.name());
      const std::string key = cache_key(int(i), c.desc);
      if (row && c.desc.threads == 2 && wanted(c.desc, o_) && was_timed(*row) && !again.count(key) &&
          timed_far(figure_of(i, key), nearest))  // (not a near layer's figure it took from the cache)
        todo.push_back(c);
    }
    std::map<std::string, Impl> layer;
    for (int attempt = 0; attempt < 3 && layer.empty(); ++attempt) {
      if (!wait_for_near_cores(nearest)) return again;
      for (const Candidate& c : todo) {
        report(int(i), c.desc.name() + " (timed with the cores far apart or on one core)");
        layer[cache_key(int(i), c.desc)] = measure_impl(int(i), c.desc, c.supported, lut, Look::kToTheEnd);
      }
      if (apart_now(nearest)) layer.clear();  // far again (or on one core) by the end
    }
    for (auto& [key, impl] : layer) again[key] = {std::move(impl), far_link_at(i), pair_ratio_at(i)};
  }
  return again;
}

// Every 2-thread row with a second timing takes it; a row of a far layer without one keeps
// its first timing and says why.
Status Profiler::keep_near_timings(const std::map<std::string, NearTiming>& again, double nearest, Lut& lut) {
  for (size_t j = 1; j + 1 < link_at_.size(); ++j)
    for (const Candidate& c : reg_.candidates(net_, int(j))) {
      Impl* row = c.desc.threads == 2 && wanted(c.desc, o_) ? find_impl(lut.layers[j], c.desc.name()) : nullptr;
      if (!row || !was_timed(*row)) continue;
      const std::string key = cache_key(int(j), c.desc);
      auto it = again.find(key);
      if (it == again.end()) {
        const size_t from = figure_of(j, key);  // (an identical layer's timing, taken from the cache)
        if (!timed_far(from, nearest)) continue;
        char why[240];
        std::snprintf(why, sizeof why, "%s%s%s); still so after %.0f s", timed_apart_why(from, nearest).c_str(),
                      from == j ? "" : ", on the identical layer ", from == j ? "" : net_.layers[from].name.c_str(),
                      waited_s_);
        row->reason = row->reason.empty() ? why : row->reason + "; " + why;  // (a skipped one keeps its own)
        if (o_.spent) ++o_.spent->far_kept;
        continue;
      }
      const Impl& near = it->second.impl;
      if (!near.ok()) return failed("far cores: " + row->name + " on '" + net_.layers[j].name + "': " + near.reason);
      if (o_.spent)
        o_.spent->retimed_far.push_back({net_.layers[j].name, row->name, it->second.far_link_ns,
                                         row->ok() ? row->latency_ms.median : row->latency_ms.min,
                                         near.latency_ms.median, it->second.pair_ratio});
      row->latency_ms = near.latency_ms;
      row->status = ImplStatus::kOk;
      row->reason.clear();
    }
  return Status::ok();
}

}  // namespace lw::profiling
