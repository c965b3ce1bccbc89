#include "libs/data/npy.h"

#include <cstring>
#include <regex>

#include "libs/core/files.h"
#include "libs/ir/network_json.h"

namespace lw {

int64_t NpyArray::elements() const {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

namespace {

// The header is a Python dict literal: {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
Status parse_header(const std::string& path, const std::string& h, std::string* descr, std::vector<int64_t>* dims) {
  std::smatch m;
  if (!std::regex_search(h, m, std::regex("'descr'\\s*:\\s*'([^']*)'")))
    return parse_error(path + ": .npy header has no 'descr'");
  *descr = m[1];
  if (std::regex_search(h, m, std::regex("'fortran_order'\\s*:\\s*True")))
    return unsupported(path + ": Fortran-order .npy (save a C-contiguous array)");
  if (!std::regex_search(h, m, std::regex("'shape'\\s*:\\s*\\(([^)]*)\\)")))
    return parse_error(path + ": .npy header has no 'shape'");
  std::string shape = m[1];
  dims->clear();
  const std::regex number("\\d+");
  for (std::sregex_iterator it(shape.begin(), shape.end(), number), end; it != end; ++it)
    dims->push_back(std::stoll(it->str()));
  return Status::ok();
}

}  // namespace

Status read_npy(const std::string& path, NpyArray* out) {
  std::string data;
  LW_RETURN_IF_ERROR(read_file(path, &data));
  if (data.size() < 10 || data.compare(0, 6, "\x93NUMPY") != 0) return parse_error(path + ": not a .npy file (bad magic)");
  const int major = uint8_t(data[6]);
  size_t hlen = 0, off = 0;
  if (major == 1) {
    hlen = uint8_t(data[8]) | (size_t(uint8_t(data[9])) << 8);
    off = 10;
  } else if (major == 2 || major == 3) {
    if (data.size() < 12) return parse_error(path + ": truncated .npy header");
    for (int i = 0; i < 4; ++i) hlen |= size_t(uint8_t(data[8 + i])) << (8 * i);
    off = 12;
  } else {
    return unsupported(path + ": .npy format version " + std::to_string(major));
  }
  if (off + hlen > data.size()) return parse_error(path + ": truncated .npy header");
  std::string descr;
  NpyArray a;
  LW_RETURN_IF_ERROR(parse_header(path, data.substr(off, hlen), &descr, &a.dims));
  off += hlen;
  if (descr.size() < 3 || descr[0] == '>') return unsupported(path + ": .npy dtype '" + descr + "' (little-endian numbers only)");
  const char kind = descr[1];
  const size_t size = size_t(std::stoul(descr.substr(2)));
  const int64_t n = a.elements();
  if (data.size() - off != size_t(n) * size)
    return parse_error(path + ": .npy holds " + std::to_string(data.size() - off) + " data bytes, shape needs " +
                       std::to_string(size_t(n) * size));
  const char* p = data.data() + off;
  if (kind == 'f' && (size == 4 || size == 8)) {
    a.f32.resize(size_t(n));
    for (int64_t i = 0; i < n; ++i) {
      if (size == 4) std::memcpy(&a.f32[i], p + 4 * i, 4);
      else { double d; std::memcpy(&d, p + 8 * i, 8); a.f32[i] = float(d); }
    }
  } else if ((kind == 'i' || kind == 'u' || kind == 'b') && (size == 1 || size == 2 || size == 4 || size == 8)) {
    a.is_int = true;
    a.ints.resize(size_t(n));
    for (int64_t i = 0; i < n; ++i) {
      int64_t v = 0;
      std::memcpy(&v, p + size * i, size);  // little endian: low bytes first
      if (kind == 'i' && size < 8 && (v >> (8 * size - 1)) & 1) v -= int64_t(1) << (8 * size);  // sign-extend
      a.ints[i] = v;
    }
  } else {
    return unsupported(path + ": .npy dtype '" + descr + "' (float32/64, int, uint8 or bool only)");
  }
  *out = std::move(a);
  return Status::ok();
}

Status write_npy(const std::string& path, const std::vector<int64_t>& dims, const float* data) {
  std::string shape;
  int64_t n = 1;
  for (int64_t d : dims) {
    shape += std::to_string(d) + ", ";
    n *= d;
  }
  if (dims.size() > 1) shape.resize(shape.size() - 2);  // (2, 3); a 1-D shape keeps its comma: (5,)
  else if (dims.size() == 1) shape.resize(shape.size() - 1);
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + shape + "), }";
  // Pad with spaces so that the data starts at a multiple of 64 bytes; end with a newline.
  const size_t total = (10 + header.size() + 1 + 63) / 64 * 64;
  header.append(total - 10 - header.size() - 1, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += char(1);
  out += char(0);
  out += char(header.size() & 0xff);
  out += char(header.size() >> 8);
  out += header;
  out.append(reinterpret_cast<const char*>(data), size_t(n) * sizeof(float));
  return write_file_atomic(path, out);
}

Status read_npy_samples(const std::string& path, const Shape& sample, std::vector<Tensor>* out) {
  NpyArray a;
  LW_RETURN_IF_ERROR(read_npy(path, &a));
  auto dims_str = [&] {
    std::string d;
    for (int64_t v : a.dims) d += (d.empty() ? "" : "x") + std::to_string(v);
    return d;
  };
  const int64_t per = int64_t(sample.c) * sample.h * sample.w;
  bool fits = !a.is_int && a.dims.size() >= 2 && a.dims[1] == sample.c && a.elements() == a.dims[0] * per;
  if (fits && a.dims.size() == 4) fits = a.dims[2] == sample.h && a.dims[3] == sample.w;
  if (!fits || a.dims[0] < 1)
    return invalid_argument(path + ": expected float32 samples of " + std::to_string(sample.c) + "x" +
                            std::to_string(sample.h) + "x" + std::to_string(sample.w) + " (shape [count, C, H, W]), got " +
                            (a.is_int ? "integers " : "") + dims_str());
  out->clear();
  for (int64_t i = 0; i < a.dims[0]; ++i) {
    Tensor t = Tensor::create(Shape{1, sample.c, sample.h, sample.w});
    std::copy(a.f32.begin() + i * per, a.f32.begin() + (i + 1) * per, t.f32());
    out->push_back(std::move(t));
  }
  return Status::ok();
}

Status read_npy_labels(const std::string& path, int64_t count, std::vector<int64_t>* out) {
  NpyArray a;
  LW_RETURN_IF_ERROR(read_npy(path, &a));
  if (!a.is_int || a.dims.size() != 1 || a.dims[0] != count)
    return invalid_argument(path + ": expected " + std::to_string(count) + " integer labels (a 1-D int .npy)");
  *out = std::move(a.ints);
  return Status::ok();
}

}  // namespace lw
