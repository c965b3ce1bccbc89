// Experiment config schema: defaults, resolution round trip, one-line errors with JSON paths.
#include <doctest/doctest.h>

#include <filesystem>
#include <unistd.h>

#include "explorer/pipeline/config.h"
#include "explorer/pipeline/run_dir.h"
#include "explorer/pipeline/runner.h"
#include "libs/core/files.h"

using namespace lw;

namespace {
const ConfigVocabulary kVocab{{"native", "openblas", "xnnpack", "torch"}, {"qlearning", "dqn", "exact", "random"}};

Status parse(const std::string& text, ExperimentConfig* c = nullptr) {
  ExperimentConfig tmp;
  return parse_config(text, "exp.json", kVocab, c ? c : &tmp);
}
}  // namespace

TEST_CASE("a minimal config gets the documented defaults") {
  ExperimentConfig c;
  REQUIRE(parse(R"({"model": "mobilenetv2"})", &c).is_ok());
  CHECK(c.name == "mobilenetv2");
  CHECK(c.protocol_base == "quick");
  CHECK(c.protocol == quick_protocol());  // `layerwise profile`'s (env/measure.h)
  CHECK(c.protocol.runs == 5);
  CHECK(c.protocol.early_stop_margin == 0.25);
  CHECK(c.protocol.warmup == 1);
  CHECK(c.latency_band_pct == kDefaultLatencyBandPct);
  CHECK(c.threads == std::vector<int>{1, 2});
  REQUIRE(c.agents.size() == 1);
  CHECK(c.agents[0].name == kDefaultAgent);
  CHECK(c.seeds == std::vector<uint64_t>{1});
}

TEST_CASE("the resolved config parses back to the same config") {
  ExperimentConfig c;
  REQUIRE(parse(R"({"name": "x", "model": "resnet50", "device": {"libraries": ["native", "xnnpack"], "threads": [1]},
    "profile": {"runs": 30, "max_runs": 60, "weight_age": false, "far_wait_s": 30, "computing_us": 200}, "search": {"objective": "weighted", "memory_weight_ms_per_mib": 0.5,
    "max_memory_mib": 64, "agents": ["exact", {"agent": "qlearning", "episodes": 500}], "seeds": [3, 4]},
    "filter": {"latency_band_pct": 10, "test_images": 0, "calibration_method": "mse"}, "replay": {"runs": 5, "min_seconds": 0.5, "recheck": false},
    "export": {"bundle": false},
    "output_dir": "out"})", &c).is_ok());
  CHECK(!c.export_bundle);
  auto j = resolved_config(c);
  ExperimentConfig back;
  REQUIRE(parse(j.dump(), &back).is_ok());
  CHECK(resolved_config(back) == j);
  CHECK(back.agents[1].params["episodes"] == 500);
  CHECK(back.max_memory_mib.value() == 64);
  CHECK(back.seeds == std::vector<uint64_t>{3, 4});
  CHECK(back.calibration_method == CalibrationMethod::kMse);
  CHECK_FALSE(back.protocol.age_streamed_weights);
  CHECK(back.protocol.far_cores_wait_s == 30);
  CHECK(back.protocol.computing_us == 200);
  CHECK(back.replay_min_seconds == 0.5);
  CHECK_FALSE(back.replay_recheck);
  const ExperimentConfig defaults;
  CHECK(defaults.replay_recheck);  // on unless the config says otherwise
  CHECK(c.protocol.runs == 30);
}

