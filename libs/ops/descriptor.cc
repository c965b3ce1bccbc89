#include "libs/ops/descriptor.h"

#include <sstream>

#include "libs/core/enum_names.h"

namespace lw {

namespace {
constexpr NameRow<Library> kLibraries[] = {
#define X(e, s) {Library::e, s},
#include "libs/ops/library.inc"
#undef X
};
constexpr NameRow<Algorithm> kAlgorithms[] = {
#define X(e, s) {Algorithm::e, s},
#include "libs/ops/algorithm.inc"
#undef X
};
}  // namespace

const char* to_string(Library l) { return name_of(kLibraries, l); }
const char* to_string(Algorithm a) { return name_of(kAlgorithms, a); }
std::optional<Library> parse_library(const std::string& s) { return parse_name(kLibraries, s); }
std::optional<Algorithm> parse_algorithm(const std::string& s) { return parse_name(kAlgorithms, s); }
std::vector<Library> all_libraries() { return all_values(kLibraries); }

WeightQuantization weight_quantization(Algorithm a) {
  switch (a) {
    case Algorithm::kQc8:
    case Algorithm::kOnednnPerChannel:
    case Algorithm::kQnnpackPerChannel: return {true, 127};
    case Algorithm::kQc7: return {true, 63};
    default: return {false, 127};
  }
}

ThreadPoolId thread_pool_of(Library lib, int threads) {
  if (threads <= 1) return ThreadPoolId::kCaller;
  switch (lib) {
    case Library::kXnnpack:  // (on libgomp's team: libs/xnnpack/omp_pthreadpool.cc)
    case Library::kOnednn:
    case Library::kTorch: return ThreadPoolId::kOpenmp;
    default: return native_kernels_pool();  // native kernels, OpenBLAS (split by parallel_for)
  }
}

ThreadPoolId conversion_pool(const ConversionDesc& c) {
  const bool moves_data = c.from.layout != c.to.layout || c.from.dtype != c.to.dtype;
  return c.to.threads > 1 && moves_data ? native_kernels_pool() : ThreadPoolId::kCaller;
}

bool valid_threads(int threads) {
  for (int t : kThreadSets)
    if (t == threads) return true;
  return false;
}

namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(s);
  while (std::getline(in, cur, sep)) out.push_back(cur);
  if (!s.empty() && s.back() == sep) out.push_back("");
  return out;
}

template <typename T, typename ParseFn>
bool parse_pair(const std::string& tok, ParseFn parse, T* a, T* b) {
  auto parts = split(tok, '-');
  if (parts.size() != 1 && parts.size() != 2) return false;
  auto x = parse(parts[0]);
  auto y = parts.size() == 2 ? parse(parts[1]) : x;
  if (!x || !y) return false;
  *a = *x;
  *b = *y;
  return true;
}

bool parse_threads(const std::string& tok, int* threads) {
  if (tok.size() < 2 || tok[0] != 't') return false;
  for (size_t i = 1; i < tok.size(); ++i)
    if (tok[i] < '0' || tok[i] > '9') return false;
  *threads = std::stoi(tok.substr(1));
  return valid_threads(*threads);
}

template <typename T>
std::string pair_name(T a, T b) {
  return a == b ? std::string(to_string(a)) : std::string(to_string(a)) + "-" + to_string(b);
}

}  // namespace

std::string ImplDesc::name() const {
  std::string s = std::string(to_string(op)) + "_" + pair_name(layout_in, layout_out) + "_" + pair_name(dtype_in, dtype_out) +
                  "_" + to_string(library) + "_" + to_string(algorithm);
  if (fused_activation) s += "_fused";
  return s + "_t" + std::to_string(threads);
}

bool ImplDesc::operator==(const ImplDesc& o) const {
  return op == o.op && library == o.library && algorithm == o.algorithm && dtype_in == o.dtype_in &&
         dtype_out == o.dtype_out && layout_in == o.layout_in && layout_out == o.layout_out && threads == o.threads &&
         fused_activation == o.fused_activation;
}

Status parse_impl_name(const std::string& name, ImplDesc* out) {
  auto bad = [&](const std::string& why) { return parse_error("bad implementation name '" + name + "': " + why); };
  auto tok = split(name, '_');
  if (tok.size() < 6) return bad("expected <op>_<layout>_<dtype>_<library>_<algorithm>[_fused]_t<threads>");
  ImplDesc d;
  auto op = parse_layer_kind(tok[0]);
  if (!op) return bad("unknown operation '" + tok[0] + "'");
  d.op = *op;
  if (!parse_pair(tok[1], parse_layout, &d.layout_in, &d.layout_out)) return bad("unknown layout '" + tok[1] + "'");
  if (!parse_pair(tok[2], parse_dtype, &d.dtype_in, &d.dtype_out)) return bad("unknown dtype '" + tok[2] + "'");
  auto lib = parse_library(tok[3]);
  if (!lib) return bad("unknown library '" + tok[3] + "'");
  d.library = *lib;
  size_t end = tok.size() - 1;
  if (!parse_threads(tok[end], &d.threads)) return bad("last token must be the thread set t1 or t2, got '" + tok[end] + "'");
  // "fused" is the flag only when an algorithm token precedes it (the fused pseudo-
  // implementation of activations has "fused" as its algorithm).
  if (end - 1 > 4 && tok[end - 1] == "fused") {
    d.fused_activation = true;
    --end;
  }
  std::string algo;
  for (size_t i = 4; i < end; ++i) algo += (i > 4 ? "_" : "") + tok[i];
  auto a = parse_algorithm(algo);
  if (!a) return bad("unknown algorithm '" + algo + "'");
  d.algorithm = *a;
  *out = d;
  return Status::ok();
}

std::vector<Layout> all_layouts() {
  return {
#define X(e, s, b) Layout::e,
#include "libs/core/layout.inc"
#undef X
  };
}
std::vector<DType> activation_dtypes() { return {DType::kF32, DType::kI8, DType::kBF16}; }

std::string Format::name() const {
  return std::string(to_string(layout)) + "_" + to_string(dtype) + "_t" + std::to_string(threads);
}
Format input_format(const ImplDesc& d) { return {d.layout_in, d.dtype_in, d.threads}; }
Format output_format(const ImplDesc& d) { return {d.layout_out, d.dtype_out, d.threads}; }

std::vector<Format> all_formats() {
  std::vector<Format> out;
  for (Layout l : all_layouts())
    for (DType d : activation_dtypes())
      for (int t : kThreadSets) out.push_back({l, d, t});
  return out;
}

std::string ConversionDesc::name() const { return "convert_" + from.name() + "_to_" + to.name(); }

Status parse_conversion_name(const std::string& name, ConversionDesc* out) {
  auto bad = [&]() { return parse_error("bad conversion name '" + name + "': expected convert_<layout>_<dtype>_t<n>_to_<layout>_<dtype>_t<n>"); };
  auto tok = split(name, '_');
  if (tok.size() != 8 || tok[0] != "convert" || tok[4] != "to") return bad();
  auto fmt = [&](size_t i, Format* f) {
    auto l = parse_layout(tok[i]);
    auto d = parse_dtype(tok[i + 1]);
    if (!l || !d || !parse_threads(tok[i + 2], &f->threads)) return false;
    f->layout = *l;
    f->dtype = *d;
    return true;
  };
  ConversionDesc c;
  if (!fmt(1, &c.from) || !fmt(5, &c.to)) return bad();
  *out = c;
  return Status::ok();
}

}  // namespace lw
