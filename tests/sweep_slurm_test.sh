#!/usr/bin/env bash
# layerwise sweep against a real Slurm: a private one-node cluster (scripts/slurm-local-start) runs the
# tests/sweep grid (2 models x 2 agents x 2 seeds, tiny budgets).
#   compare: the slurm executor's merged CSV has the same search results as the local one's
#            (same LUTs, same seeds), and each LUT was profiled once;
#   kill:    slurmd is killed mid-sweep (with the jobs it ran cancelled), restarted, the sweep
#            resubmitted: the grid finishes and no cell finished before the kill ran again.
# usage: sweep_slurm_test.sh <layerwise binary> <work dir> compare|kill   (from the source root)
# Exit 77 (ctest: skipped) with the reason when slurm-wlm / munge are absent or not root.
set -euo pipefail
LW=$1 W=$2 MODE=$3
for b in munged slurmctld slurmd sbatch squeue scancel sinfo; do
  command -v "$b" >/dev/null || { echo "SKIPPED: $b not found (scripts/setup installs slurm-wlm and munge)"; exit 77; }
done
[ "$(id -u)" -eq 0 ] || { echo "SKIPPED: starting slurmd needs root (CI runs as root)"; exit 77; }
SRC=$(pwd)
STATE=$W/cluster
cleanup() { "$SRC/scripts/slurm-local-stop" "$STATE" >/dev/null 2>&1 || true; }
cleanup  # daemons of an earlier run that was killed before its own cleanup
rm -rf "$W" && mkdir -p "$W"
trap cleanup EXIT
trap 'exit 130' INT TERM  # so that EXIT's cleanup runs on Ctrl-C and on ctest's timeout too
fail() { echo "FAIL: $*" >&2; exit 1; }
PORT=16817; [ "$MODE" = kill ] && PORT=16827
"$SRC/scripts/slurm-local-start" "$STATE" "$PORT"
. "$STATE/env"

# The same grid twice, sharing one LUT directory: the slurm sweep profiles, the local one reuses.
EPISODES=200; [ "$MODE" = kill ] && EPISODES=30000  # longer cells, so the kill lands mid-cell
for ex in slurm local; do
  sed -e "s|\"output_dir\": \"[^\"]*\"|\"output_dir\": \"$W/$ex\", \"lut_dir\": \"$W/luts\"|" \
      -e "s|\"episodes\": 200|\"episodes\": $EPISODES|g" tests/sweep/sweep.json >"$W/$ex.json"
done
done_cells() { grep -l '"state": "done"' "$W/slurm/cells"/*/status.json 2>/dev/null | wc -l; }
running_cells() { grep -l '"state": "running"' "$W/slurm/cells"/*/status.json 2>/dev/null | xargs -rn1 dirname; }

if [ "$MODE" = compare ]; then
  "$LW" sweep "$W/slurm.json" --executor slurm --poll 1 --timeout 300 --quiet
  "$LW" sweep "$W/slurm.json" --collect
  "$LW" sweep "$W/local.json" --jobs 2 --quiet
  "$LW" sweep "$W/local.json" --collect
  # Search columns only (timings and the replayed latencies are measurements, not results).
  cols='cell,model,agents,seeds,device,search_agent,search_seed,best_latency_ms,optimum_ms,gap_pct,states,episodes,proven_optimal,solution'
  pick() { awk -F, -v want="$cols" 'NR==1{n=split(want,w,",");for(i=1;i<=NF;i++)h[$i]=i;for(k=1;k<=n;k++)if(!(w[k] in h)){print "no column " w[k];exit 1}}
                                    {s="";for(k=1;k<=n;k++)s=s (k>1?",":"") $(h[w[k]]);print s}' "$1"; }
  pick "$W/slurm/sweep.csv" >"$W/slurm.search.csv"
  pick "$W/local/sweep.csv" >"$W/local.search.csv"
  rows=$(($(wc -l <"$W/slurm.search.csv") - 1))
  [ "$rows" -eq 8 ] || fail "slurm sweep.csv has $rows rows, expected 8"
  diff "$W/slurm.search.csv" "$W/local.search.csv" || fail "slurm and local search results differ"
  [ "$(ls "$W/luts"/*.lut.json | wc -l)" -eq 2 ] || fail "expected 2 LUTs in $W/luts"
  for l in "$W/luts"/*.lut.json; do
    n=$(grep -c profiling "$l.log"); [ "$n" -eq 1 ] || fail "$l profiled $n times"
  done
  echo "PASS: slurm and local give the same 8 search results; 2 LUTs, each profiled once"
  exit 0
fi

# kill: submit, wait for a few cells, kill slurmd and cancel what it ran (a node failure).
"$LW" sweep "$W/slurm.json" --executor slurm --no-wait --quiet
for _ in $(seq 1 600); do [ "$(done_cells)" -ge 2 ] && [ -n "$(running_cells)" ] && break; sleep 0.2; done
kill -9 "$(cat "$STATE/run/slurmd.pid")"
before=$(done_cells)
interrupted=$(running_cells)
[ "$before" -ge 2 ] || fail "no cell finished within 120 s"
[ "$before" -lt 8 ] || fail "every cell finished before the kill; nothing to resume"
[ -n "$interrupted" ] || fail "no cell was running when slurmd was killed"
finished=$(grep -l '"state": "done"' "$W/slurm/cells"/*/status.json | xargs -n1 dirname)
for d in $finished; do md5sum "$d/status.json" >>"$W/finished.md5"; done
scancel --user="$(id -un)"
"$SRC/scripts/slurm-local-slurmd" "$STATE"
for _ in $(seq 1 120); do [ -z "$(squeue -h -o %i)" ] && break; sleep 0.5; done
[ -z "$(squeue -h -o %i)" ] || fail "cancelled jobs still in the queue after 60 s"
echo "killed slurmd with $before of 8 cells done; resubmitting"
"$LW" sweep "$W/slurm.json" --collect >/dev/null && fail "--collect says complete after the kill" || true
"$LW" sweep "$W/slurm.json" --executor slurm --resubmit-failed --poll 1 --timeout 300 --quiet
"$LW" sweep "$W/slurm.json" --collect || fail "the grid is not complete after resubmitting"
md5sum -c --quiet "$W/finished.md5" || fail "a cell finished before the kill was written again"
for d in $finished; do
  n=$(wc -l <"$d/starts.log"); [ "$n" -eq 1 ] || fail "$d finished before the kill but started $n times"
done
for d in $interrupted; do
  n=$(wc -l <"$d/starts.log"); [ "$n" -eq 2 ] || fail "$d was running at the kill and started $n times (expected 2)"
done
for l in "$W/luts"/*.lut.json; do
  n=$(grep -c profiling "$l.log"); [ "$n" -eq 1 ] || fail "$l profiled $n times"
done
echo "PASS: $(echo $interrupted | wc -w) cells killed mid-run were run again, $before cells finished before the kill were not run again; all 8 done after resubmitting"