TEST_CASE("profile.protocol picks the base the other profile keys change") {
  ExperimentConfig c;
  REQUIRE(parse(R"({"model": "m", "profile": {"protocol": "exhaustive"}})", &c).is_ok());
  CHECK(c.protocol == Protocol{});  // the paper's (`profile --exhaustive`)
  CHECK(c.protocol.early_stop_margin == 0);
  REQUIRE(parse(R"({"model": "m", "profile": {"protocol": "exhaustive", "runs": 30, "early_stop": 0.5}})", &c).is_ok());
  CHECK(c.protocol.runs == 30);
  CHECK(c.protocol.max_runs == 100);
  CHECK(c.protocol.early_stop_margin == 0.5);
  CHECK(c.protocol.median_ci == 0);
  // On the quick base the keys apply on top; runs alone lifts the cap as --runs does.
  REQUIRE(parse(R"({"model": "m", "profile": {"runs": 30, "median_ci": 0, "early_stop": 0}})", &c).is_ok());
  CHECK(c.protocol.runs == 30);
  CHECK(c.protocol.max_runs == 30);
  CHECK(c.protocol.max_seconds == quick_protocol().max_seconds);
  CHECK(c.protocol.median_ci == 0);
  CHECK(c.protocol.early_stop_margin == 0);
  // Each base echoes and reads back to itself, its changes kept.
  for (const char* text : {R"({"model": "m", "profile": {"protocol": "exhaustive", "median_ci": 0.02}})",
                           R"({"model": "m", "profile": {"protocol": "quick", "early_stop": 0.1}})"}) {
    CAPTURE(text);
    REQUIRE(parse(text, &c).is_ok());
    const auto j = resolved_config(c);
    ExperimentConfig back;
    REQUIRE(parse(j.dump(), &back).is_ok());
    CHECK(back.protocol == c.protocol);
    CHECK(back.protocol_base == c.protocol_base);
    CHECK(resolved_config(back) == j);
  }
  CHECK(c.protocol.early_stop_margin == 0.1);
}

TEST_CASE("every shipped experiment config reads with the real libraries and agents") {
  int read = 0;
  for (const char* dir : {"configs", "configs/zoo", "configs/fmnist"})
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
      if (e.path().extension() != ".json") continue;
      CAPTURE(e.path().string());
      ExperimentConfig c;
      const Status s = load_config(e.path().string(), config_vocabulary(), &c);
      CAPTURE(s.message());
      CHECK(s.is_ok());
      CHECK(c.protocol.max_runs >= c.protocol.runs);
      ++read;
    }
  CHECK(read >= 12);  // quickstart, compare-search, the zoo's and the Fashion-MNIST members'
}

TEST_CASE("schema errors name the file and the JSON path on one line") {
  struct Case {
    const char* text;
    const char* expect;
  };
  const Case cases[] = {
      {R"({"model": "m", "colour": 1})", "exp.json: /colour: unknown key"},
      // Found by fuzzing: a number too large for a double threw out of the reader.
      {R"({"name": 2222222222222222222222222244444e44444})", "exp.json: not valid JSON"},
      {R"({"model": 3})", "exp.json: /model: expected a string"},
      {R"({})", "exp.json: /model: missing"},
      {R"({"model": "m", "device": {"libraries": ["native", "cudnn"]}})",
       "exp.json: /device/libraries/1: unknown library 'cudnn' (known: native, openblas, xnnpack, torch)"},
      {R"({"model": "m", "device": {"threads": [4]}})", "/device/threads/0: thread sets are 1"},
      {R"({"model": "m", "search": {"agents": ["ppo"]}})", "/search/agents/0: unknown agent 'ppo'"},
      {R"({"model": "m", "search": {"agents": [{"agent": "ppo"}]}})", "/search/agents/0/agent: unknown agent 'ppo'"},
      {R"({"model": "m", "search": {"objective": "energy"}})", "/search/objective: unknown objective 'energy'"},
      {R"({"model": "m", "search": {"max_memory_mib": -1}})", "/search/max_memory_mib: must be positive"},
      {R"({"model": "m", "profile": {"runs": "many"}})", "/profile/runs: expected an integer"},
      {R"({"model": "m", "profile": {"runs": 50, "max_runs": 10}})", "/profile/max_runs: must be >= runs"},
      {R"({"model": "m", "profile": {"protocol": "fast"}})",
       "exp.json: /profile/protocol: unknown protocol 'fast' (known: quick, exhaustive)"},
      {R"({"model": "m", "profile": {"early_stop": -1}})", "/profile/early_stop: must be in"},
      {R"({"model": "m", "profile": {"median_ci": "tight"}})", "/profile/median_ci: expected a number"},
      {R"({"model": "m", "filter": {"latency_band_pct": -5}})", "/filter/latency_band_pct: must be in"},
      {R"({"model": "m", "filter": {"calibration_method": "entropy"}})",
       "exp.json: /filter/calibration_method: unknown calibration method 'entropy' (known: minmax|mse)"},
      {R"({"model": "m", "search": {"seeds": [-1]}})", "/search/seeds/0: expected a non-negative integer"},
      {R"({"model": "m", "replay": {"runs": 0}})", "/replay/runs: must be in"},
      {R"({"model": "m", "replay": {"min_seconds": -1}})", "/replay/min_seconds: must be in"},
      {R"({"model": "m", "export": {"bundle": "yes"}})", "/export/bundle: expected"},
      {R"({"model": "m", "export": {"path": "x"}})", "/export/path: unknown key"},
      {R"({"model": "m", "filter": {"eval_inputs": "x.npy", "eval_labels": "y.npy"}})",
       "exp.json: /filter/calibration_inputs: needed with eval_inputs"},
      {R"({"model": "m",)", "exp.json: byte"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.text);
    Status s = parse(c.text);
    CAPTURE(s.message());
    CHECK(s.code() == StatusCode::kParseError);
    CHECK(s.message().find(c.expect) != std::string::npos);
    CHECK(s.message().find('\n') == std::string::npos);
  }
}

