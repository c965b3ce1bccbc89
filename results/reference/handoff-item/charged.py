"""What the hand-off matrix charged (old: 20 us items, p28 LUT; new: 150 us items, item-sizes.txt) against the
2-thread hand-off steps excess in the networks (measured - LUT), per model, summed over all runs; "capped":
a take-back pool (native, xnnpack) charged at most the step itself.
usage: python3 charged.py ../int8-flush/full-run/pred/*.steps.csv.gz"""
import collections, sys
from handoff_steps import handoffs
old = {('caller','native'):.0435,('caller','xnnpack'):.0505,('caller','openmp'):.0003,('native','xnnpack'):.013,('native','openmp'):.0141,
       ('xnnpack','native'):.0005,('xnnpack','openmp'):.0275,('openmp','native'):.0153,('openmp','xnnpack'):.0485}
new = {('caller','native'):.072,('caller','xnnpack'):.069,('caller','openmp'):.0005,('native','xnnpack'):.071,('native','openmp'):.05,
       ('xnnpack','native'):.03,('xnnpack','openmp'):.068,('openmp','native'):.153,('openmp','xnnpack'):.053}
def charge(m, fr, to, s, cap):
    d = m.get((fr, to), 0.0)
    return min(d, s) if cap and to != 'openmp' else d
tot = collections.defaultdict(lambda: [0.0]*4)
for model, prev, q, m, l in handoffs(sys.argv[1:]):
    t = tot[model]
    t[0] += m - l; t[1] += charge(old, prev, q, l, False); t[2] += charge(new, prev, q, l, True); t[3] += charge(new, prev, q, l, False)
for k, t in tot.items():
    print(f"{k:20s} observed excess {t[0]:.3f}  old {t[1]:.3f}  new-capped {t[2]:.3f}  new-uncapped {t[3]:.3f}  (ms over all runs)")
