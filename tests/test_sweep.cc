// `layerwise sweep` with the local executor: bad sweep configs are one line naming
// the file and the JSON path (exit 2); the grid expands into runnable experiment configs; a
// sweep resumes without redoing finished cells; --collect merges and lists what is missing.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "tests/cli_fixtures.h"

namespace fs = std::filesystem;
using json = nlohmann::json;
using namespace lw::testing;

namespace {
using Result = CliResult;

// Tests remove it when done; scratch_dir() makes it again.
const fs::path kDir = scratch_dir("lw_sweep");

Result run(const std::string& args) { return run_layerwise(scratch_dir("lw_sweep"), args); }

std::string write(const std::string& name, const std::string& text) {
  fs::create_directories(kDir);
  fs::path p = kDir / name;
  std::ofstream(p) << text;
  return p.string();
}

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> v(1);
  for (char c : line) {
    if (c == ',') v.emplace_back();
    else v.back().push_back(c);
  }
  return v;
}

// The tests/sweep grid, shrunk to 2 models x 2 seeds (one agent), into `out`.
std::string small_sweep(const std::string& out) {
  json s = json::parse(slurp("tests/sweep/sweep.json"));
  s["axes"].erase(1);
  s["output_dir"] = out;
  return write("small.json", s.dump());
}
}  // namespace

TEST_CASE("bad sweep configs: one line with the file and the JSON path, exit 2") {
  const std::string base = "\"base\": \"tests/sweep/base.json\"";
  const std::pair<std::string, std::string> bad[] = {
      {"{", "bad.json"},
      {"{\"axes\": []}", "/base"},
      {"{" + base + ", \"axis\": []}", "/axis"},
      {"{\"base\": \"nowhere.json\", \"axes\": []}", "/base"},
      {"{" + base + ", \"axes\": [{\"path\": \"search/seeds\", \"values\": [1]}]}", "/axes/0/path"},
      {"{" + base + ", \"axes\": [{\"path\": \"/output_dir\", \"values\": [\"x\"]}]}", "/axes/0/path"},
      {"{" + base + ", \"axes\": [{\"path\": \"/search/seeds\", \"values\": []}]}", "/axes/0/values"},
      {"{" + base + ", \"axes\": [{\"path\": \"/search/seedz\", \"values\": [[1]]}]}", "/axes/0/values/0 gives: /search"},
      {"{" + base + ", \"axes\": [{\"path\": \"/search/agents\", \"values\": [\"qlearning\", \"nosuch\"]}]}",
       "/axes/0/values/1 gives: /search/agents/0"},
      {"{" + base + ", \"axes\": [{\"path\": \"/model\", \"values\": [\"tests/sweep/tiny_a.json\", \"nosuch.json\"]}]}",
       "/axes/0/values/1 gives: /model"},
      {"{" + base + ", \"axes\": [{\"path\": \"/model/x\", \"values\": [1]}]}", "/axes/0/path"},
      {"{" + base + ", \"axes\": [{\"path\": \"/search/seeds\", \"values\": [1, [1]]}]}", "/axes/0/values/1"},
      {"{" + base + ", \"axes\": [], \"devices\": [\"a\", \"a\"]}", "/devices/1"},
      {"{" + base + ", \"axes\": [], \"local\": {\"jobs\": 0}}", "/local/jobs"},
  };
  for (const auto& kv : bad) {
    // Named copies: clang 14 cannot capture structured bindings in doctest's CAPTURE lambdas.
    const auto& text = kv.first;
    const auto& where = kv.second;
    CAPTURE(text);
    std::string path = write("bad.json", text);
    Result r = run("sweep " + path + " --dry-run");
    CHECK(r.code == 2);
    CHECK(count_lines(r.err) == 1);
    CHECK(r.err.find(path) != std::string::npos);
    CHECK(r.err.find(where) != std::string::npos);
  }
}

TEST_CASE("the grid expands into experiment configs, one per cell, sharing one LUT per model") {
  std::string out = (kDir / "expand").string();
  json s = json::parse(slurp("tests/sweep/sweep.json"));
  s["output_dir"] = out;
  Result r = run("sweep " + write("grid.json", s.dump()) + " --dry-run");
  REQUIRE(r.code == 0);
  json m = json::parse(slurp(out + "/manifest.json"));
  REQUIRE(m["cells"].size() == 8);
  CHECK(m["luts"].size() == 2);
  CHECK(m["keys"] == json({"model", "agents", "seeds", "device"}));
  std::set<std::string> seen;
  for (const auto& c : m["cells"]) {
    json cfg = json::parse(slurp(out + "/cells/" + c["id"].get<std::string>() + "/config.json"));
    CHECK(cfg["output_dir"] == out + "/cells/" + c["id"].get<std::string>());
    CHECK(cfg["profile"]["lut"] == m["luts"][c["lut"].get<int>()]["path"]);
    CHECK(cfg["search"]["seeds"].size() == 1);
    seen.insert(cfg["model"].get<std::string>() + cfg["search"]["agents"][0]["agent"].get<std::string>() +
                cfg["search"]["seeds"][0].dump());
  }
  CHECK(seen.size() == 8);
}

