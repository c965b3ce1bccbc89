#include "env/device.h"

#include <array>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <set>
#include <thread>

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
