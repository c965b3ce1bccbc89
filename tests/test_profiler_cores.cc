// The profiler on a host that moves the two vCPUs: layers timed with the cores far apart or
// computing as one are timed again near and apart (env/profiler_cores.cc).
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <unistd.h>

#include "libs/core/cpu.h"
#include "libs/core/files.h"
#include "env/conversion_costs.h"
#include "env/cost.h"
#include "env/device.h"
#include "env/profiler.h"
#include "env/profiler_early_stop.h"
#include "libs/ir/network_json.h"
#include "libs/native/native.h"
#include "libs/ops/thread_pool.h"
#include "libs/xnnpack/xnnpack.h"
#include "libs/zoo/zoo_builder.h"
#include "tests/profiler_fixtures.h"

using namespace lw;
using namespace lw::testing;
namespace fs = std::filesystem;

Network twin_convs() {
  NetBuilder b("twins", Shape{1, 3, 12, 12});
  int x = b.conv(0, 8, 3, 1, 1);
  x = b.conv(x, 8, 3, 1, 1);
  x = b.conv(x, 8, 3, 1, 1);
  b.fc(b.flatten(b.global_avg_pool(x)), 4);
  Network net = b.finish();
  init_random_weights(net, 2);
  return net;
}

// A host whose cores are 100 ns apart but at the probes numbered in `far` (0: the one before
// layer 1; one probe per layer, then the one after the last, then every later one), 400 ns.
std::function<double()> fake_link(std::function<bool(int)> far) {
  auto calls = std::make_shared<int>(0);
  return [calls, far] { return far((*calls)++) ? 400.0 : 100.0; };
}

const Impl* row_named(const LutLayer& l, const std::string& name) {
  for (const Impl& m : l.impls)
    if (m.name == name) return &m;
  return nullptr;
}

TEST_CASE("2-thread implementations timed with the cores far apart are timed again near, identical layers too") {
  if (available_thread_set_cpus() < 2) return;  // no thread set 2 here: nothing is probed
  Network net = twin_convs();
  ProfileOptions o = fast_options("");
  o.protocol.far_cores_wait_s = 5;
  o.core_link_probe = fake_link([](int call) { return call == 1; });  // between layers 1 and 2
  ProfileSpent spent;
  o.spent = &spent;
  Lut lut;
  REQUIRE(profile_network(net, native_registry(), o, &lut).is_ok());
  CHECK(nlohmann::json::parse(lut.protocol_json).value("far_cores", "") == "timed-again-near");
  CHECK(spent.nearest_link_ns == 100);
  CHECK(spent.far_kept == 0);
  // Layers 1 and 2 were timed next to the far probe; layer 3 took layer 2's figures.
  std::map<std::string, int> per_layer;
  for (const ProfileSpent::Retimed& r : spent.retimed_far) {
    CAPTURE(r.impl);
    ++per_layer[r.layer];
    CHECK(r.link_ns == 400);
    CHECK(r.first_ms > 0);
    size_t j = 0;
    while (j < net.layers.size() && net.layers[j].name != r.layer) ++j;
    REQUIRE(j < net.layers.size());
    const Impl* row = row_named(lut.layers[j], r.impl);
    REQUIRE(row);
    CHECK(row->threads == 2);
    CHECK(row->ok());
    CHECK(row->latency_ms.median == r.again_ms);
  }
  for (size_t j = 1; j < net.layers.size(); ++j) {
    CAPTURE(net.layers[j].name);
    int t2_rows = 0;
    for (const Impl& m : lut.layers[j].impls) t2_rows += m.threads == 2 && m.ok() && !m.is_fused_consumer();
    CHECK(per_layer[net.layers[j].name] == (j <= 3 ? t2_rows : 0));  // every 2-thread one, no other layer's
  }
  for (const Impl& m : lut.layers[3].impls)  // the twin holds the same second timing
    if (m.threads == 2 && m.ok()) CHECK(m.latency_ms.median == row_named(lut.layers[2], m.name)->latency_ms.median);
}

