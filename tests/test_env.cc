// env/: LUT loading and validation, cost tables, the DeploymentEnv and the synthetic generator.
#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "env/cost.h"
#include "env/env.h"
#include "env/lut.h"
#include "env/synthetic_lut.h"
#include "tests/lut_fixtures.h"
#include "tests/scratch_dir.h"

using namespace lw;
using namespace lw::testing;

TEST_CASE("lut: JSON round trip keeps every cost") {
  Lut a = random_dag_lut(7, 6, 4, 3), b;
  REQUIRE(lut_from_json(lut_to_json(a), "mem", &b).is_ok());
  CHECK(lut_to_json(a) == lut_to_json(b));
  std::vector<int> best_a, best_b;
  const double la = brute_force(a, &best_a), lb = brute_force(b, &best_b);
  CHECK(la == lb);
  CHECK(best_a == best_b);
}

TEST_CASE("lut: errors name the file and the JSON path on one line") {
  Lut lut = random_dag_lut(3, 4, 3, 2);
  lut.layers[1].impls[0].status = ImplStatus::kOk;
  std::string text = lut_to_json(lut);
  Lut out;
  SUBCASE("negative latency") {
    lut.layers[3].impls[0].status = ImplStatus::kOk;
    lut.layers[3].impls[0].latency_ms.median = -1;
    Status s = lut_from_json(lut_to_json(lut), "lut.json", &out);
    CHECK(!s.is_ok());
    CHECK(s.message().find("lut.json: /layers/3/impls/0/latency_ms/median: must be >= 0.0, got -1.0") == 0);
  }
  SUBCASE("truncated file") {
    for (size_t cut : {size_t(0), text.size() / 3, text.size() - 2}) {
      Status s = lut_from_json(text.substr(0, cut), "lut.json", &out);
      CHECK(!s.is_ok());
      CHECK(s.message().find('\n') == std::string::npos);
      CHECK(s.message().rfind("lut.json: ", 0) == 0);
    }
  }
  SUBCASE("index out of range") {
    lut.layers[2].impls[0].in_format = 7;
    Status s = lut_from_json(lut_to_json(lut), "lut.json", &out);
    CHECK(s.message().find("/layers/2/impls/0/in_format: must be in [0, 1], got 7") != std::string::npos);
  }
  SUBCASE("unknown key: a typo is refused, not read as an absent optional key") {
    std::string typo = text;
    typo.replace(typo.find("\"depth\""), 7, "\"dpeth\"");
    Status s = lut_from_json(typo, "lut.json", &out);
    CHECK(s.message() == "lut.json: /layers/0/dpeth: unknown key");
  }
  SUBCASE("missing file") { CHECK(!load_lut("/nonexistent/lut.json", &out).is_ok()); }
}

TEST_CASE("lut: save is atomic and loads back") {
  Lut a = random_dag_lut(11, 5, 3, 2), b;
  const std::string path = "/tmp/layerwise_test_env_lut.json";
  REQUIRE(save_lut(a, path).is_ok());
  REQUIRE(load_lut(path, &b).is_ok());
  CHECK(lut_to_json(a) == lut_to_json(b));
  std::remove(path.c_str());
}

TEST_CASE("lut: save creates the folders on its path; a path through a file is a one-line error naming it") {
  const std::filesystem::path d = lw::testing::scratch_dir("test_env_dirs");
  Lut a = random_dag_lut(3, 4, 2, 2), b;
  const std::string nested = (d / "runs" / "today" / "lut.json").string();
  REQUIRE(save_lut(a, nested).is_ok());
  REQUIRE(load_lut(nested, &b).is_ok());
  CHECK(lut_to_json(a) == lut_to_json(b));
  REQUIRE(save_lut(a, (d / "file").string()).is_ok());
  const Status s = save_lut(a, (d / "file" / "lut.json").string());
  CHECK_FALSE(s.is_ok());
  CHECK(s.message().find((d / "file").string()) != std::string::npos);
  CHECK(s.message().find('\n') == std::string::npos);
  std::filesystem::remove_all(d);
}

TEST_CASE("cost: compiled tables agree with the LUT contract on every assignment") {
  for (uint64_t seed = 0; seed < 50; ++seed) {
    Lut lut = random_dag_lut(seed, 5, 3, 3);
    Problem p;
    if (!compile_problem(lut, &p).is_ok()) {
      CHECK(brute_force(lut) == kInf);
      continue;
    }
    std::vector<int> a(p.n, 0);
    for (;;) {
      const double want = lut_latency(lut, a), got = predict_latency_ms(p, a);
      if (want == kInf) CHECK(got == kInf);
      else CHECK(got == doctest::Approx(want));
      int i = 0;
      while (i < p.n && ++a[i] == p.actions(i)) a[i++] = 0;
      if (i == p.n) break;
    }
  }
}

