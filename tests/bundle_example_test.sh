#!/usr/bin/env bash
# The runtime as an application meets it (issue 15): install the package to a temporary
# prefix, configure and build examples/ against it in a clean directory (no access to the
# build tree), export a bundle of a trained Fashion-MNIST model with `layerwise export`, and
# run the example on it: its top-1 must equal the one `layerwise export` measured with the
# explorer's executor on the same images (classify_fmnist exits 3 otherwise), and a corrupted
# bundle must give one line and a non-zero status.
# usage: bundle_example_test.sh <layerwise binary> <build dir> <work dir>
set -euo pipefail
bin=$1 build=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
fail() { echo "bundle_example_test: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$work/prefix" >"$work/install.log"
[ -f "$work/prefix/include/layerwise/layerwise.h" ] || fail "the header was not installed"
cmake -S examples -B "$work/examples" -DCMAKE_PREFIX_PATH="$work/prefix" >"$work/configure.log" 2>&1 ||
  { cat "$work/configure.log"; fail "configuring examples/ against the installed package failed"; }
cmake --build "$work/examples" -j2 >"$work/build.log" 2>&1 || { cat "$work/build.log"; fail "building examples/ failed"; }
# XNNPACK's 2-thread steps run on libgomp's team only if the runtime exports pthreadpool's API
# (libs/xnnpack/omp_pthreadpool.cc) for libXNNPACK to bind to; its other internals stay hidden.
for sym in pthreadpool_create pthreadpool_parallelize_1d pthreadpool_parallelize_2d_tile_2d pthreadpool_compute_1d; do
  nm -D --defined-only "$work/prefix/lib/liblayerwise_runtime.so" | grep -q " T $sym\$" ||
    fail "the runtime library does not export $sym"
done
if nm -D --defined-only "$work/prefix/lib/liblayerwise_runtime.so" | grep -q "xnnpack_team_calls"; then
  fail "the runtime library exports Layerwise's internals"
fi
# LibTorch is the runtime's private dependency: the application neither includes nor links it.
if grep -rqi "torch" "$work/examples/CMakeFiles/classify_fmnist.dir/link.txt" "$work/examples/CMakeFiles/classify_fmnist.dir/flags.make"; then
  fail "the example's compile or link line names LibTorch"
fi

model=configs/models/fmnist_resnet.json
"$bin" profile --model $model --libs native,openblas,xnnpack --threads 1 --warmup 0 --runs 1 --max-runs 1 --quiet \
  --out "$work/lut.json"
"$bin" search --lut "$work/lut.json" --agent exact --quiet --out "$work/search" >/dev/null
"$bin" export --model $model --lut "$work/lut.json" --solutions "$work/search/solutions.csv" --test-images 300 \
  --calibration-images 32 --quiet --out "$work/deployment.lwb"

"$work/examples/classify_fmnist" "$work/deployment.lwb" | tee "$work/example.out"
grep -q "identical" "$work/example.out" || fail "the example's accuracy was not compared with the bundle's record"

head -c 2000 "$work/deployment.lwb" >"$work/truncated.lwb"
if "$work/examples/classify_fmnist" "$work/truncated.lwb" 2>"$work/err.txt"; then fail "a truncated bundle ran"; fi
[ "$(wc -l <"$work/err.txt")" -eq 1 ] || { cat "$work/err.txt"; fail "expected one line for a truncated bundle"; }
cat "$work/err.txt"
echo "bundle_example_test: ok"
