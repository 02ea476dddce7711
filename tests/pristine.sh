#!/bin/sh
# pristine.sh — build the tree `make test` runs in, so that the tests never see a student's work.
#
#   sh tests/pristine.sh DIR
#
# A student solves the lessons by editing kernels/starter/*.cl in place; tests that expect a
# starter to fail would then turn red.  So the tests run inside DIR: the working tree's tracked
# files (tests, fixtures, lesson texts as edited), except kernels/starter/ and
# kernels/solutions/, which come from git's HEAD when the suite is a git clone.  DIR/build
# links to the real build outputs (clgrade, the tracer plugin, the Oclgrind ICD, the test
# binaries) but keeps its own build/status and build/hints, so the tests do not touch the
# student's progress either; its build/pocl-seed and build/pocl-builds are kept from one run to the next.  Without git the working tree's kernels are used, and it says so.
set -eu
dir=${1:?usage: sh tests/pristine.sh DIR}
root=$(pwd)
case $dir in /*) ;; *) dir=$root/$dir ;; esac
# The grader's PoCL caches of the last run are kept (build/pocl-seed, filled by the grader's own
# kernels, and build/pocl-builds, the probe's builds of each text; both bounded by the grader):
# the suite grades the same kernels every time, and compiling them is a large part of its CPU
# time.  KEEP_POCL_CACHE=0 starts from empty ones.
keep=""
if [ "${KEEP_POCL_CACHE:-1}" != 0 ]; then
	for c in pocl-seed pocl-builds localmem-pocl-cache; do
		if [ -d "$dir/build/$c" ] && [ ! -L "$dir/build/$c" ]; then
			[ -n "$keep" ] || keep=$(mktemp -d "$(dirname "$dir")/.pocl-cache-XXXXXX")
			mv "$dir/build/$c" "$keep/"
		fi
	done
fi
rm -rf "$dir"
mkdir -p "$dir/build"
if [ -n "$keep" ]; then
	for c in pocl-seed pocl-builds localmem-pocl-cache; do
		[ -d "$keep/$c" ] && mv "$keep/$c" "$dir/build/"
	done
	rm -rf "$keep"
fi
if git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1 &&
   git -C "$root" cat-file -e HEAD:kernels/starter 2>/dev/null; then
	# tracked files as they are now (deleted ones skipped), then the kernels as committed
	git -C "$root" ls-files -z | (cd "$root" && xargs -0 sh -c \
		'for f; do [ -f "$f" ] && printf "%s\0" "$f"; done' sh) |
		(cd "$root" && tar --null -T - -cf -) | tar -xf - -C "$dir"
	rm -rf "$dir/kernels/starter" "$dir/kernels/solutions"
	git -C "$root" archive HEAD kernels/starter kernels/solutions | tar -xf - -C "$dir"
	echo "tests grade kernels/starter and kernels/solutions as committed (git HEAD), in $dir"
else
	(cd "$root" && tar --exclude=./build --exclude=./.git -cf - .) | tar -xf - -C "$dir"
	echo "not a git clone: tests grade kernels/starter as it is now (a solved lesson's" \
	     "starter-fails tests will fail)"
fi
for f in clgrade libcltrace.so liboclquiet.so oclgrind-icd tests; do
	[ -e "$root/build/$f" ] && ln -s "$root/build/$f" "$dir/build/$f"
done
exit 0
