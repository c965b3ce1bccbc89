// Internal to libs/onednn: tensor descriptions, the shared primitive wrapper and the
// support checks. Every oneDNN call of Layerwise is in this folder; dnnl::error never
// leaves it (guard() turns it into a Status).
#pragma once
#include <oneapi/dnnl/dnnl.hpp>

#include <string>
#include <unordered_map>
#include <vector>

#include "libs/onednn/onednn.h"
#include "libs/ops/thread_pool.h"

namespace lw::dnnl_ops {

using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;

dnnl::engine& engine();
dnnl::stream& stream();
dt data_type(DType d);
tag format_tag(Layout l);
dnnl::memory::dims dims(const Shape& s);
/// An activation tensor as the executor stores it.
dnnl::memory::desc act_md(const Shape& s, DType d, Layout l);

/// Runs f, turning a dnnl::error into "oneDNN: <what>" with `code`.
template <typename F>
Status guard(StatusCode code, F&& f) {
  try {
    return f();
  } catch (const dnnl::error& e) {
    return {code, std::string("oneDNN: ") + e.what()};
  }
}

/// Whether oneDNN runs bf16 convolution with AVX512-BF16 or AMX instructions here, and the
/// kernel it picks for a small bf16 convolution.
bool native_bf16();
std::string bf16_kernel();
/// Whether oneDNN dispatches to AVX-512 code here (its effective ISA is an avx512 one).
bool avx512_isa();
/// bf16 needs AVX512-BF16 or AMX: unsupported otherwise, with the kernel oneDNN would use.
Status supports_dtype(DType d);
/// Unsupported when oneDNN would run its reference (scalar) kernel: never worth measuring.
Status reject_reference(const dnnl::primitive_desc_base& pd);
/// primitive_attr with a user-managed scratchpad (the executor's workspace).
dnnl::primitive_attr user_scratchpad_attr();
/// Sets the OpenMP team size oneDNN uses for the calling thread (inside run: its cost is
/// measured). The team itself is prepared at registration (libs/ops/omp_team.h).
void set_threads(int threads);

/// A oneDNN primitive with its arguments: inputs are bound to DNNL_ARG_SRC* in order, the
/// output to DNNL_ARG_DST, the workspace to DNNL_ARG_SCRATCHPAD; packed weights are
/// memories the primitive owns. A oneDNN primitive is made for fixed shapes, so reshape to
/// other shapes makes a new one (remake); the packed weights are kept.
class DnnlPrim : public Primitive {
 public:
  DnnlPrim(std::string name, int threads) : Primitive(std::move(name)), threads_(threads) {}
  Status reshape(const std::vector<Shape>& in) override;
  Status setup(const std::vector<const void*>& in, void* out, void* workspace) override;
  Status run() override;
  bool can_run_in_place() const override { return in_place_; }

  /// Binds the primitive: input memories `srcs` (with their argument ids), the output.
  /// Called by create, and again by every remake.
  void finish(dnnl::primitive p, const dnnl::primitive_desc_base& pd, std::vector<std::pair<int, dnnl::memory::desc>> srcs,
              const dnnl::memory::desc& dst, const std::vector<Shape>& in_shapes, Shape out, DType out_dtype, Layout out_layout);
  /// A constant argument (packed weights, bias), counted as packed weights; replaces one
  /// of the same id.
  void add_constant(int arg, dnnl::memory m);
  void set_in_place(bool on) { in_place_ = on; }
  /// The primitive reads its first input as u8 while the executor holds s8 with zero point
  /// -128 (a non-negative tensor): run() flips the top bits into a staging area of the
  /// workspace first (the same values, zero point 0). Set before finish().
  void set_u8_staging(bool on) { u8_staging_ = on; }

 protected:
  /// Makes the oneDNN primitive for input shapes `in` (other than the current ones) and
  /// calls finish(). Runs under the thread count of run, inside guard().
  virtual Status remake(const std::vector<Shape>& in) = 0;
  const dnnl::memory& constant(int arg) const { return consts_.at(arg); }

 private:
  int threads_;
  bool in_place_ = false;
  dnnl::primitive prim_;
  std::vector<Shape> in_shapes_;
  std::vector<dnnl::memory> srcs_;
  dnnl::memory dst_, scratch_;
  std::unordered_map<int, dnnl::memory> consts_, args_;
  bool u8_staging_ = false;
  size_t stage_offset_ = 0, stage_bytes_ = 0;  // in the aligned workspace, after the scratchpad
  const void* user_src_ = nullptr;             // the executor's s8 input when staging
};

/// s8 with zero point -128 to u8 with zero point 0 (or back): the same values, top bit flipped.
void flip_sign_bits(const void* from, void* to, size_t bytes);

/// Copies `w` (f32, given user format and dims) into a new memory of `to` (reordered,
/// dtype converted). For int8 pass s8 data.
dnnl::memory packed(const void* w, const dnnl::memory::desc& user, const dnnl::memory::desc& to);

// Factories and checks of each layer family.
Status supports_conv(const ImplDesc& d, const Layer& l, const std::vector<Shape>& in);
Status create_conv(const PrimitiveArgs& a, std::unique_ptr<Primitive>* out);
Status supports_fc(const ImplDesc& d, const Layer& l, const std::vector<Shape>& in);
Status create_fc(const PrimitiveArgs& a, std::unique_ptr<Primitive>* out);
Status supports_layer(const ImplDesc& d, const Layer& l, const std::vector<Shape>& in);
Status create_layer(const PrimitiveArgs& a, std::unique_ptr<Primitive>* out);

}  // namespace lw::dnnl_ops
