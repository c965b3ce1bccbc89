// The CLI's contract: user errors are one line on stderr and exit code 2.
#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <unistd.h>
#include <string>
#include <sys/wait.h>

namespace fs = std::filesystem;

namespace {
struct Result {
  int code;
  std::string out, err;
};

std::string slurp(const std::string& p) {
  std::ifstream f(p);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

Result run(const std::string& args) {
  fs::path dir = fs::temp_directory_path() / ("lw_cli_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::string out = (dir / "out").string(), err = (dir / "err").string();
  int raw = std::system((std::string(LAYERWISE_BIN) + " " + args + " >" + out + " 2>" + err).c_str());
  Result r{WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, slurp(out), slurp(err)};
  return r;
}

int lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

std::string write_temp(const std::string& name, const std::string& text) {
  fs::path p = fs::temp_directory_path() / ("lw_cli_" + std::to_string(::getpid()) + "_" + name);
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
    CHECK(lines(r.err) == 1);
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
  std::string text = slurp(lut);
  auto at = text.find("\"cpu\"");
  REQUIRE(at != std::string::npos);
  std::string foreign = text.substr(0, at) + "\"cpu\": \"ARM Cortex-A57\", \"was_cpu\"" + text.substr(at + 5);
  std::string other = write_temp("foreign.json", foreign);
  Result s = run("search --lut " + other + " --agent greedy --quiet --out " + other + ".d");
  CHECK(s.code == 2);
  CHECK(s.err.find("measured on another device") != std::string::npos);
  CHECK(lines(s.err) == 1);
  CHECK(run("search --lut " + other + " --agent greedy --quiet --force --out " + other + ".d").code == 0);
  CHECK(run("search --lut " + lut + " --agent greedy --quiet --out " + lut + ".d").code == 0);
  std::string cut = write_temp("cut.json", text.substr(0, text.size() / 3));
  Result c = run("search --lut " + cut + " --agent greedy --quiet");
  CHECK(c.code == 2);
  CHECK(lines(c.err) == 1);
  CHECK(c.err.find(cut) != std::string::npos);
  for (const std::string& f : {net, lut, other, cut}) fs::remove(f);
  fs::remove_all(other + ".d");
  fs::remove_all(lut + ".d");
}
