// The cold-cache protocol (issue 16 item 3): how many bytes the profiler reads between two
// timed runs of a primitive, and what the LUT's protocol object records about it.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

#include "env/measure.h"
#include "env/profiler.h"
#include "libs/zoo/zoo_builder.h"

using namespace lw;

namespace {

// A conv that computes nothing and claims `packed` bytes of packed weights; counts how many
// instances the profiler creates.
class CountedConv : public Primitive {
 public:
  CountedConv(const PrimitiveArgs& a, size_t packed, int* made) : Primitive(a.desc.name()), layer_(*a.layer) {
    weight_bytes_ = packed;
    ++*made;
  }
  Status reshape(const std::vector<Shape>& in) override { return infer_layer_shape(layer_, in, &out_shape_); }
  Status setup(const std::vector<const void*>&, void*, void*) override { return Status::ok(); }
  Status run() override { return Status::ok(); }

 private:
  Layer layer_;
};

struct Counted {
  Algorithm algo;
  size_t packed = 0;
  int made = 0;
};

}  // namespace

TEST_CASE("cold protocol: the network's activations count as the arena the executor plans, not every output") {
  // A chain: each output dies at the next layer, so two slots of the largest output serve
  // every layer's output (and the input fits beside the first).
  NetBuilder chain("chain", Shape{1, 3, 16, 16});
  int x = 0;
  for (int i = 0; i < 3; ++i) x = chain.conv(x, 8, 3);
  const Network c = chain.finish();
  int64_t outputs = 0;
  for (const Layer& l : c.layers) outputs += l.out.elements();
  CHECK(outputs == 3 * 16 * 16 + 3 * 8 * 16 * 16);
  CHECK(network_arena_floats(c) == 2 * 8 * 16 * 16);
  // A residual keeps its operand alive across the branch: three slots at the add.
  NetBuilder res("residual", Shape{1, 8, 16, 16});
  const int a = res.conv(0, 8, 3);
  const int b = res.conv(res.conv(a, 8, 3), 8, 3);
  res.add(a, b);
  const Network r = res.finish();
  CHECK(network_arena_floats(r) == 3 * 8 * 16 * 16);
  // The network's output is read after the run: it never shares the slot of the input.
  NetBuilder one("one", Shape{1, 8, 16, 16});
  one.conv(0, 8, 3);
  CHECK(network_arena_floats(one.finish()) == 2 * 8 * 16 * 16);
}

