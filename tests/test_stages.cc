// The filter / Pareto / replay stages on tiny networks with real (2-run) LUTs: reference
// points, choice of the fastest kept candidate, filter.json round trip, fronts, replay
// breakdown consistent with the cost model, solutions.csv parsing, a missing dataset.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <unistd.h>

#include "explorer/measure/baselines.h"
#include "explorer/measure/deployment.h"
#include "explorer/pipeline/replay.h"
#include "explorer/measure/evaluator.h"
#include "env/profiler.h"
#include "explorer/pipeline/pareto.h"
#include "explorer/pipeline/filter.h"
#include "env/speed_probe.h"
#include "explorer/pipeline/run_report.h"
#include "tests/tiny_profile.h"

using namespace lw;
namespace fs = std::filesystem;

namespace {
using testing::quick_profile;
using testing::tiny_conv_net;

struct Fixture {
  Network net = tiny_conv_net(Shape{1, 8, 14, 14}, "tiny");  // random weights: fidelity
  Lut lut = quick_profile(net);
};
Fixture& fixture() {
  static Fixture f;
  return f;
}

EvalOptions eval_options() {
  EvalOptions o;
  o.registry = &default_registry();
  o.fidelity_inputs = 4;
  o.calibration_images = 4;
  o.test_images = 20;
  o.timing = Protocol{0, 2, 0.0, 2, 1.0};
  return o;
}

std::string temp_dir(const std::string& name) {
  fs::path p = fs::temp_directory_path() / ("lw_stages_" + std::to_string(::getpid()) + "_" + name);
  fs::create_directories(p);
  return p.string();
}

// The replay cases' start: an evaluator on the fixture, one baseline deployment of it and a
// fresh output folder.
struct ReplayCase {
  std::unique_ptr<Evaluator> ev;
  NamedDeployment d;
  std::string dir;
};
ReplayCase replay_case(const std::string& label, int threads, const std::string& dir) {
  ReplayCase c;
  REQUIRE(Evaluator::create(fixture().net, fixture().lut, eval_options(), &c.ev).is_ok());
  REQUIRE(baseline_deployment(fixture().lut, label, threads, &c.d).is_ok());
  c.dir = temp_dir(dir);
  return c;
}

FilterCandidate candidate(const Lut& lut, const std::string& label, const std::string& id) {
  NamedDeployment d;
  REQUIRE(baseline_deployment(lut, label, 2, &d).is_ok());
  FilterCandidate c;
  c.id = id;
  c.impls = d.names;
  c.predicted_ms = d.predicted_ms;
  return c;
}
}  // namespace

