// Executor, memory planner, conversion graph and assignments: whole zoo models under
// random and single-library assignments must match the reference executor.
#include <doctest/doctest.h>
#include <xmmintrin.h>

#include <sched.h>
#include <sys/resource.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <random>
#include <thread>

#include "libs/exec/assignment.h"
#include "libs/exec/backends.h"
#include "libs/exec/executor.h"
#include "libs/ops/thread_pool.h"
#include "libs/ref/reference.h"
#include "libs/zoo/zoo.h"
#include "libs/zoo/zoo_builder.h"
#include "tests/testers/tester.h"

using namespace lw;

namespace {

Tensor input_for(const Network& net, uint64_t seed) {
  std::mt19937_64 rng(seed);
  return testers::random_tensor(net.input_shape(), rng);
}

double run_vs_reference(const Network& net, const std::vector<ImplDesc>& a, MemoryReport* mem = nullptr) {
  std::unique_ptr<Executor> ex;
  PlanOptions opt;
  opt.registry = &default_registry();
  Status s = Executor::plan(net, a, opt, &ex);
  REQUIRE_MESSAGE(s.is_ok(), s.message());
  Tensor x = input_for(net, 11), y;
  REQUIRE(ex->run(x, &y).is_ok());
  std::vector<Tensor> ref;
  REQUIRE(reference_forward(net, x, &ref).is_ok());
  if (mem) *mem = ex->memory();
  // Logits before the softmax would be the sharper test; the zoo heads end in FC.
  return testers::output_error(y, ref.back());
}

}  // namespace

TEST_CASE("conversion graph finds multi-hop chains") {
  const Registry& r = default_registry();
  ConversionGraph g(r, {1, 8, 4, 4}, estimated_conversion_cost);
  Format a{Layout::kNCHW, DType::kF32, 1}, b{Layout::kNHWC, DType::kI8, 2};
  auto chain = g.chain(a, b);
  CHECK(chain.size() == 3);
  CHECK(chain.front().from == a);
  CHECK(chain.back().to == b);
  for (size_t i = 1; i < chain.size(); ++i) CHECK(chain[i].from == chain[i - 1].to);
  CHECK(g.chain(a, a).empty());
  CHECK(g.cost(a, a) == 0);
  // Transpose the cheaper (int8) tensor: quantise first, then transpose.
  auto q = g.chain(a, Format{Layout::kNHWC, DType::kI8, 1});
  REQUIRE(q.size() == 2);
  CHECK(q[0].to.dtype == DType::kI8);
  // Forbidding an edge reroutes or disconnects.
  ConversionGraph no_layout(r, {1, 8, 4, 4}, [](const ConversionDesc& d, const Shape& s) {
    return d.from.layout != d.to.layout ? kNoPath : estimated_conversion_cost(d, s);
  });
  CHECK(no_layout.cost(a, Format{Layout::kNHWC, DType::kF32, 1}) == kNoPath);
}

