#!/bin/sh
# quick device check: every solution and starter on NVIDIA and on the host's PoCL, --no-analysis
# Copy it into the bundle (cp tests/compat-quick.sh build/dev-compat/quick.sh) and run it on the
# GPU host with OUT set: sh build/dev-compat/quick.sh  (one line per check, JSON and text in $OUT)
here=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH="$here/lib"; export CLGRADE_ROOT="$here/root"
v="$OUT/vendors"; mkdir -p "$v"; cp /etc/OpenCL/vendors/*.icd "$v/" 2>/dev/null; echo libnvidia-opencl.so.1 > "$v/nvidia.icd"; export OCL_ICD_VENDORS="$v"
"$here/clgrade" devices 2>&1 | head -20
cd "$here/root"
for dev in NVIDIA Portable; do
 for f in kernels/solutions/*.cl kernels/starter/*.cl tests/fixtures/l5_pocl_miscompiled_tree.cl; do
  b=$(basename $f .cl); l=$(echo $b | sed -nE 's/^0?([0-9])-.*/\1/p'); [ -z "$l" ] && l=5
  t0=$(date +%s.%N)
  "$here/clgrade" check $l $f --device $dev --no-analysis --seed 1 --json "$OUT/$dev-$(dirname $f | tr / _)-$b.json" > "$OUT/$dev-$(dirname $f | tr / _)-$b.txt" 2>&1
  rc=$?; t1=$(date +%s.%N)
  echo "$dev $f rc=$rc $(grep -m1 verdict "$OUT/$dev-$(dirname $f | tr / _)-$b.txt") $(awk -v a="$t0" -v b="$t1" "BEGIN { printf \"%.1f\", b - a }") s"
 done
done
