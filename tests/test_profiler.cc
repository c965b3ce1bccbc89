// The profiler: a real (tiny) LUT, resume after an interruption, refusal of foreign LUTs and
// checkpoints, conversion chains.
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

using namespace lw;
namespace fs = std::filesystem;

namespace {
Network tiny(int channels = 8) {
  NetBuilder b("tiny", Shape{1, 3, 12, 12});
  int x = b.act(b.conv(0, channels, 3), LayerKind::kRelu);
  x = b.max_pool(x, 2, 2);
  x = b.conv(x, 5, 1, 1, 0);
  b.fc(b.flatten(b.global_avg_pool(x)), 4);
  Network net = b.finish();
  init_random_weights(net, 1);
  return net;
}

ProfileOptions fast_options(const std::string& out) {
  ProfileOptions o;
  o.protocol.warmup = 0;
  o.protocol.runs = 2;
  o.protocol.max_runs = 2;
  o.protocol.far_cores_wait_s = 0;  // the host's far spells are the test's to place (core_link_probe)
  o.core_pair_probe = [](int, const std::string&) { return 1.0; };  // and its shared-core spells
  o.out_path = out;
  return o;
}

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("lw_profiler_" + std::to_string(::getpid()));
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
  std::string operator/(const std::string& f) const { return (path / f).string(); }
};

const Registry& native_registry() {
  static Registry r = [] {
    Registry reg;
    register_native(reg);
    return reg;
  }();
  return r;
}
}  // namespace

TEST_CASE("a profiled LUT covers every layer, measures every usable impl and every needed conversion") {
  TempDir dir;
  Network net = tiny();
  Lut lut;
  REQUIRE(profile_network(net, native_registry(), fast_options(dir / "lut.json"), &lut).is_ok());
  CHECK(fs::exists(dir / "lut.json"));
  CHECK_FALSE(fs::exists(dir / "lut.json.partial"));
  REQUIRE(lut.layers.size() == net.layers.size());
  CHECK(lut.model_hash == model_hash(net));
  // The hash names the topology: random or trained weights time alike, and LUTs from before
  // the network JSON recorded random_weights keep matching.
  Network trained = net;
  trained.random_weights = !net.random_weights;
  CHECK(model_hash(trained) == model_hash(net));
  for (size_t i = 1; i < lut.layers.size(); ++i) {
    CAPTURE(lut.layers[i].name);
    int ok = 0;
    for (const Impl& impl : lut.layers[i].impls) {
      if (!impl.ok()) {
        CHECK_FALSE(impl.reason.empty());
        continue;
      }
      ++ok;
      if (impl.is_fused_consumer()) continue;
      CHECK(impl.latency_ms.runs == 2);
      CHECK(impl.latency_ms.median > 0);
      CHECK(impl.latency_ms.min <= impl.latency_ms.median);
      CHECK(impl.memory_bytes.output > 0);
    }
    CHECK(ok > 0);
  }
  // Both layouts are implemented natively, so some edge needs nchw <-> nhwc.
  int layout_changes = 0, output_edges = 0;
  for (const Conversion& c : lut.conversions) {
    CHECK(c.chain_ms > 0);
    CHECK_FALSE(c.chain.empty());
    CHECK((c.direct_ms < 0) == (c.chain.size() > 1));
    layout_changes += lut.formats[c.from_format].layout != lut.formats[c.to_format].layout;
    output_edges += c.consumer == -1;
  }
  CHECK(layout_changes > 0);
  CHECK(output_edges > 0);
  Lut back;
  REQUIRE(load_lut(dir / "lut.json", &back).is_ok());
  CHECK(back.impl_count() == lut.impl_count());
  CHECK(lut_mismatch(back, net).empty());
}

// The sum the profiler ages a streamed layer's weights by, worked out again from the LUT: the
// other layers' fastest ok implementations on at most `threads` threads, f32 ones for an f32
// implementation (an f32 deployment's pace), any dtype for an int8 one.
static double inference_from_lut(const Lut& lut, size_t layer, int threads, bool f32_only) {
  double sum = 0;
  for (size_t j = 1; j < lut.layers.size(); ++j) {
    if (j == layer) continue;
    double best = std::numeric_limits<double>::infinity();
    for (const Impl& m : lut.layers[j].impls)
      if (m.ok() && m.threads <= threads && (!f32_only || m.dtype == DType::kF32))
        best = std::min(best, m.latency_ms.median);
    if (std::isfinite(best)) sum += best;
  }
  return sum;
}

