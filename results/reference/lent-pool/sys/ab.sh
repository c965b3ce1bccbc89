# The whole change, old vs new binary (executor + cost model: each searches its own deployments),
# alternating per model, 2 threads, on the same LUTs.
cd /tmp/q/sys
for M in squeezenet1_1 mobilenetv2 mobilenetv3_large googlenet resnet50; do for v in old new; do
 ./lw.$v bench --lut-dir /tmp/q/p32/luts --models $M --threads 2 --repeats 15 --labels opt-fp32,opt-int8,opt-mixed --out $M.$v.csv --md $M.$v.md --steps $M.$v.steps.csv --quiet > /dev/null 2> $M.$v.err
done; done; echo done > finished
