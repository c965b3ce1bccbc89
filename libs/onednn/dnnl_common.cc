#include "libs/onednn/dnnl_common.h"

#include <cstring>

#include <omp.h>

#include "libs/ops/thread_pool.h"

namespace lw::dnnl_ops {

dnnl::engine& engine() {
  static dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}
dnnl::stream& stream() {
  static dnnl::stream s(engine());
  return s;
}

dt data_type(DType d) {
  switch (d) {
    case DType::kF32: return dt::f32;
    case DType::kBF16: return dt::bf16;
    case DType::kI8: return dt::s8;
    case DType::kI32: return dt::s32;
  }
  return dt::undef;
}

tag format_tag(Layout l) {
  switch (l) {
    case Layout::kNCHW: return tag::nchw;
    case Layout::kNHWC: return tag::nhwc;
    case Layout::kNCHW16C: return tag::nChw16c;
    case Layout::kNCHW8C: return tag::nChw8c;
  }
  return tag::undef;
}

dnnl::memory::dims dims(const Shape& s) { return {s.n, s.c, s.h, s.w}; }

dnnl::memory::desc act_md(const Shape& s, DType d, Layout l) { return {dims(s), data_type(d), format_tag(l)}; }

namespace {

// The implementation oneDNN picks for a small bf16 convolution, e.g.
// "jit_bf16:avx512_core_bf16" or "brgconv:avx512_core_amx_bf16"; "" when it has none.
const std::string& bf16_probe() {
  static const std::string impl = [] {
    try {
      dnnl::memory::desc x({1, 16, 8, 8}, dt::bf16, tag::nChw16c), w({16, 16, 3, 3}, dt::bf16, tag::any);
      dnnl::convolution_forward::desc cd(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, x, w, x,
                                         {1, 1}, {0, 0}, {1, 1}, {1, 1});
      return std::string(dnnl::convolution_forward::primitive_desc(cd, engine()).impl_info_str());
    } catch (const dnnl::error&) {
      return std::string();
    }
  }();
  return impl;
}

}  // namespace

std::string bf16_kernel() { return bf16_probe(); }

bool native_bf16() {
  const std::string& p = bf16_probe();
  return p.find("bf16") != std::string::npos && p.rfind("ref", 0) != 0;
}

bool avx512_isa() {
  using isa = dnnl::cpu_isa;
  static const isa e = dnnl::get_effective_cpu_isa();
  return e == isa::avx512_core || e == isa::avx512_core_vnni || e == isa::avx512_core_bf16 || e == isa::avx512_core_amx;
}

Status supports_dtype(DType d) {
  if (d == DType::kBF16 && !native_bf16())
    return unsupported("bf16 needs AVX512-BF16 or AMX; oneDNN's bf16 convolution here is '" + bf16_probe() + "'");
  if (d == DType::kI32) return unsupported("int32 activations are internal");
  return Status::ok();
}

Status reject_reference(const dnnl::primitive_desc_base& pd) {
  std::string impl = pd.impl_info_str();
  if (impl.rfind("ref", 0) == 0)
    return unsupported("oneDNN has only its reference kernel '" + impl + "' for this case");
  return Status::ok();
}

dnnl::primitive_attr user_scratchpad_attr() {
  dnnl::primitive_attr a;
  a.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return a;
}

void set_threads(int threads) { omp_set_num_threads(threads); }

Status DnnlPrim::reshape(const std::vector<Shape>& in) {
  if (in == in_shapes_) return Status::ok();
  set_threads(threads_);  // oneDNN sizes the scratchpad and splits work for this team
  return guard(StatusCode::kFailed, [&] { return remake(in); });
}

Status DnnlPrim::setup(const std::vector<const void*>& in, void* out, void* workspace) {
  if (in.size() != srcs_.size() || !out) return invalid_argument("wrong number of inputs or null output");
  if ((scratch_ || stage_bytes_) && !workspace) return invalid_argument("null workspace");
  return guard(StatusCode::kInvalidArgument, [&] {
    for (size_t i = 0; i < in.size(); ++i) {
      if (!in[i]) return invalid_argument("null input");
      srcs_[i].set_data_handle(const_cast<void*>(in[i]));
    }
    dst_.set_data_handle(out);
    // oneDNN lays out its scratchpad from a 64-byte aligned base; the staging area follows.
    auto base = reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(workspace) + 63) & ~uintptr_t(63));
    if (scratch_) scratch_.set_data_handle(base);
    user_src_ = nullptr;
    if (stage_bytes_) {
      user_src_ = in[0];
      srcs_[0].set_data_handle(base + stage_offset_);
    }
    return Status::ok();
  });
}

