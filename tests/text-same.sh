#!/bin/sh
# text-same.sh BASE_ROOT — the text report of every starter and solution, and of the fixtures
# named after them, printed by BASE_ROOT/build/clgrade (another checkout, built) and by this
# checkout's, at one seed, compared line by line with the measured numbers (times, rates,
# speedups) masked; and the JSON report: every key of the base's is still there (the JSON
# only gains keys).  Prints one line per kernel and "same" or the differences; exit 1 on any.
# Used for issue 20 (the HTML page must not change the text report).
set -u
base=$1
shift
here=$(pwd)
tmp=$(mktemp -d)
rc=0
mask() { sed -E 's/[0-9]+\.[0-9]+/N/g; s/[0-9]+ ms/N ms/g; s/median of [0-9]+/median of N/g; s/[0-9]+ GB\/s/N GB\/s/g'; }
for k in kernels/starter/*.cl kernels/solutions/*.cl "$@"; do
	n=$(basename "$k" .cl); lesson=${n%%-*}
	case "$n" in l[0-9]_*) lesson=${n#l}; lesson=${lesson%%_*} ;; esac
	d=$(dirname "$k" | tr / _)
	(cd "$base" && build/clgrade check "$lesson" "$here/$k" --seed 7 --json "$tmp/$d-$n.base.json") 2>&1 | mask > "$tmp/$d-$n.base.txt"
	build/clgrade check "$lesson" "$here/$k" --seed 7 --json "$tmp/$d-$n.new.json" 2>&1 | mask > "$tmp/$d-$n.new.txt"
	if diff "$tmp/$d-$n.base.txt" "$tmp/$d-$n.new.txt" > "$tmp/diff"; then t=same; else t=DIFFERENT; rc=1; fi
	j=$(python3 -c '
import json, sys
def keys(o, p=""):
    if isinstance(o, dict):
        for k, v in o.items():
            yield p + "/" + k
            yield from keys(v, p + "/" + k)
    elif isinstance(o, list):
        for v in o[:1]:
            yield from keys(v, p + "[]")
a = set(keys(json.load(open(sys.argv[1])))); b = set(keys(json.load(open(sys.argv[2]))))
print("json keys kept, %d gained" % len(b - a) if a <= b else "json LOST " + " ".join(sorted(a - b)))
' "$tmp/$d-$n.base.json" "$tmp/$d-$n.new.json")
	case "$j" in *LOST*) rc=1 ;; esac
	echo "$k: text $t; $j"
	[ "$t" = same ] || head -20 "$tmp/diff"
done
rm -rf "$tmp"
exit $rc
