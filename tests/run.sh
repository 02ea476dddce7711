#!/bin/sh
# run.sh — run each Check test binary, then print one closing line that adds them up.
# Check prints its own summary per binary ("100%: Checks: 12, Failures: 0, Errors: 0").
passed=0 failed=0 status=0
for t in "$@"; do
	echo "== $t"
	out=$("$t" 2>&1); rc=$?
	echo "$out"
	line=$(echo "$out" | grep -E '^[0-9]+%: Checks: ' | tail -n1)
	if [ -z "$line" ]; then
		echo "$t: no Check summary (exit $rc)"; failed=$((failed + 1)); status=1; continue
	fi
	n=$(echo "$line" | sed -E 's/.*Checks: ([0-9]+).*/\1/')
	f=$(echo "$line" | sed -E 's/.*Failures: ([0-9]+).*/\1/')
	e=$(echo "$line" | sed -E 's/.*Errors: ([0-9]+).*/\1/')
	passed=$((passed + n - f - e)); failed=$((failed + f + e))
	[ "$rc" -eq 0 ] || status=1
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && exit $status
exit 1
