// A concat's producers writing straight into its output (PrimitiveArgs::out_pixel_stride,
// PlanOptions::concat_in_place): each primitive that takes a pixel stride writes exactly
// its dense output at that stride and nothing between; whole networks give the same output
// bit for bit with and without, and the concat copies only what was not written in place.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <random>

#include "libs/exec/backends.h"
#include "libs/exec/executor.h"
#include "libs/ref/reference.h"
#include "libs/zoo/zoo.h"
#include "libs/zoo/zoo_builder.h"
#include "tests/testers/tester.h"

using namespace lw;

namespace {

// Odd channel counts and sizes, a batch of 2, every layer kind a concat's producer can be.
// e feeds the concat and another conv; cat1 feeds a second concat.
Network branches_net() {
  NetBuilder b("branches", {2, 8, 11, 13});
  const int x = 0;
  const int a = b.conv(x, 5, 1);
  const int rb = b.act(b.conv(x, 7, 3), LayerKind::kRelu);
  const int cc = b.act(b.conv(b.max_pool(x, 3, 1, 1), 3, 1), LayerKind::kRelu6);
  const int rd = b.act(b.conv(x, 6, 5), LayerKind::kRelu);
  const int e = b.conv(x, 4, 1);
  const int p = b.max_pool(x, 3, 1, 1);
  const int cat1 = b.concat({a, rb, cc, rd, e, p});
  const int f = b.conv(cat1, 9, 3);
  const int g = b.act(b.conv(e, 9, 3), LayerKind::kRelu);
  const int h = b.act(b.add(f, g), LayerKind::kHardSwish);
  const int cat2 = b.concat({cat1, h, b.act(b.conv(h, 16, 1), LayerKind::kSigmoid)});
  b.flatten(b.global_avg_pool(cat2));
  Network raw = b.finish(), net;
  init_random_weights(raw, 5);
  REQUIRE(fold_affine(raw, &net).is_ok());
  return net;
}

bool nhwc_f32(const ImplDesc& d) {
  return d.layout_in == Layout::kNHWC && d.layout_out == Layout::kNHWC && d.dtype_in == DType::kF32 &&
         d.dtype_out == DType::kF32;
}

struct AlignedFree {
  void operator()(void* p) const { std::free(p); }
};
std::unique_ptr<void, AlignedFree> aligned(size_t bytes) { return {std::aligned_alloc(64, (bytes + 127) / 64 * 64), {}}; }

// Runs the primitive twice; its output lands in a NaN-poisoned buffer of `pixels x stride`
// floats (+ a guard). Returns the buffer.
std::vector<float> run_into(Primitive& p, const std::vector<const float*>& in, int64_t pixels, int64_t stride) {
  std::vector<float> out(size_t(pixels * stride + 32), std::nanf(""));
  auto ws = aligned(p.workspace_bytes());
  std::vector<const void*> ins(in.begin(), in.end());
  REQUIRE(p.setup(ins, out.data(), ws.get()).is_ok());
  REQUIRE(p.run().is_ok());
  REQUIRE(p.run().is_ok());
  return out;
}

// The library/kind pairs that must take a stride (the others may write densely).
std::string key_of(const ImplDesc& d) { return to_string(d.library) + std::string("/") + to_string(d.op); }

std::vector<ImplDesc> assignment_by(const Network& net, const Registry& r, int threads, bool fuse,
                                    int (*rank)(const ImplDesc&)) {
  std::vector<ImplDesc> a(net.layers.size());
  for (size_t i = 1; i < net.layers.size(); ++i) {
    if (auto partner = absorbed_partner(net, a, int(i))) {
      a[i] = *partner;
      continue;
    }
    // `best` points into this list, so it must outlive the loop.
    const std::vector<Candidate> candidates = r.candidates(net, int(i));
    const Candidate* best = nullptr;
    auto score = [&](const ImplDesc& d) { return rank(d) * 2 + (d.fused_activation != fuse ? 1 : 0); };
    for (const Candidate& c : candidates) {
      const ImplDesc& d = c.desc;
      if (!c.supported.is_ok() || !nhwc_f32(d) || d.threads != threads || d.algorithm == Algorithm::kFused) continue;
      if (!best || score(d) < score(best->desc)) best = &c;
    }
    REQUIRE_MESSAGE(best, "no NHWC f32 implementation for ", net.layers[i].name);
    a[i] = best->desc;
  }
  return a;
}

int xnnpack_first(const ImplDesc& d) {
  if (d.op == LayerKind::kConcat) return d.library == Library::kNative ? 0 : 9;
  return d.library == Library::kXnnpack ? 0 : d.library == Library::kNative ? 1 : 5;
}
int native_winograd_first(const ImplDesc& d) {
  if (d.library != Library::kNative) return 9;
  return d.algorithm == Algorithm::kWinogradF4 ? 0 : d.algorithm == Algorithm::kDefault ? 1 : 2;
}

struct Planned {
  std::unique_ptr<Executor> ex;
  Tensor y;
};
Planned plan_and_run(const Network& net, const std::vector<ImplDesc>& a, bool in_place, const Tensor& x) {
  Planned p;
  PlanOptions opt;
  opt.registry = &default_registry();
  opt.concat_in_place = in_place;
  Status s = Executor::plan(net, a, opt, &p.ex);
  REQUIRE_MESSAGE(s.is_ok(), s.message());
  REQUIRE(p.ex->run(x, &p.y).is_ok());
  REQUIRE(p.ex->run(x, &p.y).is_ok());
  return p;
}

}  // namespace

