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

}  // namespace lw