// A pair probe that reads 1.9 (the two cores computing as one) where `at(layer, impl)` says,
// 1 elsewhere (see ProfileOptions::core_pair_probe).
std::function<double(int, const std::string&)> fake_pair(std::function<bool(int, const std::string&)> at) {
  return [at](int layer, const std::string& impl) { return at(layer, impl) ? 1.9 : 1.0; };
}

// The pair probe's tests: the cores near throughout (the link cannot tell), 5 s of waits.
ProfileOptions near_link_options() {
  ProfileOptions o = fast_options("");
  o.protocol.far_cores_wait_s = 5;
  o.core_link_probe = fake_link([](int) { return false; });
  return o;
}

int timed_t2_rows(const LutLayer& l) {
  int n = 0;
  for (const Impl& m : l.impls) n += m.threads == 2 && m.ok() && !m.is_fused_consumer();
  return n;
}

TEST_CASE("2-thread implementations timed with the two cores computing as one are timed again apart") {
  if (available_thread_set_cpus() < 2) return;
  Network net = twin_convs();
  ProfileOptions o = near_link_options();
  // The probe before layer 2 reads one core; those around each implementation's runs do not.
  o.core_pair_probe = fake_pair([](int layer, const std::string& impl) { return layer == 2 && impl.empty(); });
  ProfileSpent spent;
  o.spent = &spent;
  Lut lut;
  REQUIRE(profile_network(net, native_registry(), o, &lut).is_ok());
  CHECK(nlohmann::json::parse(lut.protocol_json).value("shared_core", "") == "timed-again-apart");
  CHECK(spent.far_kept == 0);
  CHECK(spent.shared_retried == 0);
  std::map<std::string, int> per_layer;
  for (const ProfileSpent::Retimed& r : spent.retimed_far) {
    CAPTURE(r.impl);
    ++per_layer[r.layer];
    CHECK(r.pair_ratio == 1.9);
    CHECK(r.link_ns == 100);
  }
  for (size_t j = 1; j < net.layers.size(); ++j) {
    CAPTURE(net.layers[j].name);
    CHECK(per_layer[net.layers[j].name] == (j <= 3 ? timed_t2_rows(lut.layers[j]) : 0));  // 1, 2 and 2's twin
  }
  // On one core until the wait runs out: the first timings stay, and say how they were placed.
  o.protocol.far_cores_wait_s = 1;
  o.core_pair_probe = fake_pair([](int layer, const std::string& impl) { return impl.empty() && (layer >= 2 || layer < 0); });
  ProfileSpent kept;
  o.spent = &kept;
  REQUIRE(profile_network(net, native_registry(), o, &lut).is_ok());
  CHECK(kept.retimed_far.empty());
  CHECK(kept.far_kept > 0);
  CHECK(kept.far_wait_s >= 1);
  int said = 0;
  for (const Impl& m : lut.layers[2].impls)
    if (m.threads == 2 && m.ok() && !m.is_fused_consumer())
      said += m.reason.find("timed with the two cores computing as one (pair ratio 1.90)") != std::string::npos;
  CHECK(said > 0);
}

TEST_CASE("the far re-timing's own time leaves out the waits taken before it") {
  if (available_thread_set_cpus() < 2) return;
  Network net = twin_convs();
  ProfileOptions o = near_link_options();
  // Polls in the first pass (each of layer 1's 2-thread implementations first on one core),
  // then a re-timing at the end (the probe before layer 2 on one core).
  auto seen = std::make_shared<std::set<std::string>>();
  o.core_pair_probe = fake_pair([seen](int layer, const std::string& impl) {
    return impl.empty() ? layer == 2 : layer == 1 && seen->insert(impl).second;
  });
  ProfileSpent spent;
  o.spent = &spent;
  Lut lut;
  REQUIRE(profile_network(net, native_registry(), o, &lut).is_ok());
  REQUIRE(spent.shared_retried > 0);
  REQUIRE_FALSE(spent.retimed_far.empty());
  CHECK(spent.far_wait_s >= 0.02 * spent.shared_retried);  // a poll at least before each retry
  CHECK(spent.retimed_far_s > 0);  // (was the re-timing less every wait of the profile: negative)
}