TEST_CASE("a primitive given an output pixel stride writes its dense output at that stride and nothing between") {
  const Network net = branches_net();
  const Registry& r = default_registry();
  std::mt19937_64 rng(3);
  std::map<std::string, int> honoured;
  int checked = 0;
  for (size_t i = 1; i < net.layers.size(); ++i) {
    const std::vector<Shape> in = input_shapes(net, int(i));
    std::vector<Tensor> xs;
    std::vector<const float*> ptrs;
    for (const Shape& s : in) xs.push_back(to_layout(testers::random_tensor(s, rng), Layout::kNHWC));
    for (const Tensor& t : xs) ptrs.push_back(t.f32());
    for (const Candidate& c : r.candidates(net, int(i))) {
      const ImplDesc& d = c.desc;
      if (!c.supported.is_ok() || !nhwc_f32(d) || d.algorithm == Algorithm::kFused) continue;
      const RuntimeFusion f = d.fused_activation ? runtime_fusion(net, int(i)) : RuntimeFusion{};
      if (f.add >= 0) continue;  // (an accumulating conv: the executor never slices it)
      const Layer layer = runtime_fusion_layer(net.layers[i], f);
      const Shape& os = net.layers[i].out;
      const int64_t pixels = int64_t(os.n) * os.h * os.w, C = os.c;
      for (int64_t stride : {C + 3, 2 * C + 1}) {
        INFO(d.name(), " on ", net.layers[i].name, ", pixel stride ", stride);
        PrimitiveArgs args{d, &layer, in, {}, {}};
        std::unique_ptr<Primitive> dense, strided;
        REQUIRE(r.create(args, &dense).is_ok());
        args.out_pixel_stride = stride;
        REQUIRE(r.create(args, &strided).is_ok());
        CHECK(dense->output_pixel_stride() == 0);
        const int64_t got = strided->output_pixel_stride();
        CHECK((got == 0 || got == stride));  // honoured exactly, or not at all
        if (got != stride) continue;
        ++honoured[key_of(d)];
        ++checked;
        const std::vector<float> want = run_into(*dense, ptrs, pixels, C);
        const std::vector<float> out = run_into(*strided, ptrs, pixels, stride);
        int64_t wrong = 0, touched = 0;
        for (int64_t px = 0; px < pixels; ++px) {
          // Same kernels, same sums: bit for bit.
          wrong += std::memcmp(&out[size_t(px * stride)], &want[size_t(px * C)], sizeof(float) * size_t(C)) != 0;
          for (int64_t k = C; k < stride; ++k) touched += !std::isnan(out[size_t(px * stride + k)]);
        }
        for (size_t k = size_t(pixels * stride); k < out.size(); ++k) touched += !std::isnan(out[k]);
        CHECK(wrong == 0);
        CHECK(touched == 0);
      }
    }
  }
  INFO("honoured: ", checked);
  // What the executor relies on in GoogLeNet's and SqueezeNet's deployments.
  for (const char* k : {"xnnpack/conv2d", "xnnpack/relu", "xnnpack/relu6", "xnnpack/max-pool", "xnnpack/hardswish",
                        "xnnpack/sigmoid", "xnnpack/global-avg-pool", "native/conv2d", "native/relu", "native/relu6",
                        "native/hardswish", "native/sigmoid"}) {
    INFO(k);
    CHECK(honoured[k] > 0);
  }
}