TEST_CASE("conversions: layout, quantise, dequantise") {
  const Registry& r = default_registry();
  std::mt19937_64 rng(5);
  Shape s{2, 5, 3, 7};
  Tensor x = testers::random_tensor(s, rng);
  QuantParams q{0.01f, 3};
  for (int t : kThreadSets) {
    Format nchw{Layout::kNCHW, DType::kF32, t}, nhwc{Layout::kNHWC, DType::kF32, t};
    std::unique_ptr<Primitive> p;
    REQUIRE(r.create_conversion({nchw, nhwc}, s, q, &p).is_ok());
    Tensor y = Tensor::create(s, DType::kF32, Layout::kNHWC);
    REQUIRE(p->setup({x.data()}, y.data(), nullptr).is_ok());
    REQUIRE(p->run().is_ok());
    Tensor want = to_layout(x, Layout::kNHWC);
    CHECK(std::memcmp(y.data(), want.data(), x.bytes()) == 0);
    // Quantise then dequantise: error at most half a step.
    Format i8{Layout::kNHWC, DType::kI8, t};
    std::unique_ptr<Primitive> qp, dp;
    REQUIRE(r.create_conversion({nhwc, i8}, s, q, &qp).is_ok());
    REQUIRE(r.create_conversion({i8, nhwc}, s, q, &dp).is_ok());
    Tensor qi = Tensor::create(s, DType::kI8, Layout::kNHWC), back = Tensor::create(s, DType::kF32, Layout::kNHWC);
    REQUIRE(qp->setup({y.data()}, qi.data(), nullptr).is_ok());
    REQUIRE(qp->run().is_ok());
    REQUIRE(dp->setup({qi.data()}, back.data(), nullptr).is_ok());
    REQUIRE(dp->run().is_ok());
    for (int64_t i = 0; i < s.elements(); ++i) {
      float v = y.f32()[i];
      float clamped = std::min(std::max(v, q.scale * (-128 - q.zero_point)), q.scale * (127 - q.zero_point));
      CHECK(std::fabs(back.f32()[i] - clamped) <= q.scale * 0.5f + 1e-6f);
    }
  }
  std::unique_ptr<Primitive> p;
  CHECK(!r.create_conversion({{Layout::kNCHW, DType::kF32, 1}, {Layout::kNCHW, DType::kI8, 1}}, s, {0.f, 0}, &p).is_ok());
}

// The naive quantiser: x / scale rounded to nearest even, plus the zero point, clamped to
// int8; a NaN goes to the lowest level.
static int8_t naive_quantise(float x, QuantParams q) {
  const float r = x * (1.f / q.scale);
  if (std::isnan(r)) return -128;
  const float v = std::nearbyint(std::min(std::max(r, -1000.f), 1000.f)) + float(q.zero_point);
  return int8_t(std::min(std::max(v, -128.f), 127.f));
}

TEST_CASE("layout conversions move every element where the layouts say, in every dtype, on awkward shapes") {
  const Registry& r = default_registry();
  // Three planes (the RGB fast path, odd widths), rows that end in a 3-row block (19), tile
  // edges of 4 / 8 / 32 crossed, partly filled channel blocks of 8 and 16, one pixel, one
  // channel, batches above one.
  const Shape shapes[] = {{1, 3, 224, 224}, {1, 3, 5, 7}, {2, 3, 4, 4}, {1, 3, 1, 1}, {1, 19, 9, 13},
                          {1, 1, 1, 1},     {1, 17, 1, 1}, {1, 1, 6, 11}, {1, 64, 8, 9}, {1, 33, 17, 5},
                          {3, 20, 70, 1},   {2, 256, 3, 3}, {1, 5, 130, 1}, {2, 24, 5, 37}};
  for (DType dt : {DType::kF32, DType::kBF16, DType::kI8})
    for (int t : kThreadSets)
      for (const Shape& s : shapes)
        for (Layout from : all_layouts())
          for (Layout to : all_layouts()) {
            if (from == to) continue;
            CAPTURE(s.to_string());
            CAPTURE(to_string(dt));
            CAPTURE(to_string(from));
            CAPTURE(to_string(to));
            CAPTURE(t);
            std::unique_ptr<Primitive> p;
            REQUIRE(r.create_conversion({{from, dt, t}, {to, dt, t}}, s, QuantParams{0.1f, 0}, &p).is_ok());
            Tensor x = Tensor::create(s, dt, from), y = Tensor::create(s, dt, to);
            const size_t b = dtype_bytes(dt);
            auto* xb = static_cast<uint8_t*>(x.data());
            auto* yb = static_cast<uint8_t*>(y.data());
            for (size_t i = 0; i < x.bytes(); ++i) xb[i] = uint8_t((i * 131 + i / 251) % 253);
            std::memset(yb, 0xAB, y.bytes());  // poison, padding included
            REQUIRE(p->reshape({s}).is_ok());
            REQUIRE(p->setup({x.data()}, y.data(), nullptr).is_ok());
            REQUIRE(p->run().is_ok());
            int64_t wrong = 0, padding_not_zero = 0;
            const int block = layout_block(to), cp = block > 1 ? (s.c + block - 1) / block * block : s.c;
            for (int n = 0; n < s.n; ++n)
              for (int c = 0; c < cp; ++c)
                for (int h = 0; h < s.h; ++h)
                  for (int w = 0; w < s.w; ++w) {
                    const uint8_t* got = yb + y.offset(n, c, h, w) * b;
                    if (c >= s.c) padding_not_zero += std::count(got, got + b, 0) != int(b);
                    else wrong += std::memcmp(xb + x.offset(n, c, h, w) * b, got, b) != 0;
                  }
            CHECK(wrong == 0);
            CHECK(padding_not_zero == 0);
          }
}