TEST_CASE("cost: the model plans with each implementation's mean where the LUT records one, else its median") {
  for (uint64_t seed = 0; seed < 20; ++seed) {
    CAPTURE(seed);
    Lut lut = random_dag_lut(seed, 5, 3, 3);
    int k = 0;
    for (LutLayer& l : lut.layers)
      for (Impl& m : l.impls)
        if (m.ok() && ++k % 2) m.latency_ms.mean = m.latency_ms.median * (1.5 + 0.1 * (k % 7));
    Lut back;  // (the mean survives the file; a row without one plans with its median)
    REQUIRE(lut_from_json(lut_to_json(lut), "mem", &back).is_ok());
    CHECK(lut_to_json(back) == lut_to_json(lut));
    Lut no_mean = back;
    for (LutLayer& l : no_mean.layers)
      for (Impl& m : l.impls) m.latency_ms.mean = 0;
    Problem p, q;
    if (!compile_problem(back, &p).is_ok()) continue;
    REQUIRE(compile_problem(no_mean, &q).is_ok());
    std::vector<int> a(p.n, 0);
    for (int i = 0; i < p.n; ++i)  // the first usable implementation of each layer
      while (a[i] + 1 < p.actions(i) && !back.layers[i].impls[a[i]].ok()) ++a[i];
    double extra = 0;
    for (int i = 0; i < p.n; ++i) extra += back.layers[i].impls[a[i]].latency_ms.cost_ms() - back.layers[i].impls[a[i]].latency_ms.median;
    const double got = predict_latency_ms(p, a);
    if (got == kInf) continue;
    CHECK(got == doctest::Approx(lut_latency(back, a)));
    CHECK(got - predict_latency_ms(q, a) == doctest::Approx(extra));  // the same conversions either way
    CHECK(extra > 0);
  }
}

TEST_CASE("cost: peak memory follows liveness") {
  // input -> a -> b -> add(a, b): a's output stays live until the add.
  Lut lut;
  lut.model_name = "live";
  lut.formats = {{Layout::kNCHW, DType::kF32, 1}};
  auto mk = [](int64_t w, int64_t ws, int64_t out) {
    Impl m = impl("m", 0, 0, 1.0);
    m.memory_bytes = {w, ws, out};
    return m;
  };
  lut.layers = {layer("in", LayerKind::kInput, {}, {mk(0, 0, 100)}), layer("a", LayerKind::kRelu, {0}, {mk(10, 5, 200)}),
                layer("b", LayerKind::kRelu, {1}, {mk(20, 50, 300)}), layer("add", LayerKind::kAdd, {1, 2}, {mk(0, 0, 400)})};
  Problem p;
  REQUIRE(compile_problem(lut, &p).is_ok());
  std::vector<int> a = {0, 0, 0, 0};
  // Steps: in 100 | a 100+200 | b 200+300 (in freed) | add 200+300+400 = 900 peak.
  CHECK(predict_memory_bytes(p, a) == 30 + 50 + 900);
  CHECK(linear_memory_bytes(p, a, MemoryModel::kWholeNetwork) == 100 + 215 + 370 + 400);
  CHECK(linear_memory_bytes(p, a, MemoryModel::kLayerByLayer) == 400);
}

TEST_CASE("cost: a conversion several consumers need is charged once, by the search and the prediction alike") {
  // in -> a (NCHW out) -> b, c (NHWC in each) -> add(b, c): a's output is converted once for both.
  Lut lut;
  lut.model_name = "shared";
  lut.formats = {{Layout::kNCHW, DType::kF32, 1}, {Layout::kNHWC, DType::kF32, 1}};
  lut.layers = {layer("in", LayerKind::kInput, {}, {impl("in", 0, 0, 0, "input")}),
                layer("a", LayerKind::kRelu, {0}, {impl("a", 0, 0, 1.0)}),
                layer("b", LayerKind::kRelu, {1}, {impl("b_nhwc", 1, 1, 2.0), impl("b_nchw", 0, 1, 2.5)}),
                layer("c", LayerKind::kRelu, {1}, {impl("c_nhwc", 1, 1, 3.0)}),
                layer("add", LayerKind::kAdd, {2, 3}, {impl("add", 1, 0, 0.5)})};
  lut.conversions = {{1, 2, 0, 1, 0.25, 0.25, {"to_nhwc"}}, {1, 3, 0, 1, 0.25, 0.25, {"to_nhwc"}}};
  Problem p;
  REQUIRE(compile_problem(lut, &p).is_ok());
  std::vector<int> both = {0, 0, 0, 0, 0}, one = {0, 0, 1, 0, 0};
  CHECK(predict_latency_ms(p, both) == doctest::Approx(1 + 2 + 3 + 0.5 + 0.25));
  // Only c needs the conversion: nothing to share.
  CHECK(predict_latency_ms(p, one) == doctest::Approx(1 + 2.5 + 3 + 0.5 + 0.25));
  // The first consumer pays (where the executor inserts the chain), the second reads it.
  CHECK(conversion_in_ms(p, both.data(), 2, 0) == doctest::Approx(0.25));
  CHECK(conversion_in_ms(p, both.data(), 3, 0) == 0);
  CHECK(conversion_in_ms(p, one.data(), 3, 0) == doctest::Approx(0.25));
  // The env's step costs add up to the same total, and the frontier tells the two prefixes apart
  // (c's future cost differs) although a and the live producers' output classes are the same.
  DeploymentEnv env(p);
  uint64_t frontier[2];
  for (int k = 0; k < 2; ++k) {
    const std::vector<int>& a = k == 0 ? both : one;
    env.reset();
    double ret = 0;
    for (int t = 0; t < p.n; ++t) {
      const StepResult r = env.step(a[t]);
      ret += r.reward;
      if (t == 2) frontier[k] = r.obs.frontier;
    }
    CHECK(-ret == doctest::Approx(predict_latency_ms(p, a)));
  }
  CHECK(frontier[0] != frontier[1]);
}

