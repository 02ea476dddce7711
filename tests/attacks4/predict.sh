#!/bin/sh
# predict.sh — re-run the attacks4 kernels through `clgrade check` and print, per kernel, the
# GPU time model's prediction (kernel_ms, speedup, limiter, each term, loads in flight,
# counted FLOPs) and every criterion's status, so that a change to the model can be read
# against the expected H200 verdicts in each kernel's first line.
# Usage (from the repository root, after `make`): sh tests/attacks4/predict.sh [FILE.cl...]
# Each report goes to build/attacks4/NAME.{txt,json}.
mkdir -p build/attacks4
[ $# -gt 0 ] || set -- tests/attacks4/*.cl
for f in "$@"; do
	b=$(basename "$f" .cl)
	L=$(echo "$b" | sed -n 's/^l\([0-9]\)_.*/\1/p')
	nice -n 10 build/clgrade check "$L" "$f" --seed 1 --json "build/attacks4/$b.json" \
		>"build/attacks4/$b.txt" 2>&1
	python3 - "build/attacks4/$b.json" "$b" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
p = (d.get('timing') or {}).get('predicted') or {}
b = p.get('breakdown', {})
terms = ' '.join('%s %.4f' % (k[:-3], b.get(k, -1)) for k in
                 ('dram_ms', 'loads_in_flight_ms', 'flops_ms', 'l1_pipe_ms', 'latency_ms'))
print('%-26s %.4f ms %.3fx %-16s %s lif %s flops %.3g' % (
    sys.argv[2], p.get('kernel_ms', -1), p.get('speedup', -1), p.get('limiter'), terms,
    b.get('loads_in_flight'), b.get('counted_flops', 0)))
print('   ', ' '.join('%s:%s' % (c['id'], c['status']) for c in d.get('criteria', [])))
PY
done
