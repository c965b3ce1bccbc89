/// \file
/// NumPy .npy files (format 1.0 to 3.0, C order, little endian): the simple, documented format
/// in which a user hands Layerwise an input tensor (`layerwise infer --input`), gets an output
/// back (`--output`), and supplies labelled evaluation and calibration data to the accuracy
/// filter. Written by numpy.save; read here without Python.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "libs/core/status.h"
#include "libs/core/tensor.h"

namespace lw {

struct NpyArray {
  std::vector<int64_t> dims;
  std::vector<float> f32;      // float32 / float64 arrays (converted)
  std::vector<int64_t> ints;   // integer and bool arrays
  bool is_int = false;
  int64_t elements() const;
};

/// Reads float32, float64, int8/16/32/64, uint8 and bool arrays; Fortran order, big endian
/// and object arrays are errors naming the file.
Status read_npy(const std::string& path, NpyArray* out);
/// Writes a float32 array.
Status write_npy(const std::string& path, const std::vector<int64_t>& dims, const float* data);

/// Samples of a network input `sample` (N = 1) from a float32 .npy of shape [count, C, H, W]
/// (or [count, C] / [count, C, L] for rank-2 / rank-3 inputs, see onnx_dims_to_shape): one
/// N x C x H x W tensor per sample. Other shapes are an error naming the file and both shapes.
Status read_npy_samples(const std::string& path, const Shape& sample, std::vector<Tensor>* out);
/// Integer class labels from a 1-D .npy of `count` entries.
Status read_npy_labels(const std::string& path, int64_t count, std::vector<int64_t>* out);

}  // namespace lw
