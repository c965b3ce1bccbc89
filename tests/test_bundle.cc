// Deployment bundles (issue 15) through the runtime API and the CLI: a bundle round-trips
// and runs bit-identically to the executor the explorer plans; corrupted, truncated,
// foreign-device, other-version and missing-ISA bundles are refused with one line and a
// non-zero status (the ISA by masking a feature this CPU has: LAYERWISE_MASK_CPU_FEATURES
// or Options::mask_cpu_features); distinct instances run concurrently.
#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

#include <pthread.h>
#include <sched.h>

#include "env/bundle.h"
#include "env/device.h"
#include "layerwise/layerwise.h"
#include "libs/core/cpu.h"
#include "libs/exec/assignment.h"
#include "libs/exec/backends.h"
#include "libs/ir/network_json.h"
#include "libs/zoo/zoo_builder.h"
#include "tests/cli_fixtures.h"

using namespace lw;
using namespace lw::testing;
namespace fs = std::filesystem;

namespace {

const fs::path& dir() {
  static const fs::path d = scratch_dir("lw_bundle");
  return d;
}

void spit(const fs::path& p, const std::string& s) { std::ofstream(p, std::ios::binary) << s; }

// A small Fashion-MNIST-shaped network; int8 on xnnpack where it has int8 (quantisation
// parameters travel in the bundle), native elsewhere, so the executor inserts conversions.
Bundle tiny_bundle(bool int8) {
  NetBuilder nb("tiny_bundle", Shape{1, 1, 32, 32});
  int x = nb.act(nb.conv(0, 8, 3, 2), LayerKind::kRelu);
  x = nb.act(nb.conv(x, 16, 3, 1), LayerKind::kRelu);
  nb.fc(nb.flatten(nb.global_avg_pool(x)), 10);
  Bundle b;
  b.net = nb.finish();
  init_random_weights(b.net, 5);
  b.net.random_weights = false;  // stands in for a trained model: infer --bundle classifies
  b.model = b.net.name;
  b.label = int8 ? "test int8" : "test native";
  std::vector<ImplDesc> a;
  REQUIRE(library_assignment(b.net, default_registry(), int8 ? Library::kXnnpack : Library::kNative, 1, &a).is_ok());
  if (int8) {
    for (size_t i = 1; i < a.size(); ++i)
      if (a[i].library == Library::kXnnpack && a[i].op == LayerKind::kConv2d) a[i].dtype_in = a[i].dtype_out = DType::kI8;
    for (size_t i = 0; i < b.net.layers.size(); ++i) b.quant.push_back({0.05f + 0.01f * float(i), int32_t(i % 7) - 3});
  }
  b.impls.assign(a.size(), "");
  for (size_t i = 1; i < a.size(); ++i) b.impls[i] = a[i].name();
  b.device = device_fingerprint();
  b.isa = {"sse2"};
  std::unique_ptr<Executor> ex;
  REQUIRE(plan_bundle(b, default_registry(), false, &ex).is_ok());
  for (const ExecStep& s : ex->steps()) b.steps.push_back({s.name, s.layer, s.conversion});
  return b;
}

std::string write(const Bundle& b, const std::string& name) {
  std::string p = (dir() / name).string();
  REQUIRE(write_bundle(p, b).is_ok());
  return p;
}

layerwise::Status create(const std::string& path, std::unique_ptr<layerwise::Model>* m, layerwise::Options o = {}) {
  return layerwise::Model::create(path, o, m);
}

void check_one_line(const std::string& m) {
  CHECK(!m.empty());
  CHECK(m.find('\n') == std::string::npos);
}

std::vector<float> input_of(const layerwise::Shape& s, int seed) {
  std::vector<float> x(size_t(s.elements()));
  for (size_t i = 0; i < x.size(); ++i) x[i] = float(int((i * 7919 + size_t(seed) * 104729) % 2001) - 1000) / 1000.f;
  return x;
}

}  // namespace

