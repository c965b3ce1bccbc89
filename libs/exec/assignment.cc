#include "libs/exec/assignment.h"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

namespace lw {
namespace {

// Library defaults for conv: the cheapest-to-reason-about algorithm that applies.
int algorithm_rank(Algorithm a) {
  const Algorithm order[] = {Algorithm::kGemm1x1, Algorithm::kDepthwise, Algorithm::kIm2col, Algorithm::kDefault,
                             Algorithm::kIm2row, Algorithm::kDirect};
  for (size_t i = 0; i < std::size(order); ++i)
    if (order[i] == a) return int(i);
  return 100;
}

bool pick_from(const std::vector<Candidate>& cands, Library lib, int threads, ImplDesc* out) {
  const Candidate* best = nullptr;
  auto key = [](const ImplDesc& d) { return std::make_pair(algorithm_rank(d.algorithm), d.layout_in == Layout::kNCHW ? 0 : 1); };
  for (const Candidate& c : cands) {
    const ImplDesc& d = c.desc;
    if (!c.supported.is_ok() || d.library != lib || d.threads != threads || d.fused_activation ||
        d.algorithm == Algorithm::kFused || d.dtype_in != DType::kF32 || d.dtype_out != DType::kF32 || d.layout_in != d.layout_out)
      continue;
    if (!best || key(d) < key(best->desc)) best = &c;
  }
  if (best) *out = best->desc;
  return best != nullptr;
}

Status default_for(const Network& net, const Registry& r, int i, Library lib, int threads, ImplDesc* out) {
  const Layer& l = net.layers[i];
  auto cands = r.candidates(l, input_shapes(net, i));
  if (pick_from(cands, lib, threads, out) || pick_from(cands, Library::kNative, threads, out)) return Status::ok();
  return unsupported("layer '" + l.name + "' (" + to_string(l.kind) + "): no supported f32 implementation");
}

}  // namespace

Status library_assignment(const Network& net, const Registry& r, Library library, int threads, std::vector<ImplDesc>* out) {
  std::vector<ImplDesc> a(net.layers.size());
  for (size_t i = 1; i < net.layers.size(); ++i) LW_RETURN_IF_ERROR(default_for(net, r, int(i), library, threads, &a[i]));
  *out = std::move(a);
  return Status::ok();
}

Status random_assignment(const Network& net, const Registry& r, uint64_t seed, std::vector<ImplDesc>* out) {
  std::mt19937_64 rng(seed);
  std::vector<ImplDesc> a(net.layers.size());
  for (size_t i = 1; i < net.layers.size(); ++i) {
    const Layer& l = net.layers[i];
    if (auto partner = absorbed_partner(net, a, int(i))) {
      a[i] = *partner;
      continue;
    }
    std::vector<ImplDesc> ok;
    for (const Candidate& c : r.candidates(net, int(i))) {
      const ImplDesc& d = c.desc;
      if (!c.supported.is_ok() || d.algorithm == Algorithm::kFused || d.dtype_in != DType::kF32 || d.dtype_out != DType::kF32)
        continue;
      ok.push_back(d);
    }
    if (ok.empty()) return unsupported("layer '" + l.name + "': no supported f32 implementation");
    a[i] = ok[std::uniform_int_distribution<size_t>(0, ok.size() - 1)(rng)];
  }
  *out = std::move(a);
  return Status::ok();
}

Status parse_assignment(const std::string& text, const Network& net, const Registry& r, std::vector<ImplDesc>* out) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return parse_error("assignment: not a JSON object");
  for (const auto& [key, v] : j.items())
    if (key != kAssignmentModelKey && key != kAssignmentDefaultKey && key != kAssignmentLayersKey)
      return parse_error("assignment: unknown key '" + key + "'");
  std::vector<ImplDesc> a(net.layers.size());
  std::vector<bool> set(net.layers.size(), false);
  if (j.contains(kAssignmentLayersKey)) {
    if (!j[kAssignmentLayersKey].is_object()) return parse_error("assignment: layers must be an object");
    for (const auto& [name, v] : j[kAssignmentLayersKey].items()) {
      const std::string path = std::string(kAssignmentLayersKey) + "." + name;
      int i = net.find(name);
      if (i <= 0) return parse_error(path + ": no such layer in " + net.name);
      if (!v.is_string()) return parse_error(path + ": expected an implementation name");
      Status s = parse_impl_name(v.get<std::string>(), &a[i]);
      if (!s.is_ok()) return parse_error(path + ": " + s.message());
      if (a[i].op != net.layers[i].kind)
        return parse_error(path + ": " + a[i].name() + " is not a " + to_string(net.layers[i].kind) + " implementation");
      if (!r.find(a[i])) return {StatusCode::kNotFound, path + ": " + a[i].name() + " is not registered in this build"};
      set[i] = true;
    }
  }
  std::optional<Library> lib;
  if (j.contains(kAssignmentDefaultKey)) {
    lib = j[kAssignmentDefaultKey].is_string() ? parse_library(j[kAssignmentDefaultKey].get<std::string>()) : std::nullopt;
    if (!lib) return parse_error(std::string(kAssignmentDefaultKey) + ": expected a library name");
  }
  for (size_t i = 1; i < net.layers.size(); ++i) {
    if (set[i]) continue;
    const Layer& l = net.layers[i];
    if (auto partner = absorbed_partner(net, a, int(i))) {  // absorbed by a fused conv (defaults never fuse)
      a[i] = *partner;
      continue;
    }
    if (!lib) return parse_error(std::string(kAssignmentLayersKey) + ": no implementation for layer '" + l.name + "' (list it or give \"default\")");
    LW_RETURN_IF_ERROR(default_for(net, r, int(i), *lib, 1, &a[i]));
  }
  *out = std::move(a);
  return Status::ok();
}

Status load_assignment(const std::string& path, const Network& net, const Registry& r, std::vector<ImplDesc>* out) {
  std::ifstream in(path);
  if (!in) return io_error("cannot read assignment '" + path + "'");
  std::stringstream ss;
  ss << in.rdbuf();
  Status s = parse_assignment(ss.str(), net, r, out);
  if (!s.is_ok()) return {s.code(), path + ": " + s.message()};
  return Status::ok();
}

std::string assignment_to_json(const Network& net, const std::vector<ImplDesc>& a) {
  nlohmann::ordered_json j;
  j[kAssignmentModelKey] = net.name;
  j[kAssignmentLayersKey] = nlohmann::ordered_json::object();
  for (size_t i = 1; i < net.layers.size() && i < a.size(); ++i) j[kAssignmentLayersKey][net.layers[i].name] = a[i].name();
  return j.dump(2);
}

}  // namespace lw
