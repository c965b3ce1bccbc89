// Speed-ups and the CSV / Markdown reports of `layerwise bench`.
#include <cstdio>
#include <map>
#include <sstream>
#include <tuple>

#include "env/speed_probe.h"
#include "explorer/measure/baselines.h"
#include "explorer/measure/bench.h"

namespace lw {

namespace {

bool is_single_library(const std::string& label) {
  for (const char* l : kBestSingleLabels)
    if (label == l) return true;
  return false;
}

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

// CSV field: quoted when it holds a separator or a quote.
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char ch : s) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return q + "\"";
}

using Block = std::vector<const BenchRow*>;

// Rows grouped by (model, threads), in first-seen order.
std::vector<Block> blocks_of(const std::vector<BenchRow>& rows) {
  std::vector<Block> blocks;
  std::map<std::pair<std::string, int>, size_t> index;
  for (const BenchRow& r : rows) {
    auto key = std::make_pair(r.model, r.threads);
    auto it = index.find(key);
    if (it == index.end()) {
      index[key] = blocks.size();
      blocks.push_back({&r});
    } else {
      blocks[it->second].push_back(&r);
    }
  }
  return blocks;
}

const BenchRow* find_label(const Block& b, const std::string& label) {
  for (const BenchRow* r : b)
    if (r->label == label && r->status == "ok") return r;
  return nullptr;
}

std::string speedup(double v) { return v > 0 ? fmt("%.2fx", v) : "-"; }

std::string summary_line(const Block& b) {
  const BenchRow* ref = find_label(b, to_string(Baseline::kRefFp32));
  const BenchRow* best = b.empty() || b[0]->best_single.empty() ? nullptr : find_label(b, b[0]->best_single);
  const BenchRow* o32 = find_label(b, to_string(Baseline::kOptFp32));
  const BenchRow* o8 = find_label(b, to_string(Baseline::kOptInt8));
  auto ms = [](const BenchRow* r) { return r ? fmt("%.2f", r->measured_ms) : std::string("-"); };
  std::string s = "| " + b[0]->model + " | " + std::to_string(b[0]->threads) + " | " + ms(ref) + " | " +
                  (best ? best->label + " " + ms(best) : "-") + " | " + ms(o32) + " | " + ms(o8) + " | ";
  s += (o32 ? speedup(o32->vs_ref) : "-") + " | " + (o32 ? speedup(o32->vs_best_single) : "-") + " | ";
  s += (o8 ? speedup(o8->vs_ref) : "-") + " | " + (o8 ? speedup(o8->vs_best_single) : "-") + " | ";
  // The same ratios on thread CPU time (load-robust for 1-thread deployments).
  double best_cpu = 0;
  for (const BenchRow* r : b)
    if (r->status == "ok" && is_single_library(r->label) && (best_cpu == 0 || r->cpu_ms < best_cpu)) best_cpu = r->cpu_ms;
  auto cpu_ratio = [](const BenchRow* num, double den_ms, const BenchRow* row) {
    return row && row->cpu_ms > 0 && (num ? num->cpu_ms : den_ms) > 0 ? speedup((num ? num->cpu_ms : den_ms) / row->cpu_ms)
                                                                      : std::string("-");
  };
  s += cpu_ratio(ref, 0, o32) + " | " + cpu_ratio(nullptr, best_cpu, o32) + " | " + cpu_ratio(nullptr, best_cpu, o8) + " | ";
  return s + fmt("%.2f", b.back()->load_avg) + " |\n";
}

// The deployments measured over the rounds with the cores as close as in the profile,
// against their predictions; only when some rounds ran farther apart. `probed`: a measured
// row of the block (the counts are the same for all of them; a row not measured has none).
std::string near_line(const Block& b, const BenchRow& probed) {
  if (probed.core_link_far_rounds == 0 || probed.core_link_profile_ns <= 0) return "";
  const int n = probed.near_rounds;
  if (n < kMinNearRounds)
    return "\nOnly " + std::to_string(n) + " round(s) ran with the cores as close as in the profile: too few for a figure to hold "
           "the LUT to; measure again when the host keeps the cores close\n";
  std::string s = "\nOver the " + std::to_string(n) + " rounds with the cores as close as in the profile (near probes before and after):";
  const char* sep = " ";
  for (const BenchRow* r : b) {
    if (r->status != "ok" || r->measured_near_ms <= 0) continue;
    s += sep + r->label + " " + fmt("%.2f", r->measured_near_ms) + " ms";
    if (r->predicted_ms > 0) s += " (" + fmt("%+.1f", 100 * (r->measured_near_ms - r->predicted_ms) / r->predicted_ms) + " % vs predicted)";
    sep = ", ";
  }
  return s + "\n";
}

