#!/bin/sh
# compat-run.sh — grade every lesson's solution, starter and fixture on each OpenCL platform of
# this machine, with --no-analysis, and write one TSV row per run plus the machine's facts.
# It runs inside the bundle that tests/compat-matrix.sh builds (clgrade, its libcjson, the
# lessons, kernels and fixtures), so a machine without the build tools can run it:
#   sh build/dev-compat/compat-run.sh OUTDIR [DEVICE ...]     (DEVICE: a --device substring;
#   default: PoCL's CPU device, plus NVIDIA when libnvidia-opencl.so.1 is installed)
# Output: OUTDIR/results-<host tag>.tsv, OUTDIR/facts-<host tag>.txt, OUTDIR/json/...
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: compat-run.sh OUTDIR [DEVICE ...]}
shift
mkdir -p "$out/json"
out=$(cd "$out" && pwd)
export LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export CLGRADE_ROOT="$here/root"
. /etc/os-release
tag=$(echo "${ID}-${VERSION_ID}" | tr -c 'A-Za-z0-9.\n-' '_')
facts="$out/facts-$tag.txt"
tsv="$out/results-$tag.tsv"

# NVIDIA's OpenCL without an ICD file: a private vendors folder naming it beside the others.
if ldconfig -p 2>/dev/null | grep -q 'libnvidia-opencl.so.1' &&
   ! grep -qs libnvidia-opencl /etc/OpenCL/vendors/*.icd; then
	v="$out/vendors"
	mkdir -p "$v"
	cp /etc/OpenCL/vendors/*.icd "$v/" 2>/dev/null
	echo libnvidia-opencl.so.1 > "$v/nvidia.icd"
	export OCL_ICD_VENDORS="$v"
fi
if [ $# -eq 0 ]; then
	set -- ""
	ldconfig -p 2>/dev/null | grep -q 'libnvidia-opencl.so.1' && set -- "" NVIDIA
fi

{
	echo "== date"; date -u '+%Y-%m-%d %H:%M UTC'
	echo "== os"; echo "$PRETTY_NAME"; uname -r
	echo "== packages (dpkg)"
	dpkg-query -W -f '${Package} ${Version} ${Status}\n' 'pocl*' 'libpocl*' 'oclgrind' \
	    'liboclgrind*' 'libcjson*' 'ocl-icd*' 'opencl-c-headers' 'clinfo' 'check' \
	    'libsubunit*' 'llvm-*-dev' 'libllvm*' 'gcc' 'g++' 'make' 'pkg-config' 2>/dev/null |
	    grep -v 'not-installed' | sort
	echo "== LLVM installs"; ls -d /usr/lib/llvm-* 2>/dev/null
	echo "== libpocl"; ls /usr/lib/*/libpocl.so.* 2>/dev/null
	echo "== apt lists"; ls /var/lib/apt/lists 2>/dev/null | head -20
	for p in oclgrind liboclgrind-dev libcjson-dev check libsubunit-dev pocl-opencl-icd \
	         ocl-icd-opencl-dev opencl-c-headers clinfo llvm-14-dev llvm-16-dev llvm-17-dev \
	         llvm-18-dev; do
		echo "== apt-cache policy $p"; apt-cache policy "$p" 2>&1 | head -4
	done
	echo "== apt-cache depends oclgrind"; apt-cache depends oclgrind liboclgrind-dev 2>&1 | head -30
	echo "== ICD files"; ls /etc/OpenCL/vendors/ ${OCL_ICD_VENDORS:-} 2>/dev/null
	echo "== devices"; "$here/clgrade" devices 2>&1
	echo "== CL_KERNEL_LOCAL_MEM_SIZE probe"; "$here/compat-localmem" 2>&1
} > "$facts" 2>&1

# One field of the JSON report (python3 where present; "?" where not).
summary() {
	python3 - "$1" <<'PY' 2>/dev/null || printf '?\t?\t?\t?\t?\t?\t?\t?\n'
import json, sys
j = json.load(open(sys.argv[1]))
first = next((c["id"] for c in j.get("criteria", []) if c.get("passed") is False), "-")
lm = j.get("local_memory", {})
t = j.get("timing") or {}
d = j.get("device", {})
sp = t.get("speedup")
print("\t".join(str(x) for x in (first, lm.get("bytes_per_group", "?"), lm.get("source", "-"),
      lm.get("runtime_bytes", "-"), "-" if lm.get("declared_bytes") is None else lm["declared_bytes"],
      "%.2f" % sp if isinstance(sp, (int, float)) else "-", d.get("local_mem_type", "?"),
      d.get("max_work_group_size", "?"))))
PY
}

# What a fixture's first line says it must do: the criterion in "// lesson 2 - must fail: X
# (...", or "pass" for "must pass".
expect_of() {
	sed -n '1s/.*must fail: \([a-z_]*\).*/\1/p; 1s/.*must pass.*/pass/p' "$1"
}

printf 'platform\tdevice\tlesson\tkernel\texpect\texit\tverdict\tfirst_failure\tlocal_bytes\tlocal_source\truntime_bytes\tdeclared_bytes\tspeedup\tlocal_mem_type\tmax_wg\twall_s\n' > "$tsv"
root="$CLGRADE_ROOT"
for dev in "$@"; do
	for n in 1 2 3 4 5 6 7 8 9; do
		sol=$(ls "$root"/kernels/solutions/0$n-*.cl 2>/dev/null | head -n1)
		[ -n "$sol" ] || continue
		slug=$(basename "$sol" .cl)
		for k in "$sol" "$root/kernels/starter/$slug.cl" "$root"/tests/fixtures/l${n}_*.cl; do
			[ -f "$k" ] || continue
			case "$k" in
			*/solutions/*) name="solution"; expect=pass ;;
			*/starter/*) name="starter"; expect=fail ;;
			*) name=$(basename "$k" .cl); expect=$(expect_of "$k") ;;
			esac
			# the options a fixture's first line asks for (l2_local_64k: --local-mem 49152)
			opts=$(sed -n '1s/.*\(--local-mem [0-9][0-9]*\).*/\1/p' "$k")
			j="$out/json/$tag-${dev:-default}-$n-$name.json"
			t0=$(date +%s.%N)
			"$here/clgrade" check "$n" "$k" --no-analysis $opts ${dev:+--device "$dev"} --json "$j" \
			    > "$j.txt" 2>&1
			rc=$?
			t1=$(date +%s.%N)
			plat=$(sed -n 's/.*"platform":[[:space:]]*"\([^"]*\)".*/\1/p' "$j" 2>/dev/null | head -n1)
			dname=$(sed -n 's/.*"name":[[:space:]]*"\([^"]*\)".*/\1/p' "$j" 2>/dev/null | head -n1)
			verdict=$(sed -n 's/.*"verdict":[[:space:]]*"\([^"]*\)".*/\1/p' "$j" 2>/dev/null | head -n1)
			printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.1f\n' "${plat:-(not opened: ${dev:-default})}" "${dname:-?}" "$slug" \
			    "$name" "$expect" "$rc" "${verdict:-?}" "$(summary "$j")" \
			    "$(echo "$t1 - $t0" | awk '{print $1 - $3}')" >> "$tsv"
		done
	done
done
echo "wrote $tsv and $facts"
