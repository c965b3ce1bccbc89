#include "libs/core/cpu.h"

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include "libs/core/enum_names.h"

namespace lw {

namespace {

std::set<std::string> split_list(const std::string& s) {
  std::set<std::string> out;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, ',');) {
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    if (!item.empty()) out.insert(item);
  }
  return out;
}

// The kernel's own flags, not cpuid: the kernel also clears a feature the OS does not
// enable (e.g. AVX-512 state not saved in XSAVE), which cpuid alone would report.
const std::set<std::string>& cpu_flags() {
  static const std::set<std::string> flags = [] {
    std::set<std::string> f;
    std::ifstream in("/proc/cpuinfo");
    for (std::string line; std::getline(in, line);)
      if (line.rfind("flags", 0) == 0) {
        std::istringstream words(line.substr(line.find(':') + 1));
        for (std::string w; words >> w;) f.insert(w);
        break;
      }
    return f;
  }();
  return flags;
}

const std::set<std::string>& env_mask() {
  static const std::set<std::string> mask = [] {
    const char* e = std::getenv(kMaskCpuFeaturesEnv);
    return split_list(e ? e : "");
  }();
  return mask;
}

}  // namespace

bool cpu_has(const std::string& feature, const std::string& extra_mask) {
  if (env_mask().count(feature) || split_list(extra_mask).count(feature)) return false;
  return cpu_flags().count(feature) > 0;
}

bool cpu_has_int8_dot() { return cpu_has("avx512_vnni") || cpu_has("avx_vnni"); }

std::vector<std::string> cpu_missing(const std::vector<std::string>& wanted, const std::string& extra_mask) {
  std::vector<std::string> missing;
  for (const std::string& w : wanted)
    if (!cpu_has(w, extra_mask)) missing.push_back(w);
  return missing;
}

NativeIsa cpu_native_isa() {
  static const NativeIsa isa = cpu_missing({"avx512f", "avx512bw", "avx512vl", "avx512dq", "avx2", "fma"}).empty()
                                   ? NativeIsa::kAvx512
                               : cpu_missing({"avx2", "fma"}).empty() ? NativeIsa::kAvx2
                                                                      : NativeIsa::kGeneric;
  return isa;
}

const char* native_isa_name(NativeIsa isa) {
  static constexpr NameRow<NativeIsa> kNames[] = {
      {NativeIsa::kGeneric, "generic"}, {NativeIsa::kAvx2, "avx2"}, {NativeIsa::kAvx512, "avx512"}};
  return name_of(kNames, isa);
}

}  // namespace lw

namespace lw {

std::vector<std::string> build_isa() {
  std::vector<std::string> f;
#ifdef __SSE2__
  f.push_back("sse2");
#endif
#ifdef __AVX__
  f.push_back("avx");
#endif
#ifdef __AVX2__
  f.push_back("avx2");
#endif
#ifdef __FMA__
  f.push_back("fma");
#endif
#ifdef __AVX512F__
  f.push_back("avx512f");
#endif
#ifdef __AVX512BW__
  f.push_back("avx512bw");
#endif
#ifdef __AVX512VL__
  f.push_back("avx512vl");
#endif
#ifdef __AVX512DQ__
  f.push_back("avx512dq");
#endif
#ifdef __AVX512VNNI__
  f.push_back("avx512_vnni");
#endif
#ifdef __AVX512BF16__
  f.push_back("avx512_bf16");
#endif
#ifdef __AMX_TILE__
  f.push_back("amx_tile");
#endif
  return f;
}

}  // namespace lw
