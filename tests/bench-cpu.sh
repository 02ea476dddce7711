#!/bin/sh
# bench-cpu.sh -- total CPU (perf stat task-clock, children included) of one check per lesson,
# build/bench-base (make bench BASE=rev builds it) against this build, alternating, median of 5
cd "$(dirname "$0")/.." || exit 2
med() { sort -n | awk '{v[NR]=$1} END {print (NR%2)?v[(NR+1)/2]:(v[NR/2]+v[NR/2+1])/2}'; }
for sol in kernels/solutions/*.cl; do
  n=$(basename $sol .cl); n=${n%%-*}
  : > /tmp/pa; : > /tmp/pb
  for i in 1 2 3 4 5; do
    (cd build/bench-base && perf stat -x, -e task-clock build/clgrade check $n $(pwd)/$sol --seed 1 2>&1 >/dev/null | grep task-clock | cut -d, -f1) >> /tmp/pa
    perf stat -x, -e task-clock build/clgrade check $n $sol --seed 1 2>&1 >/dev/null | grep task-clock | cut -d, -f1 >> /tmp/pb
  done
  a=$(med < /tmp/pa); b=$(med < /tmp/pb)
  echo "$(basename $sol .cl) task-clock ms: before $a after $b ratio $(awk -v a=$a -v b=$b 'BEGIN{printf "%.2f", b/a}')"
done