TEST_CASE("a layer that streams its weights is timed again with them an inference old, and the LUT keeps that") {
  Network net = tiny();  // its classifier (fc to 4, a 1x1 output) streams its weights
  const size_t fc = net.layers.size() - 1;
  REQUIRE(net.layers[fc].kind == LayerKind::kFullyConnected);
  static Registry reg = [] {  // XNNPACK adds int8 ones, aged at an int8 deployment's pace
    Registry r;
    register_native(r);
    register_xnnpack(r);
    return r;
  }();
  ProfileOptions o = fast_options("");
  ProfileSpent spent;
  o.spent = &spent;
  Lut lut;
  REQUIRE(profile_network(net, reg, o, &lut).is_ok());
  CHECK(nlohmann::json::parse(lut.protocol_json).value("streamed_weights_age", "") == "inference");
  int int8_rows = 0, f32_rows = 0;
  for (const Impl& m : lut.layers[fc].impls) {
    int8_rows += m.ok() && m.dtype == DType::kI8 && !m.is_fused_consumer();
    f32_rows += m.ok() && m.dtype == DType::kF32 && !m.is_fused_consumer();
  }
  REQUIRE(int8_rows > 0);
  REQUIRE(f32_rows > 0);
  CHECK(int(spent.aged.size()) == int8_rows + f32_rows);  // every one of them, and no other layer's
  for (const ProfileSpent::Aged& a : spent.aged) {
    CAPTURE(a.impl);
    CHECK(a.layer == net.layers[fc].name);
    const Impl* row = nullptr;
    for (const Impl& m : lut.layers[fc].impls)
      if (m.name == a.impl) row = &m;
    REQUIRE(row);
    CHECK(row->ok());
    CHECK(row->latency_ms.median == a.aged_ms);
    CHECK(a.fresh_ms > 0);
    CHECK(a.age_ms > 0);
    CHECK(a.age_ms ==
          doctest::Approx(inference_from_lut(lut, fc, row->threads, row->dtype == DType::kF32)).epsilon(1e-9));
  }
  // Switched off: the first timing stays, and the LUT says so.
  o.protocol.age_streamed_weights = false;
  ProfileSpent none;
  o.spent = &none;
  Lut fresh;
  REQUIRE(profile_network(net, reg, o, &fresh).is_ok());
  CHECK(none.aged.empty());
  CHECK_FALSE(nlohmann::json::parse(fresh.protocol_json).contains("streamed_weights_age"));
}

// Two identical 3x3 convolutions (layers 2 and 3) after a first one: the second takes the
// first's figures from the cache.
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

TEST_CASE("the LUT's measured converters rebuild exactly the chains it charged") {
  TempDir dir;
  Network net = tiny();
  Lut lut;
  REQUIRE(profile_network(net, native_registry(), fast_options(dir / "lut.json"), &lut).is_ok());
  Lut back;
  REQUIRE(load_lut(dir / "lut.json", &back).is_ok());
  REQUIRE_FALSE(back.converters.empty());
  ConversionCostFn cost = lut_conversion_cost(back);
  int checked = 0;
  for (const Conversion& c : back.conversions) {
    const Shape& s = net.layers[c.producer].out;
    ConversionGraph g(native_registry(), s, cost);
    const Format &from = back.formats[c.from_format], &to = back.formats[c.to_format];
    CHECK(g.cost(from, to) == doctest::Approx(c.chain_ms));
    std::vector<std::string> names;
    for (const ConversionDesc& d : g.chain(from, to)) names.push_back(d.name());
    CHECK(names == c.chain);
    ++checked;
  }
  CHECK(checked > 0);
  CHECK(std::isinf(cost(ConversionDesc{}, Shape{1, 999, 1, 1})));
}

