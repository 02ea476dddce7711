#!/usr/bin/env python3
"""gpum-join-results.py -- the H200 timings committed in tests/gpu/results/ (guarded, alu and
private families, `RESULT-NAME-k verdict speedup X ms KERNEL BASELINE ...` lines) against the
prediction made here now: one `clgrade check L tests/fixtures/NAME.cl --seed 1` per kernel.
Prints a markdown table (the median of the GPU's checks) as GUIDE.md "Predicted GPU time" shows.
Run from the repository root after `make`."""
import collections, json, re, statistics, subprocess, sys, tempfile, os

FILES = ["tests/gpu/results/guarded-h200-2026-12-01.txt",
         "tests/gpu/results/alu-h200-2026-12-01.txt",
         "tests/gpu/results/private-h200-2026-12-01.txt"]
BARS = {"2": 1.10, "3": 2.0, "5": 1.30}          # grader/lesson.c speedup_gpu

def main():
    meas = collections.OrderedDict()
    for f in FILES:
        for line in open(f):
            m = re.match(r"(l\d_\S+)-\d (\w+) speedup (\S+) ms (\S+) (\S+)", line)
            if m:
                meas.setdefault(m.group(1), []).append((float(m.group(4)), float(m.group(3))))
    out = os.path.join(tempfile.mkdtemp(), "r.json")
    print("| kernel | measured ms (median) | measured x | predicted ms | error | predicted x | verdicts |")
    print("|---|---|---|---|---|---|---|")
    for k, v in meas.items():
        l = k[1]
        subprocess.run(["build/clgrade", "check", l, "tests/fixtures/%s.cl" % k, "--seed", "1",
                        "--json", out], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        p = json.load(open(out))["timing"]["predicted"]
        ms = statistics.median(x[0] for x in v)
        sp = statistics.median(x[1] for x in v)
        same = (sp >= BARS[l]) == (p["speedup"] >= BARS[l])
        print("| `%s` | %.4f | %.2f | %.4f | %+.0f%% | %.2f | %s |" % (
            k, ms, sp, p["kernel_ms"], 100 * (p["kernel_ms"] - ms) / ms, p["speedup"],
            "same" if same else "DIFFER"))

if __name__ == "__main__":
    sys.exit(main())
