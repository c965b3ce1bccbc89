#!/usr/bin/python3
"""Exports torchvision classification CNNs to ONNX with PyTorch's own output for a fixed input.

Used by ctest (tests/CMakeLists.txt) to judge the ONNX importer against PyTorch: the files go
into the build tree, nothing is committed. Needs Debian's python3-torch and python3-torchvision
(run with /usr/bin/python3; the python3 first on PATH may not see them).

usage: export_torchvision.py OUT_DIR [--size S] [--opset N] [--eval N] [MODEL ...]

For every MODEL it writes OUT_DIR/MODEL.onnx, MODEL.input.npy (1x3xSxS f32, seed 0) and
MODEL.output.npy (PyTorch's eval-mode output). With --eval N also a labelled evaluation set in
the format the accuracy filter takes: MODEL.eval_inputs.npy (N x 3 x S x S f32),
MODEL.eval_labels.npy (N int64: PyTorch's own top-1, so top-1 measures agreement with PyTorch)
and MODEL.calibration_inputs.npy (N other samples for int8 calibration). Weights are torchvision's random init under
torch.manual_seed(0); BatchNorm running statistics, LayerNorm parameters and layer scales are
randomised too, so folding them is
actually tested (fresh ones are mean 0, var 1).
"""
import argparse
import os
import sys

import numpy as np
import torch
import torchvision

# Model -> opset: one model per opset from 7 to 17, all this PyTorch writes; tests/onnx_newer_opsets.h
# rewrites the exports into the forms of 18 and 27. ConvNeXt at 16 spells out its LayerNorm and
# GELU in elementary nodes (LayerNormalization is an op from 17, Gelu from 20), which the
# rewrite then turns into those ops.
DEFAULT_MODELS = {
    "resnet18": 7,
    "mobilenet_v2": 8,
    "shufflenet_v2_x1_0": 9,
    "inception_v3": 10,
    "mnasnet1_0": 11,
    "squeezenet1_1": 12,
    "densenet121": 13,
    "mobilenet_v3_small": 14,
    "regnet_y_400mf": 15,
    "convnext_tiny": 16,
    "efficientnet_b0": 17,
}


def randomise_normalisation(model, gen):
    """Fresh BatchNorm statistics, LayerNorm parameters and ConvNeXt layer scales are identities
    (its layer scale even 1e-6, which would hide every block): randomised, so that folding them
    is tested."""
    for m in model.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            c = m.num_features
            m.running_mean.copy_(torch.rand(c, generator=gen) * 0.2 - 0.1)
            m.running_var.copy_(torch.rand(c, generator=gen) * 0.4 + 0.8)
            m.weight.data.copy_(torch.rand(c, generator=gen) * 0.4 + 0.8)
            m.bias.data.copy_(torch.rand(c, generator=gen) * 0.2 - 0.1)
        elif isinstance(m, torch.nn.LayerNorm):
            shape = m.weight.shape
            m.weight.data.copy_(torch.rand(shape, generator=gen) * 0.4 + 0.8)
            m.bias.data.copy_(torch.rand(shape, generator=gen) * 0.2 - 0.1)
        if isinstance(getattr(m, "layer_scale", None), torch.nn.Parameter):
            m.layer_scale.data.copy_(torch.rand(m.layer_scale.shape, generator=gen) * 0.4 + 0.1)


def export(name, opset, size, out_dir, n_eval=0):
    torch.manual_seed(0)
    model = getattr(torchvision.models, name)(weights=None)
    gen = torch.Generator().manual_seed(1)
    with torch.no_grad():
        randomise_normalisation(model, gen)
    model.eval()
    x = torch.randn(1, 3, size, size, generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        y = model(x)
    path = os.path.join(out_dir, name + ".onnx")
    torch.onnx.export(model, x, path, opset_version=opset, input_names=["input"], output_names=["output"],
                      do_constant_folding=True)
    np.save(os.path.join(out_dir, name + ".input.npy"), x.numpy().astype(np.float32))
    np.save(os.path.join(out_dir, name + ".output.npy"), y.numpy().astype(np.float32))
    if n_eval:
        g = torch.Generator().manual_seed(2)
        xe, xc = torch.randn(n_eval, 3, size, size, generator=g), torch.randn(n_eval, 3, size, size, generator=g)
        with torch.no_grad():
            labels = model(xe).argmax(dim=1)
        np.save(os.path.join(out_dir, name + ".eval_inputs.npy"), xe.numpy().astype(np.float32))
        np.save(os.path.join(out_dir, name + ".eval_labels.npy"), labels.numpy().astype(np.int64))
        np.save(os.path.join(out_dir, name + ".calibration_inputs.npy"), xc.numpy().astype(np.float32))
    print(f"{name}: opset {opset}, input 1x3x{size}x{size}, output {tuple(y.shape)} -> {path}")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out_dir")
    p.add_argument("--size", type=int, default=96)
    p.add_argument("--opset", type=int, default=0, help="one opset for all (default: per model)")
    p.add_argument("--eval", type=int, default=0, help="also write a labelled evaluation set of N samples")
    p.add_argument("models", nargs="*")
    a = p.parse_intermixed_args()
    os.makedirs(a.out_dir, exist_ok=True)
    torch.set_num_threads(1)
    for name in a.models or DEFAULT_MODELS:
        if name not in DEFAULT_MODELS and not hasattr(torchvision.models, name):
            sys.exit(f"export_torchvision: unknown model '{name}'")
        export(name, a.opset or DEFAULT_MODELS.get(name, 13), a.size, a.out_dir, a.eval)


if __name__ == "__main__":
    main()
