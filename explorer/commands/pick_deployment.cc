#include "explorer/commands/pick_deployment.h"

#include <algorithm>

#include "explorer/measure/baselines.h"
#include "explorer/measure/evaluator.h"
#include "explorer/pipeline/filter.h"

namespace lw::cli {

std::pair<std::string, std::vector<std::string>> pick_deployment(const Args& args, const Lut& lut) {
  int given = args.has("filter") + args.has("solutions") + args.has("baseline");
  if (given != 1) throw UsageError("give exactly one of --filter, --solutions, --baseline");
  if (args.has("filter")) {
    FilterResult r;
    ok_or_throw(load_filter_result(args.get("filter"), &r));
    std::string want = args.get("pick", "chosen");
    if (want == "chosen") {
      if (r.chosen.empty()) throw UsageError(args.get("filter") + ": no candidate passed the filter (nothing chosen)");
      want = r.chosen;
    }
    const Measurement* m = r.find(want);
    if (!m) throw UsageError("--pick: '" + want + "' was not measured in " + args.get("filter"));
    return {want == r.chosen ? "chosen " + want : want, m->names};
  }
  if (args.has("solutions")) {
    std::vector<FilterCandidate> c;
    ok_or_throw(read_solutions_csv(args.get("solutions"), lut, "sol", &c));
    if (c.empty()) throw UsageError(args.get("solutions") + ": no solutions");
    auto best = std::min_element(c.begin(), c.end(), [](auto& a, auto& b) { return a.predicted_ms < b.predicted_ms; });
    return {"best of " + args.get("solutions"), best->impls};
  }
  NamedDeployment d;
  ok_or_throw(baseline_deployment(lut, args.get("baseline"), args.get_int("threads", 2), &d));
  return {d.label, d.names};
}

}  // namespace lw::cli