TEST_CASE("filter measures candidates and references interleaved, keeps by constraint, chooses the fastest") {
  Fixture& f = fixture();
  std::unique_ptr<Evaluator> ev;
  REQUIRE(Evaluator::create(f.net, f.lut, eval_options(), &ev).is_ok());
  CHECK(ev->metric() == "fidelity");
  std::vector<FilterCandidate> c = {candidate(f.lut, "opt-fp32", "a"), candidate(f.lut, "ref-fp32", "b"),
                                    candidate(f.lut, "native", "c"), candidate(f.lut, "all-int8", "d")};
  FilterConstraints k;
  k.latency_band_pct = 1e6;  // everything in the band
  k.max_accuracy_drop_pct = 100;
  const std::string dir = temp_dir("filter");
  FilterResult r;
  Status s = run_filter(*ev, c, k, dir, &r);
  REQUIRE_MESSAGE(s.is_ok(), s.message());
  REQUIRE(r.references.size() == 3);
  for (const Measurement& m : r.references) CHECK(m.latency.median > 0);
  const Measurement* ref = r.find("ref-fp32");
  const Measurement* int8 = r.find("all-int8");
  REQUIRE(ref);
  REQUIRE(int8);
  CHECK(ref->accuracy.top1 == 1.0);         // f32 vs the f32 reference: same argmax ...
  CHECK(ref->accuracy.sqnr_db > 80);        // ... to float rounding
  CHECK(int8->int8_layers > 0);
  CHECK(int8->accuracy.sqnr_db < 60);       // really quantised
  CHECK(r.reference_accuracy == ref->accuracy.top1);
  std::set<std::vector<std::string>> distinct;
  for (const FilterCandidate& x : c) distinct.insert(x.impls);
  REQUIRE(distinct.size() >= 3);
  REQUIRE(r.measured.size() == distinct.size());
  REQUIRE(!r.chosen.empty());
  const Measurement* chosen = r.find(r.chosen);
  REQUIRE(chosen);
  // The fastest of everything measured (candidates and references alike, all meet these loose
  // constraints), unless it won a tie within noise on accuracy or size.
  CHECK(!r.chosen_why.empty());
  if (r.chosen_why.find("within measurement noise") == std::string::npos)
    for (const auto* v : {&r.measured, &r.references})
      for (const Measurement& m : *v) CHECK(chosen->latency.median <= m.latency.median);
  CHECK(fs::exists(dir + "/filtered.csv"));

  FilterResult back;
  REQUIRE(load_filter_result(dir + "/filter.json", &back).is_ok());
  CHECK(back.chosen == r.chosen);
  CHECK(back.chosen_why == r.chosen_why);
  CHECK(back.candidates.size() == c.size());
  CHECK(back.references.size() == 3);
  CHECK(back.find("all-int8")->names == int8->names);
  CHECK(back.find("all-int8")->accuracy.sqnr_db == doctest::Approx(int8->accuracy.sqnr_db));

  std::vector<bool> mixed;
  std::vector<ParetoPoint> p = pareto_points(back, &mixed);
  bool reference_won = std::any_of(r.references.begin(), r.references.end(),
                                   [&](const Measurement& m) { return m.label == r.chosen; });
  REQUIRE(p.size() == r.measured.size() + 3 + (reference_won ? 1 : 0));  // a winning reference is marked again
  int chosen_points = 0;
  for (const ParetoPoint& x : p) chosen_points += x.label == "chosen";
  CHECK(chosen_points == 1);
  ParetoSummary sum;
  REQUIRE(run_pareto(back, dir, &sum).is_ok());
  CHECK(sum.points == int(p.size()));
  for (const char* file : {"pareto_accuracy.csv", "pareto_accuracy.png", "pareto_memory.svg"}) CHECK(fs::exists(dir + "/" + file));

  // A memory cap below every candidate rejects all of them: nothing is chosen.
  k.max_memory_bytes = 1;
  REQUIRE(run_filter(*ev, c, k, dir, &r).is_ok());
  CHECK(r.chosen.empty());
  for (const FilterCandidate& x : r.candidates)
    if (x.measured) CHECK(x.rejected_because.find("peak memory") == 0);

  fs::remove_all(dir);
}

TEST_CASE("replay: a small network runs until min_seconds have passed, not just `runs` times") {
  auto [ev, d, dir] = replay_case("opt-fp32", 1, "replay-min-seconds");
  ReplayOptions o;
  o.runs = 3;
  o.warmup = 0;
  o.min_seconds = 0.2;
  ReplayResult r;
  const auto t0 = std::chrono::steady_clock::now();
  Status s = run_replay(*ev, "opt-fp32", d.names, o, dir, &r);
  const double took_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  REQUIRE_MESSAGE(s.is_ok(), s.message());
  CHECK(r.end_to_end.latency.runs > 3);
  CHECK(took_s >= 0.1);  // the end-to-end runs alone took half of it
  CHECK(r.min_seconds == 0.2);
  std::ifstream in(dir + "/replay.json");
  const nlohmann::json j = nlohmann::json::parse(in);
  CHECK(j["latency_ms"]["min_seconds"] == 0.2);
  CHECK(j["latency_ms"]["runs"] == r.end_to_end.latency.runs);
  o.min_seconds = -1;
  CHECK_FALSE(run_replay(*ev, "opt-fp32", d.names, o, dir, &r).is_ok());
  fs::remove_all(dir);
}

