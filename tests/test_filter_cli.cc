// The filter / pareto / replay commands end to end on a tiny Fashion-MNIST-shaped network
// (profile → exact search → filter → pareto → replay), and their one-line errors: a
// corrupted weights file, a missing dataset (--data-dir and $LAYERWISE_FASHION_MNIST_DIR).
#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "libs/ir/network_json.h"
#include "libs/zoo/zoo_builder.h"
#include "tests/cli_fixtures.h"

using namespace lw;
using namespace lw::testing;
namespace fs = std::filesystem;

namespace {
using Result = CliResult;

const fs::path& dir() {
  static const fs::path d = scratch_dir("lw_filter_cli");
  return d;
}

Result run(const std::string& args, const std::string& env = "") { return run_layerwise(dir(), args, env); }

// A tiny trained-shaped model (1x1x32x32 in, 10 classes), its LUT and an exact search.
struct Flow {
  std::string model, lut, search;
  Flow() {
    NetBuilder b("tiny_fmnist", Shape{1, 1, 32, 32});
    int x = b.act(b.conv(0, 8, 3, 2), LayerKind::kRelu);
    x = b.act(b.conv(x, 16, 3, 2), LayerKind::kRelu);
    b.fc(b.flatten(b.global_avg_pool(x)), 10);
    Network net = b.finish();
    init_random_weights(net, 11);
    net.random_weights = false;  // stands in for a trained model: the flow runs the Fashion-MNIST path
    model = (dir() / "tiny.json").string();
    REQUIRE(save_network(net, model, (dir() / "tiny.weights").string()).is_ok());
    lut = (dir() / "lut.json").string();
    search = (dir() / "search").string();
    Result p = run("profile --model " + model + " --libs native,openblas,xnnpack --threads 1 --warmup 0 --runs 1 "
                   "--max-runs 1 --quiet --out " + lut);
    REQUIRE_MESSAGE(p.code == 0, p.err);
    Result s = run("search --lut " + lut + " --agent exact --quiet --out " + search);
    REQUIRE_MESSAGE(s.code == 0, s.err);
  }
  std::string eval() const { return "--model " + model + " --lut " + lut + " --test-images 40 --calibration-images 8 --quiet"; }
};
const Flow& flow() {
  static Flow f;
  return f;
}
}  // namespace

TEST_CASE("filter, pareto and replay run end to end and write their files") {
  const Flow& f = flow();
  Result r = run("filter " + f.eval() + " --runs 2 --solutions " + f.search + "/solutions.csv");
  REQUIRE_MESSAGE(r.code == 0, r.err);
  CHECK(r.out.find("ref-fp32") != std::string::npos);
  CHECK(r.out.find("chosen") != std::string::npos);
  CHECK(fs::exists(f.search + "/filtered.csv"));
  r = run("pareto --filter " + f.search + "/filter.json");
  REQUIRE_MESSAGE(r.code == 0, r.err);
  for (const char* file : {"pareto_accuracy.png", "pareto_accuracy.svg", "pareto_memory.csv", "pareto_memory.png"})
    CHECK(fs::exists(f.search + "/" + file));
  r = run("replay " + f.eval() + " --runs 3 --filter " + f.search + "/filter.json");
  REQUIRE_MESSAGE(r.code == 0, r.err);
  CHECK(r.out.find("predicted") != std::string::npos);
  CHECK(slurp(f.search + "/replay.json").find("\"gap_pct\"") != std::string::npos);
}

TEST_CASE("a corrupted weights file is one line naming it, exit 2") {
  const Flow& f = flow();
  fs::path bad = dir() / "bad";
  fs::create_directories(bad);
  fs::copy_file(f.model, bad / "tiny.json", fs::copy_options::overwrite_existing);
  fs::copy_file(dir() / "tiny.weights", bad / "tiny.weights", fs::copy_options::overwrite_existing);
  {
    std::fstream w(bad / "tiny.weights", std::ios::in | std::ios::out | std::ios::binary);
    w.seekg(100);
    char c = 0;
    w.read(&c, 1);
    c ^= 0x5a;
    w.seekp(100);
    w.write(&c, 1);
  }
  for (const char* cmd : {"filter", "replay"}) {
    CAPTURE(cmd);
    Result r = run(std::string(cmd) + " --model " + (bad / "tiny.json").string() + " --lut " + f.lut + " --solutions " +
                   f.search + "/solutions.csv");
    CHECK(r.code == 2);
    CHECK(count_lines(r.err) == 1);
    CHECK(r.err.find("tiny.weights") != std::string::npos);
  }
}

TEST_CASE("a missing dataset is one line naming the file, exit 2") {
  const Flow& f = flow();
  Result r = run("filter " + f.eval() + " --solutions " + f.search + "/solutions.csv --data-dir /nonexistent/fm");
  CHECK(r.code == 2);
  CHECK(count_lines(r.err) == 1);
  CHECK(r.err.find("/nonexistent/fm/t10k") != std::string::npos);
  r = run("replay " + f.eval() + " --solutions " + f.search + "/solutions.csv", "LAYERWISE_FASHION_MNIST_DIR=/nonexistent/env");
  CHECK(r.code == 2);
  CHECK(count_lines(r.err) == 1);
  CHECK(r.err.find("/nonexistent/env/t10k") != std::string::npos);
}

TEST_CASE("bad stage arguments exit 2 with one line") {
  const Flow& f = flow();
  for (const std::string& args : {"filter " + f.eval(), "pareto --filter " + f.lut, "replay " + f.eval(),
                                  "replay " + f.eval() + " --baseline nope", "filter " + f.eval() + " --solutions " + f.lut}) {
    CAPTURE(args);
    Result r = run(args);
    CHECK(r.code == 2);
    CHECK(count_lines(r.err) == 1);
  }
}