std::string detail_table(const Block& b) {
  std::ostringstream os;
  os << "\n### " << b[0]->model << ", threads <= " << b[0]->threads << "\n\n"
     << "| deployment | predicted ms | at today's speed ms | rechecked ms | measured ms | min ms | CV | thread CPU ms | vs ref-fp32 | vs best single "
        "| steps (conv.) | conversions ms | overhead ms (%) | SQNR vs ref dB |\n"
     << "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const BenchRow* r : b) {
    if (r->status != "ok") {
      os << "| " << r->label << " | not measured: " << r->status << " ||||||||||||\n";
      continue;
    }
    os << "| " << r->label << " | " << fmt("%.2f", r->predicted_ms) << " | "
       << (r->at_speed_ms > 0 ? fmt("%.2f", r->at_speed_ms) : std::string("-")) << " | "
       << (r->recheck_ms > 0 ? fmt("%.2f", r->recheck_ms) : std::string("-")) << " | " << fmt("%.2f", r->measured_ms) << " | "
       << fmt("%.2f", r->min_ms) << " | " << fmt("%.3f", r->cv) << " | " << fmt("%.2f", r->cpu_ms) << " | " << speedup(r->vs_ref) << " | "
       << speedup(r->vs_best_single) << " | " << r->steps << " (" << r->conversions << ") | "
       << fmt("%.3f", r->conversion_ms) << " | " << fmt("%.3f", r->overhead_ms) << " ("
       << fmt("%.1f", r->overhead_pct) << " %) | " << fmt("%.1f", r->sqnr_db) << " |\n";
  }
  for (const BenchRow* r : b)
    if (!r->note.empty()) os << "\n" << r->label << ": " << r->note << "\n";
  for (const BenchRow* r : b)
    if (r->speed_ratio_t1 > 0) {  // the same for every row of the block
      os << "\nThe device during the rounds against the profile (speed probe, now / then; > 1: slower now): 1 thread "
         << fmt("%.3f", r->speed_ratio_t1)
         << (r->speed_ratio_t2 > 0 ? ", 2 threads " + fmt("%.3f", r->speed_ratio_t2) : std::string())
         << (speed_drifted(r->speed_ratio_t1) || speed_drifted(r->speed_ratio_t2)
                 ? "; more than 10 % off: profile again (--reprofile)"
                 : "")
         << "\n";
      break;
    }
  for (const BenchRow* r : b)
    if (r->core_link_ns > 0) {  // 2-thread blocks: the same for every row
      os << "\nCores 0 and 1, a cache line's round trip: " << fmt("%.0f", r->core_link_ns) << " ns during the rounds (median)"
         << (r->core_link_profile_ns > 0 ? ", " + fmt("%.0f", r->core_link_profile_ns) + " ns in the profile" : "");
      if (r->near_wait_s > 0) os << "; waited " << fmt("%.0f", r->near_wait_s) << " s before rounds for them to be near";
      if (r->core_link_far_rounds > 0)
        os << "; more than " << fmt("%.0f", kCoreLinkFar) << "x farther in " << r->core_link_far_rounds << " of " << r->rounds
           << " rounds: the host placed the cores apart, and 2-thread figures of those rounds are slower than the LUT "
              "can predict";
      if (r->shared_core_rounds > 0)
        os << "; the two computing as one core (pair probe > " << fmt("%.1f", kCoresShared) << ") next to "
           << r->shared_core_rounds << " of " << r->rounds
           << " rounds: the host ran both vCPUs on one core, and 2-thread steps of those rounds ran at up to their "
              "1-thread speed";
      os << "\n" << near_line(b, *r);
      break;
    }
  return os.str();
}

}  // namespace

