#!/bin/bash
# RegNet-X 400MF (ONNX, 128x128), native + LibTorch, 1 thread: LUTs with the default protocol (w)
# and with --computing-us 0 (w0), each benched once on torch-nchw and torch-nhwc (ref-fp32 needs
# OpenBLAS: not planned); plus an every-library LUT (rg_all) to compare LibTorch's figures.
L=/work/main/build/explorer/layerwise; M=/tmp/cp/regnet_x_400mf.onnx
$L profile --model $M --libs native,torch --threads 1 --quiet --out rg_w.lut.json
$L profile --model $M --libs native,torch --threads 1 --quiet --computing-us 0 --out rg_w0.lut.json
for v in w w0; do mkdir -p rg$v && cp rg_$v.lut.json rg$v/regnet_x_400mf.lut.json
  $L bench --lut-dir rg$v --models $M --threads 1 --repeats 5 --labels ref-fp32,torch-nchw,torch-nhwc --steps rg$v/steps.csv --quiet --md rg$v/b.md; done
$L profile --model $M --threads 1 --quiet --out rg_all.lut.json