TEST_CASE("replay: per-layer LUT terms add up to the prediction; memory and accuracy reported") {
  Fixture& f = fixture();
  auto [ev, d, dir] = replay_case("opt-int8", 2, "replay");
  ReplayOptions o;
  o.runs = 3;
  o.warmup = 1;
  o.min_seconds = 0;  // exactly `runs`
  ReplayResult r;
  Status s = run_replay(*ev, "opt-int8", d.names, o, dir, &r);
  REQUIRE_MESSAGE(s.is_ok(), s.message());
  CHECK(r.end_to_end.predicted_ms == doctest::Approx(d.predicted_ms));
  CHECK(r.end_to_end.latency.runs == 3);
  REQUIRE(r.layers.size() == f.lut.layers.size() - 1);
  double lut_sum = 0;
  for (const ReplayLayer& l : r.layers) lut_sum += l.lut_ms + l.lut_conversion_ms;
  CHECK(lut_sum == doctest::Approx(r.end_to_end.predicted_ms).epsilon(1e-9));
  CHECK(r.steps_sum_ms > 0);
  CHECK(r.end_to_end.memory.peak_bytes() > 0);
  CHECK(r.end_to_end.accuracy.metric == "fidelity");
  // The speed probe (env/speed_probe.h): every thread set the profile probed was probed
  // again; the prediction at that speed scales the LUT's terms by the sets' ratios, so its
  // ratio to the prediction lies among them (hand-offs, not scaled, pull it towards 1).
  REQUIRE(f.lut.runtime.has_speed());
  REQUIRE(r.speed_ratio.size() == f.lut.runtime.speed_ms.size());
  double lo = 1, hi = 1;
  for (double k : r.speed_ratio) {
    CHECK(k > 0);
    lo = std::min(lo, k), hi = std::max(hi, k);
  }
  REQUIRE(r.predicted_at_speed_ms > 0);
  const double scaled = r.predicted_at_speed_ms / r.end_to_end.predicted_ms;
  CHECK(scaled >= lo * (1 - 1e-9));
  CHECK(scaled <= hi * (1 + 1e-9));
  CHECK(r.gap_at_speed_pct ==
        doctest::Approx(100 * (r.end_to_end.latency.median - r.predicted_at_speed_ms) / r.predicted_at_speed_ms));
  CHECK(fs::exists(dir + "/replay.json"));
  std::ifstream in(dir + "/replay.json");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(text.find("\"speed_now_vs_profile\"") != std::string::npos);
  // The cores' distance, probed before every block when the profile probed it, and whether
  // the deployment has a 2-thread step at all (what makes the distance matter).
  bool two = false;
  const std::vector<int> idx = lut_indices(f.lut, d.names);
  for (size_t i = 1; i < idx.size(); ++i) two = two || f.lut.layers[i].impls[size_t(idx[i])].threads >= 2;
  CHECK(r.two_threads == two);
  CHECK(r.core_link_profile_ns == f.lut.runtime.core_link_ns);
  if (f.lut.runtime.core_link_ns > 0) {
    CHECK(r.core_link_ns > 0);
    CHECK(r.core_link_moved_blocks >= 0);
    CHECK(r.core_link_moved_blocks <= kReplayBlocks);
    CHECK(text.find("\"core_link_ns\"") != std::string::npos);
  }
  fs::remove_all(dir);
}

