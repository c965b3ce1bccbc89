// Choosing the deployment to ship from interleaved measurements (explorer/pipeline/choice.h), on
// hand-made samples: the situations a user met on the quickstart, and the noise cases.
#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "explorer/pipeline/choice.h"

using namespace lw;

namespace {

// n samples around `ms` with relative jitter `rel` (seeded, so the test is deterministic).
std::vector<double> around(double ms, double rel, int n, uint32_t seed) {
  std::mt19937 g(seed);
  std::normal_distribution<double> d(0, rel * ms);
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(ms + d(g));
  return v;
}

Contender make(const std::string& label, std::vector<double> s, double acc, double mib, bool ok = true) {
  return Contender{label, std::move(s), acc, mib * 1048576.0, ok};
}

// A re-measurement that must not happen.
const Remeasure kNever = [](const std::vector<int>&, int) {
  FAIL("re-measured although the difference was already significant");
  return Status::ok();
};

}  // namespace

TEST_CASE("Mann-Whitney U: textbook values, ties, degenerate samples") {
  // U = 0 for two separated samples of 5: z = (12.5 - 0.5) / sqrt(25 * 11 / 12) = 2.5067.
  CHECK(mann_whitney_p({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10}) == doctest::Approx(0.01219).epsilon(0.01));
  CHECK(mann_whitney_p({6, 7, 8, 9, 10}, {1, 2, 3, 4, 5}) == doctest::Approx(0.01219).epsilon(0.01));
  CHECK(mann_whitney_p({1, 2, 3}, {1, 2, 3}) == 1.0);
  CHECK(mann_whitney_p({2, 2, 2}, {2, 2, 2}) == 1.0);
  CHECK(mann_whitney_p({}, {1, 2}) == 1.0);
  auto a = around(1.0, 0.02, 40, 1), b = around(1.0, 0.02, 40, 2), c = around(1.1, 0.02, 40, 3);
  CHECK(mann_whitney_p(a, b) > 0.05);
  CHECK(mann_whitney_p(a, c) < 1e-6);
  CHECK(median_of({3, 1, 2}) == 2);
  CHECK(median_of({4, 1, 3, 2}) == 2.5);
}

TEST_CASE("choice: a reference faster than every candidate wins (quickstart run 1)") {
  // Chosen 0.169 ms against opt-fp32's 0.162 ms in one filter: the reference must win.
  std::vector<Contender> c{make("ref-fp32", around(0.75, 0.02, 10, 1), 0.90, 3),
                           make("opt-fp32", around(0.162, 0.01, 10, 2), 0.90, 2),
                           make("qlearning-s1-0000", around(0.169, 0.01, 10, 3), 0.90, 2)};
  Choice ch;
  REQUIRE(choose_measured_best(c, ChoiceOptions{}, kNever, &ch).is_ok());
  REQUIRE(ch.index == 1);
  CHECK(ch.why.find("fastest measured") != std::string::npos);
  CHECK(ch.why.find("qlearning-s1-0000") != std::string::npos);  // says whom it beat
  CHECK(ch.extra_rounds == 0);
}

TEST_CASE("choice: the fastest eligible deployment, whatever its kind (quickstart run 2)") {
  // Candidate 0.217, opt-fp32 0.212, all-int8 0.203 and the most accurate: all-int8.
  std::vector<Contender> c{make("qlearning-s1-0000", around(0.217, 0.01, 10, 4), 0.879, 2),
                           make("opt-fp32", around(0.212, 0.01, 10, 5), 0.880, 2),
                           make("all-int8", around(0.203, 0.01, 10, 6), 0.882, 1)};
  Choice ch;
  REQUIRE(choose_measured_best(c, ChoiceOptions{}, kNever, &ch).is_ok());
  CHECK(c[ch.index].label == "all-int8");
  // Ineligible (e.g. too inaccurate): the next fastest that meets the constraints.
  c[2].eligible = false;
  REQUIRE(choose_measured_best(c, ChoiceOptions{}, kNever, &ch).is_ok());
  CHECK(c[ch.index].label == "opt-fp32");
  for (auto& x : c) x.eligible = false;
  REQUIRE(choose_measured_best(c, ChoiceOptions{}, kNever, &ch).is_ok());
  CHECK(ch.index == -1);
}

TEST_CASE("choice: too close to call -> re-measured interleaved until significant") {
  // The first 10 samples cannot tell them apart; with more, b is clearly faster.
  std::vector<Contender> c{make("a", around(1.00, 0.05, 10, 7), 0.9, 2), make("b", around(1.00, 0.05, 10, 8), 0.9, 2)};
  REQUIRE(mann_whitney_p(c[0].samples_ms, c[1].samples_ms) > 0.05);
  int calls = 0;
  Remeasure more = [&](const std::vector<int>& which, int rounds) {
    ++calls;
    CHECK(which.size() == 2);
    for (int i : which) {
      auto extra = around(c[i].label == "a" ? 1.05 : 0.95, 0.01, rounds, 100 + calls * 2 + i);
      c[i].samples_ms.insert(c[i].samples_ms.end(), extra.begin(), extra.end());
    }
    return Status::ok();
  };
  Choice ch;
  REQUIRE(choose_measured_best(c, ChoiceOptions{}, more, &ch).is_ok());
  CHECK(calls >= 1);
  CHECK(ch.extra_rounds == calls * kDefaultChoiceStepRounds);
  CHECK(c[ch.index].label == "b");
  CHECK(ch.why.find("fastest measured") != std::string::npos);
}

