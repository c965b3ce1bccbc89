// The residual add absorbed by a oneDNN conv (sum post-op): every fused onednn conv on the
// awkward shapes, accumulating in place and into a separate output, against the reference
// conv + add (+ relu); the registry's view of which layers absorb what; and a profiled
// residual network whose exact optimum uses it, run by the executor against the reference.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "agents/builtin.h"
#include "env/cost.h"
#include "env/env.h"
#include "env/profiler.h"
#include "libs/core/cpu.h"
#include "libs/exec/backends.h"
#include "libs/exec/executor.h"
#include "libs/onednn/onednn.h"
#include "libs/quant/quant.h"
#include "libs/ref/reference.h"
#include "libs/zoo/zoo_builder.h"
#include "tests/testers/conv_tester.h"
#include "tests/testers/tester.h"

using namespace lw;
using namespace lw::testers;

namespace {

const Registry& onednn_registry() { return registry_of<register_onednn>(); }

float activate(LayerKind a, float v) { return a == LayerKind::kRelu ? std::max(v, 0.f) : v; }

// act(conv(x) + residual) by the reference executor, NCHW f32.
Tensor reference_conv_add(const Layer& conv, LayerKind act, const Tensor& x, const Tensor& residual) {
  Layer plain = conv;
  plain.fused_activation = LayerKind::kInput;
  plain.fused_residual = false;
  Tensor y;
  REQUIRE(reference_layer(plain, {&x}, &y).is_ok());
  for (int64_t i = 0; i < y.shape().elements(); ++i) y.f32()[i] = activate(act, y.f32()[i] + residual.f32()[i]);
  return y;
}

struct ResidualRun {
  double in_place = -1, copied = -1;  // errors vs the reference; -1: unsupported
};

// Runs `d` on conv + residual twice: output over the residual (as the executor places it
// when the residual dies there) and into a separate NaN-poisoned buffer (run() copies).
ResidualRun run_residual(const ImplDesc& d, const Layer& conv, const Tensor& x, const Tensor& residual) {
  const std::vector<Shape> shapes = {x.shape(), residual.shape()};
  ResidualRun r;
  if (!onednn_registry().supports(d, conv, shapes).is_ok()) return r;
  const Tensor want = reference_conv_add(conv, conv.fused_activation, x, residual);
  std::unique_ptr<Primitive> p;
  Status s = onednn_registry().create({d, &conv, shapes, {}, {}}, &p);
  REQUIRE_MESSAGE(s.is_ok(), s.message());
  REQUIRE(p->accumulate_input() == 1);
  Tensor xin = to_float_dtype(to_layout(x, d.layout_in), d.dtype_in);
  std::vector<uint8_t> ws(p->workspace_bytes() + 64, 0xff);
  for (bool in_place : {true, false}) {
    Tensor res = to_float_dtype(to_layout(residual, d.layout_out), d.dtype_out);
    Tensor out = Tensor::create(p->output_shape(), d.dtype_out, d.layout_out);
    REQUIRE(out.bytes() == res.bytes());
    std::memset(out.data(), 0xff, out.bytes());  // NaN in f32 and bf16
    void* dst = in_place ? res.data() : out.data();
    REQUIRE(p->setup({xin.data(), res.data()}, dst, ws.data()).is_ok());
    REQUIRE(p->run().is_ok());
    Tensor got = to_float_dtype(in_place ? res : out, DType::kF32);
    const double e = output_error(got, want);
    (in_place ? r.in_place : r.copied) = e;  // output_error: NaN counts as infinite
  }
  return r;
}

}  // namespace

