#include "explorer/choice.h"

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
  std::snprintf(b, sizeof b, "p = %.2g", p);
  return b;
}

// Tie-break between a and b (indices): more accurate, then smaller. Returns the winner and
// says why.
int break_tie(const std::vector<Contender>& c, int a, int b, std::string* why) {
  const Contender &x = c[a], &y = c[b];
  char buf[160];
  if (x.accuracy != y.accuracy) {
    int w = x.accuracy > y.accuracy ? a : b;
    std::snprintf(buf, sizeof buf, "more accurate (%.2f %% vs %.2f %%)", 100 * c[w].accuracy,
                  100 * c[w == a ? b : a].accuracy);
    *why = buf;
    return w;
  }
  if (x.memory_bytes == y.memory_bytes) {
    *why = "as accurate and as small: kept the lower median";
    return median_of(x.samples_ms) <= median_of(y.samples_ms) ? a : b;
  }
  int w = x.memory_bytes < y.memory_bytes ? a : b;
  std::snprintf(buf, sizeof buf, "as accurate and smaller (%.3f vs %.3f MiB)", c[w].memory_bytes / 1048576.0,
                c[w == a ? b : a].memory_bytes / 1048576.0);
  *why = buf;
  return w;
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
  int best = order[0];
  std::string tie_why;  // set while `best` holds its place by a tie-break
  for (size_t k = 1; k < order.size(); ++k) {
    const int other = order[k];
    for (;;) {
      double p = mann_whitney_p(c[best].samples_ms, c[other].samples_ms);
      if (p < o.alpha) {
        if (median_of(c[other].samples_ms) < median_of(c[best].samples_ms)) {
          best = other;
          tie_why.clear();
        }
        break;
      }
      if (int(c[best].samples_ms.size()) >= o.max_samples && int(c[other].samples_ms.size()) >= o.max_samples) {
        std::string tie;
        int w = break_tie(c, best, other, &tie);
        int l = w == best ? other : best;
        tie_why = "tied with " + c[l].label + " within measurement noise (" + fmt_ms(median_of(c[w].samples_ms)) +
                  " vs " + fmt_ms(median_of(c[l].samples_ms)) + ", " + fmt_p(p) + " after " +
                  std::to_string(c[w].samples_ms.size()) + " interleaved runs each); " + tie;
        best = w;
        break;
      }
      LW_RETURN_IF_ERROR(more({best, other}, o.step_rounds));
      out->extra_rounds += o.step_rounds;
    }
  }
  std::string why = tie_why;
  if (why.empty() && order.size() == 1) why = "the only measured deployment that meets the constraints";
  if (why.empty()) {  // won outright: say so against the runner-up
    int runner = -1;
    for (int i : order)
      if (i != best && (runner < 0 || median_of(c[i].samples_ms) < median_of(c[runner].samples_ms))) runner = i;
    why = "fastest measured: " + fmt_ms(median_of(c[best].samples_ms)) + " median over " +
          std::to_string(c[best].samples_ms.size()) + " interleaved runs, vs " + c[runner].label + " " +
          fmt_ms(median_of(c[runner].samples_ms)) + " (" +
          fmt_p(mann_whitney_p(c[best].samples_ms, c[runner].samples_ms)) + ")";
  }
  out->index = best;
  out->why = why;
  return Status::ok();
}

}  // namespace lw
