#include "env/device.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <set>
#include <thread>

#include "libs/core/cpu.h"
#include "libs/onednn/onednn.h"

namespace lw {

namespace {

std::string cpuinfo_field(const std::string& field) {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind(field, 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  return "unknown";
}

// The ISA features that change which kernels the libraries pick.
nlohmann::json isa_flags() {
  std::istringstream flags(cpuinfo_field("flags"));
  const std::array<const char*, 10> wanted = {"sse4_2", "avx", "avx2", "fma", "f16c", "avx512f", "avx512bw",
                                              "avx512vl", "avx512_vnni", "avx512_bf16"};
  std::set<std::string> have;
  for (std::string f; flags >> f;) have.insert(f);
  nlohmann::json out = nlohmann::json::array();
  for (const char* w : wanted)
    if (have.count(w)) out.push_back(w);
  return out;
}

// Version of an installed Debian package ("" if absent): the libraries are Debian's, so the
// package version names exactly what was measured. Read from dpkg's status file rather than by
// running dpkg-query, so the fingerprint never changes because a subprocess failed.
std::string package_version(const std::string& pkg) {
  std::ifstream f("/var/lib/dpkg/status");
  std::string line;
  bool in_pkg = false, installed = false;
  while (std::getline(f, line)) {
    if (line.empty()) {
      in_pkg = installed = false;
    } else if (line.rfind("Package: ", 0) == 0) {
      in_pkg = line.substr(9) == pkg;
    } else if (in_pkg && line.rfind("Status: ", 0) == 0) {
      installed = line.find(" installed") != std::string::npos;
    } else if (in_pkg && installed && line.rfind("Version: ", 0) == 0) {
      return line.substr(9);
    }
  }
  return "";
}

// The native kernels' build a fingerprint names. Written since the AVX2 build: before it, a
// CPU with AVX-512 ran the AVX-512 build and every other one the generic build, so a LUT
// profiled then on an AVX2 CPU does not describe the native convolutions that run now.
std::string native_isa_of(const nlohmann::json& device) {
  if (device.contains("native_isa") && device["native_isa"].is_string()) return device["native_isa"];
  const nlohmann::json& isa = device.contains("isa") ? device["isa"] : nlohmann::json::array();
  return std::find(isa.begin(), isa.end(), "avx512f") != isa.end() ? "avx512" : "generic";
}

}  // namespace

nlohmann::json device_fingerprint() {
  nlohmann::json libs = nlohmann::json::object();
  const std::pair<const char*, const char*> packages[] = {{"torch", "libtorch-dev"}, {"xnnpack", "libxnnpack-dev"},
                                                          {"openblas", "libopenblas-dev"}, {"eigen", "libeigen3-dev"},
                                                          {"onednn", "libdnnl-dev"}};
  for (const auto& [name, pkg] : packages) libs[name] = package_version(pkg);
  return {{"cpu", cpuinfo_field("model name")},
          {"isa", isa_flags()},
          // What oneDNN dispatches to (AVX-512, VNNI, BF16, AMX): which of its kernels are real here.
          {"onednn_isa", onednn_cpu_isa()},
          // Which build of the native GEMM / Winograd kernels runs (libs/core/cpu.h): a
          // feature masked by LAYERWISE_MASK_CPU_FEATURES changes it on the same CPU.
          {"native_isa", native_isa_name(cpu_native_isa())},
          {"cpus", std::thread::hardware_concurrency()},
          {"thread_sets", {{{"threads", 1}, {"cpus", {0}}}, {{"threads", 2}, {"cpus", {0, 1}}}}},
          {"libraries", libs}};
}

std::string device_mismatch(const nlohmann::json& lut, const nlohmann::json& here) {
  if (lut.value("synthetic", false)) return "the LUT is synthetic (made by `layerwise synth`), not measured";
  for (const char* k : {"cpu", "isa", "libraries"}) {
    if (!lut.contains(k)) return std::string("the LUT's device has no '") + k + "'";
    if (lut[k] != here[k]) return std::string(k) + " " + lut[k].dump() + " vs this machine's " + here[k].dump();
  }
  if (here.contains("native_isa") && native_isa_of(lut) != here["native_isa"])
    return "native kernels \"" + native_isa_of(lut) + "\" vs this machine's " + here["native_isa"].dump();
  return "";
}

std::string lut_mismatch(const Lut& lut, const Network& net) {
  if (lut.model_hash != model_hash(net))
    return "it was measured for model '" + lut.model_name + "' (hash " + lut.model_hash + "), not '" + net.name +
           "' (hash " + model_hash(net) + ")";
  nlohmann::json device = nlohmann::json::parse(lut.device_json, nullptr, false);
  std::string d = device_mismatch(device, device_fingerprint());
  return d.empty() ? "" : "it was measured on another device: " + d;
}

}  // namespace lw