TEST_CASE("cold protocol: the bytes read before each run cover the network's weights and activations in the impl's own packed bytes") {
  NetBuilder b("one_conv", Shape{1, 3, 16, 16});
  b.conv(0, 8, 3);
  Network net = b.finish();
  init_random_weights(net, 1);
  int64_t weights = 0;  // what passes through the caches between two runs of the conv
  for (const Layer& l : net.layers) weights += int64_t(l.weights.size() + l.bias.size());  // the conv's alone
  const int64_t outputs = network_arena_floats(net);  // the input and the output, both live at the conv
  CHECK(outputs == 3 * 16 * 16 + 8 * 16 * 16);
  const size_t cover = size_t(4 * (weights + outputs));
  // An f32-sized impl covering a third of it, one a quarter of that (int8 weights), and one
  // so small that the cap of 32 copies applies.
  Counted impls[] = {{Algorithm::kIm2col, (cover + 2) / 3}, {Algorithm::kDirect, (cover + 11) / 12}, {Algorithm::kIm2row, 8}};
  Registry reg;
  for (Counted& c : impls) {
    ImplDesc d;
    d.op = LayerKind::kConv2d;
    d.algorithm = c.algo;
    Counted* cp = &c;
    reg.add({d, [](const ImplDesc&, const Layer&, const std::vector<Shape>&) { return Status::ok(); },
             [cp](const PrimitiveArgs& a, std::unique_ptr<Primitive>* out) {
               *out = std::make_unique<CountedConv>(a, cp->packed, &cp->made);
               return Status::ok();
             }});
  }
  ProfileOptions o;
  o.threads = {1};
  o.protocol.warmup = 0;
  o.protocol.runs = o.protocol.max_runs = 2;
  for (bool cover_outputs : {true, false}) {
    CAPTURE(cover_outputs);
    o.protocol.cover_activations = cover_outputs;
    for (Counted& c : impls) c.made = 0;
    Lut lut;
    REQUIRE(profile_network(net, reg, o, &lut).is_ok());
    // One primitive per implementation: the bytes come from a buffer, not from copies.
    for (const Counted& c : impls) CHECK(c.made == 1);
    for (const Counted& c : impls) {
      const size_t flush = cold_flush_bytes(o.protocol, weights, outputs, weights, c.packed, 0);
      CAPTURE(c.packed);
      if (cover_outputs) {  // copies of its own packed bytes: 3, 12, and the cap of 32
        const size_t copies = &c == &impls[0] ? 3 : &c == &impls[1] ? 12 : 32;
        CHECK(flush == (copies - 1) * c.packed);
      } else {  // the weights-only rule counts the layer's f32 weights: one copy, nothing to read
        CHECK(flush == 0);
      }
    }
    const auto proto = nlohmann::json::parse(lut.protocol_json);
    CHECK(proto.value("cache", "") == "cold-private-dirty");
    CHECK(proto.contains("copies_cover") == cover_outputs);
    CHECK(proto.value("flush_at_least", "") == "shared-cache");
    CHECK(proto.value("output_starts_in", "") == "shared-cache");
    CHECK(proto.value("thread_pool", "") == "awake");
    CHECK(proto.value("conversions", "") == "as-layers");
    CHECK(proto.value("residual_starts_in", "") == "private-cache");
    CHECK(proto.value("inputs_start_in", "") == "their-writers");
    CHECK(proto.value("streamed_outputs", "") == "measured");
  }
}

TEST_CASE("cold protocol: a small layer reads at least the shared cache's bytes when the network moves that many") {
  const int64_t weights = 1000, outputs = 3000;  // floats: the network moves 16000 bytes
  const size_t packed = 8, all = 16000 - packed;  // 2000 copies of 8 bytes, less its own
  Protocol p;
  CHECK(cold_flush_bytes(p, weights, outputs, weights, packed, 0) == 31 * packed);        // the copy cap
  CHECK(cold_flush_bytes(p, weights, outputs, weights, packed, 4096) == 4096);            // the shared cache
  CHECK(cold_flush_bytes(p, weights, outputs, weights, packed, size_t(1) << 30) == all);  // all the network moves
  const size_t big = 4000;  // 31 copies of a big layer already pass the shared cache
  CHECK(cold_flush_bytes(p, weights, outputs, weights, big, 4096) == (16000 / big - 1) * big);
  p.cover_shared_cache = false;
  CHECK(cold_flush_bytes(p, weights, outputs, weights, packed, 4096) == 31 * packed);
  CHECK_FALSE(p.to_json().contains("flush_at_least"));
}

TEST_CASE("cold protocol: an int8 or bf16 implementation counts the network's data in its own element size") {
  // The network moves 1000 + 3000 elements: 16000 bytes in f32, 8000 in bf16, 4000 in int8.
  const int64_t weights = 1000, outputs = 3000;
  const size_t packed = 8;
  Protocol p;
  for (size_t bytes : {4, 2, 1}) {
    CAPTURE(bytes);
    const size_t all = 4000 * bytes - packed;  // all of it, less the layer's own packed weights
    CHECK(cold_flush_bytes(p, weights, outputs, weights, packed, 1 << 20, bytes) == all);
    CHECK(cold_flush_bytes(p, weights, outputs, weights, packed, 2048, bytes) == std::min(all, size_t(2048)));
  }
  CHECK(cold_flush_bytes(p, weights, outputs, weights, packed, 1 << 20) == 16000 - packed);  // f32 by default
  // An int8 network that fits where the f32 one did not: less than the shared cache is read.
  CHECK(cold_flush_bytes(p, weights, outputs, weights, packed, 6000, 4) == 6000);
  CHECK(cold_flush_bytes(p, weights, outputs, weights, packed, 6000, 1) == 4000 - packed);
  CHECK(p.to_json().value("network_bytes_in", "") == "implementation-dtype");
}

