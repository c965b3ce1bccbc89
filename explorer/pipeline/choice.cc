#include "explorer/pipeline/choice.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

namespace lw {

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  size_t h = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + h, v.end());
  double hi = v[h];
  if (v.size() % 2) return hi;
  return 0.5 * (hi + *std::max_element(v.begin(), v.begin() + h));
}

double mann_whitney_p(const std::vector<double>& a, const std::vector<double>& b) {
  const size_t n1 = a.size(), n2 = b.size(), n = n1 + n2;
  if (n1 == 0 || n2 == 0) return 1;
  std::vector<std::pair<double, int>> all;  // value, 0 = from a
  for (double x : a) all.push_back({x, 0});
  for (double x : b) all.push_back({x, 1});
  std::sort(all.begin(), all.end());
  double rank_sum_a = 0, tie_term = 0;
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j < n && all[j].first == all[i].first) ++j;
    double avg_rank = 0.5 * double(i + 1 + j);  // ranks i+1 .. j share their mean
    for (size_t k = i; k < j; ++k)
      if (all[k].second == 0) rank_sum_a += avg_rank;
    double t = double(j - i);
    tie_term += t * t * t - t;
    i = j;
  }
  double u = rank_sum_a - double(n1) * double(n1 + 1) / 2;
  double mu = double(n1) * double(n2) / 2;
  double var = double(n1) * double(n2) / 12 * (double(n + 1) - tie_term / (double(n) * double(n - 1)));
  if (var <= 0) return 1;  // every value equal
  double z = (std::fabs(u - mu) - 0.5) / std::sqrt(var);
  if (z <= 0) return 1;
  return std::erfc(z / std::sqrt(2.0));
}

namespace {

std::string fmt_ms(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.4g ms", v);
  return b;
}

std::string fmt_p(double p) {
  char b[32];
  std::snprintf(b, sizeof b, "p = %.3g", p);  // (%.2g printed a significant p just under 0.05 as "0.05")
  return b;
}

enum class Verdict { kFaster, kSlower, kTie };  // of `b` against `a`

// Compares b with a, re-timing both interleaved until the difference is significant or both
// have max_samples; *p is the final p-value.
Status compare(std::vector<Contender>& c, int a, int b, const ChoiceOptions& o, const Remeasure& more,
               int* extra_rounds, Verdict* v, double* p) {
  for (;;) {
    *p = mann_whitney_p(c[a].samples_ms, c[b].samples_ms);
    if (*p < o.alpha) {
      *v = median_of(c[b].samples_ms) < median_of(c[a].samples_ms) ? Verdict::kFaster : Verdict::kSlower;
      return Status::ok();
    }
    if (int(c[a].samples_ms.size()) >= o.max_samples && int(c[b].samples_ms.size()) >= o.max_samples) {
      *v = Verdict::kTie;
      return Status::ok();
    }
    LW_RETURN_IF_ERROR(more({a, b}, o.step_rounds));
    *extra_rounds += o.step_rounds;
  }
}

// Among contenders the measurement cannot separate: the most accurate, then the smallest,
// then the lower median. Says which rule decided.
int prefer(const std::vector<Contender>& c, const std::vector<int>& tied, std::string* rule) {
  auto better = [&](int a, int b) {
    if (c[a].accuracy != c[b].accuracy) return c[a].accuracy > c[b].accuracy;
    if (c[a].memory_bytes != c[b].memory_bytes) return c[a].memory_bytes < c[b].memory_bytes;
    return median_of(c[a].samples_ms) < median_of(c[b].samples_ms);
  };
  int w = tied[0];
  for (int i : tied) w = better(i, w) ? i : w;
  int runner = -1;  // the best of the rest, to say what decided
  for (int i : tied)
    if (i != w && (runner < 0 || better(i, runner))) runner = i;
  char buf[160];
  if (c[w].accuracy != c[runner].accuracy) {
    std::snprintf(buf, sizeof buf, "it is the most accurate (%.2f %% vs %.2f %%)", 100 * c[w].accuracy, 100 * c[runner].accuracy);
  } else if (c[w].memory_bytes != c[runner].memory_bytes) {
    std::snprintf(buf, sizeof buf, "it is as accurate and the smallest (%.3f vs %.3f MiB)", c[w].memory_bytes / 1048576.0,
                  c[runner].memory_bytes / 1048576.0);
  } else {
    std::snprintf(buf, sizeof buf, "it is as accurate and as small, with the lower median");
  }
  *rule = buf;
  return w;
}

std::string list_of(const std::vector<Contender>& c, const std::vector<int>& ids, int skip) {
  std::string s;
  int shown = 0, more = 0;
  for (int i : ids) {
    if (i == skip) continue;
    if (shown == 3) {
      ++more;
      continue;
    }
    s += (shown++ ? ", " : "") + c[i].label + " " + fmt_ms(median_of(c[i].samples_ms));
  }
  if (more) s += " and " + std::to_string(more) + " more";
  return s;
}

}  // namespace