TEST_CASE("quantise (f32 and bf16 to int8) equals the naive quantiser bit for bit on every span length") {
  const Registry& r = default_registry();
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<float> u(-40.f, 40.f);
  // scale 1/4: every (k + 0.5) / 4 is an exact tie, so nearest-even is really tested;
  // +-40 / 0.25 = +-160 steps runs past both ends of int8 for either zero point.
  for (QuantParams q : {QuantParams{0.25f, 0}, QuantParams{0.25f, -128}, QuantParams{0.0371f, 7}}) {
    for (int64_t n : {1, 3, 15, 16, 17, 31, 33, 67, 1000, 1003}) {
      std::vector<float> x(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) x[size_t(i)] = i % 3 == 0 ? (float(int64_t(rng() % 200) - 100) + 0.5f) * 0.25f : u(rng);
      const float odd[] = {NAN, -NAN, INFINITY, -INFINITY, 1e30f, -1e30f, -0.f, 1e-40f, 31.875f, -32.125f, 0.125f, -0.125f};
      for (size_t k = 0; k < std::size(odd) && k < x.size(); ++k) x[(k * 7) % x.size()] = odd[k];
      for (int t : kThreadSets)
        for (DType from : {DType::kF32, DType::kBF16}) {
          INFO("n = " << n << ", threads " << t << ", from " << to_string(from) << ", zero point " << q.zero_point);
          const Shape s{1, int(n), 1, 1};
          Tensor in = Tensor::create(s, from, Layout::kNHWC), out = Tensor::create(s, DType::kI8, Layout::kNHWC);
          std::vector<float> want_in = x;
          for (int64_t i = 0; i < n; ++i) {
            if (from == DType::kF32) { in.f32()[i] = x[size_t(i)]; continue; }
            const uint16_t b = f32_to_bf16(x[size_t(i)]);
            static_cast<uint16_t*>(in.data())[i] = b;
            want_in[size_t(i)] = bf16_to_f32(b);
          }
          std::unique_ptr<Primitive> p;
          REQUIRE(r.create_conversion({{Layout::kNHWC, from, t}, {Layout::kNHWC, DType::kI8, t}}, s, q, &p).is_ok());
          REQUIRE(p->setup({in.data()}, out.data(), nullptr).is_ok());
          REQUIRE(p->run().is_ok());
          int wrong = 0;
          for (int64_t i = 0; i < n; ++i) wrong += out.i8()[i] != naive_quantise(want_in[size_t(i)], q);
          CHECK(wrong == 0);
        }
    }
  }
}

// bf16 by its definition: the top 16 bits, rounded to nearest with ties to even on the low
// 16; a NaN keeps its sign and top bits and is made quiet.
static uint16_t naive_bf16(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  if (std::isnan(x)) return uint16_t((u >> 16) | 0x40);
  uint32_t top = u >> 16;
  const uint32_t low = u & 0xffffu;
  if (low > 0x8000u || (low == 0x8000u && (top & 1u))) ++top;
  return uint16_t(top);
}