void fill_speedups(std::vector<BenchRow>* rows) {
  std::map<std::pair<std::string, int>, const BenchRow*> ref, best;
  for (const BenchRow& r : *rows) {
    if (r.status != "ok" || r.measured_ms <= 0) continue;
    auto key = std::make_pair(r.model, r.threads);
    if (r.label == to_string(Baseline::kRefFp32)) ref[key] = &r;
    if (is_single_library(r.label) && (!best.count(key) || r.measured_ms < best[key]->measured_ms)) best[key] = &r;
  }
  std::map<std::pair<std::string, int>, std::pair<double, std::string>> ref_ms, best_ms;
  for (auto& [k, r] : ref) ref_ms[k] = {r->measured_ms, r->label};
  for (auto& [k, r] : best) best_ms[k] = {r->measured_ms, r->label};
  for (BenchRow& r : *rows) {
    auto key = std::make_pair(r.model, r.threads);
    if (best_ms.count(key)) r.best_single = best_ms[key].second;
    if (r.status != "ok" || r.measured_ms <= 0) continue;
    if (ref_ms.count(key)) r.vs_ref = ref_ms[key].first / r.measured_ms;
    if (best_ms.count(key)) r.vs_best_single = best_ms[key].first / r.measured_ms;
  }
}

std::string bench_csv(const std::vector<BenchRow>& rows) {
  std::ostringstream os;
  os << "model,threads,deployment,status,predicted_ms,measured_ms,min_ms,cv,cpu_ms,rounds,steps,conversions,"
        "conversion_ms,overhead_ms,overhead_pct,speedup_vs_ref,speedup_vs_best_single,best_single,sqnr_db,load_avg,note,"
        "recheck_ms,at_speed_ms,speed_ratio_t1,speed_ratio_t2,core_link_ns,core_link_profile_ns,core_link_far_rounds,"
        "timed_ms,near_rounds,measured_near_ms,near_wait_s,shared_write_ms,shared_core_rounds,streamed_ms\n";
  for (const BenchRow& r : rows)
    os << r.model << ',' << r.threads << ',' << r.label << ',' << csv_field(r.status) << ','
       << fmt("%.4f", r.predicted_ms) << ',' << fmt("%.4f", r.measured_ms) << ',' << fmt("%.4f", r.min_ms) << ','
       << fmt("%.4f", r.cv) << ',' << fmt("%.4f", r.cpu_ms) << ',' << r.rounds << ',' << r.steps << ',' << r.conversions << ','
       << fmt("%.4f", r.conversion_ms) << ',' << fmt("%.4f", r.overhead_ms) << ',' << fmt("%.2f", r.overhead_pct)
       << ',' << fmt("%.4f", r.vs_ref) << ',' << fmt("%.4f", r.vs_best_single) << ',' << r.best_single << ','
       << fmt("%.2f", r.sqnr_db) << ',' << fmt("%.2f", r.load_avg) << ',' << csv_field(r.note) << ','
       << fmt("%.4f", r.recheck_ms) << ',' << fmt("%.4f", r.at_speed_ms) << ',' << fmt("%.4f", r.speed_ratio_t1) << ','
       << fmt("%.4f", r.speed_ratio_t2) << ',' << fmt("%.1f", r.core_link_ns) << ',' << fmt("%.1f", r.core_link_profile_ns)
       << ',' << r.core_link_far_rounds << ',' << fmt("%.4f", r.timed_ms) << ',' << r.near_rounds << ','
       << fmt("%.4f", r.measured_near_ms) << ',' << fmt("%.1f", r.near_wait_s) << ',' << fmt("%.4f", r.shared_write_ms)
       << ',' << r.shared_core_rounds << ',' << fmt("%.4f", r.streamed_ms) << '\n';
  return os.str();
}

std::string bench_steps_csv(const std::vector<BenchStep>& steps) {
  std::ostringstream os;
  os << "model,threads,deployment,step,layer,name,conversion,measured_ms,lut_ms,recheck_ms,mean_ms,pool,rounds,alone_rounds\n";
  for (const BenchStep& s : steps)
    os << s.model << ',' << s.threads << ',' << s.label << ',' << s.index << ',' << s.layer << ',' << s.name << ','
       << (s.conversion ? 1 : 0) << ',' << fmt("%.5f", s.measured_ms) << ',' << fmt("%.5f", s.lut_ms) << ','
       << fmt("%.5f", s.recheck_ms) << ',' << fmt("%.5f", s.mean_ms) << ',' << s.pool << ',' << s.rounds << ','
       << s.alone_rounds << '\n';
  return os.str();
}