Status DnnlPrim::run() {
  set_threads(threads_);
  if (user_src_) flip_sign_bits(user_src_, srcs_[0].get_data_handle(), stage_bytes_);
  return guard(StatusCode::kFailed, [&] {
    prim_.execute(stream(), args_);
    return Status::ok();
  });
}

void flip_sign_bits(const void* from, void* to, size_t bytes) {
  const auto* f = static_cast<const uint8_t*>(from);
  auto* t = static_cast<uint8_t*>(to);
  size_t i = 0;
  for (; i + 8 <= bytes; i += 8) {  // (memcpy: no aliasing or alignment assumptions; compiles to moves)
    uint64_t v;
    std::memcpy(&v, f + i, 8);
    v ^= 0x8080808080808080ull;
    std::memcpy(t + i, &v, 8);
  }
  for (; i < bytes; ++i) t[i] = uint8_t(f[i] ^ 0x80);
}

void DnnlPrim::finish(dnnl::primitive p, const dnnl::primitive_desc_base& pd,
                      std::vector<std::pair<int, dnnl::memory::desc>> srcs, const dnnl::memory::desc& dst,
                      const std::vector<Shape>& in_shapes, Shape out, DType out_dtype, Layout out_layout) {
  prim_ = std::move(p);
  in_shapes_ = in_shapes;
  args_ = consts_;
  // Handles start null: setup() binds the executor's buffers (no allocation here).
  srcs_.clear();
  for (auto& [arg, md] : srcs) {
    srcs_.emplace_back(md, engine(), static_cast<void*>(nullptr));
    args_[arg] = srcs_.back();
  }
  dst_ = dnnl::memory(dst, engine(), static_cast<void*>(nullptr));
  args_[DNNL_ARG_DST] = dst_;
  dnnl::memory::desc sp = pd.scratchpad_desc();
  scratch_ = dnnl::memory();
  if (sp.get_size() > 0) {
    scratch_ = dnnl::memory(sp, engine(), static_cast<void*>(nullptr));
    args_[DNNL_ARG_SCRATCHPAD] = scratch_;
  }
  stage_offset_ = (sp.get_size() + 63) / 64 * 64;
  stage_bytes_ = u8_staging_ && !srcs.empty() ? srcs[0].second.get_size() : 0;
  const size_t used = stage_offset_ + stage_bytes_;
  workspace_bytes_ = used > 0 ? used + 64 : 0;  // + room to align (setup)
  out_shape_ = out;
  out_dtype_ = out_dtype;
  out_layout_ = out_layout;
}

void DnnlPrim::add_constant(int arg, dnnl::memory m) {
  auto old = consts_.find(arg);
  if (old != consts_.end()) weight_bytes_ -= old->second.get_desc().get_size();
  weight_bytes_ += m.get_desc().get_size();
  consts_[arg] = m;
  args_[arg] = std::move(m);
}

dnnl::memory packed(const void* w, const dnnl::memory::desc& user, const dnnl::memory::desc& to) {
  dnnl::memory src(user, engine(), const_cast<void*>(w));
  dnnl::memory dst(to, engine());
  dnnl::reorder(src, dst).execute(stream(), src, dst);
  stream().wait();
  return dst;
}

}  // namespace lw::dnnl_ops

namespace lw {

namespace {
const char* isa_name(dnnl::cpu_isa isa) {
  switch (isa) {
    case dnnl::cpu_isa::sse41: return "sse41";
    case dnnl::cpu_isa::avx: return "avx";
    case dnnl::cpu_isa::avx2: return "avx2";
    case dnnl::cpu_isa::avx2_vnni: return "avx2_vnni";
    case dnnl::cpu_isa::avx512_core: return "avx512_core";
    case dnnl::cpu_isa::avx512_core_vnni: return "avx512_core_vnni";
    case dnnl::cpu_isa::avx512_core_bf16: return "avx512_core_bf16";
    case dnnl::cpu_isa::avx512_core_amx: return "avx512_core_amx";
    default: return "other";
  }
}
}  // namespace

// get_effective_cpu_isa() of oneDNN 2.6 says avx512_core_vnni on a Zen 5 whose bf16
// kernels nevertheless run natively (jit_bf16:avx512_core_bf16), so the kernel the bf16
// probe picks is recorded beside it.
std::string onednn_cpu_isa() {
  std::string bf16 = dnnl_ops::native_bf16() ? dnnl_ops::bf16_kernel() : "none";
  return std::string(isa_name(dnnl::get_effective_cpu_isa())) + "; bf16 kernel " + bf16;
}

bool onednn_native_bf16() { return dnnl_ops::native_bf16(); }

}  // namespace lw