TEST_CASE("an interrupted profile resumes from its checkpoint and keeps what it measured") {
  TempDir dir;
  Network net = tiny();
  ProfileOptions o = fast_options(dir / "lut.json");
  int layers_seen = 0;
  std::string last;
  o.progress = [&](const ProfileProgress& p) {
    if (p.current != last) layers_seen = p.layer;
    last = p.current;
  };
  o.should_stop = [&] { return layers_seen >= 2; };
  Lut lut;
  Status s = profile_network(net, native_registry(), o, &lut);
  CHECK(s.code() == StatusCode::kFailed);
  CHECK(s.message().find("interrupted") != std::string::npos);
  REQUIRE(fs::exists(dir / "lut.json.partial"));
  CHECK_FALSE(fs::exists(dir / "lut.json"));
  Lut partial;
  REQUIRE(load_lut(dir / "lut.json.partial", &partial).is_ok());
  REQUIRE(partial.layers.size() == 3);  // input + the two layers measured

  o.should_stop = nullptr;
  REQUIRE(profile_network(net, native_registry(), o, &lut).is_ok());
  CHECK_FALSE(fs::exists(dir / "lut.json.partial"));
  REQUIRE(lut.layers.size() == net.layers.size());
  for (size_t i = 1; i < partial.layers.size(); ++i) {
    REQUIRE(lut.layers[i].impls.size() == partial.layers[i].impls.size());
    for (size_t k = 0; k < partial.layers[i].impls.size(); ++k) {
      // Taken from the checkpoint, not measured again (timings never repeat exactly).
      CHECK(lut.layers[i].impls[k].name == partial.layers[i].impls[k].name);
      CHECK(lut.layers[i].impls[k].latency_ms.median == partial.layers[i].impls[k].latency_ms.median);
    }
  }
}

TEST_CASE("a checkpoint of another model is refused") {
  TempDir dir;
  ProfileOptions o = fast_options(dir / "lut.json");
  o.should_stop = [] { return true; };
  Lut lut;
  CHECK_FALSE(profile_network(tiny(8), native_registry(), o, &lut).is_ok());
  REQUIRE(fs::exists(dir / "lut.json.partial"));
  o.should_stop = nullptr;
  Status s = profile_network(tiny(6), native_registry(), o, &lut);
  CHECK(s.message().find("checkpoint of another model") != std::string::npos);
}

TEST_CASE("a LUT that measured what this build refuses here is named with the implementation and the reason") {
  Network net = tiny();
  Lut lut;
  REQUIRE(profile_network(net, native_registry(), fast_options(""), &lut).is_ok());
  CHECK(lut_refused_here(lut, net, native_registry()).empty());
  // An implementation the registry refuses for that layer, written in as if it had run (a
  // LUT of a build that still allowed it).
  Impl* ran = nullptr;
  std::string refused, why;
  for (LutLayer& ll : lut.layers) {
    int i = 0;
    while (net.layers[size_t(i)].name != ll.name) ++i;
    for (const Candidate& c : native_registry().candidates(net, i))
      if (!c.supported.is_ok() && refused.empty()) refused = c.desc.name(), why = c.supported.message();
    for (Impl& m : ll.impls)
      if (m.ok() && !m.is_fused_consumer() && m.library != "input" && !refused.empty() && !ran) ran = &m;
    if (ran) break;
    refused.clear();
  }
  REQUIRE(ran);
  const std::string was = ran->name;
  ran->name = refused;
  const std::string msg = lut_refused_here(lut, net, native_registry());
  CHECK(msg.find(refused + " (layer '") == 0);
  CHECK(msg.find("refused here: " + why) != std::string::npos);
  ran->name = "conv2d_nchw_f32_nosuchlib_default_t1";
  CHECK(lut_refused_here(lut, net, native_registry()).find("not an implementation of this build") != std::string::npos);
  ran->name = was;
  CHECK(lut_refused_here(lut, net, native_registry()).empty());
}

TEST_CASE("a LUT of another model, device or a synthetic one is refused with the reason") {
  Network net = tiny();
  Lut lut;
  REQUIRE(profile_network(net, native_registry(), fast_options(""), &lut).is_ok());
  CHECK(lut_mismatch(lut, net).empty());
  CHECK(lut_mismatch(lut, tiny(6)).find("measured for model 'tiny'") != std::string::npos);
  auto device = nlohmann::json::parse(lut.device_json);
  device["cpu"] = "ARM Cortex-A57";
  lut.device_json = device.dump();
  CHECK(lut_mismatch(lut, net).find("another device: cpu \"ARM Cortex-A57\"") != std::string::npos);
  device["synthetic"] = true;
  lut.device_json = device.dump();
  CHECK(lut_mismatch(lut, net).find("synthetic") != std::string::npos);
}