std::vector<StepResiduals> step_residuals(const std::vector<BenchStep>& steps) {
  std::vector<StepResiduals> out;
  std::map<std::tuple<std::string, int, std::string>, size_t> at;
  for (const BenchStep& s : steps) {
    auto key = std::make_tuple(s.model, s.threads, s.label);
    auto it = at.find(key);
    if (it == at.end()) {
      it = at.emplace(key, out.size()).first;
      out.push_back({});
      out.back().model = s.model;
      out.back().threads = s.threads;
      out.back().label = s.label;
    }
    StepResiduals& r = out[it->second];
    if (s.lut_ms < 0) {
      ++r.without_lut;
      continue;
    }
    StepResiduals::Sum& sum = s.conversion ? r.conversions : s.pool == "caller" ? r.caller : r.pool;
    ++sum.steps;
    sum.measured_ms += s.mean_ms;  // (the LUT's figures are means too: LatencyStats::cost_ms)
    sum.lut_ms += s.lut_ms;
  }
  return out;
}

namespace {

std::string residual_cell(const StepResiduals::Sum& s) {
  if (s.steps == 0) return "-";
  std::string gap = s.lut_ms > 0 ? fmt(" (%+.0f %%)", 100 * (s.measured_ms / s.lut_ms - 1)) : "";
  return std::to_string(s.steps) + ": " + fmt("%.3f", s.measured_ms) + " / " + fmt("%.3f", s.lut_ms) + gap;
}

}  // namespace

std::string bench_residuals_markdown(const std::vector<BenchRow>& rows, const std::vector<BenchStep>& steps) {
  const std::vector<StepResiduals> res = step_residuals(steps);
  if (res.empty()) return "";
  std::ostringstream os;
  os << "\n### Where the predictions miss, by step (--steps)\n\n"
     << "Per deployment: its steps' means (over the rounds with step timing) summed per class, against "
        "the LUT's figures of the same steps (means too), ms (steps: measured / LUT). Caller steps run on the caller "
        "alone (a 2-thread deployment's 1-thread steps among them); pool steps share cpu1. The rest: "
        "end to end less the steps, measured (the plain runs' median less the steps' means) and charged "
        "(the prediction less the LUT figures, the shared lines and the streamed inputs: hand-offs and the "
        "network's copies). Shared lines: what the cost model charges where a 2-thread deployment's 1-thread and "
        "2-thread steps meet, for lines the other core holds (env/cost.h): mostly the caller steps' writes and "
        "reads, to set against their excess. Streamed inputs: what it charges the steps and conversions that read "
        "an output its producer left in memory (env/cost.h), to set against their excess.\n\n"
     << "| model | threads | deployment | predicted ms | measured ms | caller steps | shared lines charged ms "
        "| streamed inputs charged ms | pool steps | conversions | rest ms, measured / charged |\n"
     << "|---|---:|---|---:|---:|---|---:|---:|---|---|---:|\n";
  const std::vector<Block> blocks = blocks_of(rows);
  for (const StepResiduals& r : res) {
    const BenchRow* row = nullptr;
    for (const Block& b : blocks)
      if (b[0]->model == r.model && b[0]->threads == r.threads) row = find_label(b, r.label);
    const bool have = row && row->measured_ms > 0;
    os << "| " << r.model << " | " << r.threads << " | " << r.label << " | "
       << (have ? fmt("%.3f", row->predicted_ms) : "-") << " | " << (have ? fmt("%.3f", row->measured_ms) : "-")
       << " | " << residual_cell(r.caller) << " | " << (have ? fmt("%.3f", row->shared_write_ms) : "-") << " | "
       << (have ? fmt("%.3f", row->streamed_ms) : "-") << " | " << residual_cell(r.pool) << " | "
       << residual_cell(r.conversions) << " | "
       << (have && r.without_lut == 0
               ? fmt("%.3f", row->measured_ms - r.measured_ms()) + " / " +
                     fmt("%.3f", row->predicted_ms - r.lut_ms() - row->shared_write_ms - row->streamed_ms)
               : std::string("-"))
       << " |\n";
  }
  return os.str();
}

std::string bench_markdown(const std::vector<BenchRow>& rows, const std::string& preamble) {
  std::ostringstream os;
  os << preamble << "\n"
     << "| model | threads | ref-fp32 ms | best single library ms | opt-fp32 ms | opt-int8 ms | opt-fp32 vs ref "
        "| opt-fp32 vs best single | opt-int8 vs ref | opt-int8 vs best single "
        "| CPU: opt-fp32 vs ref | CPU: opt-fp32 vs best single | CPU: opt-int8 vs best single | load avg |\n"
     << "|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  std::vector<Block> blocks = blocks_of(rows);
  for (const Block& b : blocks) os << summary_line(b);
  for (const Block& b : blocks) os << detail_table(b);
  return os.str();
}

}  // namespace lw