TEST_CASE("f32 -> bf16 equals the definition bit for bit on every span length, odd values included") {
  const Registry& r = default_registry();
  std::mt19937_64 rng(12);
  for (int64_t n : {1, 3, 7, 8, 9, 15, 16, 17, 67, 1003}) {
    std::vector<float> x(static_cast<size_t>(n));
    for (auto& v : x) {
      const uint32_t bits = uint32_t(rng());
      std::memcpy(&v, &bits, 4);  // any pattern: NaNs, infinities, denormals
    }
    // Exact ties (odd and even top), just either side of a tie, the largest finite float
    // (rounds to infinity), signalling and negative NaNs.
    const uint32_t odd[] = {0x3f808000u, 0x3f818000u, 0x3f807fffu, 0x3f808001u, 0x7f7fffffu, 0xff7fffffu,
                            0x7f800001u, 0xffc00000u, 0x7f800000u, 0x00000001u, 0x80008000u, 0x0u};
    for (size_t k = 0; k < std::size(odd) && k < x.size(); ++k) std::memcpy(&x[(k * 5) % x.size()], &odd[k], 4);
    for (int t : kThreadSets) {
      INFO("n = " << n << ", threads " << t);
      const Shape s{1, int(n), 1, 1};
      Tensor in = Tensor::create(s, DType::kF32, Layout::kNHWC), out = Tensor::create(s, DType::kBF16, Layout::kNHWC);
      std::memcpy(in.data(), x.data(), size_t(n) * 4);
      std::unique_ptr<Primitive> p;
      REQUIRE(r.create_conversion({{Layout::kNHWC, DType::kF32, t}, {Layout::kNHWC, DType::kBF16, t}}, s, {}, &p).is_ok());
      REQUIRE(p->setup({in.data()}, out.data(), nullptr).is_ok());
      REQUIRE(p->run().is_ok());
      int wrong = 0;
      for (int64_t i = 0; i < n; ++i) wrong += out.bf16()[i] != naive_bf16(x[size_t(i)]);
      CHECK(wrong == 0);
    }
  }
}

TEST_CASE("arena planner never overlaps live buffers and reuses dead ones") {
  std::mt19937_64 rng(9);
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<Buffer> b;
    for (int i = 0; i < 30; ++i) {
      int first = int(rng() % 40), len = int(rng() % 8);
      b.push_back({size_t(1 + rng() % 5000), first, first + len, -1});
    }
    ArenaPlan p = plan_arena(b);
    CHECK(p.arena_bytes <= p.naive_bytes);
    for (size_t i = 0; i < b.size(); ++i)
      for (size_t j = i + 1; j < b.size(); ++j) {
        bool live = b[i].first <= b[j].last && b[j].first <= b[i].last;
        bool overlap = p.offsets[i] < p.offsets[j] + b[j].bytes && p.offsets[j] < p.offsets[i] + b[i].bytes;
        CHECK_FALSE((live && overlap));
      }
  }
  // A chain of 10 equal buffers, each dying when the next is written: two slots suffice.
  std::vector<Buffer> chain;
  for (int i = 0; i < 10; ++i) chain.push_back({1000, i, i + 1, -1});
  CHECK(plan_arena(chain).arena_bytes == 2 * 1024);
}

TEST_CASE("zoo models under single-library assignments match the reference") {
  for (const char* model : {"resnet18", "mobilenetv2", "squeezenet1_1", "googlenet"})
    for (Library lib : {Library::kNative, Library::kOpenBLAS}) {
      Network net = testers::small_model(model);
      std::vector<ImplDesc> a;
      REQUIRE(library_assignment(net, default_registry(), lib, 1, &a).is_ok());
      MemoryReport mem;
      double e = run_vs_reference(net, a, &mem);
      INFO(model, " ", to_string(lib), " error ", e);
      CHECK(e <= 1e-4);
      CHECK(mem.arena_bytes < mem.naive_activation_bytes);
      CHECK(mem.weight_bytes > 0);
      // What plan() really allocated (heap growth) is what it predicts, up to bookkeeping.
      CHECK(double(mem.measured_heap_bytes) >= 0.98 * double(mem.peak_bytes()));
      CHECK(double(mem.measured_heap_bytes) <= 1.05 * double(mem.peak_bytes()) + 128 * 1024);
    }
}

