// Registration of every native implementation: conv algorithms x layouts x thread sets x
// {plain, runtime-fused}, the other layers, the fused pseudo-implementation of
// activations, and the conversions.
#include "libs/native/kernels.h"
#include "libs/ops/thread_pool.h"

namespace lw {
namespace {

Status native_conv_factory(Algorithm algo, const PrimitiveArgs& a, std::unique_ptr<Primitive>* out) {
  switch (algo) {
    case Algorithm::kDirect: return native::create_direct_conv(a, out);
    case Algorithm::kDepthwise: return native::create_depthwise_conv(a, out);
    case Algorithm::kIm2col: return create_im2col_conv(a, native_gemm, out);
    case Algorithm::kIm2row: return native::create_im2row_conv(a, out);
    case Algorithm::kGemm1x1: return create_gemm_1x1_conv(a, native_gemm, out);
    case Algorithm::kKn2row: return native::create_kn2row_conv(a, out);
    case Algorithm::kWinogradF2:
    case Algorithm::kWinogradF4:
    case Algorithm::kWinogradF6: return native::create_winograd_conv(a, out);
    default: return unsupported("no native conv algorithm " + std::string(to_string(algo)));
  }
}

Status supports_gemm_driver_conv(const ImplDesc& d, const Layer& l, const std::vector<Shape>& in) {
  LW_RETURN_IF_ERROR(supports_f32_conv(d, l, in));
  return supports_conv_algorithm(d.algorithm, d.layout_in, l, in);
}

void register_convs(Registry& r) {
  register_f32_convs(r, Library::kNative, {
      {Algorithm::kDirect, Layout::kNCHW},     {Algorithm::kDirect, Layout::kNHWC},
      {Algorithm::kIm2col, Layout::kNCHW},     {Algorithm::kIm2row, Layout::kNHWC},
      {Algorithm::kGemm1x1, Layout::kNCHW},    {Algorithm::kGemm1x1, Layout::kNHWC},
      {Algorithm::kKn2row, Layout::kNCHW},     {Algorithm::kWinogradF2, Layout::kNCHW},
      {Algorithm::kWinogradF2, Layout::kNHWC}, {Algorithm::kWinogradF4, Layout::kNCHW},
      {Algorithm::kWinogradF4, Layout::kNHWC}, {Algorithm::kWinogradF6, Layout::kNCHW},
      {Algorithm::kWinogradF6, Layout::kNHWC}, {Algorithm::kDepthwise, Layout::kNCHW},
      {Algorithm::kDepthwise, Layout::kNHWC},
  }, native_conv_factory);
}

// `<activation>_<layout>_<dtype>_native_fused_t<n>`: the activation runs inside the conv that
// produces its input; nothing is created. Only the executor may place it, after a conv
// with a `fused` implementation; the profiler records it as zero cost. The residual add a
// conv absorbs has the same, in two forms: `add_..._native_fused_t<n>`, and
// `add_..._native_fused_fused_t<n>` when the activation after the add is absorbed too.
void register_fused_pseudo(Registry& r) {
  struct Form {
    LayerKind op;
    bool passes_on;
  };
  std::vector<Form> forms = {{LayerKind::kAdd, false}, {LayerKind::kAdd, true}};
  for (int k = 0; k < kNumLayerKinds; ++k)  // what a conv absorbs at run time (registry.cc runtime_fusion)
    if (conv_can_absorb(LayerKind(k))) forms.push_back({LayerKind(k), false});
  for (const Form& f : forms)
    for (Layout layout : all_layouts())
      for (DType dt : activation_dtypes())
        for (int t : kThreadSets) {
          ImplDesc d;
          d.op = f.op;
          d.algorithm = Algorithm::kFused;
          d.fused_activation = f.passes_on;
          d.layout_in = d.layout_out = layout;
          d.dtype_in = d.dtype_out = dt;
          d.threads = t;
          r.add({d, [](const ImplDesc&, const Layer&, const std::vector<Shape>&) { return Status::ok(); },
                 [](const PrimitiveArgs&, std::unique_ptr<Primitive>*) {
                   return unsupported("a fused layer runs inside its producing conv; only the executor places it");
                 }});
        }
}

}  // namespace

void register_f32_convs(Registry& r, Library library, const std::vector<std::pair<Algorithm, Layout>>& algos,
                        ConvFactory create) {
  for (const auto& [algo, layout] : algos)
    for (bool fused : {false, true})
      for (int t : kThreadSets) {
        ImplDesc d;
        d.op = LayerKind::kConv2d;
        d.library = library;
        d.algorithm = algo;
        d.layout_in = d.layout_out = layout;
        d.threads = t;
        d.fused_activation = fused;
        const Algorithm a = algo;
        r.add({d, supports_gemm_driver_conv, [a, create](const PrimitiveArgs& args, std::unique_ptr<Primitive>* out) {
                 return create(a, args, out);
               }});
      }
}

void register_native(Registry& r) {
  start_thread_sets();
  register_pool_release(int(ThreadPoolId::kNative), park_thread_set_worker);
  register_pool_job(ThreadPoolId::kNative, [](double us) {
    parallel_for(2, 2, [us](int64_t b, int64_t e) {
      for (; b < e; ++b) busy_for_us(us);
    });
  });
  register_convs(r);
  native::register_layers(r);
  register_fused_pseudo(r);
  native::register_conversions(r);
}

}  // namespace lw
