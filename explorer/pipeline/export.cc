#include "explorer/pipeline/export.h"

#include "env/bundle_export.h"

namespace lw {

Status export_bundle(const Evaluator& ev, const std::string& label, const std::vector<std::string>& names,
                     const Measurement* measured, const std::string& path) {
  Measurement predicted;
  LW_RETURN_IF_ERROR(ev.predict(names, &predicted));
  Bundle b;
  LW_RETURN_IF_ERROR(bundle_from_deployment(ev.network(), ev.lut(), names, ev.quant(), *ev.options().registry, &b));
  b.label = label;
  b.predicted_ms = predicted.predicted_ms;
  b.predicted_memory_bytes = predicted.predicted_memory_bytes;
  if (measured) {
    const AccuracyReport& a = measured->accuracy;
    // Which images: the runtime's figure is comparable only on the same ones (the first
    // `images` of the test split, or of the user's evaluation data).
    b.measured["accuracy"] = {{"metric", a.metric}, {"images", a.images}, {"top1", a.top1}};
    if (a.metric == "fidelity") b.measured["accuracy"]["sqnr_db"] = a.sqnr_db;
    b.measured["data"] = ev.options().eval_inputs.empty() ? "fashion-mnist test split" : ev.options().eval_inputs;
    const LatencyStats& l = measured->latency;
    if (l.runs > 0) b.measured["latency_ms"] = {{"median", l.median}, {"min", l.min}, {"p90", l.p90}, {"runs", l.runs}};
  }
  return write_bundle(path, b);
}

}  // namespace lw
