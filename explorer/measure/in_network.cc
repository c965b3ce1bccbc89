#include "explorer/measure/in_network.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <limits>
#include <set>
#include <nlohmann/json.hpp>

#include "env/measure.h"
#include "explorer/measure/baselines.h"
#include "explorer/measure/bench.h"
#include "explorer/measure/deployment.h"
#include "libs/ops/thread_pool.h"

namespace lw {
namespace {

// Added to every implementation a deployment should avoid: far above any network's latency,
// so the exact solver places the signature wherever it is a contender and fills the rest
// with the cheapest implementations.
constexpr double kAvoidMs = 1e6;

bool is_pseudo(const Impl& m) { return m.library == "fused" || m.library == "input"; }

// The label whose dtypes a deployment of `dtype` may use for its other layers: f32 stays f32
// (no quantise/dequantise pair around the measured layers), int8 and bf16 fall back to f32.
const char* label_for(DType dtype) {
  switch (dtype) {
    case DType::kI8: return "opt-int8";
    case DType::kBF16: return "opt-mixed";
    default: return "opt-fp32";
  }
}

// Per layer, the fastest alone median at thread set t (infinity when none).
std::vector<double> fastest_at(const Lut& lut, int t) {
  std::vector<double> best(lut.layers.size(), std::numeric_limits<double>::infinity());
  for (size_t i = 1; i < lut.layers.size(); ++i)
    for (const Impl& m : lut.layers[i].impls)
      if (m.ok() && !is_pseudo(m) && m.threads == t) best[i] = std::min(best[i], m.latency_ms.median);
  return best;
}

struct Signature {
  DType dtype = DType::kF32;
  std::set<std::pair<int, std::string>> contenders;  // (layer, implementation name)
};

// The signatures with at least one contender at thread set t, in name order.
std::map<std::string, Signature> signatures_at(const Lut& lut, int t, double margin) {
  const std::vector<double> best = fastest_at(lut, t);
  std::map<std::string, Signature> out;
  for (size_t i = 1; i < lut.layers.size(); ++i)
    for (const Impl& m : lut.layers[i].impls) {
      if (!m.ok() || is_pseudo(m) || m.threads != t || m.latency_ms.median > (1 + margin) * best[i]) continue;
      Signature& s = out[impl_signature(m.name)];
      s.dtype = m.dtype;
      s.contenders.insert({int(i), m.name});
    }
  return out;
}

// The deployment that runs `sig`'s contenders wherever the solver can place them, on thread
// set t only (`at_t`: the LUT capped at t, every other thread set removed).
// Only the layers with a contender avoid their other implementations (the "fused"
// pseudo-implementation too, or a fused producer would take an activation layer's place); the
// rest are free, or avoiding them would trade one layer's contender for another's filler.
Status plan_signature(const Lut& at_t, int t, const Signature& sig, NamedDeployment* out) {
  std::set<int> placed;
  for (const auto& c : sig.contenders) placed.insert(c.first);
  Lut pen = at_t;
  for (int i : placed)
    for (Impl& m : pen.layers[size_t(i)].impls)
      if (m.ok() && !sig.contenders.count({i, m.name})) {
        m.latency_ms.median += kAvoidMs;
        if (m.latency_ms.mean > 0) m.latency_ms.mean += kAvoidMs;
      }
  return baseline_deployment(pen, label_for(sig.dtype), t, out);
}

// One discarded inference, then `rounds` with step timing; each layer step's time goes to
// its (layer, implementation), unless the step before it ran on another pool: such a step
// also pays the hand-off, which the cost model charges apart (env/runtime_costs.h).
Status time_steps(Executor& e, const Tensor& x, int rounds,
                  std::map<std::pair<int, std::string>, std::vector<double>>* samples) {
  ScopedPin pin;  // once for all rounds, not per run (libs/ops/thread_pool.h)
  Tensor y;
  release_all_pools();
  LW_RETURN_IF_ERROR(e.run(x, &y));
  e.set_time_steps(true);
  for (int r = 0; r < rounds; ++r) {
    Status s = e.run(x, &y);
    if (!s.is_ok()) {
      e.set_time_steps(false);
      return s;
    }
    const auto& steps = e.steps();
    for (size_t k = 0; k < steps.size(); ++k) {
      const ExecStep& st = steps[k];
      const ExecStep& before = steps[(k + steps.size() - 1) % steps.size()];
      if (st.conversion || st.layer < 1 || before.pool != st.pool) continue;
      (*samples)[{st.layer, st.name}].push_back(st.last_ms);
    }
  }
  e.set_time_steps(false);
  return Status::ok();
}

std::string library_key(const Impl& m) {
  return m.library + " " + to_string(m.dtype) + " t" + std::to_string(m.threads);
}

// Writes the in-network medians over the latencies (at least three samples each).
void write_back(const std::map<std::pair<int, std::string>, std::vector<double>>& samples, Lut* lut,
                InNetworkReport* report) {
  std::map<std::string, std::vector<double>> ratios;
  for (const auto& [key, ms] : samples) {
    if (ms.size() < 3) continue;
    for (Impl& m : lut->layers[key.first].impls) {
      if (m.name != key.second || !m.ok()) continue;
      if (!m.alone_ms) m.alone_ms = m.latency_ms;
      m.latency_ms = latency_stats(ms);
      m.input_in_memory_ms = 0;  // (timed with its input as its producer in the network left it)
      ++report->refined;
      if (m.alone_ms->median > 0) ratios[library_key(m)].push_back(m.latency_ms.median / m.alone_ms->median);
    }
  }
  for (auto& [lib, r] : ratios) {
    std::nth_element(r.begin(), r.begin() + r.size() / 2, r.end());
    report->ratio_by_library[lib] = {r[r.size() / 2], int(r.size())};
  }
}

std::vector<int> thread_sets(const Lut& lut) {
  std::set<int> t;
  for (const LutLayer& l : lut.layers)
    for (const Impl& m : l.impls)
      if (m.ok() && !is_pseudo(m)) t.insert(m.threads);
  return {t.begin(), t.end()};
}

struct Planned {
  int threads;
  std::string signature;  // or the baseline's label
  NamedDeployment deployment;
};

struct Plans {
  std::vector<Planned> list;
  std::map<int, Lut> at;  // the LUT at each thread set alone
  bool quantised = false;  // some deployment has int8 or bf16 layers
};

// Per thread set: one deployment per signature with a contender, then Ref-FP32 and each
// library alone (QS-DNN's global implementations proper, so that the deployments Layerwise
// is compared with are costed the same way). Deployments that come out the same run once.
Status plan_deployments(const Lut& lut, const InNetworkOptions& o, Plans* out) {
  std::set<std::vector<std::string>> seen;
  std::vector<std::string> globals(std::begin(kBestSingleLabels), std::end(kBestSingleLabels));
  globals.insert(globals.begin(), to_string(Baseline::kRefFp32));
  for (int t : thread_sets(lut)) {
    const Lut capped = cap_lut_threads(lut, t, *o.registry);
    const Lut& at = out->at[t] =
        restrict_lut(capped, [t](const LutLayer&, const Impl& m) { return m.threads == t || is_pseudo(m); });
    for (const auto& [name, sig] : signatures_at(lut, t, o.contender_margin)) {
      NamedDeployment d;
      Status s = plan_signature(at, t, sig, &d);
      if (s.code() == StatusCode::kUnsupported) continue;  // cannot be placed on this network
      LW_RETURN_IF_ERROR(s);
      if (!seen.insert(d.names).second) continue;
      out->quantised = out->quantised || sig.dtype != DType::kF32;
      out->list.push_back({t, name, std::move(d)});
    }
    for (const std::string& label : globals) {
      NamedDeployment d;
      if (baseline_deployment(at, label, t, &d).is_ok() && seen.insert(d.names).second)
        out->list.push_back({t, label, std::move(d)});
    }
  }
  return Status::ok();
}

// Runs every planned deployment; one that cannot be planned or run is recorded in
// report->failed and its implementations keep their alone figures (said, not hidden).
Status measure_deployments(const Network& net, const InNetworkOptions& o, const Plans& plans,
                           std::map<std::pair<int, std::string>, std::vector<double>>* samples,
                           InNetworkReport* report) {
  DeploymentOptions d;
  d.registry = o.registry;
  if (plans.quantised) {
    std::vector<Tensor> cal;
    LW_RETURN_IF_ERROR(calibration_samples(net, o.calibration_samples, &cal));
    LW_RETURN_IF_ERROR(calibrate_network(net, *o.registry, cal, &d.quant, o.calibration_method));
  }
  const Tensor x = fidelity_inputs(net, 1)[0];
  for (size_t k = 0; k < plans.list.size(); ++k) {
    const Planned& p = plans.list[k];
    const Lut& at = plans.at.at(p.threads);
    d.lut = &at;
    std::vector<ImplDesc> a;
    std::unique_ptr<Executor> e;
    Status s = assignment_from_names(net, at, p.deployment.names, &a);
    if (s.is_ok()) s = plan_deployment(net, a, d, &e);
    if (s.is_ok()) s = time_steps(*e, x, o.rounds, samples);
    if (s.is_ok()) ++report->deployments;
    else report->failed.push_back(p.signature + " t" + std::to_string(p.threads) + ": " + s.message());
    if (o.progress) o.progress(int(k) + 1, int(plans.list.size()), p.signature);
  }
  return Status::ok();
}

}  // namespace

std::string impl_signature(const std::string& name) {
  const size_t cut = name.find('_');
  return cut == std::string::npos ? name : name.substr(cut + 1);
}

Status refine_in_network(const Network& net, const InNetworkOptions& o, Lut* lut, InNetworkReport* report) {
  if (!o.registry) return invalid_argument("refine_in_network: no registry");
  if (o.rounds < 3) return invalid_argument("refine_in_network: at least 3 rounds");
  const auto start = std::chrono::steady_clock::now();
  *report = InNetworkReport{};
  Plans plans;
  LW_RETURN_IF_ERROR(plan_deployments(*lut, o, &plans));
  std::map<std::pair<int, std::string>, std::vector<double>> samples;
  LW_RETURN_IF_ERROR(measure_deployments(net, o, plans, &samples, report));
  write_back(samples, lut, report);
  nlohmann::json protocol = nlohmann::json::parse(lut->protocol_json, nullptr, false);
  if (!protocol.is_object()) protocol = nlohmann::json::object();
  protocol["in_network"] = {{"rounds", o.rounds},
                            {"contender_margin", o.contender_margin},
                            {"deployments", report->deployments},
                            {"refined", report->refined},
                            {"failed", report->failed}};
  lut->protocol_json = protocol.dump();
  report->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return Status::ok();
}

std::string ratios_line(const InNetworkReport& report) {
  std::string out;
  char b[128];
  for (const auto& [lib, r] : report.ratio_by_library) {
    std::snprintf(b, sizeof b, "%s%s %.2f (%d)", out.empty() ? "" : ", ", lib.c_str(), r.first, r.second);
    out += b;
  }
  return out.empty() ? "none" : out;
}

bool lut_in_network(const Lut& lut) {
  const nlohmann::json j = nlohmann::json::parse(lut.protocol_json, nullptr, false);
  return j.is_object() && j.contains("in_network");
}

Status refine_and_save(const Network& net, const InNetworkOptions& o, const std::string& path, Lut* lut,
                       InNetworkReport* report) {
  if (o.rounds == 0) return Status::ok();
  LW_RETURN_IF_ERROR(refine_in_network(net, o, lut, report));
  return save_lut(*lut, path);
}

}  // namespace lw
