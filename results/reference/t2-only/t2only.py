#!/usr/bin/env python3
"""A copy of a LUT without its 1-thread implementations (the input layer keeps its own), so
that a 2-thread deployment planned on it runs every step on the 2-thread set.
usage: t2only.py IN.lut.json OUT.lut.json"""
import json, sys

lut = json.load(open(sys.argv[1]))
dropped = 0
for layer in lut["layers"]:
    if layer.get("kind") == "input":
        continue
    keep = [m for m in layer["impls"] if m.get("threads") != 1]
    dropped += len(layer["impls"]) - len(keep)
    layer["impls"] = keep
json.dump(lut, open(sys.argv[2], "w"))
print(f"{sys.argv[1]}: {dropped} 1-thread implementations dropped")