TEST_CASE("a 2-thread implementation whose runs the pair probe finds on one core is timed again at once") {
  if (available_thread_set_cpus() < 2) return;
  Network net = twin_convs();
  ProfileOptions o = near_link_options();
  // The first probe around each of layer 1's 2-thread implementations reads one core.
  auto seen = std::make_shared<std::set<std::string>>();
  auto probes = std::make_shared<std::map<std::string, int>>();
  o.core_pair_probe = fake_pair([seen, probes](int layer, const std::string& impl) {
    if (layer == 1 && !impl.empty()) ++(*probes)[impl];
    return layer == 1 && !impl.empty() && seen->insert(impl).second;
  });
  ProfileSpent spent;
  o.spent = &spent;
  Lut lut;
  REQUIRE(profile_network(net, native_registry(), o, &lut).is_ok());
  const int n = timed_t2_rows(lut.layers[1]);
  REQUIRE(n > 0);
  CHECK(spent.shared_retried == n);  // once each, and apart the second time
  CHECK(spent.shared_kept == 0);
  CHECK(spent.retimed_far.empty());  // the layer's own probes read two cores: nothing left for the end
  // A probe before and after each timing, the poll that read two cores serving as the second
  // try's before: an even count (an odd one: a probe taken twice in a row).
  REQUIRE(probes->size() >= size_t(n));
  for (const auto& probed : *probes) {  // (clang's C++17 cannot CAPTURE a structured binding)
    CAPTURE(probed.first);
    CHECK(probed.second >= 4);
    CHECK(probed.second % 2 == 0);
  }
  // On one core at every try: three timings each, the last kept (a budget the polls, 0.3 s
  // before each second and third try, do not exhaust).
  o.protocol.far_cores_wait_s = 600;
  o.core_pair_probe = fake_pair([](int layer, const std::string& impl) { return layer == 1 && !impl.empty(); });
  ProfileSpent always;
  o.spent = &always;
  REQUIRE(profile_network(net, native_registry(), o, &lut).is_ok());
  CHECK(always.shared_retried == 2 * n);
  CHECK(always.shared_kept == n);
  for (const Impl& m : lut.layers[1].impls)
    if (m.threads == 2 && !m.is_fused_consumer()) CHECK(m.status != ImplStatus::kFailed);
  CHECK(always.far_wait_s >= 2 * n * 0.3);  // the polls drew on the far waits' budget
  // A spent budget: no more tries, each first timing kept.
  o.protocol.far_cores_wait_s = 0.5;
  ProfileSpent spent_out;
  o.spent = &spent_out;
  REQUIRE(profile_network(net, native_registry(), o, &lut).is_ok());
  CHECK(spent_out.shared_retried < 2 * n);
  CHECK(spent_out.shared_retried + spent_out.shared_kept >= n);
}

TEST_CASE("the conversions, found far apart by their end or inside, are timed again near") {
  if (available_thread_set_cpus() < 2) return;
  Network net = twin_convs();  // 6 layers: probes 0-5 before them, 6 after the last
  ProfileOptions o = fast_options("");
  o.protocol.far_cores_wait_s = 5;
  // 7: before ageing, 8: before the conversions, 9-12: before each of the 4 tensor shapes'
  // converters, 13: after them (far), 14: before their second timing, ...
  o.core_link_probe = fake_link([](int call) { return call == 13; });
  ProfileSpent spent;
  o.spent = &spent;
  Lut lut;
  REQUIRE(profile_network(net, native_registry(), o, &lut).is_ok());
  CHECK(spent.retimed_far.empty());
  CHECK(spent.far_stages_again == std::vector<std::string>{"conversions"});
  CHECK_FALSE(lut.conversions.empty());
  CHECK_FALSE(lut.converters.empty());
  // A spell that begins and ends inside them (the probe before the second shape far, the
  // ones around the stage near) runs them again too.
  o.core_link_probe = fake_link([](int call) { return call == 10; });
  ProfileSpent inside;
  o.spent = &inside;
  REQUIRE(profile_network(net, native_registry(), o, &lut).is_ok());
  CHECK(inside.far_stages_again == std::vector<std::string>{"conversions"});
  CHECK_FALSE(lut.converters.empty());
}