TEST_CASE("concat producers writing in place: the same output bit for bit, fewer buffers, fewer copies") {
  const Network net = branches_net();
  const Registry& r = default_registry();
  std::mt19937_64 rng(7);
  const Tensor x = testers::random_tensor(net.input_shape(), rng);
  std::vector<Tensor> ref;
  REQUIRE(reference_forward(net, x, &ref).is_ok());
  int cat1 = -1, cat2 = -1;
  for (size_t i = 1; i < net.layers.size(); ++i)
    if (net.layers[i].kind == LayerKind::kConcat) (cat1 < 0 ? cat1 : cat2) = int(i);
  REQUIRE(cat2 > cat1);
  struct Case {
    const char* name;
    int (*rank)(const ImplDesc&);
    bool fuse;
    int cat1, cat2;  // inputs written in place
    bool fewer_buffers;  // some slice's producer is not an activation step (those already ran in place)
  };
  // cat1 reads a (1x1 conv), rb (3x3 conv, relu), cc (1x1 conv, relu6), rd (5x5 conv, relu), e
  // (1x1 conv, read by another conv too: never in place) and p (max pool); cat2 reads cat1 and
  // h (each read by another layer too) and a sigmoid. On xnnpack every other producer writes
  // in place. Natively the Winograd convs (3x3, 5x5) and the activation steps do; the 1x1
  // convs, the pool and a 1x1 conv that absorbed its activation write densely.
  const Case cases[] = {{"xnnpack", xnnpack_first, false, 5, 1, true},
                        {"xnnpack fused", xnnpack_first, true, 5, 1, true},
                        {"native Winograd", native_winograd_first, false, 3, 1, false},
                        {"native Winograd fused", native_winograd_first, true, 2, 0, true}};
  for (const Case& c : cases)
    for (int threads : kThreadSets) {
      INFO(std::string(c.name), ", ", threads, " thread(s)");
      const std::vector<ImplDesc> a = assignment_by(net, r, threads, c.fuse, c.rank);
      Planned on = plan_and_run(net, a, true, x), off = plan_and_run(net, a, false, x);
      REQUIRE(on.y.bytes() == off.y.bytes());
      CHECK(std::memcmp(on.y.data(), off.y.data(), on.y.bytes()) == 0);
      CHECK(testers::output_error(on.y, ref.back()) <= testers::kWinogradTolerance);
      std::map<int, int> taken;
      for (const ExecStep& s : on.ex->steps())
        if (!s.conversion && net.layers[s.layer].kind == LayerKind::kConcat) taken[s.layer] = s.inputs_in_place;
      for (const ExecStep& s : off.ex->steps()) CHECK(s.inputs_in_place == 0);
      CHECK(taken[cat1] == c.cat1);
      CHECK(taken[cat2] == c.cat2);
      // A slice is no buffer of its own (an activation step's output was none either: it ran
      // over its input); the arena's peak may lie elsewhere.
      const size_t naive_on = on.ex->memory().naive_activation_bytes, naive_off = off.ex->memory().naive_activation_bytes;
      if (c.fewer_buffers) CHECK(naive_on < naive_off);
      else CHECK(naive_on == naive_off);
      CHECK(on.ex->memory().arena_bytes <= off.ex->memory().arena_bytes);
    }
}
