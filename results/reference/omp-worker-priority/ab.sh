# ./lw: build/explorer/layerwise of 03026b7 with omp_worker_policy.patch; LUTs: stop 30/31's /tmp/q/p32 (results/reference/lent-pool/README.md)
for M in mobilenetv2 squeezenet1_1 googlenet mobilenetv3_large; do for v in base idle nice; do
 if [ $v = base ]; then E=""; else E="LW_OMP_IDLE=$v"; fi
 env $E ./lw bench --lut-dir /tmp/q/p32/luts --models $M --threads 2 --repeats 15 --labels opt-fp32,opt-int8,opt-mixed --out $M.$v.csv --md $M.$v.md --steps $M.$v.steps.csv --quiet > /dev/null 2> $M.$v.err
done; done; echo done > finished