TEST_CASE("a LUT whose native kernels were another build is refused; one written before the field by its isa") {
  Network net = tiny();
  Lut lut;
  REQUIRE(profile_network(net, native_registry(), fast_options(""), &lut).is_ok());
  auto device = nlohmann::json::parse(lut.device_json);
  const std::string here = native_isa_name(cpu_native_isa());
  CHECK(device["native_isa"] == here);
  device["native_isa"] = here == "generic" ? "avx2" : "generic";
  lut.device_json = device.dump();
  CHECK(lut_mismatch(lut, net).find("another device: native kernels \"" + device["native_isa"].get<std::string>() +
                                    "\" vs this machine's \"" + here + "\"") != std::string::npos);
  // Before the field: AVX-512 CPUs ran the AVX-512 build, all others the generic one.
  device.erase("native_isa");
  lut.device_json = device.dump();
  const auto& isa = device["isa"];
  const std::string before = std::find(isa.begin(), isa.end(), "avx512f") != isa.end() ? "avx512" : "generic";
  CHECK(lut_mismatch(lut, net).empty() == (before == here));  // on an AVX2 CPU: refused
}

TEST_CASE("a truncated or malformed LUT file gives a one-line error naming the file") {
  TempDir dir;
  Network net = tiny();
  Lut lut;
  REQUIRE(profile_network(net, native_registry(), fast_options(dir / "lut.json"), &lut).is_ok());
  std::string text;
  REQUIRE(read_file(dir / "lut.json", &text).is_ok());
  REQUIRE(write_file_atomic(dir / "cut.json", text.substr(0, text.size() / 2)).is_ok());
  Status s = load_lut(dir / "cut.json", &lut);
  CHECK_FALSE(s.is_ok());
  CHECK(s.message().find(dir / "cut.json") != std::string::npos);
  CHECK(s.message().find('\n') == std::string::npos);
  // Found by fuzzing: a number too large for a double threw out of the reader's re-parse.
  s = lut_from_json(R"({"format": "layerwise-lut/1", "layers": 1e99999})", "big.json", &lut);
  CHECK_FALSE(s.is_ok());
  CHECK(s.message().rfind("big.json: not valid JSON", 0) == 0);
}


TEST_CASE("measure: a 2-thread step's inputs start written back in halves, unchanged; the LUT says so") {
  Protocol p;
  p.warmup = 1;
  p.runs = p.max_runs = 3;
  std::vector<uint8_t> in(3 * 4096 + 100);  // (not a multiple of two lines)
  for (size_t i = 0; i < in.size(); ++i) in[i] = uint8_t(i * 7 + 3);
  const std::vector<uint8_t> before = in;
  WarmSet warm;
  warm.threads = warm.input_writers = 2;
  warm.buffers = {{in.data(), in.size()}};
  int calls = 0;
  LatencyStats st;
  // The step sees its input as written (the write-back changes no byte) on every run.
  REQUIRE(measure(p, [&] { return ++calls, in == before ? Status::ok() : failed("input changed"); }, &st,
                  &warm).is_ok());
  CHECK(calls == 4);
  CHECK(nlohmann::json::parse(p.to_json().dump()).value("inputs_start_in", "") == "their-writers");
  p.inputs_from_writers = false;
  CHECK_FALSE(p.to_json().contains("inputs_start_in"));
  p.inputs_from_writers = true;
  p.cold_cache = false;  // (a warm protocol prepares nothing)
  CHECK_FALSE(p.to_json().contains("inputs_start_in"));
}