TEST_CASE("a local sweep resumes without redoing finished cells; --collect merges and says what is missing") {
  std::string out = (kDir / "local").string();
  std::string sweep = small_sweep(out);
  Result r = run("sweep " + sweep + " --jobs 2 --quiet");
  REQUIRE_MESSAGE(r.code == 0, r.err);
  CHECK(r.out.find("4 of 4 cells to run, 2 LUTs to profile") != std::string::npos);
  r = run("sweep " + sweep + " --quiet");
  CHECK(r.code == 0);
  CHECK(r.out.find("nothing to run") != std::string::npos);
  // An interrupted cell: started, never finished. Only it runs again.
  std::string cell = out + "/cells/0001";
  fs::remove_all(json::parse(slurp(cell + "/status.json"))["run_dir"].get<std::string>());
  std::ofstream(cell + "/status.json") << R"j({"state": "running", "reason": "started on x (local:1)", "job": "local:1"})j";
  r = run("sweep " + sweep + " --collect");
  CHECK(r.code == 1);
  CHECK(r.out.find("0001 [tiny_a 2 local] running: started on x") != std::string::npos);
  r = run("sweep " + sweep + " --quiet");
  REQUIRE_MESSAGE(r.code == 0, r.err);
  CHECK(r.out.find("1 of 4 cells to run, 0 LUTs to profile") != std::string::npos);
  for (const char* id : {"0000", "0002", "0003"}) CHECK(count_lines(slurp(out + "/cells/" + id + "/starts.log")) == 1);
  CHECK(count_lines(slurp(cell + "/starts.log")) == 2);
  r = run("sweep " + out + " --collect");
  CHECK(r.code == 0);
  std::string csv = slurp(out + "/sweep.csv");
  CHECK(count_lines(csv) == 5);
  CHECK(csv.rfind("cell,model,seeds,device,search_agent,search_seed,best_latency_ms,optimum_ms,gap_pct", 0) == 0);
  CHECK(fs::exists(out + "/plots/gap_vs_states.png"));
  CHECK(fs::exists(out + "/plots/front_memory_tiny_b.png"));
  // A cell's config runs alone with `layerwise run`, on the sweep's LUT: the same search result.
  std::vector<std::string> header = split(csv.substr(0, csv.find('\n')));
  size_t col = std::find(header.begin(), header.end(), "best_latency_ms") - header.begin();
  size_t at = csv.find("\n0001,");
  REQUIRE(at != std::string::npos);
  std::vector<std::string> row = split(csv.substr(at + 1, csv.find('\n', at + 1) - at - 1));
  REQUIRE(col < row.size());
  CHECK(row[col - 2] == "qlearning");
  r = run("run " + cell + "/config.json --quiet");
  REQUIRE_MESSAGE(r.code == 0, r.err);
  int results = 0;
  for (const auto& e : fs::directory_iterator(cell)) {
    fs::path res = e.path() / "search/qlearning__s2/result.json";
    if (!fs::exists(res)) continue;
    char b[32];
    std::snprintf(b, sizeof b, "%.6g", json::parse(slurp(res.string()))["best_latency_ms"].get<double>());
    CHECK(row[col] == b);
    ++results;
  }
  CHECK(results >= 1);
  fs::remove_all(kDir);
}

TEST_CASE("a failed cell says why, and runs again only with --resubmit-failed") {
  std::string out = (kDir / "failing").string();
  // 1e-6 MiB cannot hold the weights: the runner refuses the cell when it starts.
  json s = {{"base", "tests/sweep/base.json"}, {"output_dir", out},
            {"axes", {{{"path", "/search/max_memory_mib"}, {"values", {1e-6}}}}}};
  std::string sweep = write("failing.json", s.dump());
  Result r = run("sweep " + sweep + " --quiet");
  CHECK(r.code == 1);
  r = run("sweep " + sweep + " --collect");
  CHECK(r.code == 1);
  CHECK(r.out.find("0000 [1e-06 local] failed:") != std::string::npos);
  CHECK(r.out.find("/search/max_memory_mib: 1e-06 MiB is infeasible") != std::string::npos);
  r = run("sweep " + sweep + " --quiet");
  CHECK(r.code == 0);
  CHECK(r.out.find("nothing to run") != std::string::npos);
  CHECK(count_lines(slurp(out + "/cells/0000/starts.log")) == 1);
  r = run("sweep " + sweep + " --quiet --resubmit-failed");
  CHECK(r.code == 1);
  CHECK(count_lines(slurp(out + "/cells/0000/starts.log")) == 2);
  fs::remove_all(kDir);
}
