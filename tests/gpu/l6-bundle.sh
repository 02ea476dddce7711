#!/bin/sh
# l6-bundle.sh DIR -- the bundle tests/gpu/l6-measure.sh runs on a GPU machine: lib/ and one
# suite root per radius (r1, r2, r3; r3 with lesson 6's fixtures), each with a clgrade built with -DKIND_STENCIL_R=N and
# lesson 6's kernels and baseline rewritten to define R N.  Run from the repo root after `make`.
set -e
DIR=$1
rm -rf "$DIR" && mkdir -p "$DIR/lib"
cp /usr/lib/x86_64-linux-gnu/libcjson.so.1 /usr/lib/x86_64-linux-gnu/libseccomp.so.2 "$DIR/lib/"
cp tests/gpu/l6-measure.sh tests/gpu/l6-verify.sh "$DIR/"
for R in 1 2 3; do
	B=build/r$R
	[ $R = 3 ] && B=build || make -s BUILD=$B CFLAGS="-O2 -g -DKIND_STENCIL_R=$R" $B/clgrade
	D=$DIR/r$R
	mkdir -p $D/build $D/grader/baselines $D/kernels/solutions $D/kernels/starter $D/lessons
	cp $B/clgrade $D/build/
	cp -r lessons/06-stencil-halo $D/lessons/
	for f in grader/baselines/stencil_naive.cl kernels/solutions/06-stencil-halo.cl \
	         kernels/starter/06-stencil-halo.cl; do
		sed "s/^#define R 3/#define R $R/" $f > $D/$f
	done
done
mkdir -p $DIR/r3/tests/fixtures && cp tests/fixtures/l6_*.cl $DIR/r3/tests/fixtures/
