#include "env/bundle_export.h"

#include <algorithm>
#include <ctime>

#include "libs/core/cpu.h"

namespace lw {

namespace {

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

void add_unique(std::vector<std::string>* v, const std::vector<std::string>& more) {
  for (const std::string& f : more)
    if (std::find(v->begin(), v->end(), f) == v->end()) v->push_back(f);
}

}  // namespace

Status bundle_from_deployment(const Network& net, const Lut& lut, const std::vector<std::string>& names,
                              const std::vector<QuantParams>& quant, const Registry& registry, Bundle* out) {
  if (names.size() != net.layers.size())
    return invalid_argument("export: " + std::to_string(names.size()) + " implementations for network '" + net.name +
                            "' of " + std::to_string(net.layers.size()) + " layers");
  Bundle b;
  b.model = net.name;
  b.created = utc_now();
  b.net = net;
  b.impls = names;
  b.impls[0] = "";  // the input has no implementation
  b.quant = quant;
  for (const ConverterCosts& c : lut.converters) {
    if (c.shape.size() != 4) return invalid_argument("export: LUT converter entry without a 4-d shape");
    std::string shape = Shape{int(c.shape[0]), int(c.shape[1]), int(c.shape[2]), int(c.shape[3])}.to_string();
    for (const auto& [name, ms] : c.ms) b.conversion_ms[shape + "|" + name] = ms;
  }
  try {
    b.device = nlohmann::json::parse(lut.device_json);
  } catch (const nlohmann::json::exception& e) {
    return parse_error("export: the LUT's device fingerprint is not JSON: " + std::string(e.what()));
  }
  add_unique(&b.isa, build_isa());
  for (size_t i = 1; i < names.size(); ++i) {
    ImplDesc d;
    Status s = parse_impl_name(names[i], &d);
    if (!s.is_ok()) return invalid_argument("export: layer '" + net.layers[i].name + "': " + s.message());
    add_unique(&b.isa, required_isa(d));
  }
  // The steps the executor runs, recorded so that the runtime can check it plans the same.
  std::unique_ptr<Executor> ex;
  LW_RETURN_IF_ERROR(plan_bundle(b, registry, false, &ex));
  for (const ExecStep& s : ex->steps()) b.steps.push_back({s.name, s.layer, s.conversion});
  *out = std::move(b);
  return Status::ok();
}

}  // namespace lw
