// The CLI's contract: user errors are one line on stderr and exit code 2.
#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "libs/data/fashion_mnist.h"
#include "libs/data/npy.h"
#include "tests/cli_fixtures.h"

namespace fs = std::filesystem;
using namespace lw::testing;

namespace {
using Result = CliResult;
Result run(const std::string& args) { return run_layerwise(scratch_dir("lw_cli"), args); }

std::string write_temp(const std::string& name, const std::string& text) {
  fs::path p = scratch_dir("lw_cli") / name;
  std::ofstream(p) << text;
  return p.string();
}
}  // namespace

TEST_CASE("models lists all nine zoo models") {
  Result r = run("models");
  CHECK(r.code == 0);
  for (const char* m : {"alexnet", "vgg16", "googlenet", "resnet18", "resnet50", "squeezenet1_1", "mobilenetv2",
                        "mobilenetv3_small", "mobilenetv3_large"})
    CHECK(r.out.find(m) != std::string::npos);
}

TEST_CASE("malformed network files exit 2 with one line") {
  const char* bad[] = {
      "{",
      R"({"layers": [{"name": "in", "kind": "input", "shape": [1, 3, 8, 8]}, {"name": "x", "kind": "bogus", "inputs": ["in"]}]})",
      R"({"layers": [{"name": "in", "kind": "input", "shape": [1, 3, 8, 8]}, {"name": "x", "kind": "relu", "inputs": ["x"]}]})",
      R"({"layers": [{"name": "in", "kind": "input", "shape": [1, 3, 8, 8]}, {"name": "a", "kind": "add", "inputs": ["in", "p"]}, {"name": "p", "kind": "relu", "inputs": ["a"]}]})",
      R"({"layers": [{"name": "in", "kind": "input", "shape": [1, 3, 8, 8]}, {"name": "c", "kind": "concat", "inputs": ["in", "g"]}, {"name": "g", "kind": "global-avg-pool", "inputs": ["in"]}]})",
      R"({"layers": [{"name": "in", "kind": "input", "shape": [1, 3, 8, 8]}, {"name": "g", "kind": "global-avg-pool", "inputs": ["in"]}, {"name": "c", "kind": "concat", "inputs": ["in", "g"]}]})",
  };
  int i = 0;
  for (const char* text : bad) {
    CAPTURE(text);
    std::string path = write_temp("bad" + std::to_string(i++) + ".json", text);
    Result r = run("infer --model " + path);
    CHECK(r.code == 2);
    CHECK(count_lines(r.err) == 1);
    CHECK(r.err.find(path) != std::string::npos);
    fs::remove(path);
  }
}

TEST_CASE("unknown commands, models and options exit 2") {
  CHECK(run("frobnicate").code == 2);
  Result r = run("infer --model resnet51");
  CHECK(r.code == 2);
  CHECK(r.err.find("unknown zoo model") != std::string::npos);
  CHECK(run("models --bogus").code == 2);
  CHECK(run("infer").code == 2);
  // An unknown statistic is refused before any LUT is profiled into the directory.
  const fs::path luts = scratch_dir("lw_cli_bench");
  r = run("bench --lut-dir " + luts.string() + " --models squeezenet1_1 --lut-statistic mode --quiet");
  CHECK(r.code == 2);
  CHECK(r.err.find("--lut-statistic: mean, median or min") != std::string::npos);
  CHECK(fs::is_empty(luts));
}

TEST_CASE("infer runs a small network end to end") {
  std::string path = write_temp("ok.json", R"({"layers": [{"name": "in", "kind": "input", "shape": [1, 3, 8, 8]},
    {"name": "c", "kind": "conv2d", "inputs": ["in"], "out_channels": 4, "kernel": 3},
    {"name": "g", "kind": "global-avg-pool", "inputs": ["c"]}, {"name": "f", "kind": "flatten", "inputs": ["g"]},
    {"name": "s", "kind": "softmax", "inputs": ["f"]}]})");
  Result r = run("infer --model " + path);
  CHECK(r.code == 0);
  CHECK(r.out.find("1x4x1x1") != std::string::npos);
  fs::remove(path);
}

