#!/bin/sh
# merged-h200.sh -- on a GPU machine, from a bundle made here by:
#   D=build/dev-final; mkdir -p $D/build $D/lib $D/grader $D/tests; cp build/clgrade $D/build/;
#   cp /usr/lib/x86_64-linux-gnu/libcjson.so.1 /usr/lib/x86_64-linux-gnu/libseccomp.so.2 $D/lib/;
#   cp -r lessons kernels $D/; cp -r grader/baselines $D/grader/; cp -r tests/fixtures $D/tests/;
#   cp tests/gpu/merged-h200.sh $D/run.sh   (then on the GPU machine: cd $D && sh run.sh)
# the merged main's solutions and starters of lessons 6 and 7 (5 checks each), and lessons 2, 3
# and 5's solutions once, on NVIDIA's OpenCL, --no-analysis
mkdir -p /etc/OpenCL/vendors; echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/lib:$LD_LIBRARY_PATH
build/clgrade devices | head -5
s() { python3 -c "
import json,sys
d=json.load(open(sys.argv[2])); t=d.get('timing') or {}
bad=[c['id']+':'+c['status'] for c in d['criteria'] if c['status']!='pass']
print(sys.argv[1], d['verdict'], 'speedup', t.get('speedup'), 'ms', t.get('kernel_ms'), t.get('baseline_ms'), 'gflops', t.get('gflops'), bad)" "$1" "$2"; }
for l in 6 7; do for i in 1 2 3 4 5; do
  build/clgrade check $l kernels/solutions/0$l-*.cl --device NVIDIA --no-analysis --json /tmp/r.json > /tmp/r.txt 2>&1; echo "exit $?"; s "L$l-solution-$i" /tmp/r.json
done; done
for l in 6 7; do build/clgrade check $l kernels/starter/0$l-*.cl --device NVIDIA --no-analysis --json /tmp/r.json > /tmp/r.txt 2>&1; echo "exit $?"; s "L$l-starter" /tmp/r.json; done
for l in 2 3 5; do build/clgrade check $l kernels/solutions/0$l-*.cl --device NVIDIA --no-analysis --json /tmp/r.json > /tmp/r.txt 2>&1; echo "exit $?"; s "L$l-solution" /tmp/r.json; done