TEST_CASE("cold protocol: every run, the warm-up's included, starts right after the thread pool is woken") {
  // The preparation (tens of MB read) outlasts libgomp's spin; the wake comes after it, so
  // the run finds its pool as the previous step on that pool leaves it.
  std::vector<char> order;
  std::vector<uint8_t> input(1 << 16, 1), output(1 << 16, 2);
  WarmSet warm;
  warm.threads = 2;
  warm.flush_bytes = 1 << 20;
  warm.buffers = {{input.data(), input.size()}};
  warm.shared_buffers = {{output.data(), output.size()}};
  warm.wake = [&] { order.push_back('w'); };
  Protocol p;
  p.runs = p.max_runs = 4;
  LatencyStats st;
  REQUIRE(measure(p, [&] { return order.push_back('r'), Status::ok(); }, &st, &warm).is_ok());
  CHECK(std::string(order.begin(), order.end()) == "wrwrwrwrwr");  // 1 warm-up + 4 runs
  order.clear();
  p.cold_cache = false;  // a warm protocol prepares nothing
  REQUIRE(measure(p, [&] { return order.push_back('r'), Status::ok(); }, &st, &warm).is_ok());
  CHECK(std::string(order.begin(), order.end()) == "rrrrr");
}

TEST_CASE("cold protocol: every run starts with the library's call path warm, after the wake; recorded, and off on request") {
  std::vector<char> order;
  std::vector<uint8_t> input(1 << 16, 1);
  WarmSet warm;
  warm.threads = 2;
  warm.flush_bytes = 1 << 20;
  warm.buffers = {{input.data(), input.size()}};
  warm.wake = [&] { order.push_back('w'); };
  warm.warm_call_path = [&] { order.push_back('c'); };
  Protocol p;
  p.runs = p.max_runs = 3;
  LatencyStats st;
  REQUIRE(measure(p, [&] { return order.push_back('r'), Status::ok(); }, &st, &warm).is_ok());
  CHECK(std::string(order.begin(), order.end()) == "wcrwcrwcrwcr");  // 1 warm-up + 3 runs
  CHECK(p.to_json().value("library_call_path", "") == "warm");
  order.clear();
  p.warm_call_path = false;  // --cold-call-path
  REQUIRE(measure(p, [&] { return order.push_back('r'), Status::ok(); }, &st, &warm).is_ok());
  CHECK(std::string(order.begin(), order.end()) == "wrwrwrwr");
  CHECK_FALSE(p.to_json().contains("library_call_path"));
  CHECK_FALSE(p == Protocol{});
  order.clear();
  p = Protocol{};
  p.runs = p.max_runs = 3;
  p.cold_cache = false;  // back-to-back runs leave it warm by themselves
  REQUIRE(measure(p, [&] { return order.push_back('r'), Status::ok(); }, &st, &warm).is_ok());
  CHECK(std::string(order.begin(), order.end()) == "rrrr");
  CHECK_FALSE(p.to_json().contains("library_call_path"));
}

TEST_CASE("cold protocol: with aged weights every run, the warm-up's included, waits first, outside the timed part") {
  std::vector<uint8_t> input(1 << 12, 1);
  WarmSet warm;
  warm.buffers = {{input.data(), input.size()}};
  warm.age_ms = 4;
  Protocol p;
  p.runs = p.max_runs = 3;
  LatencyStats st;
  const auto t0 = std::chrono::steady_clock::now();
  REQUIRE(measure(p, [] { return Status::ok(); }, &st, &warm).is_ok());
  const double wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  CHECK(st.runs == 3);
  CHECK(wall_ms >= 4 * warm.age_ms);   // before each of 1 warm-up + 3 runs
  CHECK(st.median < warm.age_ms / 2);  // and not inside the runs
}

