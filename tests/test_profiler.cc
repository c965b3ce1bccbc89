// The profiler: a real (tiny) LUT, resume after an interruption, refusal of foreign LUTs and
// checkpoints, conversion chains (the far cores: test_profiler_cores.cc; the measurement loop
// and the early stop: test_profiler_stop.cc).
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

TEST_CASE("implementations with big weights are timed an inference old too, whatever their layer") {
  if (shared_cache_bytes() == 0) {  // the share is of a cache the system does not report
    MESSAGE("no shared cache size reported: big weights are never aged here");
    return;
  }
  Network net = tiny();
  const size_t fc = net.layers.size() - 1;
  ProfileOptions o = fast_options("");
  o.protocol.big_weights_share = 0;  // first: the classifier alone, and the rows' packed bytes
  Lut plain;
  REQUIRE(profile_network(net, native_registry(), o, &plain).is_ok());
  CHECK_FALSE(nlohmann::json::parse(plain.protocol_json).contains("weights_aged_from_shared_cache"));
  // "big" from the largest conv row's weights down: some conv rows aged, not every one
  int64_t largest = 0;
  for (size_t i = 1; i < fc; ++i)
    for (const Impl& m : plain.layers[i].impls)
      if (m.ok() && !m.is_fused_consumer()) largest = std::max(largest, m.memory_bytes.weights);
  REQUIRE(largest > 0);
  o.protocol.big_weights_share = double(largest) / double(shared_cache_bytes());
  const int64_t big = int64_t(o.protocol.big_weights_bytes());
  REQUIRE(big > 0);
  REQUIRE(big <= largest);
  ProfileSpent spent;
  o.spent = &spent;
  std::vector<ProfileProgress> ageing;  // the pass's progress: counted on its own, not "100 %"
  o.progress = [&](const ProfileProgress& p) {
    if (p.current.find("(weights an inference old)") != std::string::npos) ageing.push_back(p);
  };
  Lut lut;
  REQUIRE(profile_network(net, native_registry(), o, &lut).is_ok());
  REQUIRE_FALSE(ageing.empty());
  for (size_t k = 0; k < ageing.size(); ++k) {
    CHECK(ageing[k].done == int64_t(k));
    CHECK(ageing[k].total == int64_t(ageing.size()));
  }
  CHECK(nlohmann::json::parse(lut.protocol_json).value("weights_aged_from_shared_cache", 0.0) ==
        o.protocol.big_weights_share);
  std::set<std::pair<std::string, std::string>> expected, aged;
  int small_rows = 0;
  for (size_t i = 1; i < lut.layers.size(); ++i)
    for (const Impl& m : lut.layers[i].impls) {
      if (!m.ok() || m.is_fused_consumer() || m.memory_bytes.weights == 0) continue;
      if (i == fc || m.memory_bytes.weights >= big) expected.insert({net.layers[i].name, m.name});
      else small_rows += i != fc;
    }
  for (const ProfileSpent::Aged& a : spent.aged) aged.insert({a.layer, a.impl});
  CHECK(aged == expected);
  CHECK(spent.aged.size() == expected.size());  // (no row twice)
  CHECK(small_rows > 0);  // the share left the smaller convs' rows as first timed
}

// Two identical 3x3 convolutions (layers 2 and 3) after a first one: the second takes the
// first's figures from the cache.

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
