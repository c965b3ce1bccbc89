for M in mobilenetv2 squeezenet1_1 mobilenetv3_large; do for s in 10000 1000; do
 GOMP_SPINCOUNT=$s ./lw bench --lut-dir /tmp/q/p32/luts --models $M --threads 2 --repeats 15 --labels opt-fp32,opt-int8,opt-mixed --out $M.s$s.csv --md $M.s$s.md --steps $M.s$s.steps.csv --quiet > /dev/null 2> $M.s$s.err
done; done; echo done > finished