TEST_CASE("zoo models under random assignments match the reference") {
  for (const char* model : {"resnet18", "mobilenetv2", "squeezenet1_1", "googlenet", "mobilenetv3_small"})
    for (uint64_t seed = 1; seed <= 3; ++seed) {
      Network net = testers::small_model(model);
      std::vector<ImplDesc> a;
      REQUIRE(random_assignment(net, default_registry(), seed, &a).is_ok());
      double e = run_vs_reference(net, a);
      INFO(model, " seed ", seed, " error ", e);
      // Winograd layers are 1e-3 each; a few in series stay well under 1e-2.
      CHECK(e <= 1e-2);
    }
}

TEST_CASE("assignment JSON: round trip and errors name the path") {
  Network net = testers::small_model("squeezenet1_1");
  const Registry& r = default_registry();
  std::vector<ImplDesc> a, back;
  REQUIRE(random_assignment(net, r, 4, &a).is_ok());
  Status rt = parse_assignment(assignment_to_json(net, a), net, r, &back);
  REQUIRE_MESSAGE(rt.is_ok(), rt.message());
  CHECK(back == a);
  Status s = parse_assignment(R"({"layers": {"nope": "relu_nchw_f32_native_default_t1"}, "default": "native"})", net, r, &back);
  CHECK(s.message().find("layers.nope") != std::string::npos);
  std::string conv = net.layers[1].name;
  s = parse_assignment(R"({"layers": {")" + conv + R"(": "conv2d_nchw_f32_native_fft_t1"}, "default": "native"})", net, r, &back);
  CHECK(s.message().find("layers." + conv) != std::string::npos);
  CHECK(s.message().find("fft") != std::string::npos);
  s = parse_assignment(R"({"layers": {}})", net, r, &back);
  CHECK(s.message().find("no implementation for layer") != std::string::npos);
  CHECK(parse_assignment(R"({"default": "openblas"})", net, r, &back).is_ok());
  CHECK(!parse_assignment(R"({"defualt": "openblas"})", net, r, &back).is_ok());
}

TEST_CASE("plan rejects inconsistent fusion") {
  Network net = testers::small_model("resnet18");
  const Registry& r = default_registry();
  std::vector<ImplDesc> a;
  REQUIRE(library_assignment(net, r, Library::kNative, 1, &a).is_ok());
  int conv = -1;
  for (size_t i = 1; i < net.layers.size() && conv < 0; ++i)
    if (can_fuse_next_activation(net, int(i))) conv = int(i);
  REQUIRE(conv > 0);
  a[conv].fused_activation = true;  // but the relu still runs on its own
  std::unique_ptr<Executor> ex;
  PlanOptions opt;
  opt.registry = &r;
  Status s = Executor::plan(net, a, opt, &ex);
  CHECK(s.code() == StatusCode::kInvalidArgument);
  CHECK(s.message().find("fused") != std::string::npos);
}

TEST_CASE("f32 -> f32 chains never detour through int8") {
  // Make int8 transposes nearly free: the lossless route must still be taken.
  ConversionGraph g(default_registry(), {1, 64, 8, 8}, [](const ConversionDesc& d, const Shape& s) {
    if (d.from.dtype == DType::kI8 && d.to.dtype == DType::kI8) return 0.001;
    return estimated_conversion_cost(d, s);
  });
  auto c = g.chain({Layout::kNCHW, DType::kF32, 2}, {Layout::kNHWC, DType::kF32, 1});
  REQUIRE(!c.empty());
  for (const ConversionDesc& d : c) {
    CHECK(d.from.dtype == DType::kF32);
    CHECK(d.to.dtype == DType::kF32);
  }
}