TEST_CASE("a LUT from another device is refused by search unless forced; a truncated one is one line") {
  std::string net = write_temp("lutnet.json", R"({"layers": [{"name": "in", "kind": "input", "shape": [1, 3, 8, 8]},
    {"name": "c", "kind": "conv2d", "inputs": ["in"], "out_channels": 4, "kernel": 3},
    {"name": "r", "kind": "relu", "inputs": ["c"]}]})");
  std::string lut = write_temp("lut.json", "");
  Result p = run("profile --model " + net + " --libs native --threads 1 --runs 2 --max-runs 2 --warmup 0 --quiet --out " + lut);
  REQUIRE(p.code == 0);
  {  // where the time went: the timed runs within the measurement that prepares each of them
    CAPTURE(p.out);
    const size_t row = p.out.find("\n  conv2d ");
    REQUIRE(row != std::string::npos);
    std::istringstream cols(p.out.substr(row + 10));
    double total = 0, create = 0, measure = 0, timed_pct = 0;
    long long impls = 0, runs = 0;
    REQUIRE(bool(cols >> total >> create >> measure >> timed_pct >> impls >> runs));
    CHECK(timed_pct > 0);
    CHECK(timed_pct < 100);
    CHECK(runs == 2 * impls);
  }
  std::string text = slurp(lut);
  auto at = text.find("\"cpu\"");
  REQUIRE(at != std::string::npos);
  std::string foreign = text.substr(0, at) + "\"cpu\": \"ARM Cortex-A57\", \"was_cpu\"" + text.substr(at + 5);
  std::string other = write_temp("foreign.json", foreign);
  Result s = run("search --lut " + other + " --agent greedy --quiet --out " + other + ".d");
  CHECK(s.code == 2);
  CHECK(s.err.find("measured on another device") != std::string::npos);
  CHECK(count_lines(s.err) == 1);
  CHECK(run("search --lut " + other + " --agent greedy --quiet --force --out " + other + ".d").code == 0);
  CHECK(run("search --lut " + lut + " --agent greedy --quiet --out " + lut + ".d").code == 0);
  std::string cut = write_temp("cut.json", text.substr(0, text.size() / 3));
  Result c = run("search --lut " + cut + " --agent greedy --quiet");
  CHECK(c.code == 2);
  CHECK(count_lines(c.err) == 1);
  CHECK(c.err.find(cut) != std::string::npos);
  for (const std::string& f : {net, lut, other, cut}) fs::remove(f);
  fs::remove_all(other + ".d");
  fs::remove_all(lut + ".d");
}

namespace {
std::string tiny_experiment(const std::string& tag, const std::string& extra_search = "") {
  std::string net = write_temp(tag + "_net.json", R"({"name": "tiny_)" + tag + R"(", "layers": [
    {"name": "in", "kind": "input", "shape": [1, 3, 12, 12]},
    {"name": "c1", "kind": "conv2d", "inputs": ["in"], "out_channels": 8, "kernel": 3, "padding": 1},
    {"name": "r1", "kind": "relu", "inputs": ["c1"]},
    {"name": "c2", "kind": "conv2d", "inputs": ["r1"], "out_channels": 8, "kernel": 3, "stride": 2},
    {"name": "g", "kind": "global-avg-pool", "inputs": ["c2"]}, {"name": "f", "kind": "flatten", "inputs": ["g"]},
    {"name": "fc", "kind": "fully-connected", "inputs": ["f"], "out_channels": 5, "bias": true}]})");
  fs::path out = scratch_dir("lw_cli") / (tag + "_results");
  return write_temp(tag + "_exp.json", R"({"model": ")" + net + R"(",
    "device": {"libraries": ["native", "openblas"], "threads": [1]},
    "profile": {"warmup": 0, "runs": 2, "max_runs": 2, "max_seconds": 0.1},
    "search": {"agents": ["greedy", {"agent": "qlearning", "episodes": 300}], "seeds": [3])" + extra_search + R"(},
    "filter": {"candidates": 3, "calibration_images": 2, "fidelity_inputs": 2},
    "replay": {"runs": 3}, "output_dir": ")" + out.string() + R"("})");
}

std::string run_dir_of(const Result& r) {
  auto at = r.out.find("wrote ");
  REQUIRE(at != std::string::npos);
  return r.out.substr(at + 6, r.out.find("/{config.json", at) - at - 6);
}
}  // namespace

