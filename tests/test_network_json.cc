// Network JSON: round trip, weights files, and one-line errors with file + JSON path.
#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "libs/core/files.h"
#include "libs/ir/network_json.h"
#include "libs/zoo/zoo.h"

using namespace lw;
namespace fs = std::filesystem;

namespace {
std::string temp_dir() {
  fs::path d = fs::temp_directory_path() / ("lw_test_json_" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d.string();
}

Status parse(const std::string& text) {
  Network net;
  return network_from_json(text, "net.json", ".", &net);
}

const char* kGood = R"({"name": "tiny", "layers": [
  {"name": "in", "kind": "input", "shape": [1, 3, 8, 8]},
  {"name": "c", "kind": "conv2d", "inputs": ["in"], "out_channels": 4, "kernel": 3, "padding": [0, 1, 1, 0]},
  {"name": "r", "kind": "relu", "inputs": ["c"]}]})";
}  // namespace

TEST_CASE("a network survives a JSON + weights round trip") {
  Network net;
  REQUIRE(build_zoo_model("mobilenetv3_small", ZooOptions{}, &net).is_ok());
  init_random_weights(net, 3);
  std::string dir = temp_dir();
  REQUIRE(save_network(net, dir + "/m.json", dir + "/m.bin").is_ok());
  Network back;
  REQUIRE(load_network(dir + "/m.json", &back).is_ok());
  REQUIRE(back.layers.size() == net.layers.size());
  for (size_t i = 0; i < net.layers.size(); ++i) {
    CAPTURE(net.layers[i].name);
    CHECK(back.layers[i].name == net.layers[i].name);
    CHECK(back.layers[i].kind == net.layers[i].kind);
    CHECK(back.layers[i].inputs == net.layers[i].inputs);
    CHECK(back.layers[i].out == net.layers[i].out);
    CHECK(back.layers[i].weights == net.layers[i].weights);
    CHECK(back.layers[i].bias == net.layers[i].bias);
    CHECK(back.layers[i].fused_activation == net.layers[i].fused_activation);
  }
  CHECK(total_macs(back) == total_macs(net));
  // Random weights stay known as such (their top-1 would be chance: judged by fidelity), through
  // the file and through folding; weights saved without the flag read as trained.
  CHECK(net.random_weights);
  CHECK(back.random_weights);
  Network folded;
  REQUIRE(fold_affine(back, &folded).is_ok());
  CHECK(folded.random_weights);
  net.random_weights = false;
  REQUIRE(save_network(net, dir + "/t.json", dir + "/t.bin").is_ok());
  REQUIRE(load_network(dir + "/t.json", &back).is_ok());
  CHECK_FALSE(back.random_weights);
  fs::remove_all(dir);
}

TEST_CASE("channel shuffle, channel slice and affine survive a JSON round trip") {
  const char* text = R"({"layers": [{"name": "in", "kind": "input", "shape": [1, 6, 3, 3]},
    {"name": "s", "kind": "channel-shuffle", "inputs": ["in"], "groups": 3},
    {"name": "k", "kind": "channel-slice", "inputs": ["s"], "begin": 1, "out_channels": 4},
    {"name": "a", "kind": "affine", "inputs": ["k"]}]})";
  Network net, back;
  REQUIRE(network_from_json(text, "net.json", ".", &net).is_ok());
  CHECK(net.output_shape() == Shape{1, 4, 3, 3});
  CHECK(weight_count(net.layers[3], input_shapes(net, 3)) == 8);
  REQUIRE(network_from_json(network_to_json(net, ""), "back.json", ".", &back).is_ok());
  CHECK(back.layers[1].groups == 3);
  CHECK(back.layers[2].channel_begin == 1);
  CHECK(back.layers[2].out_channels == 4);
  CHECK(back.layers[3].kind == LayerKind::kAffine);
  Network missing;
  CHECK(network_from_json(R"({"layers": [{"name": "in", "kind": "input", "shape": [1, 6, 3, 3]},
    {"name": "k", "kind": "channel-slice", "inputs": ["in"], "begin": 1}]})", "net.json", ".", &missing)
            .message() == "net.json: /layers/1/out_channels: missing");
}

TEST_CASE("asymmetric padding is read as top, left, bottom, right") {
  Network net;
  REQUIRE(network_from_json(kGood, "net.json", ".", &net).is_ok());
  const Window& w = net.layers[1].window;
  CHECK(w.pad_top == 0);
  CHECK(w.pad_left == 1);
  CHECK(w.pad_bottom == 1);
  CHECK(w.pad_right == 0);
  CHECK(net.layers[1].out == Shape{1, 4, 7, 7});
}

TEST_CASE("a network file without a name is named after the file") {
  const std::string text = kGood, dir = temp_dir();
  std::string unnamed = text;
  unnamed.erase(unnamed.find("\"name\": \"tiny\", "), std::string("\"name\": \"tiny\", ").size());
  REQUIRE(unnamed.find("tiny") == std::string::npos);
  REQUIRE(write_file_atomic(dir + "/edge.v2.json", unnamed).is_ok());
  REQUIRE(write_file_atomic(dir + "/named.json", text).is_ok());
  Network a, b;
  REQUIRE(load_network(dir + "/edge.v2.json", &a).is_ok());
  REQUIRE(load_network(dir + "/named.json", &b).is_ok());
  CHECK(a.name == "edge.v2");
  CHECK(b.name == "tiny");  // a name given stays
}