TEST_CASE("measure: a give-up rule stops after the runs it saw; the median's interval is order statistics") {
  Protocol p;
  p.warmup = 0;
  p.runs = p.max_runs = 20;
  p.cold_cache = false;
  int calls = 0;
  GiveUp after4 = [](const std::vector<double>& ms) { return ms.size() >= 4; };
  LatencyStats st;
  bool gave_up = false;
  REQUIRE(measure(p, [&] { return ++calls, Status::ok(); }, &st, nullptr, &after4, &gave_up).is_ok());
  CHECK(gave_up);
  CHECK(calls == 4);
  CHECK(st.runs == 4);
  GiveUp never = [](const std::vector<double>&) { return false; };
  REQUIRE(measure(p, [&] { return Status::ok(); }, &st, nullptr, &never, &gave_up).is_ok());
  CHECK_FALSE(gave_up);
  CHECK(st.runs == 20);

  // The mean the cost model plans with leaves out a run over 3x the median (an interruption).
  const LatencyStats skewed = latency_stats({1.0, 1.0, 1.2, 1.4, 9.0});
  CHECK(skewed.median == 1.2);
  CHECK(skewed.mean == doctest::Approx(4.6 / 4));
  CHECK(skewed.cost_ms() == skewed.mean);
  CHECK(latency_stats({2.0, 2.0, 2.0}).mean == 2.0);
  LatencyStats old;  // (a LUT row from before the mean: the median plans)
  old.median = 0.7;
  CHECK(old.cost_ms() == 0.7);

  CHECK(std::isinf(median_ci_halfwidth({1, 1, 1, 1})));
  CHECK(median_ci_halfwidth({1, 2, 2, 2, 3}) == doctest::Approx(0.5));  // n = 5: ranks 1..5
  // n = 20: ranks 6..15 (1-based), so one outlier at each end does not widen it.
  std::vector<double> x(20, 10.0);
  x.front() = 1;
  x.back() = 100;
  CHECK(median_ci_halfwidth(x) == 0);
}

namespace {

// A conv that only spins for `spin_ms` (no output written): the profiler's decisions, not
// kernels, are under test. Counts its runs.
class SpinConv : public Primitive {
 public:
  SpinConv(const PrimitiveArgs& a, double spin_ms, size_t workspace, int* runs)
      : Primitive(a.desc.name()), layer_(*a.layer), spin_ms_(spin_ms), runs_(runs) {
    workspace_bytes_ = workspace;
  }
  Status reshape(const std::vector<Shape>& in) override { return infer_layer_shape(layer_, in, &out_shape_); }
  Status setup(const std::vector<const void*>&, void*, void*) override { return Status::ok(); }
  Status run() override {
    ++*runs_;
    auto end = std::chrono::steady_clock::now() + std::chrono::duration<double, std::milli>(spin_ms_);
    while (std::chrono::steady_clock::now() < end) {
    }
    return Status::ok();
  }

 private:
  Layer layer_;
  double spin_ms_;
  int* runs_;
};

struct SpinImpl {
  Algorithm algo;
  Layout layout;
  double spin_ms;
  size_t workspace;
  int runs = 0;
};

}  // namespace

TEST_CASE("early stop: an int8 rival with coarser weights (per tensor, or qc7's 7 bits) stops no finer one") {
  auto impl = [](const char* library, const char* algorithm, DType dt, double median) {
    Impl m;
    m.name = std::string(library) + "_" + algorithm;
    m.library = library;
    m.algorithm = algorithm;
    m.dtype = dt;
    m.latency_ms.median = median;
    return m;
  };
  const Lut lut;
  Rivals int8;
  int8.add(impl("onednn", "qc7", DType::kI8, 0.1));       // fastest, 7-bit per channel
  int8.add(impl("xnnpack", "default", DType::kI8, 0.2));  // 8-bit per tensor
  const Rival* r = int8.rival_for(lut, LayerKind::kConv2d, impl("xnnpack", "qc8", DType::kI8, 1.0), nullptr);
  CHECK(r == nullptr);  // neither is as fine as 8-bit per channel
  int8.add(impl("torch", "qnnpack_pc", DType::kI8, 0.3));  // 8-bit per channel
  r = int8.rival_for(lut, LayerKind::kConv2d, impl("xnnpack", "qc8", DType::kI8, 1.0), nullptr);
  REQUIRE(r != nullptr);
  CHECK(r->name == "torch_qnnpack_pc");
  r = int8.rival_for(lut, LayerKind::kConv2d, impl("onednn", "qc7", DType::kI8, 1.0), nullptr);
  REQUIRE(r != nullptr);
  CHECK(r->name == "onednn_qc7");  // any rival is as fine as qc7 but per tensor
  CHECK(weights_no_coarser(impl("xnnpack", "qc8", DType::kI8, 0), impl("onednn", "qc7", DType::kI8, 0)));
  CHECK_FALSE(weights_no_coarser(impl("xnnpack", "default", DType::kI8, 0), impl("onednn", "qc7", DType::kI8, 0)));
  Rivals f32;  // f32 has no weight quantisation: algorithms do not matter
  f32.add(impl("native", "winograd_f4", DType::kF32, 0.1));
  CHECK(f32.rival_for(lut, LayerKind::kConv2d, impl("onednn", "default", DType::kF32, 1.0), nullptr) != nullptr);
}