TEST_CASE("run: the whole pipeline on a tiny model, then again reusing the LUT with the same search result") {
  std::string exp = tiny_experiment("twice");
  Result a = run("run " + exp + " --quiet");
  REQUIRE(a.code == 0);
  std::string dir_a = run_dir_of(a);
  for (const char* f : {"config.json", "run.json", "filtered.csv", "replay.json", "summary.md", "deployment.lwb",
                        "search/greedy__s3/solutions.csv", "search/qlearning__s3/learning_curve.csv"})
    CHECK(fs::exists(dir_a + "/" + f));
  CHECK(a.out.find("ref-fp32") != std::string::npos);
  // replay.recheck is on by default: the chosen deployment's implementations timed again.
  CHECK(slurp(dir_a + "/summary.md").find("Its implementations timed again, alone, during the replay predict") !=
        std::string::npos);
  CHECK(slurp(dir_a + "/replay.json").find("\"predicted_rechecked\"") != std::string::npos);
  Result b = run("run " + exp + " --fresh");
  REQUIRE(b.code == 0);
  std::string dir_b = run_dir_of(b);
  CHECK(dir_b != dir_a);
  CHECK(b.err.find("profile: reusing") != std::string::npos);
  CHECK(slurp(dir_b + "/summary.md").find(" (reused, profiled ") != std::string::npos);  // and how long ago
  CHECK(slurp(dir_a + "/search/qlearning__s3/solutions.csv") == slurp(dir_b + "/search/qlearning__s3/solutions.csv"));
  CHECK(slurp(dir_a + "/search/qlearning__s3/learning_curve.csv") ==
        slurp(dir_b + "/search/qlearning__s3/learning_curve.csv"));
  // profile.lut: a LUT made earlier is used as given, with the same search result.
  std::string lut;
  for (const auto& e : fs::directory_iterator(fs::path(dir_a).parent_path() / "luts"))
    if (e.path().string().size() > 9 && e.path().string().rfind(".lut.json") == e.path().string().size() - 9)
      lut = e.path().string();
  REQUIRE(!lut.empty());
  std::string text = slurp(exp);
  auto at = text.find("\"max_seconds\": 0.1");
  REQUIRE(at != std::string::npos);
  text.insert(at, "\"lut\": \"" + lut + "\", ");
  Result c = run("run " + write_temp("given_lut.json", text) + " --fresh");
  REQUIRE(c.code == 0);
  CHECK(c.err.find("profile: using " + lut) != std::string::npos);
  CHECK(slurp(dir_a + "/search/qlearning__s3/solutions.csv") ==
        slurp(run_dir_of(c) + "/search/qlearning__s3/solutions.csv"));
  // A given LUT is the user's file: --reprofile with one is a one-line error naming it.
  Result given = run("run " + write_temp("given_lut.json", text) + " --reprofile");
  CHECK(given.code == 2);
  CHECK(given.err.find("/profile/lut") != std::string::npos);
  CHECK(given.err.find("--reprofile") != std::string::npos);
  // --reprofile: the cached LUT is profiled anew (not reused) and replaced.
  const std::string before = slurp(lut);
  Result d = run("run " + exp + " --fresh --reprofile --quiet");
  REQUIRE(d.code == 0);
  CHECK(d.err.find("profile: reusing") == std::string::npos);
  CHECK(d.err.find("profiling anew (--reprofile") != std::string::npos);
  CHECK(slurp(lut) != before);  // (fresh timings)
  CHECK_FALSE(fs::exists(lut + ".partial"));
  fs::remove_all(fs::path(dir_a).parent_path());
}