TEST_CASE("a fresh run started in the same second as another gets its own folder, leaving the other's intact") {
  namespace fs = std::filesystem;
  const fs::path root = fs::temp_directory_path() / ("lw_rundir_" + std::to_string(::getpid()));
  fs::remove_all(root);
  RunDir a, b, c;
  REQUIRE(a.open(root.string(), {{"x", 1}}, "m__greedy__1__20261124-003318", "a.json", true).is_ok());
  REQUIRE(a.complete().is_ok());
  REQUIRE(b.open(root.string(), {{"x", 2}}, "m__greedy__1__20261124-003318", "b.json", true).is_ok());
  REQUIRE(c.open(root.string(), {{"x", 3}}, "m__greedy__1__20261124-003318", "c.json", true).is_ok());
  CHECK(a.path() == (root / "m__greedy__1__20261124-003318").string());
  CHECK(b.path() == a.path() + "-2");
  CHECK(c.path() == a.path() + "-3");
  CHECK(read_json_file(a.path() + "/config.json") == nlohmann::json{{"x", 1}});
  CHECK(read_json_file(a.path() + "/run.json").value("complete", false));
  CHECK(read_json_file(b.path() + "/config.json") == nlohmann::json{{"x", 2}});
  fs::remove_all(root);
}

TEST_CASE("resuming picks the newest unfinished run of a config, '-10' after '-9'") {
  namespace fs = std::filesystem;
  const fs::path root = fs::temp_directory_path() / ("lw_resume_" + std::to_string(::getpid()));
  fs::remove_all(root);
  const std::string id = "m__greedy__1__20261124-003318";
  std::vector<std::string> made;
  for (int k = 0; k < 10; ++k) {  // ten unfinished runs of one config, started in the same second
    RunDir r;
    REQUIRE(r.open(root.string(), {{"x", 1}}, id, "a.json", true).is_ok());
    made.push_back(r.path());
  }
  CHECK(made.back() == (root / (id + "-10")).string());
  RunDir older;  // an earlier second's run sorts before all of them
  REQUIRE(older.open(root.string(), {{"x", 1}}, "m__greedy__1__20261124-003317", "a.json", true).is_ok());
  RunDir resumed;
  REQUIRE(resumed.open(root.string(), {{"x", 1}}, "unused", "a.json", false).is_ok());
  CHECK(resumed.resumed());
  CHECK(resumed.path() == made.back());
  fs::remove_all(root);
}
