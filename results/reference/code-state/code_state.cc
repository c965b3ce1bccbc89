// Do oneDNN's 1-thread int8 convs run slower in a network than timed alone because their JIT
// code and branch state are cold? MobileNetV2's conv chain (u8 NHWC in and out, s8 weights
// per channel, relu6 as clip), each conv timed four ways, medians of R rounds, 1 thread:
//   net   : the whole chain run in order, each step timed, after a discarded run of it (as
//           `bench --steps` times its third run of a round)
//   lut   : each conv alone, before each run the others' data read and the private caches
//           evicted, its input read back (the profiler's cold protocol)
//   lut+c : as lut, and a blob of code run before each run (4 MiB, one taken jump per 64-byte
//           line by default: L1i, op cache, L2, iTLB and the branch targets flooded)
//   lut+m : as lut, the input flushed to memory (clflush) instead of read back; LUT_FLUSH=iwoc
//           picks what it flushes: input, weights, output, code (default i)
//   lut+o : as lut, with the other convs' runs in between (each conv timed in a round robin)
//   g++ -O2 -o code_state code_state.cc -ldnnl
//   OMP_NUM_THREADS=1 taskset -c 0 ./code_state [R] [v2|v3] [blob KiB, 4096] [jump gap, 64]
//   NET_TOUCH=iwo: net reads each step's input (i), weights (w), output (o) untimed before it
//   (blob KiB 0: lut+c flushes oneDNN's JIT code from every cache level instead, clflush)
#include <immintrin.h>
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dnnl.hpp>
#include <string>
#include <vector>

using namespace dnnl;
using tag = memory::format_tag;
using dt = memory::data_type;
using clk = std::chrono::steady_clock;
static volatile unsigned sink;

struct Spec { int c, k, h, r, s, g; };
struct Conv {
  Spec sp;
  convolution_forward prim;
  memory src, w, b, dst;
  std::string impl;
  void run(stream& st) {
    prim.execute(st, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_BIAS, b}, {DNNL_ARG_DST, dst}});
  }
};