TEST_CASE("run: an interrupted run resumes in its own directory, keeping finished stages") {
  std::string exp = tiny_experiment("resume");
  Result a = run("run " + exp + " --quiet");
  REQUIRE(a.code == 0);
  std::string dir = run_dir_of(a);
  // Simulate a run killed during replay: the state file says so and replay.json is missing.
  std::string state = slurp(dir + "/run.json");
  auto erase = [&](const std::string& what, const std::string& with) {
    auto at = state.find(what);
    REQUIRE(at != std::string::npos);
    state.replace(at, what.size(), with);
  };
  erase("\"complete\": true", "\"complete\": false");
  erase("\"replay\": true", "\"replay\": false");
  std::ofstream(dir + "/run.json") << state;
  fs::remove(dir + "/replay.json");
  auto searched = fs::last_write_time(dir + "/search/qlearning__s3/solutions.csv");
  Result b = run("run " + exp + " --quiet");
  REQUIRE(b.code == 0);
  CHECK(run_dir_of(b) == dir);
  CHECK(b.err.find("resuming unfinished run") != std::string::npos);
  CHECK(fs::exists(dir + "/replay.json"));
  CHECK(fs::last_write_time(dir + "/search/qlearning__s3/solutions.csv") == searched);
  // Killed again, and its LUT changed meanwhile (here: rewritten with a trailing space): the
  // search results are of another LUT, so the run starts over in a new folder.
  std::ofstream(dir + "/run.json") << state;
  std::string lut;
  for (const auto& e : fs::directory_iterator(fs::path(dir).parent_path() / "luts"))
    if (e.path().extension() == ".json") lut = e.path().string();
  REQUIRE(!lut.empty());
  const std::string text = slurp(lut);
  std::ofstream(lut) << text << ' ';
  Result c = run("run " + exp + " --quiet");
  REQUIRE(c.code == 0);
  CHECK(c.err.find("searched another LUT: starting a new run") != std::string::npos);
  CHECK(run_dir_of(c) != dir);
  CHECK(slurp(run_dir_of(c) + "/run.json").find("\"lut_hash\"") != std::string::npos);
  // The left run is kept, marked, and not offered again: the next run starts afresh (the
  // new one completed) instead of resuming it and leaving it once more.
  CHECK(slurp(dir + "/search/qlearning__s3/solutions.csv").size() > 0);
  CHECK(slurp(dir + "/run.json").find("\"superseded_by\"") != std::string::npos);
  Result d = run("run " + exp + " --quiet");
  REQUIRE(d.code == 0);
  CHECK(d.err.find("resuming unfinished run") == std::string::npos);
  CHECK(d.err.find("searched another LUT") == std::string::npos);
  CHECK(run_dir_of(d) != dir);
  fs::remove_all(fs::path(dir).parent_path());
}

TEST_CASE("run: schema errors and infeasible constraints are one line, exit 2") {
  struct Case {
    std::string text, expect;
  };
  std::string good = slurp(tiny_experiment("schema"));
  auto with = [&](const std::string& from, const std::string& to) {
    std::string s = good;
    auto at = s.find(from);
    REQUIRE(at != std::string::npos);
    return s.replace(at, from.size(), to);
  };
  const Case cases[] = {
      {with("\"replay\"", "\"colour\": 1, \"replay\""), "/colour: unknown key"},
      {with("\"runs\": 2,", "\"runs\": \"two\","), "/profile/runs: expected an integer"},
      {with("\"openblas\"", "\"cudnn\""), "/device/libraries/1: unknown library 'cudnn'"},
      {with("\"greedy\"", "\"ppo\""), "/search/agents/0: unknown agent 'ppo'"},
      {with("\"episodes\": 300", "\"episodes\": 300, \"alpah\": 0.1"), "/search/agents/1: qlearning config"},
      {with("\"seeds\": [3]", "\"seeds\": [3], \"max_memory_mib\": 0.0001"), "/search/max_memory_mib: 0.0001 MiB is infeasible"},
      {with("\"max_seconds\": 0.1", "\"max_seconds\": 0.1, \"lut\": \"/nonexistent/x.lut.json\""), "/profile/lut: /nonexistent/x.lut.json"},
      {with("\"max_seconds\": 0.1", "\"max_seconds\": 0.1, \"cold_cache\": 1"), "/profile/cold_cache: expected"},
      {with("\"max_seconds\": 0.1", "\"max_seconds\": 0.1, \"in_network_rounds\": 2"), "/profile/in_network_rounds: at least 3"},
  };
  int i = 0;
  for (const Case& c : cases) {
    CAPTURE(c.expect);
    std::string path = write_temp("bad_exp" + std::to_string(i++) + ".json", c.text);
    Result r = run("run " + path + " --quiet");
    CHECK(r.code == 2);
    CHECK(count_lines(r.err) == 1);
    CHECK(r.err.find(path) != std::string::npos);
    CHECK(r.err.find(c.expect) != std::string::npos);
    CAPTURE(r.err);
  }
}

namespace {

// Zeros as float32 samples (the project's own writer) ...
std::string samples_npy(const std::string& name, const std::vector<int64_t>& dims) {
  const fs::path p = scratch_dir("lw_cli") / name;
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  REQUIRE(lw::write_npy(p.string(), dims, std::vector<float>(size_t(n)).data()).is_ok());
  return p.string();
}

// ... and `count` int64 labels, as numpy.save writes them (write_npy writes float32 only).
std::string labels_npy(const std::string& name, int count) {
  std::string header = "{'descr': '<i8', 'fortran_order': False, 'shape': (" + std::to_string(count) + ",), }";
  header.append(63 - (10 + header.size()) % 64, ' ');
  header += '\n';
  std::string bytes = std::string("\x93NUMPY\x01\x00", 8) + char(header.size() & 0xff) + char(header.size() >> 8) + header;
  bytes.append(size_t(count) * 8, '\0');
  return write_temp(name, bytes);
}

}  // namespace

