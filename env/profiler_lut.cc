// The LUT a profile fills (its skeleton, a checkpoint to resume from) and whether a LUT made
// elsewhere can be used with this build.
#include <algorithm>
#include <fstream>
#include <map>

#include "env/device.h"
#include "env/profiler_impl.h"

namespace lw {

namespace profiling {

namespace {

int depth_of(const Network& net, int i, const std::vector<int>& depth) {
  int d = 0;
  for (int p : net.layers[i].inputs) d = std::max(d, depth[p] + 1);
  return d;
}

}  // namespace

int format_index(const Lut& lut, const Format& f) {
  for (size_t i = 0; i < lut.formats.size(); ++i)
    if (lut.formats[i] == f) return int(i);
  return -1;
}

Lut skeleton(const Network& net, const ProfileOptions& o) {
  Lut lut;
  lut.model_name = net.name;
  lut.model_hash = model_hash(net);
  lut.device_json = device_fingerprint().dump();
  lut.protocol_json = o.protocol.to_json().dump();
  for (const Format& f : all_formats())
    if (std::find(o.threads.begin(), o.threads.end(), f.threads) != o.threads.end()) lut.formats.push_back(f);
  lut.output_format = format_index(lut, Format{Layout::kNCHW, DType::kF32, o.threads.front()});
  std::vector<int> depth(net.layers.size(), 0);
  for (size_t i = 0; i < net.layers.size(); ++i) {
    const Layer& l = net.layers[i];
    depth[i] = depth_of(net, int(i), depth);
    LutLayer ll;
    ll.name = l.name;
    ll.kind = l.kind;
    ll.inputs = l.inputs;
    ll.depth = depth[i];
    ll.out_shape = {l.out.n, l.out.c, l.out.h, l.out.w};
    lut.layers.push_back(std::move(ll));
  }
  // The network input arrives as NCHW f32 from the caller.
  Impl in;
  in.name = "input_nchw_f32";
  in.library = "input";
  in.algorithm = "default";
  in.in_format = in.out_format = lut.output_format;
  in.memory_bytes.output = net.layers[0].out.elements() * 4;
  lut.layers[0].impls.push_back(in);
  return lut;
}

Status resume(const ProfileOptions& o, const Lut& fresh, Lut* lut, int* next_layer) {
  std::string partial = o.out_path + ".partial";
  *next_layer = 1;
  if (o.out_path.empty() || !std::ifstream(partial).good()) return Status::ok();
  Lut done;
  LW_RETURN_IF_ERROR(load_lut(partial, &done));
  std::string why;
  if (done.model_hash != fresh.model_hash) why = "another model";
  else if (done.device_json != fresh.device_json) why = "another device or library versions";
  else if (done.protocol_json != fresh.protocol_json) why = "another protocol";
  else if (done.formats.size() != fresh.formats.size()) why = "other thread sets";
  if (!why.empty()) return invalid_argument(partial + ": checkpoint of " + why + "; delete it to start over");
  for (size_t i = 1; i < done.layers.size(); ++i) lut->layers[i].impls = done.layers[i].impls;
  lut->runtime.speed_ms = done.runtime.speed_ms;  // the speed probed so far, one sample per set
  lut->runtime.core_link_ns = done.runtime.core_link_ns;
  *next_layer = int(done.layers.size());
  return Status::ok();
}

}  // namespace profiling

std::string lut_refused_here(const Lut& lut, const Network& net, const Registry& registry) {
  std::map<std::string, int> index;
  for (size_t i = 0; i < net.layers.size(); ++i) index[net.layers[i].name] = int(i);
  for (const LutLayer& ll : lut.layers) {
    auto at = index.find(ll.name);
    if (at == index.end()) continue;  // lut_mismatch judges the model
    std::map<std::string, Status> here;
    for (const Impl& m : ll.impls) {
      if (!m.ok() || m.is_fused_consumer() || m.library == "input") continue;
      if (here.empty())
        for (Candidate& c : registry.candidates(net, at->second)) here[c.desc.name()] = c.supported;
      auto h = here.find(m.name);
      if (h == here.end()) return m.name + " (layer '" + ll.name + "') is not an implementation of this build";
      if (!h->second.is_ok()) return m.name + " (layer '" + ll.name + "') is refused here: " + h->second.message();
    }
  }
  return "";
}

std::string lut_unusable_here(const Lut& lut, const Network& net, const Registry& registry) {
  std::string why = lut_mismatch(lut, net);
  return why.empty() ? lut_refused_here(lut, net, registry) : why;
}

}  // namespace lw