// MobileNetV2 (t, c, n, s) blocks from a 112x112x32 map; v3: MobileNetV3-Large's 1x1/dw
// shapes without SE (k, exp, c, s) is close enough for the code's count and sizes.
std::vector<Spec> mobilenet_v2() {
  std::vector<Spec> v{{3, 32, 224, 3, 2, 1}};
  int c = 32, h = 112;
  const int blocks[7][4] = {{1, 16, 1, 1}, {6, 24, 2, 2}, {6, 32, 3, 2}, {6, 64, 4, 2},
                            {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
  for (auto& b : blocks)
    for (int i = 0; i < b[2]; ++i) {
      const int s = i ? 1 : b[3], e = c * b[0];
      if (b[0] != 1) v.push_back({c, e, h, 1, 1, 1});
      v.push_back({e, e, h, 3, s, e});
      h = (h + 2 - 3) / s + 1;
      v.push_back({e, b[1], h, 1, 1, 1});
      c = b[1];
    }
  v.push_back({c, 1280, h, 1, 1, 1});
  return v;
}

std::vector<Spec> mobilenet_v3() {
  std::vector<Spec> v{{3, 16, 224, 3, 2, 1}};
  int c = 16, h = 112;
  const int blocks[15][4] = {{3, 16, 16, 1},  {3, 64, 24, 2},   {3, 72, 24, 1},   {5, 72, 40, 2},  {5, 120, 40, 1},
                             {5, 120, 40, 1}, {3, 240, 80, 2},  {3, 200, 80, 1},  {3, 184, 80, 1}, {3, 184, 80, 1},
                             {3, 480, 112, 1}, {3, 672, 112, 1}, {5, 672, 160, 2}, {5, 960, 160, 1}, {5, 960, 160, 1}};
  for (auto& b : blocks) {
    const int r = b[0], e = b[1], s = b[3];
    if (e != c) v.push_back({c, e, h, 1, 1, 1});
    v.push_back({e, e, h, r, s, e});
    h = (h + 2 * (r / 2) - r) / s + 1;
    v.push_back({e, b[2], h, 1, 1, 1});
    c = b[2];
  }
  v.push_back({c, 960, h, 1, 1, 1});
  return v;
}

Conv make(engine& eng, const Spec& p) {
  const int pad = p.r / 2, oh = (p.h + 2 * pad - p.r) / p.s + 1;
  memory::desc src_md({1, p.c, p.h, p.h}, dt::u8, tag::nhwc), dst_md({1, p.k, oh, oh}, dt::u8, tag::nhwc);
  memory::desc w_md = p.g == 1 ? memory::desc({p.k, p.c, p.r, p.r}, dt::s8, tag::any)
                               : memory::desc({p.g, p.k / p.g, p.c / p.g, p.r, p.r}, dt::s8, tag::any);
  memory::desc b_md({p.k}, dt::f32, tag::x);
  primitive_attr attr;
  attr.set_output_scales(1 << 1, std::vector<float>(p.k, 0.01f));
  post_ops po;
  po.append_eltwise(1.f, algorithm::eltwise_clip, 0.f, 255.f);
  attr.set_post_ops(po);
  auto pd = convolution_forward::primitive_desc(
      convolution_forward::desc(prop_kind::forward_inference, algorithm::convolution_direct, src_md, w_md, b_md, dst_md,
                                {p.s, p.s}, {pad, pad}, {pad, pad}),
      attr, eng);
  Conv c{p, convolution_forward(pd), memory(pd.src_desc(), eng), memory(pd.weights_desc(), eng), memory(b_md, eng),
         memory(pd.dst_desc(), eng), pd.impl_info_str()};
  std::memset(c.src.get_data_handle(), 7, pd.src_desc().get_size());
  std::memset(c.w.get_data_handle(), 3, pd.weights_desc().get_size());
  std::memset(c.b.get_data_handle(), 0, p.k * 4);
  return c;
}

size_t bytes(const memory& m) { return m.get_desc().get_size(); }
void flush_lines(const void* p, size_t n) {  // out of every cache level (no fence: the caller's)
  for (size_t i = 0; i < n; i += 64) _mm_clflush(static_cast<const char*>(p) + i);
}
unsigned read_lines(const void* p, size_t n) {
  unsigned s = 0;
  for (size_t i = 0; i < n; i += 64) s += static_cast<const volatile unsigned char*>(p)[i];
  return s;
}

// n bytes of code: every `gap` bytes a `jmp` to the next gap (EB rel8, or E9 rel32 for gaps
// over 129 bytes), the last one a `ret`.
using Blob = void (*)();
Blob make_blob(size_t n, int gap) {
  auto* p = static_cast<unsigned char*>(mmap(nullptr, n, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  if (p == MAP_FAILED) return std::perror("mmap"), nullptr;
  std::memset(p, 0x90, n);
  for (size_t i = 0; i + gap < n; i += gap) {
    if (gap <= 129) {
      p[i] = 0xEB, p[i + 1] = uint8_t(gap - 2);
    } else {
      const int32_t rel = gap - 5;
      p[i] = 0xE9, std::memcpy(p + i + 1, &rel, 4);
    }
  }
  p[n - gap] = 0xC3;
  return reinterpret_cast<Blob>(p);
}

// oneDNN's JIT code: the anonymous executable mappings (Xbyak's), as /proc/self/maps lists them.
std::vector<std::pair<char*, size_t>> jit_code() {
  std::vector<std::pair<char*, size_t>> v;
  FILE* f = std::fopen("/proc/self/maps", "r");
  char line[512];
  while (f && std::fgets(line, sizeof line, f)) {
    unsigned long a, b;
    char perm[8];
    int off = 0;
    if (std::sscanf(line, "%lx-%lx %7s %*s %*s %*s%n", &a, &b, perm, &off) < 3 || perm[2] != 'x') continue;
    const char* rest = line + off;
    while (*rest == ' ') ++rest;
    if (*rest == '\n' || *rest == 0) v.emplace_back(reinterpret_cast<char*>(a), b - a);
  }
  if (f) std::fclose(f);
  return v;
}

double ms_since(clk::time_point t0) { return std::chrono::duration<double, std::milli>(clk::now() - t0).count(); }
double median(std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }

int main(int argc, char** argv) {
  const int R = argc > 1 ? std::atoi(argv[1]) : 21;
  const bool v3 = argc > 2 && std::string(argv[2]) == "v3";
  engine eng(engine::kind::cpu, 0);
  stream st(eng);
  std::vector<Conv> convs;
  size_t total = 0;
  for (const Spec& s : v3 ? mobilenet_v3() : mobilenet_v2()) {
    convs.push_back(make(eng, s));
    if (convs.size() > 1)  // the chain: each conv reads the one before's output, as in the network
      convs.back().src = memory(convs.back().src.get_desc(), eng, convs[convs.size() - 2].dst.get_data_handle());
    total += bytes(convs.back().src) + bytes(convs.back().w) + bytes(convs.back().dst);
  }
  const size_t blob_kib = argc > 3 ? std::atoi(argv[3]) : 4096;
  const int gap = argc > 4 ? std::atoi(argv[4]) : 64;
  Blob blob = blob_kib ? make_blob(blob_kib << 10, gap) : nullptr;  // 0: flush oneDNN's code instead
  for (auto& c : convs) c.run(st);  // (the kernels are generated at creation; run once anyway)
  const auto code_maps = jit_code();
  size_t code_bytes = 0;
  for (auto [p, n] : code_maps) code_bytes += n;
  std::printf("JIT code: %zu mappings, %zu KiB\n", code_maps.size(), code_bytes >> 10);
  std::vector<unsigned char> other(total, 1), l2(3 << 20, 2);
  // LUT_FLUSH: what lut+m flushes to memory, any of i (input, instead of its read), w (weights),
  // o (output), c (code); default i
  const char* lut_flush = std::getenv("LUT_FLUSH") ? std::getenv("LUT_FLUSH") : "i";
  auto prepare = [&](Conv& c, bool code, bool src_in_memory = false) {
    unsigned s = read_lines(other.data(), other.size());
    for (size_t i = 0; i < l2.size(); i += 64) l2[i]++;  // the private caches evicted, dirty
    if (code && blob) blob();
    if (code && !blob) {
      for (auto [p, n] : code_maps) flush_lines(p, n);
      _mm_mfence();
    }
    auto flush = [](const memory& m) { flush_lines(m.get_data_handle(), bytes(m)); };
    if (!src_in_memory || !std::strchr(lut_flush, 'i')) s += read_lines(c.src.get_data_handle(), bytes(c.src));
    if (src_in_memory) {
      if (std::strchr(lut_flush, 'i')) flush(c.src);
      if (std::strchr(lut_flush, 'w')) flush(c.w);
      if (std::strchr(lut_flush, 'o')) flush(c.dst);
      if (std::strchr(lut_flush, 'c'))
        for (auto [p, n] : code_maps) flush_lines(p, n);
      _mm_mfence();
    }
    sink = s;
  };
  const size_t n = convs.size();
  // NET_TOUCH=i|w|o (any of): net reads each step's input / weights / output, untimed, first
  const char* touch = std::getenv("NET_TOUCH");
  const bool touch_in = touch && std::strchr(touch, 'i'), touch_w = touch && std::strchr(touch, 'w'),
             touch_out = touch && std::strchr(touch, 'o');
  std::vector<std::vector<double>> t[5];
  for (auto& v : t) v.assign(n, {});
  for (auto& c : convs) c.run(st);
  for (int r = 0; r < R; ++r) {
    for (auto& c : convs) c.run(st);  // net: a discarded inference first, as bench runs it
    for (size_t i = 0; i < n; ++i) {
      if (touch_in) sink = read_lines(convs[i].src.get_data_handle(), bytes(convs[i].src));
      if (touch_w) sink = read_lines(convs[i].w.get_data_handle(), bytes(convs[i].w));
      if (touch_out) sink = read_lines(convs[i].dst.get_data_handle(), bytes(convs[i].dst));
      const auto t0 = clk::now();
      convs[i].run(st);
      t[0][i].push_back(ms_since(t0));
    }
    for (int mode = 1; mode <= 2; ++mode)  // lut, lut+c: each conv's runs back to back
      for (size_t i = 0; i < n; ++i)
        for (int k = 0; k < 3; ++k) {
          prepare(convs[i], mode == 2);
          const auto t0 = clk::now();
          convs[i].run(st);
          if (k) t[mode][i].push_back(ms_since(t0));
        }
    for (size_t i = 0; i < n; ++i)  // lut+m: as lut, the input flushed to memory instead of read
      for (int k = 0; k < 3; ++k) {
        prepare(convs[i], false, true);
        const auto t0 = clk::now();
        convs[i].run(st);
        if (k) t[4][i].push_back(ms_since(t0));
      }
    for (size_t i = 0; i < n; ++i) {  // lut+o: the round robin
      prepare(convs[i], false);
      const auto t0 = clk::now();
      convs[i].run(st);
      t[3][i].push_back(ms_since(t0));
    }
  }
  double sum[5] = {0, 0, 0, 0, 0};
  std::printf("%-28s %-40s %9s %9s %9s %9s %9s\n", "conv", "impl", "net", "lut", "lut+c", "lut+o", "lut+m");
  for (size_t i = 0; i < n; ++i) {
    const Spec& p = convs[i].sp;
    double m[5];
    for (int k = 0; k < 5; ++k) sum[k] += m[k] = median(t[k][i]);
    char name[64];
    std::snprintf(name, sizeof name, "%d->%d %dx%d s%d g%d @%d", p.c, p.k, p.r, p.r, p.s, p.g, p.h);
    std::printf("%-28s %-40s %9.4f %9.4f %9.4f %9.4f %9.4f\n", name, convs[i].impl.c_str(), m[0], m[1], m[2], m[3], m[4]);
  }
  std::printf("%-28s %-40s %9.4f %9.4f %9.4f %9.4f %9.4f\n", "sum", "", sum[0], sum[1], sum[2], sum[3], sum[4]);
  std::printf("net / lut %.3f, lut+c / lut %.3f, lut+o / lut %.3f, lut+m / lut %.3f (%zu convs, %d rounds)\n",
              sum[0] / sum[1], sum[2] / sum[1], sum[3] / sum[1], sum[4] / sum[1], n, R);
}
