#!/bin/bash
# This folder's run: the same steps as int8-layers/final/, in /tmp/q/p27.
bash /work/main/results/reference/int8-layers/final/all.sh /tmp/q/p27
