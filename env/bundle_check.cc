// Whether a bundle may run here, and its deployment planned as at export.
#include <algorithm>
#include <set>

#include "env/bundle.h"
#include "env/device.h"
#include "libs/core/cpu.h"

namespace lw {

std::vector<std::string> required_isa(const ImplDesc& d) {
  const bool bf16 = d.dtype_in == DType::kBF16 || d.dtype_out == DType::kBF16;
  const bool int8 = d.dtype_in == DType::kI8 || d.dtype_out == DType::kI8;
  if (d.library == Library::kOnednn && bf16) return {"avx512_bf16"};
  // qc7's 7-bit weights are for CPUs without VNNI (libs/onednn/dnnl_conv.cc): nothing to ask.
  if (d.library == Library::kOnednn && int8 && d.algorithm != Algorithm::kQc7) return {"avx512_vnni"};
  // LibTorch's quantized convolution on its oneDNN engine: the same kernels.
  const bool torch_onednn = d.algorithm == Algorithm::kOnednn || d.algorithm == Algorithm::kOnednnPerChannel;
  if (d.library == Library::kTorch && int8 && torch_onednn) return {"avx512_vnni"};
  return {};
}

Status check_bundle_isa(const Bundle& b, const std::string& mask) {
  std::vector<std::string> need = b.isa;
  for (const std::string& f : build_isa())
    if (std::find(need.begin(), need.end(), f) == need.end()) need.push_back(f);
  std::vector<std::string> missing = cpu_missing(need, mask);
  if (missing.empty()) return Status::ok();
  std::string list;
  for (const std::string& f : missing) list += (list.empty() ? "" : ", ") + f;
  return unsupported("the deployment needs CPU features this CPU lacks: " + list + " (not runnable here, even forced)");
}

Status check_bundle_device(const Bundle& b, const nlohmann::json& here) {
  if (b.layerwise_version != kLayerwiseVersion)
    return unsupported("written by Layerwise " + b.layerwise_version + ", this is " + kLayerwiseVersion +
                       " (re-export it, or force)");
  std::string why = device_mismatch(b.device, here);
  if (!why.empty()) return unsupported("exported on another device: " + why + " (re-export it here, or force)");
  return Status::ok();
}

Status plan_bundle(const Bundle& b, const Registry& registry, bool time_steps, std::unique_ptr<Executor>* out) {
  std::vector<ImplDesc> a(b.net.layers.size());
  for (size_t i = 1; i < a.size(); ++i) {
    Status s = parse_impl_name(b.impls[i], &a[i]);
    if (!s.is_ok()) return invalid_argument("layer '" + b.net.layers[i].name + "': " + s.message());
  }
  PlanOptions po;
  po.registry = &registry;
  po.quant = b.quant;
  po.time_steps = time_steps;
  if (!b.conversion_ms.empty()) {
    auto table = std::make_shared<std::map<std::string, double>>(b.conversion_ms);
    po.conversion_cost = [table](const ConversionDesc& d, const Shape& s) {
      auto it = table->find(s.to_string() + "|" + d.name());
      return it == table->end() ? kNoPath : it->second;
    };
  }
  std::unique_ptr<Executor> ex;
  LW_RETURN_IF_ERROR(Executor::plan(b.net, a, po, &ex));
  const std::vector<ExecStep>& got = ex->steps();
  for (size_t s = 0; !b.steps.empty() && s < std::max(got.size(), b.steps.size()); ++s) {
    std::string have = s < got.size() ? got[s].name : "(none)", want = s < b.steps.size() ? b.steps[s].name : "(none)";
    if (have != want)
      return failed("the executor planned step " + std::to_string(s) + " as '" + have + "', the bundle recorded '" + want +
                    "' (another Layerwise build?)");
  }
  *out = std::move(ex);
  return Status::ok();
}

}  // namespace lw