TEST_CASE("deployments flush denormals on every thread, and give the caller its FP mode back") {
  // x + x on denormal x stays denormal in IEEE arithmetic (the reference shows it) and is 0
  // with denormals flushed: every thread that computed a part, caller or cpu1 worker, must
  // have flushed. (They were a slow path: MobileNetV3-Large's activations decay into them.)
  NetBuilder b("denormals", Shape{1, 64, 64, 64});
  b.add(0, 0);
  Network net = b.finish();
  Tensor x = Tensor::create(net.input_shape());
  for (int64_t i = 0; i < x.shape().elements(); ++i) x.f32()[i] = 1e-39f * float(1 + i % 7);
  std::vector<Tensor> ref;
  REQUIRE(reference_forward(net, x, &ref).is_ok());
  CHECK(ref.back().f32()[0] != 0.f);  // the input really is denormal
  const unsigned mode = _mm_getcsr();
  for (Library lib : {Library::kNative, Library::kXnnpack, Library::kOnednn})
    for (int threads : {1, 2}) {
      CAPTURE(to_string(lib));
      CAPTURE(threads);
      std::vector<ImplDesc> a;
      REQUIRE(library_assignment(net, default_registry(), lib, threads, &a).is_ok());
      REQUIRE(a[1].library == lib);
      std::unique_ptr<Executor> ex;
      PlanOptions opt;
      opt.registry = &default_registry();
      REQUIRE(Executor::plan(net, a, opt, &ex).is_ok());
      Tensor y;
      REQUIRE(ex->run(x, &y).is_ok());
      int64_t nonzero = 0;
      for (int64_t i = 0; i < y.shape().elements(); ++i) nonzero += y.f32()[i] != 0.f;
      CHECK(nonzero == 0);
      CHECK(_mm_getcsr() == mode);
    }
}

TEST_CASE("a 2-thread conversion runs on the pool of the step that reads it (the caller's: the step before), and the result is right") {
  // (Our worker slept while libgomp's spun on cpu1: 10-40 us per conversion between oneDNN
  // steps, measured; on the reader's pool the conversion runs as profiled.)
  if (available_thread_set_cpus() < 2) return;
  Network net = testers::small_model("mobilenetv2");
  std::vector<std::vector<ImplDesc>> plans;
  for (Library lib : {Library::kXnnpack, Library::kOnednn, Library::kNative}) {
    plans.emplace_back();
    REQUIRE(library_assignment(net, default_registry(), lib, 2, &plans.back()).is_ok());
  }
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    plans.emplace_back();
    REQUIRE(random_assignment(net, default_registry(), seed, &plans.back()).is_ok());
  }
  int lent[kThreadPoolCount] = {}, for_caller = 0;
  for (size_t k = 0; k < plans.size(); ++k) {
    CAPTURE(k);
    std::unique_ptr<Executor> ex;
    PlanOptions opt;
    opt.registry = &default_registry();
    REQUIRE(Executor::plan(net, plans[k], opt, &ex).is_ok());
    const std::vector<ExecStep>& steps = ex->steps();
    for (size_t s = 0; s < steps.size(); ++s) {
      if (!steps[s].conversion || steps[s].pool < 0) continue;
      // The step that reads it: the next layer step; for the network output's, the last one's.
      size_t r = s + 1, last = s;
      while (r < steps.size() && steps[r].conversion) ++r;
      while (last > 0 && steps[last].conversion) --last;
      // (a chain that moves the data on thread set 2 and then hands it to a 1-thread reader
      // runs on the pool of the step before, whose worker is awake; after a 1-thread step, or
      // as the first step, on our worker)
      const int reader = (r < steps.size() ? steps[r] : steps[last]).pool;
      const int before = s > 0 && steps[s - 1].pool >= 0 ? steps[s - 1].pool : int(native_kernels_pool());
      CAPTURE(steps[s].name);
      CHECK(steps[s].pool == (reader >= 0 ? reader : before));
      ++lent[steps[s].pool];
      if (reader < 0) ++for_caller;
    }
    CHECK(run_vs_reference(net, plans[k]) <= 1e-2);
  }
  CHECK(lent[int(ThreadPoolId::kXnnpack)] == 0);  // (XNNPACK runs on libgomp's team)
  CHECK(lent[int(ThreadPoolId::kOpenmp)] > 0);
  CHECK(for_caller > 0);  // the random plans hold chains that end on the caller
}

