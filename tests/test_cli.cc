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
