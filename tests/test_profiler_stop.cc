// The profiler's measurement loop: a give-up rule, the median's interval, the inputs a 2-thread
// step starts with, and the early stop that cannot change what a search finds.
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

TEST_CASE("measure: the output probe reads a step's output as in memory after it streamed it, cached after plain stores") {
  Protocol p;
  p.warmup = 1;
  p.runs = p.max_runs = 9;
  std::vector<uint8_t> out(size_t(4) << 20, 1);  // 4 MiB: beyond L2, a scattered read tells memory apart
  WarmSet warm;
  auto streamed = [&] {  // written, then pushed out of every cache: as after non-temporal stores
    for (size_t i = 0; i < out.size(); i += 64) out[i] = uint8_t(out[i] + 1);
    for (size_t i = 0; i < out.size(); i += 64) __builtin_ia32_clflush(out.data() + i);
    return Status::ok();
  };
  auto cached = [&] {
    for (size_t i = 0; i < out.size(); i += 64) out[i] = uint8_t(out[i] + 1);
    return Status::ok();
  };
  double in_memory = -1;
  warm.output_probe = {out.data(), out.size(), &in_memory};
  LatencyStats st;
  REQUIRE(measure(p, streamed, &st, &warm).is_ok());
  const double after_streaming = in_memory;
  REQUIRE(measure(p, cached, &st, &warm).is_ok());
  CAPTURE(after_streaming);
  CAPTURE(in_memory);
  // (0 when this machine cannot tell memory from its caches: then neither may read as streamed)
  CHECK(after_streaming >= 0);
  CHECK(after_streaming <= 1);
  CHECK(in_memory <= 0.5);
  if (after_streaming > 0) CHECK(after_streaming > in_memory);
  CHECK(nlohmann::json::parse(p.to_json().dump()).value("streamed_outputs", "") == "measured");
  p.streamed_outputs = false;
  CHECK_FALSE(p.to_json().contains("streamed_outputs"));
}

TEST_CASE("measure: the cores compute for computing_us before every cold run, and the protocol says so") {
  Protocol p;
  p.warmup = 1;
  p.runs = p.max_runs = 5;
  p.cv_threshold = 0;
  std::vector<float> in(1024, 1.f);
  WarmSet warm;
  warm.buffers = {{in.data(), in.size() * sizeof(float)}};
  int calls = 0;
  auto run = [&] { return ++calls, Status::ok(); };
  LatencyStats st;
  auto wall_ms = [&](double us) {
    p.computing_us = us;
    const auto t0 = std::chrono::steady_clock::now();
    REQUIRE(measure(p, run, &st, &warm).is_ok());
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  };
  // Six prepared runs (the warm-up included) of at least 3 ms of GEMMs each: a lower bound
  // that holds on any machine, however loaded.
  CHECK(wall_ms(3000) >= 6 * 3.0);
  CHECK(calls == 6);
  const nlohmann::json j = nlohmann::json::parse(p.to_json().dump());
  CHECK(j.value("cores_before_run", "") == "computing");
  CHECK(j.value("computing_us", 0.0) == 3000);
  p.computing_us = 0;
  CHECK_FALSE(p.to_json().contains("cores_before_run"));
  CHECK_FALSE(p.to_json().contains("computing_us"));
  p.computing_us = 500;
  p.cold_cache = false;  // back-to-back runs: nothing before them
  CHECK_FALSE(p.to_json().contains("computing_us"));
  CHECK(Protocol{}.computing_us == 500);
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