TEST_CASE("replay --recheck: the deployment's implementations timed again; the same cost model on them") {
  auto [ev, d, dir] = replay_case("opt-fp32", 2, "replay-recheck");
  ProfileOptions recheck;
  recheck.protocol = Protocol{0, 3, 0.0, 3, 1.0};
  ReplayOptions o;
  o.runs = 5;
  o.warmup = 0;
  o.min_seconds = 0;
  o.recheck = &recheck;
  ReplayResult r;
  Status s = run_replay(*ev, "opt-fp32", d.names, o, dir, &r);
  REQUIRE_MESSAGE(s.is_ok(), s.message());
  // Every layer implementation the executor runs, once (identical (layer, name) pairs once).
  std::set<std::pair<int, std::string>> ran;
  for (const ExecStep& st : r.steps)
    if (!st.conversion && st.layer > 0) ran.insert({st.layer, st.name});
  CHECK(r.rechecked_impls == int(ran.size()));
  REQUIRE(r.predicted_rechecked_ms > 0);
  // The conversions and hand-offs are the LUT's: the rechecked layers plus them are the
  // rechecked prediction, as the LUT's layers plus them are the LUT's.
  double sum = 0;
  bool moved = false;
  for (const ReplayLayer& l : r.layers) {
    sum += l.recheck_ms + l.lut_conversion_ms;
    if (l.lut_ms > 0) CHECK(l.recheck_ms > 0);
    moved = moved || l.recheck_ms != l.lut_ms;
  }
  CHECK(sum == doctest::Approx(r.predicted_rechecked_ms).epsilon(1e-9));
  CHECK(moved);  // timed again, not copied
  const double predicted = r.end_to_end.predicted_ms, measured = r.end_to_end.latency.median;
  CHECK(r.drift_pct == doctest::Approx(100 * (r.predicted_rechecked_ms - predicted) / predicted));
  CHECK(r.gap_rechecked_pct == doctest::Approx(100 * (measured - r.predicted_rechecked_ms) / r.predicted_rechecked_ms));
  std::ifstream in(dir + "/replay.json");
  const nlohmann::json j = nlohmann::json::parse(in);
  CHECK(j["latency_ms"]["predicted_rechecked"].get<double>() == doctest::Approx(r.predicted_rechecked_ms));
  CHECK(j["latency_ms"]["rechecked_implementations"] == r.rechecked_impls);
  CHECK(j["layers"][0].contains("recheck_ms"));
  // Without it, nothing of the recheck in the result or the file.
  o.recheck = nullptr;
  ReplayResult plain;
  REQUIRE(run_replay(*ev, "opt-fp32", d.names, o, dir, &plain).is_ok());
  CHECK(plain.predicted_rechecked_ms == 0);
  CHECK(plain.rechecked_impls == 0);
  std::ifstream in2(dir + "/replay.json");
  const nlohmann::json j2 = nlohmann::json::parse(in2);
  CHECK_FALSE(j2["latency_ms"].contains("predicted_rechecked"));
  CHECK_FALSE(j2["layers"][0].contains("recheck_ms"));
  fs::remove_all(dir);
}

TEST_CASE("summary.md says when the replay's cores sat otherwise than the profile's, for 2-thread deployments") {
  RunSummary s;
  s.chosen = {"in", "x"};
  s.chosen_why = "fastest measured";
  s.replay_ms = 3.2;
  s.replay_two_threads = true;
  s.replay_core_link_ns = 480, s.replay_core_link_profile_ns = 104;
  const std::string far_now = summary_markdown(s);
  CHECK(far_now.find("Cores 0 and 1 sat 480 ns apart") != std::string::npos);
  CHECK(far_now.find("104 ns in the profile") != std::string::npos);
  s.replay_core_link_ns = 104, s.replay_core_link_profile_ns = 480;  // the other way round
  CHECK(summary_markdown(s).find("Cores 0 and 1 sat 104 ns apart") != std::string::npos);
  s.replay_core_link_ns = 130;  // as in the profile
  s.replay_core_link_profile_ns = 104;
  CHECK(summary_markdown(s).find("Cores 0 and 1 sat") == std::string::npos);
  s.replay_core_link_ns = 480;
  s.replay_two_threads = false;  // 1-thread steps only: the distance does not matter
  CHECK(summary_markdown(s).find("Cores 0 and 1 sat") == std::string::npos);
  s.replay_two_threads = true;
  s.replay_core_link_ns = 0;  // not probed
  CHECK(summary_markdown(s).find("Cores 0 and 1 sat") == std::string::npos);
}

TEST_CASE("summary.md's speed-ups are against ref-fp32, or opt-fp32 with the reason when ref-fp32 was not measured") {
  RunSummary s;
  s.points = {{"opt-fp32", 2.0, 3.0, 1.0, "top1", 1e6}, {"chosen", 1.0, 1.5, 1.0, "top1", 1e6}};
  std::string md = summary_markdown(s);
  CHECK(md.find("| speed-up vs opt-fp32 |") != std::string::npos);
  CHECK(md.find("| chosen | 1.000 | 1.500 | 2.00x |") != std::string::npos);
  CHECK(md.find("`openblas` is not among the profiled libraries") != std::string::npos);
  s.points.insert(s.points.begin(), MeasuredPoint{"ref-fp32", 6.0, 6.0, 1.0, "top1", 1e6});
  md = summary_markdown(s);
  CHECK(md.find("| speed-up vs ref-fp32 |") != std::string::npos);
  CHECK(md.find("| chosen | 1.000 | 1.500 | 4.00x |") != std::string::npos);
  CHECK(md.find("`openblas` is not among") == std::string::npos);
  s.points = {{"chosen", 1.0, 1.5, 1.0, "top1", 1e6}};  // no base at all: the column stays empty
  md = summary_markdown(s);
  CHECK(md.find("| chosen | 1.000 | 1.500 | – |") != std::string::npos);
}

