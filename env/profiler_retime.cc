// The passes that time rows of a LUT again: once every layer is in, the layers that stream
// their weights with those weights an inference old; and a bench's recheck of the rows its
// deployments use.
#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "env/profiler_impl.h"
#include "libs/ops/thread_pool.h"

namespace lw::profiling {

namespace {

// A layer that reads its weights once per inference and little else: the output map is one
// pixel (a batch-1 classifier, a squeeze-excite convolution).
bool streams_weights(const Layer& l) { return l.out.h * l.out.w == 1 && weight_floats(l) > 0; }

// Whether an implementation of l with `packed_bytes` of weights is timed an inference old:
// its layer streams its weights, or they fill a share of the shared cache
// (Protocol::big_weights_share, `big` bytes; 0: none).
bool ages(const Layer& l, size_t packed_bytes, size_t big) {
  return packed_bytes > 0 && (streams_weights(l) || (big > 0 && packed_bytes >= big));
}

}  // namespace

bool was_timed(const Impl& m) {
  return !m.is_fused_consumer() && (m.status == ImplStatus::kOk || m.status == ImplStatus::kSkipped);
}

// One inference at the pace of a deployment that implementation d would sit in: the other
// layers' fastest ok implementations on at most d's threads, f32 ones for an f32 d (an f32
// deployment), any dtype otherwise (a quantised or mixed one). Conversions are left out.
double Profiler::inference_estimate_ms(int i, const ImplDesc& d) const {
  double sum = 0;
  for (size_t j = 1; j < lut_->layers.size(); ++j) {
    if (int(j) == i) continue;
    double best = -1;
    for (const Impl& m : lut_->layers[j].impls)
      if (m.ok() && m.threads <= d.threads && (d.dtype_in != DType::kF32 || m.dtype == DType::kF32) &&
          (best < 0 || m.latency_ms.cost_ms() < best))
        best = m.latency_ms.cost_ms();
    sum += std::max(best, 0.0);
  }
  return sum;
}

// How old d's weights (packed_bytes) are to be when timed (Protocol::age_streamed_weights), 0
// for no wait: only while ageing, for layers that stream their weights. On a Zen 4 VM the
// classifiers the search picked from first timings ran in the network 47 % (f32), 74 % (bf16)
// and 199 % (int8) off their LUT figure on average, the ones it picked from aged timings 18,
// 29 and 16 % (results/reference/weight-age/): oneDNN's int8 classifier of ResNet-50 timed
// 0.059 ms a flush after its last read and ran 0.16 ms in the network.
double Profiler::weights_age_ms(int i, const ImplDesc& d, size_t packed_bytes) const {
  if (!ageing_ || !o_.protocol.ages_streamed_weights()) return 0;
  return ages(net_.layers[i], packed_bytes, o_.protocol.big_weights_bytes()) ? inference_estimate_ms(i, d) : 0;
}

// Once every layer is in the LUT (so that an inference's time is known), the layers that
// stream their weights, and the implementations with big weights, are timed again with them
// an inference old (weights_age_ms) and the LUT keeps that figure. Implementations the early
// stop skipped on the first timing are timed to the end too: the age reorders them (XNNPACK's
// int8 classifier beat oneDNN's once aged, results/reference/weight-age/). Done again on a
// resume: seconds to a minute.
Status Profiler::age_streamed_weights(Lut& lut) {
  if (!o_.protocol.ages_streamed_weights()) return Status::ok();
  const auto t0 = clock_type::now();
  ageing_ = true;
  const std::vector<AgedRow> rows = rows_to_age(lut);
  std::set<std::string> keys;  // the timings to make (identical layers share one)
  for (const AgedRow& r : rows) keys.insert(r.key);
  begin_pass(int64_t(keys.size()));
  std::map<std::string, std::pair<Impl, double>> timed;  // by cache key: the aged impl, its age
  for (const AgedRow& r : rows) {
    const int i = r.layer;
    const double age = weights_age_ms(i, r.c.desc, size_t(r.row->memory_bytes.weights));
    if (age <= 0) continue;
    if (!timed.count(r.key)) {
      report(i, r.c.desc.name() + " (weights an inference old)");
      timed[r.key] = {measure_impl(i, r.c.desc, r.c.supported, lut, Look::kToTheEnd), age};
      ++done_;
    }
    const auto& [aged, timed_at] = timed[r.key];  // (an identical layer's, as in the profile)
    if (!aged.ok()) return failed("ageing: " + r.c.desc.name() + " on layer '" + net_.layers[i].name + "': " + aged.reason);
    if (o_.spent)
      o_.spent->aged.push_back({net_.layers[i].name, r.row->name, timed_at,
                                r.row->ok() ? r.row->latency_ms.median : r.row->latency_ms.min, aged.latency_ms.median});
    r.row->latency_ms = aged.latency_ms;
    r.row->status = ImplStatus::kOk;
    r.row->reason.clear();
  }
  ageing_ = false;
  if (o_.spent) o_.spent->aged_s = std::chrono::duration<double>(clock_type::now() - t0).count();
  return Status::ok();
}

// The rows age_streamed_weights times again, in layer order.
std::vector<Profiler::AgedRow> Profiler::rows_to_age(Lut& lut) const {
  std::vector<AgedRow> rows;
  const size_t big = o_.protocol.big_weights_bytes();
  for (int i = 1; i < int(net_.layers.size()); ++i)
    for (const Candidate& c : reg_.candidates(net_, i)) {
      Impl* row = find_impl(lut.layers[size_t(i)], c.desc.name());
      // (the row holds the primitive's packed bytes, which time_primitive ages by)
      if (row && wanted(c.desc, o_) && was_timed(*row) && ages(net_.layers[i], size_t(row->memory_bytes.weights), big))
        rows.push_back({i, c, row, cache_key(i, c.desc)});
    }
  return rows;
}

Status Profiler::remeasure(const std::vector<std::pair<int, std::string>>& which, Lut* lut) {
  lut_ = lut;
  ageing_ = true;  // as the LUT's second timing of the layers that stream their weights
  begin_pass(int64_t(which.size()));
  start_thread_sets();
  std::map<std::string, LatencyStats> timed;  // by cache key: identical layers share a figure
  for (const std::pair<int, std::string>& w : which) {
    const int i = w.first;
    const std::string& name = w.second;  // (a structured binding cannot be captured in C++17)
    if (i <= 0 || i >= int(net_.layers.size()) || size_t(i) >= lut->layers.size())
      return invalid_argument("recheck: no layer " + std::to_string(i) + " in " + net_.name);
    Impl* entry = find_impl(lut->layers[size_t(i)], name);
    if (!entry) return invalid_argument("recheck: '" + name + "' is not in the LUT's layer '" + net_.layers[i].name + "'");
    ++done_;
    if (entry->is_fused_consumer()) continue;  // nothing runs
    const std::vector<Candidate> cands = reg_.candidates(net_, i);
    auto c = std::find_if(cands.begin(), cands.end(), [&](const Candidate& x) { return x.desc.name() == name; });
    if (c == cands.end()) return invalid_argument("recheck: '" + name + "' is not in this build's registry");
    const std::string key = cache_key(i, c->desc);
    if (!timed.count(key)) {
      report(i, name + " (recheck)");
      Impl fresh = measure_impl(i, c->desc, c->supported, *lut, Look::kToTheEnd);
      if (!fresh.ok()) return failed("recheck: " + name + " on layer '" + net_.layers[i].name + "': " + fresh.reason);
      timed[key] = fresh.latency_ms;
    }
    const LatencyStats& now = timed[key];
    if (entry->alone_ms && entry->alone_ms->median > 0) {  // timed in the network (lut refine): carried
      const double to_network = entry->latency_ms.median / entry->alone_ms->median;  // there by its own ratio
      entry->alone_ms = now;
      entry->latency_ms = now;
      entry->latency_ms.scale(to_network);
      continue;
    }
    entry->latency_ms = now;
  }
  return Status::ok();
}

}  // namespace lw::profiling