TEST_CASE("run: the filter's data is checked before anything is measured, named by its JSON path") {
  const std::string good = slurp(tiny_experiment("data"));
  const std::string x = samples_npy("x.npy", {4, 3, 12, 12}), y = labels_npy("y.npy", 4);
  const std::string wrong = samples_npy("x_wrong.npy", {4, 3, 5, 5}), y3 = labels_npy("y3.npy", 3);
  auto with_data = [&](const std::string& inputs, const std::string& labels, const std::string& calibration) {
    std::string s = good;
    const std::string from = "\"fidelity_inputs\": 2";
    return s.replace(s.find(from), from.size(), from + ", \"eval_inputs\": \"" + inputs + "\", \"eval_labels\": \"" +
                                                    labels + "\", \"calibration_inputs\": \"" + calibration + "\"");
  };
  struct Case {
    std::string text, expect;
  };
  const Case cases[] = {
      {with_data("/nonexistent/x.npy", y, x), "/filter/eval_inputs: /nonexistent/x.npy: cannot open"},
      {with_data(wrong, y, x), "/filter/eval_inputs: " + wrong + ": expected float32 samples of 3x12x12"},
      {with_data(x, "/nonexistent/y.npy", x), "/filter/eval_labels: /nonexistent/y.npy: cannot open"},
      {with_data(x, y3, x), "/filter/eval_labels: " + y3 + ": expected 4 integer labels"},
      {with_data(x, y, y), "/filter/calibration_inputs: " + y + ": expected float32 samples"},
  };
  int i = 0;
  for (const Case& c : cases) {
    CAPTURE(c.expect);
    std::string path = write_temp("data_exp" + std::to_string(i++) + ".json", c.text);
    Result r = run("run " + path + " --quiet");
    CAPTURE(r.err);
    CHECK(r.code == 2);
    CHECK(count_lines(r.err) == 1);
    CHECK(r.err.find(path + ": " + c.expect) != std::string::npos);
  }
  // Nothing was profiled: the failure came before the LUT.
  CHECK_FALSE(fs::exists(scratch_dir("lw_cli") / "data_results" / "luts"));
  // A trained Fashion-MNIST member without the dataset fails the same way, before profiling
  // (ctest runs in the source tree).
  std::string fm = good;
  const auto at = fm.find("\"model\": \"");
  fm.replace(at, fm.find('"', at + 10) + 1 - at, "\"model\": \"configs/models/fmnist_resnet.json\"");
  const std::string fm_path = write_temp("data_fmnist.json", fm);
  CliResult r = run_layerwise(scratch_dir("lw_cli"), "run " + fm_path + " --quiet", "LAYERWISE_FASHION_MNIST_DIR=/nonexistent");
  CAPTURE(r.err);
  CHECK(r.code == 2);
  CHECK(r.err.find(fm_path + ": /model: fashion-mnist: cannot open /nonexistent/") != std::string::npos);
  CHECK_FALSE(fs::exists(scratch_dir("lw_cli") / "data_results" / "luts"));
}