TEST_CASE("summary.md says how old a reused LUT is") {
  RunSummary s;
  s.lut_path = "l.lut.json";
  s.lut_reused = true;
  CHECK(summary_markdown(s).find("(reused)") != std::string::npos);  // age unknown: nothing made up
  s.lut_age_s = 5400;
  CHECK(summary_markdown(s).find("(reused, profiled 1.5 h before this run)") != std::string::npos);
  s.lut_age_s = 600;
  CHECK(summary_markdown(s).find("(reused, profiled 10 min before this run)") != std::string::npos);
  s.lut_age_s = 3 * 86400;
  CHECK(summary_markdown(s).find("(reused, profiled 3 days before this run)") != std::string::npos);
}

TEST_CASE("summary.md tells the replay's drift since profiling from the cost model's miss when rechecked") {
  RunSummary s;
  s.chosen = {"in", "x"};
  s.chosen_why = "fastest measured";
  s.replay_ms = 3.3;
  CHECK(summary_markdown(s).find("timed again") == std::string::npos);  // not rechecked
  // Predicted 2.5 ms, rechecked 3.0 (+20 %), measured 3.3: +32 % off the LUT, +10 % off the recheck.
  s.replay_gap_pct = 32.0;
  s.replay_rechecked_ms = 3.0, s.replay_drift_pct = 20.0, s.replay_gap_rechecked_pct = 10.0;
  const std::string stale = summary_markdown(s);
  CHECK(stale.find("predict 3.000 ms: the device drifted +20.0 % since profiling") != std::string::npos);
  CHECK(stale.find("+10.0 % off that") != std::string::npos);
  CHECK(stale.find("profile again (`layerwise run` with `--reprofile`)") != std::string::npos);  // and how
  s.replay_drift_pct = -4.0;
  const std::string fresh = summary_markdown(s);
  CHECK(fresh.find("drifted -4.0 %") != std::string::npos);
  CHECK(fresh.find("profile again") == std::string::npos);
  // The quickstart's: the alone timings 11.5 % slower, the replay 12 % faster than the LUT
  // (21.1 % off the recheck). A profile that timed them so would predict it worse.
  s.replay_ms = 0.115, s.replay_gap_pct = -12.0;
  s.replay_rechecked_ms = 0.146, s.replay_drift_pct = 11.5, s.replay_gap_rechecked_pct = -21.1;
  const std::string moved = summary_markdown(s);
  CHECK(moved.find("the device drifted +11.5 % since profiling") != std::string::npos);
  CHECK(moved.find("profile again") == std::string::npos);
  CHECK(moved.find("The replay stayed nearer the LUT than these: no sign that a new profile would predict it better.") !=
        std::string::npos);
  CHECK(recheck_verdict(11.5, -12.0, -21.1) == RecheckVerdict::kMovedAlone);
  CHECK(recheck_verdict(20.0, 32.0, 10.0) == RecheckVerdict::kStale);
  CHECK(recheck_verdict(-15.0, -18.0, 2.0) == RecheckVerdict::kStale);   // faster now, and the replay with it
  CHECK(recheck_verdict(5.0, 30.0, 25.0) == RecheckVerdict::kSteady);  // within 10 %: the cost model's miss, not drift
}