Status choose_measured_best(std::vector<Contender>& c, const ChoiceOptions& o, const Remeasure& more, Choice* out) {
  std::vector<int> order;
  for (int i = 0; i < int(c.size()); ++i)
    if (c[i].eligible && !c[i].samples_ms.empty()) order.push_back(i);
  *out = Choice{};
  if (order.empty()) {
    out->why = "no measured deployment meets the constraints";
    return Status::ok();
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return median_of(c[a].samples_ms) < median_of(c[b].samples_ms); });
  // The fastest: a contender no other is significantly faster than. Every other one is then
  // either significantly slower or tied with it (and joins `tied`). Passes go on until one
  // neither switches nor re-times: re-timing a pair adds samples to the fastest, which can
  // overturn a verdict the same pass reached before (a filter chose 0.0166 ms over a
  // deployment whose median had become 0.0161 ms).
  int fastest = order[0];
  std::vector<int> tied;
  for (size_t pass = 0; pass <= 2 * order.size(); ++pass) {
    tied.assign(1, fastest);
    const int rounds_before = out->extra_rounds;
    bool switched = false;
    for (int other : order) {
      if (other == fastest) continue;
      Verdict v;
      double p;
      LW_RETURN_IF_ERROR(compare(c, fastest, other, o, more, &out->extra_rounds, &v, &p));
      if (v == Verdict::kFaster) {
        fastest = other;
        switched = true;
        break;
      }
      if (v == Verdict::kTie) tied.push_back(other);
    }
    if (!switched && out->extra_rounds == rounds_before) break;
  }
  if (tied.size() > 1) {
    std::string rule;
    out->index = prefer(c, tied, &rule);
    char alpha[32];
    std::snprintf(alpha, sizeof alpha, "%g", o.alpha);
    out->why = fmt_ms(median_of(c[out->index].samples_ms)) + ", within measurement noise of " +
               list_of(c, tied, out->index) + " (p >= " + alpha + " after at least " + std::to_string(o.max_samples) +
               " interleaved runs each); chosen because " + rule;
    return Status::ok();
  }
  out->index = fastest;
  if (order.size() == 1) {
    out->why = "the only measured deployment that meets the constraints";
    return Status::ok();
  }
  int runner = order[0] == fastest ? order[1] : order[0];
  for (int i : order)
    if (i != fastest && median_of(c[i].samples_ms) < median_of(c[runner].samples_ms)) runner = i;
  out->why = "fastest measured: " + fmt_ms(median_of(c[fastest].samples_ms)) + " median over " +
             std::to_string(c[fastest].samples_ms.size()) + " interleaved runs; every other deployment meeting the " +
             "constraints is significantly slower (next: " + c[runner].label + " " +
             fmt_ms(median_of(c[runner].samples_ms)) + ", " +
             fmt_p(mann_whitney_p(c[fastest].samples_ms, c[runner].samples_ms)) + ")";
  return Status::ok();
}

}  // namespace lw