TEST_CASE("bench reads the dataset its int8 labels calibrate on from $LAYERWISE_FASHION_MNIST_DIR, before profiling") {
  const fs::path dir = scratch_dir("lw_cli") / "bench_data_luts";
  fs::remove_all(dir);
  const std::string bench = "bench --lut-dir " + dir.string() + " --models configs/models/fmnist_resnet.json --threads 1 --quiet";
  // (the bench used Debian's directory for calibration whatever the variable said, after the profile)
  CliResult r = run_layerwise(scratch_dir("lw_cli"), bench + " --labels ref-fp32,opt-int8", "LAYERWISE_FASHION_MNIST_DIR=/nonexistent/fm");
  CAPTURE(r.err);
  CHECK(r.code == 2);
  CHECK(count_lines(r.err) == 1);
  CHECK(r.err.find("fmnist_resnet: fashion-mnist: cannot open /nonexistent/fm/train-images-idx3-ubyte.gz") != std::string::npos);
  CHECK(r.err.find("$LAYERWISE_FASHION_MNIST_DIR") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "fmnist_resnet.lut.json"));
  // A label it does not know, before profiling too (it failed after the profile).
  r = run_layerwise(scratch_dir("lw_cli"), bench + " --labels ref-fp32,opt-fp33");
  CHECK(r.code == 2);
  CHECK(count_lines(r.err) == 1);
  CHECK(r.err.find("--labels: unknown deployment 'opt-fp33' (known: ref-fp32,") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "fmnist_resnet.lut.json"));
  // opt-mixed also reads the test split (its accuracy floor): a directory with the train split only.
  const fs::path train_only = scratch_dir("lw_cli") / "bench_train_only";
  fs::create_directories(train_only);
  for (const char* f : {"train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz"})
    if (!fs::exists(train_only / f)) fs::create_symlink(fs::path(lw::kFashionMnistDir) / f, train_only / f);
  r = run_layerwise(scratch_dir("lw_cli"), bench + " --labels opt-mixed", "LAYERWISE_FASHION_MNIST_DIR=" + train_only.string());
  CAPTURE(r.err);
  CHECK(r.code == 2);
  CHECK(r.err.find("cannot open " + (train_only / "t10k-images-idx3-ubyte.gz").string()) != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "fmnist_resnet.lut.json"));
}

TEST_CASE("bench profiles with profile's protocol: the quick one, --exhaustive the paper's") {
  std::string net = write_temp("benchproto.json", R"({"name": "benchproto", "layers": [
    {"name": "in", "kind": "input", "shape": [1, 3, 8, 8]},
    {"name": "c", "kind": "conv2d", "inputs": ["in"], "out_channels": 4, "kernel": 3}]})");
  const std::string quick = "--runs 2 --max-runs 3 --warmup 0 --far-wait 0";
  auto protocol_of = [](const fs::path& lut) {
    std::ifstream f(lut);
    return nlohmann::json::parse(f).at("protocol");
  };
  const fs::path luts = scratch_dir("lw_cli") / "bench_protocol";
  fs::remove_all(luts);
  for (const char* how : {"", " --exhaustive"}) {
    CAPTURE(how);
    const fs::path dir = luts / (how[0] ? "exhaustive" : "quick");
    Result r = run("bench --lut-dir " + dir.string() + " --models " + net + " --threads 1 --labels ref-fp32 --repeats 1 " +
                   quick + how + " --out " + (dir / "bench.csv").string() + " --quiet");
    CAPTURE(r.err);
    REQUIRE(r.code == 0);
    const fs::path profiled = dir / "profiled.lut.json";
    REQUIRE(run("profile --model " + net + " --out " + profiled.string() + " " + quick + how + " --quiet").code == 0);
    const nlohmann::json bench_protocol = protocol_of(dir / "benchproto.lut.json");
    CHECK(bench_protocol == protocol_of(profiled));  // the same LUT whichever command made it
    if (how[0]) {
      CHECK_FALSE(bench_protocol.contains("early_stop_margin"));  // (bench's only protocol before)
      CHECK_FALSE(bench_protocol.contains("median_ci"));
    } else {
      CHECK(bench_protocol.value("early_stop_margin", 0.0) == 0.25);
      CHECK(bench_protocol.value("median_ci", 0.0) == 0.03);
    }
    CHECK(bench_protocol.value("runs", 0) == 2);
  }
  CHECK(run("bench --lut-dir " + luts.string() + " --models " + net + " --early-stop -1").code == 2);
  // A reused 1-thread LUT (`profile --threads 1`): the 2-thread block is left out with a note,
  // not measured as the 1-thread deployments again under "threads 2".
  const fs::path t1 = luts / "t1";
  fs::create_directories(t1);
  REQUIRE(run("profile --model " + net + " --threads 1 --out " + (t1 / "benchproto.lut.json").string() + " " + quick +
              " --quiet").code == 0);
  const std::string csv = (t1 / "bench.csv").string();
  Result r = run("bench --lut-dir " + t1.string() + " --models " + net + " --labels ref-fp32,opt-fp32 --repeats 1 --out " +
                 csv + " --quiet");
  CAPTURE(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.err.find("benchproto: its LUT has no 2-thread implementation: not benched at that cap") != std::string::npos);
  std::ifstream f(csv);
  std::string header, line;
  std::getline(f, header);
  int rows = 0;
  while (std::getline(f, line)) {
    CHECK(line.rfind("benchproto,1,", 0) == 0);  // model, threads, ...: the 1-thread block only
    ++rows;
  }
  CHECK(rows == 2);
  r = run("bench --lut-dir " + t1.string() + " --models " + net + " --threads 2 --labels opt-fp32 --out " + csv + " --quiet");
  CHECK(r.code == 2);
  CHECK(r.err.find("nothing to bench at --threads 2") != std::string::npos);
}

