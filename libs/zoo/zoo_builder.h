/// \file
/// A small fluent builder for the network IR, used by the model zoo and by tests.
/// Each call appends one layer and returns its index; shapes are inferred as we go.
#pragma once
#include <string>
#include <vector>

#include "libs/ir/network.h"

namespace lw {

class NetBuilder {
 public:
  NetBuilder(std::string name, Shape input);

  /// Layer names are "<scope>.<what>" while a scope is set (torchvision-like names).
  void scope(std::string s) { scope_ = std::move(s); }

  int conv(int x, int out_c, int k, int stride = 1, int pad = -1, int groups = 1, bool bias = true,
           const std::string& what = "conv");
  int conv_window(int x, int out_c, const Window& w, int groups, bool bias, const std::string& what);
  int bn(int x, const std::string& what = "bn");
  /// conv (no bias) + batch-norm + optional activation (kInput = none).
  int conv_bn(int x, int out_c, int k, int stride, int groups, LayerKind act, const std::string& what);
  int act(int x, LayerKind kind, const std::string& what = "");
  int max_pool(int x, int k, int stride, int pad = 0, bool ceil_mode = false);
  int avg_pool(int x, int k, int stride, int pad = 0);
  int global_avg_pool(int x);
  int fc(int x, int out, bool bias = true, const std::string& what = "fc");
  int add(int a, int b);
  int mul(int a, int b);
  int concat(const std::vector<int>& xs);
  int flatten(int x);
  int softmax(int x);

  const Shape& shape(int x) const { return net_.layers[x].out; }
  int channels(int x) const { return shape(x).c; }
  /// Checks the network; aborts on a builder bug (zoo models are code, not user input).
  Network finish();

 private:
  int pool(LayerKind kind, int x, int k, int stride, int pad, bool ceil_mode);
  int push(Layer l, const std::string& what);
  Network net_;
  std::string scope_;
  int counter_ = 0;
};

}  // namespace lw