TEST_CASE("env: episode return is minus the predicted latency; masks exclude unusable impls") {
  SyntheticLutOptions o;
  o.failed_fraction = 0.2;
  Lut lut;
  REQUIRE(synthetic_zoo_lut("squeezenet1_1", o, &lut).is_ok());
  Problem p;
  REQUIRE(compile_problem(lut, &p).is_ok());
  DeploymentEnv env(p);
  Rng rng(5);
  for (int ep = 0; ep < 20; ++ep) {
    env.reset();
    double ret = 0;
    while (!env.done()) {
      const auto& mask = env.action_mask();
      std::vector<int> ok;
      for (int a = 0; a < env.num_actions(); ++a) {
        if (mask[a]) {
          CHECK(lut.layers[env.layer()].impls[a].ok());
          ok.push_back(a);
        }
      }
      REQUIRE(!ok.empty());
      StepResult r = env.step(ok[rng.below(int(ok.size()))]);
      ret += r.reward;
      CHECK(r.terminated == env.done());
    }
    CHECK(-ret == doctest::Approx(predict_latency_ms(p, env.assignment())));
    CHECK(-ret == doctest::Approx(lut_latency(lut, env.assignment())));
  }
}

TEST_CASE("env: observation vector and hard constraints") {
  Lut lut;
  REQUIRE(synthetic_zoo_lut("resnet18", {}, &lut).is_ok());
  Problem p;
  REQUIRE(compile_problem(lut, &p).is_ok());
  EnvOptions opt;
  opt.max_layer_memory_bytes = 3 << 20;
  DeploymentEnv env(p, opt);
  std::vector<float> v(env.obs_size());
  env.reset();
  while (!env.done()) {
    env.observation_vector(v.data());
    float ones = 0;
    for (float x : v) ones += (x == 1.f);
    CHECK(ones >= 1);
    int pick = -1;
    for (int a = 0; a < env.num_actions(); ++a)
      if (env.allowed(a)) {
        CHECK(impl_memory_bytes(p, p.offset[env.layer()] + a) <= opt.max_layer_memory_bytes);
        if (pick < 0) pick = a;
      }
    if (pick < 0) break;  // the constraint can make a layer impossible: the mask says so, no crash
    env.step(pick);
  }
}

TEST_CASE("synthetic: seeded, labelled, valid for every zoo model") {
  for (const auto& e : zoo_models()) {
    Lut a, b;
    REQUIRE(synthetic_zoo_lut(e.name, {}, &a).is_ok());
    REQUIRE(synthetic_zoo_lut(e.name, {}, &b).is_ok());
    CHECK(lut_to_json(a) == lut_to_json(b));
    CHECK(a.device_json.find("\"synthetic\":true") != std::string::npos);
    Lut back;
    REQUIRE(lut_from_json(lut_to_json(a), e.name, &back).is_ok());
    Problem p;
    CHECK(compile_problem(a, &p).is_ok());
  }
}

TEST_CASE("lut: the executor's input / output copies round-trip and add to every deployment's prediction") {
  Lut lut = random_dag_lut(7, 6, 4, 3), back;  // (feasible: the round-trip case above)
  Problem before;
  REQUIRE(compile_problem(lut, &before).is_ok());
  lut.runtime.input_copy_ms = 0.25;
  lut.runtime.output_copy_ms = 0.125;
  REQUIRE(lut_from_json(lut_to_json(lut), "mem", &back).is_ok());
  CHECK(back.runtime.input_copy_ms == 0.25);
  CHECK(back.runtime.output_copy_ms == 0.125);
  Problem after;
  REQUIRE(compile_problem(back, &after).is_ok());
  std::vector<int> a(after.n, 0);
  int finite = 0;
  for (;;) {
    const double x = predict_latency_ms(before, a), y = predict_latency_ms(after, a);
    if (x < kInf) {
      CHECK(y == doctest::Approx(x + 0.375));
      ++finite;
    } else {
      CHECK(y == kInf);
    }
    int i = 0;
    while (i < after.n && ++a[i] == after.actions(i)) a[i++] = 0;
    if (i == after.n) break;
  }
  CHECK(finite > 0);
  std::string text = lut_to_json(lut);
  const size_t at = text.find("\"input_copy_ms\"");
  REQUIRE(at != std::string::npos);
  text.insert(text.find_first_of("0123456789", at), "-");
  Lut bad;
  CHECK(lut_from_json(text, "x.json", &bad).message().find("x.json: /runtime/input_copy_ms: must be >= 0.0, got -") !=
        std::string::npos);
}