TEST_CASE("profile --runtime-only adds the runtime costs to an existing LUT; lut show prints the hand-offs") {
  std::string net = write_temp("rtnet.json", R"({"layers": [{"name": "in", "kind": "input", "shape": [1, 3, 8, 8]},
    {"name": "c", "kind": "conv2d", "inputs": ["in"], "out_channels": 4, "kernel": 3}]})");
  std::string lut = write_temp("rtlut.json", ""), with = write_temp("rtlut2.json", "");
  REQUIRE(run("profile --model " + net + " --libs native --threads 1 --runs 2 --max-runs 2 --warmup 0 --quiet --out " + lut).code == 0);
  Result before = run("lut show " + lut);
  REQUIRE(before.code == 0);
  CHECK(before.out.find("no thread-pool hand-offs measured: charged as 0") != std::string::npos);
  Result r = run("profile --model " + net + " --runtime-only --lut " + lut + " --out " + with);
  REQUIRE(r.code == 0);
  Result after = run("lut show " + with);
  REQUIRE(after.code == 0);
  const bool two_cpus = r.out.find("one CPU") == std::string::npos;
  CHECK((after.out.find("from \\ to") != std::string::npos) == two_cpus);
  CHECK((slurp(with).find("\"handoffs\"") != std::string::npos) == two_cpus);
  // Both shared-line rates measured and printed; lut show prints them where the LUT has one.
  CHECK((r.out.find("; a read of lines cpu1 wrote: ") != std::string::npos) == two_cpus);
  const std::string text = slurp(with);
  const bool rates = text.find("\"shared_write_us_per_kb\"") != std::string::npos ||
                     text.find("\"shared_read_us_per_kb\"") != std::string::npos;
  CHECK((after.out.find("lines shared with cpu1 (charged where 1-thread and 2-thread steps meet)") != std::string::npos) ==
        rates);
  Result other = run("profile --model resnet18 --runtime-only --lut " + lut + " --out " + with);
  CHECK(other.code == 2);
  CHECK(count_lines(other.err) == 1);
  for (const std::string& f : {net, lut, with}) fs::remove(f);
}

TEST_CASE("lut refine times the contenders in the network and writes them back; bad input is one line") {
  std::string net = write_temp("rfnet.json", R"({"layers": [{"name": "in", "kind": "input", "shape": [1, 3, 8, 8]},
    {"name": "c", "kind": "conv2d", "inputs": ["in"], "out_channels": 4, "kernel": 3},
    {"name": "r", "kind": "relu", "inputs": ["c"]}]})");
  std::string lut = write_temp("rflut.json", ""), out = write_temp("rflut2.json", "");
  REQUIRE(run("profile --model " + net + " --libs native --threads 1 --runs 2 --max-runs 2 --warmup 0 --quiet --out " + lut).code == 0);
  const std::string alone = slurp(lut);
  Result r = run("lut refine " + lut + " --model " + net + " --rounds 3 --quiet --out " + out);
  REQUIRE_MESSAGE(r.code == 0, r.err);
  CHECK(r.out.find("implementations timed in") != std::string::npos);
  CHECK(r.out.find("native f32 t1") != std::string::npos);
  CHECK(slurp(lut) == alone);  // --out: the profiled LUT stays as it was
  nlohmann::json j = nlohmann::json::parse(slurp(out));
  CHECK(j["protocol"].contains("in_network"));
  int refined = 0;
  for (const auto& layer : j["layers"])
    for (const auto& impl : layer["impls"]) refined += impl.contains("alone_latency_ms");
  CHECK(refined > 0);
  Result shown = run("lut show " + out);
  REQUIRE(shown.code == 0);
  CHECK(shown.out.find("timed in the network (lut refine): " + std::to_string(refined) + " implementations") !=
        std::string::npos);
  CHECK(run("lut show " + lut).out.find("timed in the network") == std::string::npos);
  // Another model's network, too few rounds, a missing file: exit 2, one line naming it.
  std::string other = write_temp("rfother.json", R"({"layers": [{"name": "in", "kind": "input", "shape": [1, 3, 9, 9]},
    {"name": "c", "kind": "conv2d", "inputs": ["in"], "out_channels": 4, "kernel": 3}]})");
  for (const std::string& bad : {"lut refine " + lut + " --model " + other, "lut refine " + lut + " --model " + net + " --rounds 2",
                                 "lut refine /nonexistent/x.lut.json --model " + net}) {
    CAPTURE(bad);
    Result e = run(bad);
    CHECK(e.code == 2);
    CHECK(count_lines(e.err) == 1);
  }
  for (const std::string& f : {net, lut, out, other}) fs::remove(f);
}