TEST_CASE("choice: a tie within noise goes to the more accurate, then the smaller") {
  // Both draw the very same times: no amount of re-measuring can separate them.
  auto same = [](uint32_t seed) { return around(1.0, 0.03, 10, seed); };
  uint32_t next = 200;
  std::vector<Contender> c;
  Remeasure more = [&](const std::vector<int>& which, int rounds) {
    auto extra = around(1.0, 0.03, rounds, next++);
    for (int i : which) c[i].samples_ms.insert(c[i].samples_ms.end(), extra.begin(), extra.end());
    return Status::ok();
  };
  c = {make("fast-but-worse", same(9), 0.880, 2), make("as-fast-more-accurate", same(9), 0.885, 3)};
  Choice ch;
  REQUIRE(choose_measured_best(c, ChoiceOptions{}, more, &ch).is_ok());
  CHECK(c[ch.index].label == "as-fast-more-accurate");
  CHECK(ch.why.find("within measurement noise of fast-but-worse") != std::string::npos);
  CHECK(ch.why.find("the most accurate") != std::string::npos);
  CHECK(c[0].samples_ms.size() >= size_t(kDefaultChoiceMaxSamples));  // it did try to separate them
  c = {make("big", same(11), 0.88, 3), make("small", same(11), 0.88, 1)};
  REQUIRE(choose_measured_best(c, ChoiceOptions{}, more, &ch).is_ok());
  CHECK(c[ch.index].label == "small");
  CHECK(ch.why.find("the smallest") != std::string::npos);
  c = {make("x", same(13), 0.88, 1), make("y", same(13), 0.88, 1)};
  REQUIRE(choose_measured_best(c, ChoiceOptions{}, more, &ch).is_ok());
  CHECK(ch.index >= 0);
  CHECK(ch.why.find("as small") != std::string::npos);
}

TEST_CASE("choice: never beaten by a contender it was not compared with") {
  // 'fast' is the fastest; 'twin' times exactly like it but is more accurate; 'small' is as
  // accurate as 'fast' and ties with 'twin' on time too, but is significantly slower than
  // 'fast' ... a chain of pairwise tie-breaks could hand the user 'small'. The fastest is
  // settled first, and the choice is made only among those tied with it.
  std::vector<double> base = around(1.0, 0.02, 60, 21);
  std::vector<Contender> c{make("small", around(1.03, 0.02, 60, 22), 0.90, 1),
                           make("fast", base, 0.90, 3), make("twin", base, 0.91, 3),
                           make("slow", around(1.5, 0.02, 60, 23), 0.99, 1)};
  Choice ch;
  REQUIRE(choose_measured_best(c, ChoiceOptions{}, kNever, &ch).is_ok());
  CHECK(c[ch.index].label == "twin");
  CHECK(ch.why.find("within measurement noise of fast") != std::string::npos);
  CHECK(ch.why.find("small") == std::string::npos);  // not tied with the fastest
}

TEST_CASE("choice: a verdict that re-timing the fastest overturned is reached again") {
  // A is fastest by its first samples and significantly faster than B; deciding A against C
  // (too few samples) re-times A, which runs slower from then on, until its median is above
  // B's. The first pass alone would keep A; the chosen one must beat B by its final samples.
  std::vector<Contender> c{make("A", around(1.0, 0.01, 40, 1), 0.9, 1), make("B", around(1.05, 0.01, 40, 2), 0.9, 1),
                           make("C", around(1.2, 0.01, 1, 3), 0.9, 1)};
  uint32_t seed = 10;
  Remeasure more = [&](const std::vector<int>& which, int rounds) {
    for (int i : which) {
      const double ms = i == 0 ? 1.2 : i == 2 ? 1.4 : 1.05;
      for (double x : around(ms, 0.01, rounds, seed++)) c[size_t(i)].samples_ms.push_back(x);
    }
    return Status::ok();
  };
  ChoiceOptions o;
  o.step_rounds = 60;
  Choice ch;
  REQUIRE(choose_measured_best(c, o, more, &ch).is_ok());
  REQUIRE(ch.index == 1);
  CHECK(ch.extra_rounds > 0);
  for (const Contender& x : c) CHECK(median_of(c[1].samples_ms) <= median_of(x.samples_ms));
  CHECK(ch.why.find("fastest measured") != std::string::npos);
}