TEST_CASE("onednn conv + residual add (+ relu): every fused conv on awkward shapes, in place and copied") {
  const auto shapes = conv_shapes(8, 31, false);
  int checked = 0;
  for (const ImplDesc& d : descriptors(onednn_registry(), Library::kOnednn, LayerKind::kConv2d)) {
    if (!d.fused_activation || d.dtype_in == DType::kI8) continue;  // int8: the next case
    int ran = 0, plain = 0;
    for (size_t k = 0; k < shapes.size(); ++k) {
      Layer conv = shapes[k].layer();
      if (conv.fused_activation == LayerKind::kInput && k % 2 == 0) conv.fused_activation = LayerKind::kRelu;
      // After an absorbed add the registry fuses a relu or nothing (dnnl_conv.cc check_residual).
      if (conv.fused_activation != LayerKind::kRelu) conv.fused_activation = LayerKind::kInput;
      const Shape in = shapes[k].input_shape();
      Shape out;
      REQUIRE(infer_layer_shape(conv, {in}, &out).is_ok());
      // The same conv without the residual: the residual form must run wherever it runs.
      plain += onednn_registry().supports(d, conv, {in}).is_ok();
      conv.fused_residual = true;
      std::mt19937_64 rng(k + 7);
      const Tensor x = random_tensor(in, rng), residual = random_tensor(out, rng, -2.f, 2.f);
      ResidualRun r = run_residual(d, conv, x, residual);
      INFO(d.name(), " on ", shapes[k].describe(), " errors ", r.in_place, " / ", r.copied);
      if (r.in_place < 0) {
        Status s = onednn_registry().supports(d, conv, {in, out});
        CHECK(s.code() == StatusCode::kUnsupported);
        CHECK_FALSE(s.message().empty());
        continue;
      }
      const double tol = d.dtype_in == DType::kBF16 ? kBf16Tolerance : d.algorithm == Algorithm::kWinograd ? 1e-3 : 1e-4;
      CHECK(r.in_place <= tol);
      CHECK(r.copied <= tol);
      ++ran;
    }
    INFO(d.name(), " ran ", ran, " of ", shapes.size(), "; without the residual ", plain);
    // NCHW -> blocked is refused; every other form adds the residual wherever the plain conv
    // runs.
    if (d.layout_in != d.layout_out) {
      CHECK(ran == 0);
    } else {
      CHECK(ran == plain);
      checked += ran;
    }
  }
  CHECK(checked > 0);
}

namespace {

// One int8 case: the input, the residual (in its own quantisation) and the output
// quantisation of the f32 conv + residual on their dequantised values, as calibration
// would choose them.
struct Int8Case {
  Tensor xq, rq;  // NCHW int8
  QuantParams out_q;
  Tensor want;  // reference_conv_int8 with the residual, NCHW int8
};

Int8Case int8_case(const Layer& conv, const Shape& in, const Shape& out, uint64_t seed, WeightQuantization wq) {
  std::mt19937_64 rng(seed);
  Int8Case c;
  // A relu's output (zero point -128, read as u8) for every other seed.
  const float lo = seed % 2 ? 0.f : -1.f;
  c.xq = quantize_tensor(random_tensor(in, rng, lo, 1.f), choose_quant_params(lo, 1.f));
  c.rq = quantize_tensor(random_tensor(out, rng, -1.5f, 2.f), choose_quant_params(-1.5f, 2.f));
  const Tensor f = reference_conv_add(conv, conv.fused_activation, dequantize_tensor(c.xq), dequantize_tensor(c.rq));
  float mn = 0, mx = 0;
  for (int64_t i = 0; i < f.shape().elements(); ++i) mn = std::min(mn, f.f32()[i]), mx = std::max(mx, f.f32()[i]);
  c.out_q = choose_quant_params(mn, mx);
  REQUIRE(reference_conv_int8(conv, quantize_weights(conv.weights, conv.out_channels, wq.per_channel, wq.qmax), c.xq,
                              c.out_q, &c.want, &c.rq).is_ok());
  return c;
}

// Runs int8 `d` on the case with the output over the residual and into a separate buffer;
// the worst error in quantisation steps, or -1 when unsupported.
double run_int8_residual(const ImplDesc& d, const Layer& conv, const Int8Case& c) {
  const std::vector<Shape> shapes = {c.xq.shape(), c.rq.shape()};
  if (!onednn_registry().supports(d, conv, shapes).is_ok()) return -1;
  std::unique_ptr<Primitive> p;
  // Without the residual's quantisation it cannot scale the residual: refused.
  CHECK(onednn_registry().create({d, &conv, shapes, {c.xq.quant()}, c.out_q}, &p).code() == StatusCode::kInvalidArgument);
  Status s = onednn_registry().create({d, &conv, shapes, {c.xq.quant(), c.rq.quant()}, c.out_q}, &p);
  REQUIRE_MESSAGE(s.is_ok(), s.message());
  REQUIRE(p->accumulate_input() == 1);
  const Tensor x = to_layout(c.xq, d.layout_in);
  std::vector<uint8_t> ws(p->workspace_bytes() + 64, 0xff);
  double worst = 0;
  for (bool in_place : {true, false}) {
    Tensor res = to_layout(c.rq, d.layout_out);
    Tensor out = Tensor::create(p->output_shape(), DType::kI8, d.layout_out);
    std::memset(out.data(), 0x7f, out.bytes());
    REQUIRE(p->setup({x.data(), res.data()}, in_place ? res.data() : out.data(), ws.data()).is_ok());
    REQUIRE(p->run().is_ok());
    Tensor got = in_place ? res : out;
    got.set_quant(c.out_q);
    worst = std::max(worst, output_error(got, c.want));
  }
  return worst;
}

}  // namespace