TEST_CASE("run with profile.in_network_rounds: the cached LUT is timed in the network, and reused as it is") {
  std::string exp = tiny_experiment("innet");
  std::string text = slurp(exp);
  auto at = text.find("\"max_seconds\": 0.1");
  REQUIRE(at != std::string::npos);
  text.insert(at, "\"in_network_rounds\": 3, ");
  { std::ofstream(exp) << text; }
  Result a = run("run " + exp + " --quiet");
  REQUIRE_MESSAGE(a.code == 0, a.err);
  Result b = run("run " + exp + " --quiet");
  REQUIRE_MESSAGE(b.code == 0, b.err);
  auto reuse = b.err.find("profile: reusing ");
  REQUIRE(reuse != std::string::npos);
  std::string lut = b.err.substr(reuse + 17, b.err.find('\n', reuse) - reuse - 17);
  nlohmann::json j = nlohmann::json::parse(slurp(lut));
  CHECK(j["protocol"]["in_network"]["rounds"] == 3);
  CHECK(slurp(lut).find("alone_latency_ms") != std::string::npos);
  fs::remove(exp);
}

TEST_CASE("lut show prints the speed probe; lut diff tells a slower device from noisier layers") {
  std::string net = write_temp("spnet.json", R"({"layers": [{"name": "in", "kind": "input", "shape": [1, 3, 8, 8]},
    {"name": "c", "kind": "conv2d", "inputs": ["in"], "out_channels": 4, "kernel": 3}]})");
  std::string a = write_temp("sp_a.json", "");
  REQUIRE(run("profile --model " + net + " --libs native --threads 1 --runs 2 --max-runs 2 --warmup 0 --quiet --out " + a).code == 0);
  Result shown = run("lut show " + a);
  REQUIRE(shown.code == 0);
  CHECK(shown.out.find("speed probe while profiling (env/speed_probe.h): 1 thread(s) ") != std::string::npos);
  CHECK(shown.out.find("core link") == std::string::npos);  // profiled on thread set 1 only: not probed
  // b: the same profile on a device twice as slow (every figure and the probe doubled).
  nlohmann::json j = nlohmann::json::parse(slurp(a));
  REQUIRE(j["runtime"]["speed_ms"].contains("t1"));
  j["runtime"]["speed_ms"]["t1"] = 2 * j["runtime"]["speed_ms"]["t1"].get<double>();
  for (auto& layer : j["layers"])
    for (auto& impl : layer["impls"]) impl["latency_ms"]["median"] = 2 * impl["latency_ms"]["median"].get<double>();
  std::string b = write_temp("sp_b.json", j.dump());
  nlohmann::json linked = j;
  linked["runtime"]["core_link_ns"] = 61.5;
  std::string l = write_temp("sp_l.json", linked.dump());
  Result shown_link = run("lut show " + l);
  CHECK(shown_link.out.find("core link while profiling (a cache line's round trip cpu0 <-> cpu1): 62 ns\n") != std::string::npos);
  fs::remove(l);
  Result d = run("lut diff " + a + " " + b);
  REQUIRE_MESSAGE(d.code == 0, d.err);
  CHECK(d.out.find("median 100.0 %") != std::string::npos);
  CHECK(d.out.find("speed probe b / a: 2.000 (1 thread(s))") != std::string::npos);
  CHECK(d.out.find("with b brought to a's speed: median 0.0 %") != std::string::npos);
  j["runtime"].erase("speed_ms");  // a LUT from before the probe: said, not guessed
  std::string old = write_temp("sp_old.json", j.dump());
  d = run("lut diff " + a + " " + old);
  REQUIRE(d.code == 0);
  CHECK(d.out.find("no speed probe in b") != std::string::npos);
  for (const std::string& f : {net, a, b, old}) fs::remove(f);
}
