for r in 1 2; do for v in old new; do
 ./lw.$v bench --lut-dir /tmp/q/p32/luts --models mobilenetv3_large --threads 2 --repeats 15 --labels opt-fp32,opt-int8,opt-mixed --out m3.$v.r$r.csv --md m3.$v.r$r.md --steps m3.$v.r$r.steps.csv --quiet > /dev/null 2> m3.$v.r$r.err
done; done; echo done > finished