TEST_CASE("onednn int8 conv + residual add (+ relu): within one step of the int8 reference, in place and copied") {
  // The residual in its own quantisation, the output in the add's: the sum post-op scales
  // the residual by s_res / s_out and the bias carries its zero point (dnnl_conv.cc).
  const auto shapes = conv_shapes(8, 41, false);
  int checked = 0;
  for (const ImplDesc& d : descriptors(onednn_registry(), Library::kOnednn, LayerKind::kConv2d)) {
    if (!d.fused_activation || d.dtype_in != DType::kI8) continue;
    int ran = 0, plain = 0;
    for (size_t k = 0; k < shapes.size(); ++k) {
      Layer conv = shapes[k].layer();
      conv.fused_activation = k % 2 ? LayerKind::kRelu : LayerKind::kInput;
      const Shape in = shapes[k].input_shape();
      Shape out;
      REQUIRE(infer_layer_shape(conv, {in}, &out).is_ok());
      plain += onednn_registry().supports(d, conv, {in}).is_ok();
      conv.fused_residual = true;
      const double e = run_int8_residual(d, conv, int8_case(conv, in, out, k, weight_quantization(d.algorithm)));
      INFO(d.name(), " on ", shapes[k].describe(), " (as ", to_string(conv.fused_activation), " + residual) error ", e, " steps");
      if (e < 0) continue;
      CHECK(e <= kInt8Tolerance);
      ++ran;
    }
    INFO(d.name(), " ran ", ran, " of ", shapes.size(), "; without the residual ", plain);
    CHECK(ran == plain);  // the residual form runs wherever the plain int8 conv runs
    checked += ran;
  }
  CHECK(checked > 0);  // qc8 with VNNI, qc7 without (dnnl_conv.cc)
}

namespace {

// x -> conv3x3 relu -> conv3x3 -> (+x) relu -> conv1x1 -> (+ that) -> gap -> fc: one add
// whose relu is absorbed too, one without activation whose residual is itself an absorbed
// relu's output.
Network residual_net() {
  NetBuilder b("residual_tiny", {1, 16, 10, 10});
  int a = b.act(b.conv(0, 16, 3), LayerKind::kRelu);
  int y = b.act(b.add(b.conv(a, 16, 3), 0), LayerKind::kRelu);
  int z = b.add(b.conv(y, 16, 1, 1, 0), y);
  b.fc(b.flatten(b.global_avg_pool(z)), 10);
  Network net = b.finish();
  init_random_weights(net, 5);
  return net;
}

int find_kind(const Network& net, LayerKind k, int nth) {
  for (size_t i = 1; i < net.layers.size(); ++i)
    if (net.layers[i].kind == k && nth-- == 0) return int(i);
  return -1;
}

}  // namespace

TEST_CASE("runtime fusion: which conv absorbs which add and activation") {
  Network net = residual_net();
  const int add1 = find_kind(net, LayerKind::kAdd, 0), add2 = find_kind(net, LayerKind::kAdd, 1);
  const int conv2 = net.layers[add1].inputs[0], conv3 = net.layers[add2].inputs[0];
  RuntimeFusion f = runtime_fusion(net, conv2);
  CHECK(f.add == add1);
  CHECK(f.residual == 0);
  CHECK(f.activation == LayerKind::kRelu);
  CHECK(f.activation_layer == add1 + 1);
  CHECK(absorber_of(net, add1) == conv2);
  CHECK(absorber_of(net, add1 + 1) == add1);  // the relu after the add: passed on by the add
  f = runtime_fusion(net, conv3);
  CHECK(f.add == add2);
  CHECK(f.residual == add1 + 1);
  CHECK(f.activation == LayerKind::kInput);
  // The add's pseudo-implementation: flagged exactly when the activation after it is absorbed.
  auto fused_forms = [&](int layer) {
    std::vector<std::string> ok;
    for (const Candidate& c : default_registry().candidates(net, layer))
      if (c.supported.is_ok() && c.desc.algorithm == Algorithm::kFused && c.desc.layout_in == Layout::kNCHW &&
          c.desc.dtype_in == DType::kF32 && c.desc.threads == 1)
        ok.push_back(c.desc.name());
    return ok;
  };
  CHECK(fused_forms(add1) == std::vector<std::string>{"add_nchw_f32_native_fused_fused_t1"});
  CHECK(fused_forms(add2) == std::vector<std::string>{"add_nchw_f32_native_fused_t1"});
  // Only oneDNN adds a residual; every other library's fused conv says why not.
  for (const Candidate& c : default_registry().candidates(net, conv2))
    if (c.desc.fused_activation && c.desc.library != Library::kOnednn) CHECK_FALSE(c.supported.is_ok());
}