TEST_CASE("a bundle round-trips and the API runs it bit-identically to the executor") {
  for (bool int8 : {false, true}) {
    CAPTURE(int8);
    Bundle b = tiny_bundle(int8);
    std::string path = write(b, int8 ? "int8.lwb" : "native.lwb");
    Bundle back;
    REQUIRE(read_bundle(path, &back).is_ok());
    CHECK(back.impls == b.impls);
    CHECK(back.quant.size() == b.quant.size());
    CHECK(back.steps.size() == b.steps.size());
    std::unique_ptr<layerwise::Model> m;
    layerwise::Status s = create(path, &m);
    REQUIRE_MESSAGE(s.ok(), s.message);
    layerwise::Shape in = m->input_shape(), out = m->output_shape();
    CHECK((in.n == 1 && in.c == 1 && in.h == 32 && in.w == 32));
    CHECK(out.elements() == 10);
    CHECK(m->info().steps == int(b.steps.size()));
    std::unique_ptr<Executor> ex;
    REQUIRE(plan_bundle(b, default_registry(), false, &ex).is_ok());
    for (int seed = 0; seed < 3; ++seed) {
      std::vector<float> x = input_of(in, seed), y(10), want(10);
      REQUIRE(m->run(x.data(), x.size(), y.data(), y.size()).ok());
      Tensor tx = Tensor::view(x.data(), b.net.input_shape(), DType::kF32, Layout::kNCHW), ty;
      REQUIRE(ex->run(tx, &ty).is_ok());
      for (int k = 0; k < 10; ++k) CHECK(y[k] == ty.f32()[k]);
    }
    std::vector<float> x = input_of(in, 0), y(10);
    s = m->run(x.data(), x.size() - 1, y.data(), y.size());
    CHECK(s.code == layerwise::StatusCode::kInvalidArgument);
    check_one_line(s.message);
  }
}

TEST_CASE("corrupted, truncated, foreign and missing bundles: one line, a non-zero status") {
  Bundle b = tiny_bundle(false);
  const std::string good = slurp(write(b, "good.lwb"));
  std::unique_ptr<layerwise::Model> m;
  struct Case {
    std::string name, bytes;
    layerwise::StatusCode code;
  };
  std::string flipped = good;
  flipped[flipped.size() / 2] ^= 0x20;
  std::vector<Case> cases = {{"flipped.lwb", flipped, layerwise::StatusCode::kCorrupt},
                             {"truncated.lwb", good.substr(0, good.size() - 100), layerwise::StatusCode::kCorrupt},
                             {"header.lwb", good.substr(0, 10), layerwise::StatusCode::kCorrupt},
                             {"foreign.lwb", "{\"not\": \"a bundle\"}", layerwise::StatusCode::kCorrupt}};
  Bundle other = b;
  other.device["cpu"] = "Some Other CPU 9000";
  cases.push_back({"other_device.lwb", slurp(write(other, "tmp1.lwb")), layerwise::StatusCode::kWrongDevice});
  Bundle old = b;
  old.layerwise_version = "0.0.1";
  cases.push_back({"old_version.lwb", slurp(write(old, "tmp2.lwb")), layerwise::StatusCode::kWrongDevice});
  for (const Case& c : cases) {
    CAPTURE(c.name);
    spit(dir() / c.name, c.bytes);
    layerwise::Status s = create((dir() / c.name).string(), &m);
    CHECK(s.code == c.code);
    CHECK(!m);
    check_one_line(s.message);
    CHECK(s.message.find(c.name) != std::string::npos);  // names the file
  }
  layerwise::Options force;
  force.force = true;
  CHECK(create((dir() / "other_device.lwb").string(), &m, force).ok());
  CHECK(create((dir() / "old_version.lwb").string(), &m, force).ok());
  layerwise::Status s = create((dir() / "absent.lwb").string(), &m);
  CHECK(s.code == layerwise::StatusCode::kIoError);
  check_one_line(s.message);
}

TEST_CASE("a CPU lacking a feature the bundle needs is refused, even forced") {
  REQUIRE(cpu_has("sse2"));  // x86-64 baseline: present on every CPU this runs on
  Bundle b = tiny_bundle(false);
  std::string path = write(b, "isa.lwb");
  std::unique_ptr<layerwise::Model> m;
  layerwise::Options o;
  o.mask_cpu_features = "avx512_vnni, sse2";
  o.force = true;
  layerwise::Status s = create(path, &m, o);
  CHECK(s.code == layerwise::StatusCode::kMissingCpuFeature);
  CHECK(s.message.find("sse2") != std::string::npos);
  check_one_line(s.message);
  // An int8 deployment through oneDNN records VNNI (oneDNN without it saturates differently).
  ImplDesc d;
  REQUIRE(parse_impl_name("conv2d_nhwc_int8_onednn_default_t1", &d).is_ok());
  CHECK(required_isa(d) == std::vector<std::string>{"avx512_vnni"});
  REQUIRE(parse_impl_name("conv2d_nhwc_int8_torch_onednn_pc_fused_t1", &d).is_ok());
  CHECK(required_isa(d) == std::vector<std::string>{"avx512_vnni"});
  REQUIRE(parse_impl_name("conv2d_nhwc_int8_xnnpack_default_t1", &d).is_ok());
  CHECK(required_isa(d).empty());  // XNNPACK picks its int8 kernels at run time by itself
  REQUIRE(parse_impl_name("conv2d_nhwc_int8_onednn_qc7_fused_t1", &d).is_ok());
  CHECK(required_isa(d).empty());  // 7-bit weights: exact without VNNI
}

