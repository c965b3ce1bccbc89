#!/usr/bin/env bash
# The runtime never executes an instruction the CPU lacks (issue 15), checked on the objects
# of a portable build (LAYERWISE_NATIVE_ARCH=OFF):
#  1. no object of libs/, env/ or runtime/ other than the *_avx2 / *_avx512 kernel builds
#     contains an AVX instruction (VEX/EVEX encoded, ymm/zmm/mask registers): they run on any
#     x86-64;
#  2. each *_avx2 build uses AVX2 (ymm registers) and FMA, each *_avx512 build AVX-512 (zmm
#     registers), so the dispatch has a reason;
#  3. no two builds of one kernel (*_generic, *_avx2, *_avx512) define a global code symbol
#     in common whose copy holds AVX instructions: the linker keeps one copy of an inline
#     function or template instantiation per program, and a wider build's copy chosen for a
#     narrower path would be an illegal instruction.
# usage: check_portable_objects.sh <build dir>
set -euo pipefail
build=$1
fail=0
avx='%[yz]mm[0-9]|%k[0-7]|\bv(mov|add|sub|mul|div|fmadd|fnmadd|fmsub|xor|and|or|pxor|pand|por|broadcast|perm|shuf|unpck|cvt|max|min|blend|insert|extract|pmov|padd|psub|pmul|pcmp|sqrt|zeroupper|gather|compress|expand)'
objects=$(find "$build/libs" "$build/env" "$build/runtime" -name '*.o' | sort)
[ -n "$objects" ] || { echo "no objects under $build (build first)"; exit 1; }
for o in $objects; do
  case "$o" in *_avx2.cc.o | *_avx512.cc.o) continue ;; esac
  n=$(objdump -d --no-show-raw-insn "$o" | grep -cE "$avx" || true)
  if [ "$n" -gt 0 ]; then
    echo "AVX instructions in a portable object: $o ($n), e.g.:"
    objdump -d --no-show-raw-insn "$o" | grep -E "$avx" | head -3 || true
    fail=1
  fi
done
code_symbols() {  # global code symbols (strong T, weak W, indirect i) an object defines
  nm -g --defined-only "$1" | awk '$2 ~ /^[TWi]$/ {print $3}' | grep -v '^DW\.ref\.' | sort -u
}
has_avx() {  # AVX instructions in symbol $2 of object $1
  objdump -d --no-show-raw-insn --disassemble="$2" "$1" | grep -cE "$avx" || true
}
pairs=0
for g in $(echo "$objects" | grep '_generic\.cc\.o$'); do
  builds="$g"
  for wide in avx2 avx512; do
    w=${g/_generic.cc.o/_$wide.cc.o}
    [ -f "$w" ] || { echo "no $wide twin of $g"; fail=1; continue; }
    builds="$builds $w"
    pairs=$((pairs + 1))
    # not grep -q: pipefail + SIGPIPE
    if [ "$wide" = avx512 ]; then uses=$(objdump -d --no-show-raw-insn "$w" | grep -cE '%zmm[0-9]' || true)
    else uses=$(objdump -d --no-show-raw-insn "$w" | grep -cE '\bvfn?m(add|sub)[0-9]+[ps]s.*%ymm[0-9]' || true); fi
    [ "$uses" -gt 0 ] || { echo "$w uses no $wide instruction"; fail=1; }
  done
  # Only code can be an illegal instruction: data (typeinfo, vtables) is ignored. A code
  # symbol two builds define (a clang -O1 sanitizer build leaves std::bad_alloc::bad_alloc()
  # out of line) is fine when neither copy holds an AVX instruction.
  for a in $builds; do
    for b in $builds; do
      [[ "$a" < "$b" ]] || continue
      for s in $(comm -12 <(code_symbols "$a") <(code_symbols "$b") || true); do
        n=$(( $(has_avx "$a" "$s") + $(has_avx "$b" "$s") ))
        if [ "$n" -gt 0 ]; then
          echo "$(basename "$a") and $(basename "$b") both define $(echo "$s" | c++filt), with $n AVX instructions in their copies"
          fail=1
        fi
      done
    done
  done
done
[ "$pairs" -gt 0 ] || { echo "no *_generic kernel builds found"; fail=1; }
echo "checked $(echo "$objects" | wc -l) objects, $pairs wide/generic kernel pairs"
exit $fail