TEST_CASE("a profiled residual network: the exact optimum can take conv + add and runs like the reference") {
  Network net = residual_net();
  ProfileOptions o;
  o.libraries = {Library::kNative, Library::kOnednn};
  o.threads = {1};
  o.protocol.warmup = 0;
  o.protocol.runs = o.protocol.max_runs = 2;
  Lut lut;
  REQUIRE(profile_network(net, default_registry(), o, &lut).is_ok());
  const int add1 = find_kind(net, LayerKind::kAdd, 0), add2 = find_kind(net, LayerKind::kAdd, 1);
  for (int add : {add1, add2}) {
    const int conv = net.layers[add].inputs[0];
    int measured = 0, absorbed = 0;
    for (const Impl& m : lut.layers[conv].impls)
      measured += m.ok() && m.fused_activation && m.library == "onednn" && m.latency_ms.median > 0;
    for (const Impl& m : lut.layers[add].impls) absorbed += m.ok() && m.is_fused_consumer();
    CHECK(measured > 0);
    CHECK(absorbed > 0);
  }
  // f32 only, and the fused conv + add made the clear winner: the optimum must take it.
  for (LutLayer& l : lut.layers)
    for (Impl& m : l.impls) {
      if (m.dtype != DType::kF32) m.status = ImplStatus::kUnsupported;
      if (m.fused_activation && m.library == "onednn") m.latency_ms.median = m.latency_ms.mean = 1e-6;
    }
  Problem p;
  REQUIRE(compile_problem(lut, &p).is_ok());
  DeploymentEnv env(p);
  SearchResult best;
  REQUIRE(run_exact(env, AgentRequest{}, &best).is_ok());
  REQUIRE(best.best_latency_ms < kInf);
  std::vector<ImplDesc> a(net.layers.size());
  for (size_t i = 1; i < net.layers.size(); ++i)
    REQUIRE(parse_impl_name(lut.layers[i].impls[best.best[i]].name, &a[i]).is_ok());
  for (int add : {add1, add2}) {
    INFO(a[net.layers[add].inputs[0]].name(), " -> ", a[add].name());
    CHECK(a[net.layers[add].inputs[0]].fused_activation);
    CHECK(a[add].algorithm == Algorithm::kFused);
  }
  CHECK(a[add1].fused_activation);  // passes the relu on
  CHECK(a[add1 + 1].algorithm == Algorithm::kFused);
  for (bool keep : {false, true}) {  // in place over the residuals, and copied (kept outputs)
    PlanOptions opt;
    opt.registry = &default_registry();
    opt.keep_outputs = keep;
    std::unique_ptr<Executor> ex;
    Status s = Executor::plan(net, a, opt, &ex);
    REQUIRE_MESSAGE(s.is_ok(), s.message());
    std::mt19937_64 rng(3);
    Tensor x = random_tensor(net.input_shape(), rng), y;
    REQUIRE(ex->run(x, &y).is_ok());
    std::vector<Tensor> ref;
    REQUIRE(reference_forward(net, x, &ref).is_ok());
    CHECK(output_error(y, ref.back()) <= 1e-4);
    if (keep) {  // every layer's output, the absorbed add and relu included
      // The absorbed add whose relu is absorbed too reads as the relu's output (as a conv
      // whose activation is fused does), so it is left out.
      for (int l : {add1 + 1, add2}) {
        Tensor got;
        REQUIRE(ex->layer_output(l, &got).is_ok());
        INFO("layer ", net.layers[l].name, " ", a[l].name());
        CHECK(output_error(got, ref[l]) <= 1e-4);
      }
    }
  }
}
