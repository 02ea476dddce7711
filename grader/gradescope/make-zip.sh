#!/bin/sh
# make-zip.sh LESSON — `make gradescope LESSON=N`: the autograder zip Gradescope takes, with
# setup.sh and run_autograder at its root and the grader's sources (no solutions) beside them.
set -eu
cd "$(dirname "$0")/../.."
n=${1:-}
case "$n" in ''|*[!0-9]*) echo "usage: make gradescope LESSON=N" >&2; exit 2 ;; esac
dir=$(ls -d lessons/"$(printf %02d "$n")"-* 2>/dev/null | head -n1)
[ -n "$dir" ] || { echo "make gradescope: no lesson $n (see lessons/)" >&2; exit 2; }
slug=$(basename "$dir")
stage=build/gradescope/$slug
zip=build/gradescope/autograder-$slug.zip
rm -rf "$stage" "$zip"
mkdir -p "$stage/kernels"
cp -R Makefile grader lessons "$stage/"
cp -R kernels/starter "$stage/kernels/"
cp grader/gradescope/setup.sh grader/gradescope/run_autograder "$stage/"
chmod +x "$stage/setup.sh" "$stage/run_autograder"
echo "$n" > "$stage/clgrade-lesson"
(cd "$stage" && zip -qr ../"$(basename "$zip")" .)
echo "$zip: upload it as the autograder of lesson $slug (Ubuntu image; setup.sh builds the grader)"