TEST_CASE("native kernels' 2-thread steps run on native_kernels_pool(): libgomp's team by default, our worker when set") {
  if (available_thread_set_cpus() < 2) return;
  Network net = testers::small_model("mobilenetv2");
  std::vector<ImplDesc> plan;
  REQUIRE(library_assignment(net, default_registry(), Library::kNative, 2, &plan).is_ok());
  CHECK(native_kernels_pool() == ThreadPoolId::kOpenmp);  // the default
  for (ThreadPoolId pool : {ThreadPoolId::kNative, ThreadPoolId::kOpenmp}) {
    CAPTURE(to_string(pool));
    ScopedNativeKernelsPool set(pool);
    CHECK(thread_pool_of(Library::kNative, 2) == pool);
    CHECK(thread_pool_of(Library::kOpenBLAS, 2) == pool);
    CHECK(thread_pool_of(Library::kNative, 1) == ThreadPoolId::kCaller);
    std::unique_ptr<Executor> ex;
    PlanOptions opt;
    opt.registry = &default_registry();
    REQUIRE(Executor::plan(net, plan, opt, &ex).is_ok());
    int native_steps = 0;
    for (const ExecStep& s : ex->steps())
      if (!s.conversion && s.pool >= 0) {
        CHECK(s.pool == int(pool));
        ++native_steps;
      }
    CHECK(native_steps > 5);
    CHECK(run_vs_reference(net, plan) <= 1e-2);
  }
}

TEST_CASE("ScopedRangePool: parallel_for's second half runs on the lent pool's cpu1 thread") {
  if (available_thread_set_cpus() < 2) return;
  default_registry();  // registers the libraries' pools
  REQUIRE(pool_runs_ranges(ThreadPoolId::kOpenmp));
  CHECK_FALSE(pool_runs_ranges(ThreadPoolId::kXnnpack));  // (no pool of its own: libgomp's team)
  CHECK(pool_runs_ranges(ThreadPoolId::kNative));
  CHECK_FALSE(pool_runs_ranges(ThreadPoolId::kCaller));
  ScopedPin pin;
  std::thread::id ours;
  on_each_cpu(2, [&](int64_t b, int64_t) {
    if (b == 1) ours = std::this_thread::get_id();
  });
  for (int rep = 0; rep < 20; ++rep) {
    std::vector<int> hits(1000, 0);
    std::thread::id second;
    int cpu = -1;
    {
      ScopedRangePool lend{int(ThreadPoolId::kOpenmp)};
      parallel_for(2, int64_t(hits.size()), 8, [&](int64_t b, int64_t e) {
        for (int64_t k = b; k < e; ++k) ++hits[size_t(k)];
        if (b > 0) second = std::this_thread::get_id(), cpu = sched_getcpu();
      });
    }
    CHECK(std::count(hits.begin(), hits.end(), 1) == 1000);
    // The OpenMP team's thread 1 runs its part: not the caller, not our worker.
    const bool on_caller = second == std::this_thread::get_id(), on_ours = second == ours;
    CHECK_FALSE(on_ours);
    CHECK(cpu == thread_set_cpu(1));
    CHECK_FALSE(on_caller);
  }
}

namespace {
cpu_set_t affinity_now() {
  cpu_set_t m;
  CPU_ZERO(&m);
  pthread_getaffinity_np(pthread_self(), sizeof m, &m);
  return m;
}
bool only_cpu(const cpu_set_t& m, int cpu) { return CPU_COUNT(&m) == 1 && CPU_ISSET(cpu, &m); }
bool affinity_is(const cpu_set_t& m) {
  const cpu_set_t now = affinity_now();
  return CPU_EQUAL(&m, &now) != 0;
}
}  // namespace

TEST_CASE("ScopedPin nests: only the outermost pins the caller and restores its affinity") {
  if (available_thread_set_cpus() < 2) return;
  std::thread([] {  // a fresh thread, so the test's own pins do not interfere
    const cpu_set_t before = affinity_now();
    REQUIRE(CPU_COUNT(&before) >= 2);
    CHECK_FALSE(caller_pinned());
    {
      ScopedPin outer;
      CHECK(caller_pinned());
      CHECK(only_cpu(affinity_now(), thread_set_cpu(0)));
      // Widen the mask under the outer pin: an inner pin that asked the kernel would narrow
      // it to cpu0 again while it lives.
      pthread_setaffinity_np(pthread_self(), sizeof before, &before);
      {
        ScopedPin inner;
        CHECK(affinity_is(before));
      }
      CHECK(caller_pinned());
      cpu_set_t cpu0;
      CPU_ZERO(&cpu0);
      CPU_SET(thread_set_cpu(0), &cpu0);
      pthread_setaffinity_np(pthread_self(), sizeof cpu0, &cpu0);
    }
    CHECK_FALSE(caller_pinned());
    CHECK(affinity_is(before));
  }).join();
}

