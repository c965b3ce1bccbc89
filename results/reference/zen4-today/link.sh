#!/bin/bash
# Build: gcc -O2 -pthread -o /tmp/q/pingpong results/reference/zen4/core-link/pingpong.c; installed as /tmp/q/link
# link N: cpu0<->cpu1 round trip sampled for N seconds; prints min/median/max ns
end=$((SECONDS+${1:-1})); v=()
while [ $SECONDS -lt $end ]; do v+=($(/tmp/q/pingpong | cut -d' ' -f1)); done
printf '%s\n' "${v[@]}" | sort -g | awk '{a[NR]=$1} END{printf "%.0f/%.0f/%.0f\n", a[1], a[int((NR+1)/2)], a[NR]}'