TEST_CASE("the protocol records that streamed weights are timed an inference old, unless switched off") {
  Protocol p;
  CHECK(p.to_json().value("streamed_weights_age", "") == "inference");
  p.age_streamed_weights = false;
  CHECK_FALSE(p.to_json().contains("streamed_weights_age"));
  CHECK_FALSE(p == Protocol{});
  Protocol q;
  q.cover_shared_cache = false;  // the age belongs to the shared-cache protocol
  CHECK_FALSE(q.to_json().contains("streamed_weights_age"));
}

TEST_CASE("the protocol records the share of the shared cache from which weights are aged, unless none") {
  Protocol p;
  CHECK(p.to_json().value("weights_aged_from_shared_cache", 0.0) == 0.25);
  CHECK(p.big_weights_bytes() == size_t(0.25 * double(shared_cache_bytes())));
  p.big_weights_share = 0;
  CHECK_FALSE(p.to_json().contains("weights_aged_from_shared_cache"));
  CHECK(p.big_weights_bytes() == 0);
  Protocol q;
  q.age_streamed_weights = false;  // --no-weight-age: neither
  CHECK_FALSE(q.to_json().contains("weights_aged_from_shared_cache"));
  CHECK(q.big_weights_bytes() == 0);
}

TEST_CASE("cold protocol: layers and conversions start with their output in the shared cache and their pool awake") {
  std::vector<uint8_t> output(1 << 12, 2);
  Protocol p;
  WarmSet pooled, caller, warm;
  pooled.start_as_in_network(p, output.data(), output.size(), ThreadPoolId::kNative);
  REQUIRE(pooled.shared_buffers.size() == 1);
  CHECK(pooled.shared_buffers[0].first == output.data());
  CHECK(pooled.shared_buffers[0].second == output.size());
  CHECK(bool(pooled.wake));
  pooled.wake();  // a real job on the native pool: it returns
  caller.start_as_in_network(p, output.data(), output.size(), ThreadPoolId::kCaller);
  CHECK(caller.shared_buffers.size() == 1);
  CHECK_FALSE(bool(caller.wake));  // nothing to wake on the caller
  p.cover_shared_cache = false;
  warm.start_as_in_network(p, output.data(), output.size(), ThreadPoolId::kNative);
  CHECK(warm.shared_buffers.empty());
  CHECK_FALSE(bool(warm.wake));
}

TEST_CASE("the protocol records the cache state and the OpenMP spin it was measured under") {
  Protocol p;
  p.omp_spincount = "";
  CHECK(p.to_json().value("cache", "") == "cold-private-dirty");
  CHECK_FALSE(p.to_json().contains("omp_spincount"));
  CHECK(p.to_json().value("int8_zero_point", 0) == -128);
  p.dirty_private = false;
  CHECK(p.to_json().value("cache", "") == "cold-private");
  p.cold_cache = false;
  CHECK(p.to_json().value("cache", "") == "warm");
  CHECK_FALSE(p.to_json().contains("copies_cover"));
  CHECK_FALSE(p.to_json().contains("thread_pool"));
  ::setenv("GOMP_SPINCOUNT", "1234", 1);
  CHECK(Protocol{}.to_json().value("omp_spincount", "") == "1234");
  ::unsetenv("GOMP_SPINCOUNT");
  CHECK_FALSE(Protocol{}.to_json().contains("omp_spincount"));
  CHECK_FALSE(Protocol{} == p);
  // XNNPACK's 2-thread steps on libgomp's team: a LUT timed on pthreadpool's worker (no key)
  // is another protocol, so `run` profiles it again.
  CHECK(p.to_json().value("xnnpack_on", "") == "openmp");
  nlohmann::json older = Protocol{}.to_json();
  older.erase("xnnpack_on");
  CHECK(older != Protocol{}.to_json());
}