TEST_CASE("solutions.csv: parsed into candidates; wrong header or layer count is one line naming the file") {
  const Lut& lut = fixture().lut;
  std::string names;
  for (size_t i = 0; i < lut.layers.size(); ++i) names += (i ? ";" : "") + lut.layers[i].impls[0].name;
  const std::string dir = temp_dir("csv");
  std::ofstream(dir + "/ok.csv") << "latency_ms,memory_bytes,assignment\n1.5,2048,\"" << names << "\"\n0.5,10,\"" << names << "\"\n";
  std::vector<FilterCandidate> c;
  REQUIRE(read_solutions_csv(dir + "/ok.csv", lut, "ql", &c).is_ok());
  REQUIRE(c.size() == 2);
  CHECK(c[1].id == "ql-0001");
  CHECK(c[1].predicted_ms == 0.5);
  CHECK(c[0].predicted_memory_bytes == 2048);
  CHECK(c[0].impls.size() == lut.layers.size());
  std::ofstream(dir + "/bad_header.csv") << "x,y\n";
  std::ofstream(dir + "/short.csv") << "latency_ms,memory_bytes,assignment\n1,2,\"a;b\"\n";
  for (const char* bad : {"bad_header.csv", "short.csv", "missing.csv"}) {
    Status s = read_solutions_csv(dir + "/" + bad, lut, "x", &c);
    CHECK_FALSE(s.is_ok());
    CHECK(s.message().find(bad) != std::string::npos);
    CHECK(s.message().find('\n') == std::string::npos);
  }
  fs::remove_all(dir);
}

TEST_CASE("Fashion-MNIST models: top-1 on the test split; a missing dataset is one line naming the file") {
  Network net = tiny_conv_net(Shape{1, 1, 32, 32}, "tiny_fm");
  // Random weights make it a fidelity model: top-1 would be chance for every deployment alike.
  CHECK(net.random_weights);
  CHECK(data_source_for(net) == DataSource::kRandom);
  net.random_weights = false;  // stands in for a trained model from here on
  CHECK(data_source_for(net) == DataSource::kFashionMnist);
  ProfileOptions po;
  po.libraries = {Library::kNative};
  po.threads = {1};
  po.protocol.warmup = 0;
  po.protocol.runs = po.protocol.max_runs = 1;
  Lut lut;
  REQUIRE(profile_network(net, default_registry(), po, &lut).is_ok());
  EvalOptions o = eval_options();
  o.data_dir = "/nonexistent/fashion-mnist";
  std::unique_ptr<Evaluator> ev;
  Status s = Evaluator::create(net, lut, o, &ev);
  REQUIRE_FALSE(s.is_ok());
  CHECK(s.message().find("/nonexistent/fashion-mnist/t10k") != std::string::npos);
  CHECK(s.message().find('\n') == std::string::npos);
  o.data_dir = "";
  REQUIRE(Evaluator::create(net, lut, o, &ev).is_ok());
  CHECK(ev->metric() == "top1");
  NamedDeployment d;
  REQUIRE(baseline_deployment(lut, "opt-fp32", 1, &d).is_ok());
  Measurement m;
  REQUIRE(ev->measure("opt-fp32", d.names, &m).is_ok());
  CHECK(m.accuracy.images == 20);
  CHECK(m.accuracy.metric == "top1");
  // A LUT of another network is refused.
  REQUIRE_FALSE(Evaluator::create(fixture().net, lut, o, &ev).is_ok());
}

TEST_CASE("pareto: a reference that won the choice is marked chosen on the fronts") {
  auto ref = [](const char* label, double ms, double top1, int64_t heap) {
    Measurement m;
    m.label = label;
    m.latency.median = ms;
    m.accuracy.top1 = top1;
    m.memory.measured_heap_bytes = heap;
    return m;
  };
  FilterResult r;
  r.reference_accuracy = 0.90;
  r.references = {ref("ref-fp32", 10, 0.90, 4000), ref("opt-fp32", 4, 0.90, 3000), ref("all-int8", 2, 0.80, 1000)};
  r.chosen = "all-int8";
  std::vector<bool> mixed;
  std::vector<ParetoPoint> p = pareto_points(r, &mixed);
  CHECK(p.size() == 4);  // three references + the chosen one marked again
  CHECK(std::count_if(p.begin(), p.end(), [](const ParetoPoint& x) { return x.label == "chosen"; }) == 1);
}