TEST_CASE("distinct instances run concurrently and agree") {
  std::string path = write(tiny_bundle(true), "threads.lwb");
  std::unique_ptr<layerwise::Model> a, b;
  REQUIRE(create(path, &a).ok());
  REQUIRE(create(path, &b).ok());
  std::vector<float> x = input_of(a->input_shape(), 1), want(10);
  REQUIRE(a->run(x.data(), x.size(), want.data(), want.size()).ok());
  std::vector<std::vector<float>> got(2, std::vector<float>(10));
  bool ok[2] = {true, true};
  auto loop = [&](layerwise::Model* m, int t) {
    for (int r = 0; r < 200; ++r) ok[t] &= m->run(x.data(), x.size(), got[t].data(), got[t].size()).ok() && got[t] == want;
  };
  std::thread t0(loop, a.get(), 0), t1(loop, b.get(), 1);
  t0.join();
  t1.join();
  CHECK(ok[0]);
  CHECK(ok[1]);
}

TEST_CASE("CallerPin holds the caller on one core across runs and restores its affinity") {
  std::string path = write(tiny_bundle(true), "pin.lwb");
  std::unique_ptr<layerwise::Model> m;
  REQUIRE(create(path, &m).ok());
  std::vector<float> x = input_of(m->input_shape(), 3), want(10), got(10);
  REQUIRE(m->run(x.data(), x.size(), want.data(), want.size()).ok());
  std::thread([&] {  // a fresh thread with the process's affinity
    auto affinity = [] {
      cpu_set_t s;
      CPU_ZERO(&s);
      pthread_getaffinity_np(pthread_self(), sizeof s, &s);
      return s;
    };
    const cpu_set_t before = affinity();
    {
      layerwise::CallerPin pin;
      const cpu_set_t held = affinity();
      CHECK(CPU_COUNT(&held) == 1);
      for (int r = 0; r < 3; ++r) {
        REQUIRE(m->run(x.data(), x.size(), got.data(), got.size()).ok());
        CHECK(got == want);
        const cpu_set_t now = affinity();
        CHECK(CPU_EQUAL(&held, &now));  // run() kept the pin: it did not restore `before`
      }
    }
    const cpu_set_t after = affinity();
    CHECK(CPU_EQUAL(&before, &after));
  }).join();
}

namespace {
CliResult cli(const std::string& args, const std::string& env = "") { return run_layerwise(dir(), args, env); }
}  // namespace

TEST_CASE("layerwise infer --bundle: runs a bundle, refuses bad ones with one line") {
  std::string good = write(tiny_bundle(true), "cli.lwb");
  CliResult r = cli("infer --bundle " + good + " --test-images 20");
  CHECK_MESSAGE(r.code == 0, r.err);
  CHECK(r.out.find("top-1") != std::string::npos);
  CHECK(r.out.find("p90") != std::string::npos);
  // Random weights (a zoo name's): top-1 would be chance, so no top-1, a latency on seeded inputs.
  Bundle random = tiny_bundle(true);
  random.net.random_weights = true;
  CliResult rr = cli("infer --bundle " + write(random, "random.lwb") + " --test-images 20");
  CHECK_MESSAGE(rr.code == 0, rr.err);
  CHECK(rr.out.find("top-1") == std::string::npos);
  CHECK(rr.out.find("seeded random input") != std::string::npos);
  for (const char* name : {"flipped.lwb", "truncated.lwb", "other_device.lwb"}) {
    if (!fs::exists(dir() / name)) continue;  // made by the test case above
    r = cli(std::string("infer --bundle ") + (dir() / name).string());
    CAPTURE(name);
    CHECK(r.code == 2);
    CHECK(count_lines(r.err) == 1);
    CHECK(r.err.find(name) != std::string::npos);
  }
  r = cli("infer --bundle " + good, std::string(kMaskCpuFeaturesEnv) + "=sse2");
  CHECK(r.code == 2);
  CHECK(count_lines(r.err) == 1);
  CHECK(r.err.find("sse2") != std::string::npos);
  r = cli("infer --bundle " + (dir() / "other_device.lwb").string() + " --force --test-images 5");
  CHECK_MESSAGE(r.code == 0, r.err);
}
