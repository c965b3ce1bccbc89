#!/usr/bin/env bash
# The runtime never executes an instruction the CPU lacks (issue 15), checked on the objects
# of a portable build (LAYERWISE_NATIVE_ARCH=OFF):
#  1. no object of libs/, env/ or runtime/ other than the *_avx512 kernel builds contains an
#     AVX instruction (VEX/EVEX encoded, ymm/zmm/mask registers): they run on any x86-64;
#  2. each *_avx512 build does use AVX-512 (zmm registers), so the dispatch has a reason;
#  3. a *_avx512 object and its *_generic twin define no global symbol in common: the linker
#     keeps one copy of an inline function or template instantiation per program, and the
#     AVX-512 copy chosen for the generic path would be an illegal instruction.
# usage: check_portable_objects.sh <build dir>
set -euo pipefail
build=$1
fail=0
avx='%[yz]mm[0-9]|%k[0-7]|\bv(mov|add|sub|mul|div|fmadd|fnmadd|fmsub|xor|and|or|pxor|pand|por|broadcast|perm|shuf|unpck|cvt|max|min|blend|insert|extract|pmov|padd|psub|pmul|pcmp|sqrt|zeroupper|gather|compress|expand)'
objects=$(find "$build/libs" "$build/env" "$build/runtime" -name '*.o' | sort)
[ -n "$objects" ] || { echo "no objects under $build (build first)"; exit 1; }
for o in $objects; do
  case "$o" in *_avx512.cc.o) continue ;; esac
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
pairs=0
for a in $(echo "$objects" | grep '_avx512\.cc\.o$'); do
  g=${a/_avx512.cc.o/_generic.cc.o}
  [ -f "$g" ] || { echo "no generic twin of $a"; fail=1; continue; }
  pairs=$((pairs + 1))
  zmm=$(objdump -d --no-show-raw-insn "$a" | grep -cE '%zmm[0-9]' || true)  # not grep -q: pipefail + SIGPIPE
  [ "$zmm" -gt 0 ] || { echo "$a uses no AVX-512 register"; fail=1; }
  # Only code can be an illegal instruction: data (typeinfo, vtables) is ignored. A code
  # symbol both define (a clang -O1 sanitizer build leaves std::bad_alloc::bad_alloc() out
  # of line) is fine when the AVX-512 copy holds no AVX instruction either.
  common=$(comm -12 <(code_symbols "$a") <(code_symbols "$g") || true)
  for s in $common; do
    n=$(objdump -d --no-show-raw-insn --disassemble="$s" "$a" | grep -cE "$avx" || true)
    if [ "$n" -gt 0 ]; then
      echo "$(basename "$a") and $(basename "$g") both define $(echo "$s" | c++filt), and the AVX-512 copy the linker may keep has $n AVX instructions"
      fail=1
    fi
  done
done
[ "$pairs" -gt 0 ] || { echo "no *_avx512 objects found"; fail=1; }
echo "checked $(echo "$objects" | wc -l) objects, $pairs AVX-512/generic pairs"
exit $fail