TEST_CASE("malformed networks give one-line errors with file and JSON path") {
  struct Case {
    const char* text;
    const char* expect;  // substring of the message
  };
  const Case cases[] = {
      {"{\"layers\": [", "net.json: byte"},
      // Found by fuzzing: a number too large for a double threw out of the reader.
      {R"({"format": "layerwise-network/1", "layers": 2e44444})", "net.json: not valid JSON"},
      {"[]", "net.json: /: expected an object"},
      {R"({"layers": []})", "/layers: missing or empty"},
      {R"({"layers": [{"name": "in", "kind": "input", "shape": [1, 3, 8, 8]}, {"name": "x", "kind": "conv3d", "inputs": ["in"]}]})",
       "/layers/1/kind: unknown layer kind 'conv3d'"},
      {R"({"layers": [{"name": "in", "kind": "input", "shape": [1, 3, 8, 8]}, {"name": "x", "kind": "relu", "inputs": ["y"]}]})",
       "/layers/1/inputs/0: 'y' is not an earlier layer"},
      {R"({"layers": [{"name": "in", "kind": "input", "shape": [1, 3, 8, 8]}, {"name": "x", "kind": "relu", "inputs": ["x"]}]})",
       "/layers/1/inputs/0: 'x' is not an earlier layer"},
      {R"({"layers": [{"name": "in", "kind": "input", "shape": [1, 3, 8, 8]}, {"name": "c", "kind": "conv2d", "inputs": ["in"], "kernel": 3}]})",
       "/layers/1/out_channels: missing"},
      {R"({"layers": [{"name": "in", "kind": "input", "shape": [1, 3, 8, 8]}, {"name": "c", "kind": "conv2d", "inputs": ["in"], "out_channels": 4, "kernel": "3"}]})",
       "/layers/1/kernel: expected an integer or [h, w]"},
      {R"({"layers": [{"name": "in", "kind": "input", "shape": [1, 3, 8, 8]}, {"name": "c", "kind": "conv2d", "inputs": ["in"], "out_channels": 4, "kernel": 9}]})",
       "window larger than padded input"},
      {R"({"layers": [{"name": "in", "kind": "input", "shape": [1, 3, 8, 8]}, {"name": "a", "kind": "add", "inputs": ["in"]}]})",
       "takes 2 inputs"},
      {R"({"layers": [{"name": "in", "kind": "input", "shape": [1, 3, 8, 8], "colour": 1}]})", "/layers/0/colour: unknown key"},
      {R"({"layers": [{"name": "in", "kind": "input", "shape": [1, 3, 8]}]})", "/layers/0/shape"},
      {R"({"layers": [{"name": "in", "kind": "input", "shape": [1, 3, 8, 8]}, {"name": "in", "kind": "relu", "inputs": ["in"]}]})",
       "/layers/1/name: duplicate"},
      {R"({"layers": [{"name": "in", "kind": "input", "shape": [1, 3, 8, 8]}], "weights": "/nonexistent/w.bin"})",
       "/nonexistent/w.bin: cannot open"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.text);
    Status s = parse(c.text);
    CHECK(s.code() != StatusCode::kOk);
    CHECK(s.message().find(c.expect) != std::string::npos);
    CHECK(s.message().find('\n') == std::string::npos);
    CAPTURE(s.message());
  }
}

TEST_CASE("truncated, corrupted or mismatched weights files are refused") {
  Network net;
  REQUIRE(network_from_json(kGood, "net.json", ".", &net).is_ok());
  init_random_weights(net, 1);
  std::string dir = temp_dir();
  std::string path = dir + "/w.bin";
  REQUIRE(save_weights(net, path).is_ok());
  REQUIRE(load_weights(path, &net).is_ok());
  std::string data;
  REQUIRE(read_file(path, &data).is_ok());

  REQUIRE(write_file_atomic(path, data.substr(0, data.size() - 5)).is_ok());
  CHECK(load_weights(path, &net).message().find("truncated") != std::string::npos);

  std::string flipped = data;
  flipped[30] ^= 0x40;
  REQUIRE(write_file_atomic(path, flipped).is_ok());
  CHECK(load_weights(path, &net).message().find("checksum") != std::string::npos);

  REQUIRE(write_file_atomic(path, "garbage").is_ok());
  CHECK(load_weights(path, &net).message().find("not a Layerwise weights file") != std::string::npos);

  Network other;
  REQUIRE(build_zoo_model("resnet18", ZooOptions{}, &other).is_ok());
  REQUIRE(write_file_atomic(path, data).is_ok());
  CHECK(load_weights(path, &other).message().find("needs") != std::string::npos);
  fs::remove_all(dir);
}