TEST_CASE("early stop: only an impl with the same formats, no less memory and a clearly lower median stops it") {
  // A fast im2col (1 KiB workspace) against slow rivals: one of the same format and memory
  // (stopped), one needing less workspace (could win a memory budget: kept), one in NHWC
  // (could save a conversion: kept).
  SpinImpl impls[] = {{Algorithm::kIm2col, Layout::kNCHW, 0, 1024},
                      {Algorithm::kWinogradF2, Layout::kNCHW, 2, 4096},
                      {Algorithm::kDirect, Layout::kNCHW, 2, 0},
                      {Algorithm::kIm2row, Layout::kNHWC, 2, 1024}};
  Registry reg;
  for (SpinImpl& s : impls) {
    ImplDesc d;
    d.op = LayerKind::kConv2d;
    d.algorithm = s.algo;
    d.layout_in = d.layout_out = s.layout;
    SpinImpl* si = &s;
    reg.add({d, [](const ImplDesc&, const Layer&, const std::vector<Shape>&) { return Status::ok(); },
             [si](const PrimitiveArgs& a, std::unique_ptr<Primitive>* out) {
               *out = std::make_unique<SpinConv>(a, si->spin_ms, si->workspace, &si->runs);
               return Status::ok();
             }});
  }
  NetBuilder b("one_conv", Shape{1, 3, 8, 8});
  b.conv(0, 4, 3);
  Network net = b.finish();
  init_random_weights(net, 1);
  ProfileOptions o;
  o.threads = {1};
  o.protocol.warmup = 0;
  o.protocol.runs = o.protocol.max_runs = 12;
  o.protocol.max_seconds = 60;
  o.protocol.cold_cache = false;

  for (double margin : {0.25, 0.0}) {
    for (bool audit : {false, true}) {
    CAPTURE(margin);
    CAPTURE(audit);
    for (SpinImpl& s : impls) s.runs = 0;
    o.protocol.early_stop_margin = margin;
    o.audit_early_stop = audit;
    Lut lut;
    REQUIRE(profile_network(net, reg, o, &lut).is_ok());
    const auto& got = lut.layers[1].impls;
    REQUIRE(got.size() == 4);
    for (size_t k = 0; k < got.size(); ++k) {
      CAPTURE(got[k].name);
      bool stopped = margin > 0 && k == 1;
      CHECK(got[k].status == (stopped ? ImplStatus::kSkipped : ImplStatus::kOk));
      // Stopped: 3 runs, 3 more at the second look (+ the 12 of the audit).
      CHECK(impls[k].runs == (stopped ? 6 + 12 * audit : 12));
      CHECK(got[k].latency_ms.runs == (stopped && !audit ? 3 : 12));
    }
    if (margin > 0) {
      CHECK(got[1].reason.find("early stop") != std::string::npos);
      CHECK(got[1].reason.find("again at the end of the layer") != std::string::npos);
      CHECK((got[1].reason.find("audit") != std::string::npos) == audit);
      CHECK(got[1].reason.find(got[0].name) != std::string::npos);
      CHECK(got[1].memory_bytes.workspace == 4096);  // recorded, though masked
      // The env masks it like any other impl that is not ok.
      Problem p;
      REQUIRE(compile_problem(lut, &p).is_ok());
      CHECK_FALSE(p.usable[p.offset[1] + 1]);
      CHECK(p.usable[p.offset[1] + 2]);
      Lut back;
      Status round = lut_from_json(lut_to_json(lut), "mem", &back);
      REQUIRE_MESSAGE(round.is_ok(), round.message());
      CHECK(back.layers[1].impls[1].status == ImplStatus::kSkipped);
      CHECK(back.layers[1].impls[1].reason == got[1].reason);
    }
    }
  }
}
