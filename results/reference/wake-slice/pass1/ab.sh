# lw.old: 585b55f (no slice request); lw.new: the same with shorten_wake_slice on our and XNNPACK's cpu1 workers
for M in mobilenetv2 mobilenetv3_large squeezenet1_1 googlenet; do for v in old new; do
 ./lw.$v bench --lut-dir /tmp/q/p32/luts --models $M --threads 2 --repeats 15 --labels opt-fp32,opt-int8,opt-mixed --out $M.$v.csv --md $M.$v.md --steps $M.$v.steps.csv --quiet > /dev/null 2> $M.$v.err
done; done; echo done > finished
