#!/usr/bin/env bash
# setup.sh — Gradescope runs this once, as root, when it builds the autograder's image (an
# Ubuntu image; the zip is unpacked into /autograder/source).  It installs the packages of
# grader/deps.sh (the same list as `make deps`) and builds the grader there.
set -euo pipefail
cd "$(dirname "$0")"
sh grader/deps.sh install
make -j"$(nproc)"