TEST_CASE("cores that stay far past the wait keep the first timings, with the reason; 0 turns it off") {
  if (available_thread_set_cpus() < 2) return;
  Network net = twin_convs();
  ProfileOptions o = fast_options("");
  o.protocol.far_cores_wait_s = 1;
  o.core_link_probe = fake_link([](int call) { return call >= 1; });  // far from layer 2 on
  ProfileSpent spent;
  o.spent = &spent;
  Lut lut;
  REQUIRE(profile_network(net, native_registry(), o, &lut).is_ok());
  CHECK(spent.retimed_far.empty());
  CHECK(spent.far_kept > 0);
  CHECK(spent.far_wait_s >= 1);
  int kept = 0;
  for (const Impl& m : lut.layers[2].impls)
    if (m.threads == 2 && m.ok() && !m.is_fused_consumer())
      kept += m.reason.find("timed with the cores far apart (400 ns, nearest 100 ns)") != std::string::npos;
  CHECK(kept > 0);
  CHECK(spent.far_stages_again.empty());  // the wait was spent: running them again would be far again
  CHECK(lut.runtime.core_link_ns == 100);  // the near probes' median, not all probes' (400)
  // Off: nothing waits or is timed again, and the protocol says so.
  o.protocol.far_cores_wait_s = 0;
  ProfileSpent none;
  o.spent = &none;
  REQUIRE(profile_network(net, native_registry(), o, &lut).is_ok());
  CHECK(none.retimed_far.empty());
  CHECK(none.far_kept == 0);
  CHECK(none.far_wait_s == 0);
  CHECK(none.far_stages_again.empty());
  CHECK(lut.runtime.core_link_ns == 400);  // every probe's median, as before
  CHECK_FALSE(nlohmann::json::parse(lut.protocol_json).contains("far_cores"));
}

TEST_CASE("a layer that took a far-timed figure from the cache says so when the wait runs out") {
  if (available_thread_set_cpus() < 2) return;
  Network net = twin_convs();
  ProfileOptions o = fast_options("");
  o.protocol.far_cores_wait_s = 1;
  // Far between layers 1 and 2 (layers 1 and 2 timed far), near around layer 3, and far
  // from the probe after the last layer on: the wait runs out before anything is timed again.
  o.core_link_probe = fake_link([](int call) { return call == 1 || call >= 6; });
  ProfileSpent spent;
  o.spent = &spent;
  Lut lut;
  REQUIRE(profile_network(net, native_registry(), o, &lut).is_ok());
  CHECK(spent.retimed_far.empty());
  int twin_rows = 0, twin_said = 0;
  for (const Impl& m : lut.layers[3].impls) {  // near itself, but it holds layer 2's timing
    if (m.threads != 2 || !m.ok() || m.is_fused_consumer()) continue;
    ++twin_rows;
    twin_said += m.reason.find("timed with the cores far apart (400 ns, nearest 100 ns, on the identical layer " +
                               net.layers[2].name + ")") != std::string::npos;
  }
  CHECK(twin_rows > 0);
  CHECK(twin_said == twin_rows);
  for (const Impl& m : lut.layers[4].impls) CHECK(m.reason.find("far apart") == std::string::npos);  // its own, near
}