TEST_CASE("Executor::run pins its caller for the run only, or keeps an outer pin") {
  if (available_thread_set_cpus() < 2) return;
  Network net = testers::small_model("squeezenet1_1");
  std::vector<ImplDesc> plan;
  REQUIRE(library_assignment(net, default_registry(), Library::kNative, 2, &plan).is_ok());
  PlanOptions po;
  po.registry = &default_registry();
  std::unique_ptr<Executor> ex;
  REQUIRE(Executor::plan(net, plan, po, &ex).is_ok());
  std::thread([&] {
    const cpu_set_t before = affinity_now();
    Tensor x = Tensor::create(net.input_shape()), y1, y2;
    for (int64_t i = 0; i < x.shape().elements(); ++i) x.f32()[i] = float(i % 7) - 3;
    REQUIRE(ex->run(x, &y1).is_ok());
    CHECK(affinity_is(before));
    {
      ScopedPin pin;
      REQUIRE(ex->run(x, &y2).is_ok());
      CHECK(only_cpu(affinity_now(), thread_set_cpu(0)));
    }
    CHECK(affinity_is(before));
    REQUIRE(y1.shape() == y2.shape());
    CHECK(std::equal(y1.f32(), y1.f32() + y1.shape().elements(), y2.f32()));
  }).join();
}

TEST_CASE("caller_ran_alone_count counts exactly the jobs whose second half the caller took back") {
  if (available_thread_set_cpus() < 2) return;
  ScopedPin pin;
  const std::thread::id caller = std::this_thread::get_id();
  int alone = 0;
  const uint64_t before = caller_ran_alone_count();
  // A parked worker takes microseconds to wake; a job of two tiny halves is over by then,
  // so the caller takes some of them back. Every job is checked, taken back or not.
  for (int rep = 0; rep < 1000 && (alone < 3 || rep < 50); ++rep) {
    if (rep % 2 == 0) park_thread_set_worker();
    std::thread::id second;
    parallel_for(2, 2, 1, [&](int64_t b, int64_t) {
      if (b == 1) second = std::this_thread::get_id();
    });
    alone += second == caller;
  }
  CHECK(alone >= 3);
  CHECK(caller_ran_alone_count() - before == uint64_t(alone));
}

TEST_CASE("shorten_wake_slice sets the slice it reports and keeps the thread's policy and nice value") {
  int nice = 0, policy_before = -1, policy_after = -2, set_nice = -1, nice_after = 99;
  std::optional<uint64_t> slice;
  bool taken = false;
  std::thread t([&] {  // a thread of its own: the slice and nice value stay with it
    errno = 0;
    const int base = getpriority(PRIO_PROCESS, 0);  // (CI may already run niced)
    nice = std::min(base + 3, 19);
    set_nice = errno == 0 ? setpriority(PRIO_PROCESS, 0, nice) : -1;  // this thread only (Linux); raising needs no privilege
    policy_before = sched_getscheduler(0);
    taken = shorten_wake_slice();
    nice_after = getpriority(PRIO_PROCESS, 0);
    policy_after = sched_getscheduler(0);
    slice = thread_slice_ns();
  });
  t.join();
  REQUIRE(set_nice == 0);
  REQUIRE(slice.has_value());
  CHECK(nice_after == nice);
  CHECK(policy_after == policy_before);
  if (taken) CHECK(*slice == uint64_t(kWakeSliceUs) * 1000);
  else CHECK(*slice != uint64_t(kWakeSliceUs) * 1000);
}
