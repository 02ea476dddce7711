#!/bin/sh
# deps.sh — the one list of system packages OpenCL Memory Lab needs, and its verbs.
#   deps.sh check    print what is missing (package and install command), exit 2 if anything is
#   deps.sh install  install what is missing with apt-get (sudo when not root); no-op when complete
#   deps.sh install tests   the same, with the test suite's packages too (Slurm, Chromium and
#                    libpng for test_html: `make deps`)
#   deps.sh llvm     the LLVM major version the distribution's Oclgrind was built with
#   deps.sh slurm    exit 0 when the Slurm test's packages are installed, else print what is
#                    missing and how to install it, exit 2 (test_slurm.c skips then)
# Each package is probed by a file or command it ships, so a check costs milliseconds.
# Releases: Debian 12 and Ubuntu 24.04 use the same package names (on Ubuntu the OpenCL tools
# are in the universe component).  The tracer plugin must be built against the LLVM that
# liboclgrind links (Debian 12 and Ubuntu 24.04: LLVM 14), read from the library itself.
set -u

# package   probe (paths separated by |: any one present; cmd:NAME for a command on PATH)
PKGS='
gcc                    cmd:gcc
g++                    cmd:g++
make                   cmd:make
pkg-config             cmd:pkg-config
binutils               cmd:objdump
ocl-icd-libopencl1     /usr/lib/x86_64-linux-gnu/libOpenCL.so.1
ocl-icd-opencl-dev     /usr/lib/x86_64-linux-gnu/pkgconfig/OpenCL.pc
opencl-c-headers       /usr/include/CL/cl.h
pocl-opencl-icd        /etc/OpenCL/vendors/pocl.icd
clinfo                 cmd:clinfo
check                  /usr/lib/x86_64-linux-gnu/pkgconfig/check.pc
libsubunit-dev         /usr/lib/x86_64-linux-gnu/pkgconfig/libsubunit.pc
oclgrind               /usr/lib/oclgrind/liboclgrind-rt-icd.so|/usr/lib/x86_64-linux-gnu/oclgrind/liboclgrind-rt-icd.so
liboclgrind-dev        /usr/include/oclgrind/Plugin.h
libcjson-dev           /usr/lib/x86_64-linux-gnu/pkgconfig/libcjson.pc
libseccomp-dev         /usr/lib/x86_64-linux-gnu/pkgconfig/libseccomp.pc
clang                  cmd:clang
zip                    cmd:zip
unzip                  cmd:unzip
'

# Only for the Slurm test (tests/integration/test_slurm.c, a one-node cluster): no build or
# check needs them, so `deps.sh check` leaves them out and a plain `deps.sh install` (what
# Gradescope's setup.sh runs) does not install them; `make deps` (`deps.sh install tests`)
# does.  `make test` installs nothing: without them test_slurm says it skipped, and why.
# All four are in Debian 12's main (Slurm 22.05, munge 0.5.15) and Ubuntu 24.04's universe.
SLURM_PKGS='
munge                  cmd:munged
slurmctld              cmd:slurmctld
slurmd                 cmd:slurmd
slurm-client           cmd:sbatch
'

# Only for test_html (tests/integration/test_html.c): headless Chromium loads the HTML reports,
# libpng decodes its screenshots.  Like Slurm's, `make deps` installs them, a plain
# `deps.sh install` does not, and test_html says SKIPPED without them.  Both are in Debian 12's
# main; Ubuntu 24.04's chromium package only installs the snap, which a container may not run
# (test_html then skips its browser checks).
HTML_TEST_PKGS='
chromium               cmd:chromium
libpng-dev             /usr/include/png.h
'

# Debian's multiarch folder differs off x86_64: rewrite the probes for this machine.
arch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)

# This release, as "debian 12" or "ubuntu 24.04".
release() {
	(. /etc/os-release 2>/dev/null && echo "${ID:-unknown} ${VERSION_ID:-?}") || echo "unknown ?"
}

# The LLVM major version liboclgrind links (libLLVM-14.so.1, or libLLVM.so.18.1 from LLVM 18);
# before Oclgrind is installed, the version the release's Oclgrind is known to use.
llvm_major() {
	lib=$(ls /usr/lib/"$arch"/liboclgrind.so /usr/lib/"$arch"/liboclgrind-*.so 2>/dev/null | head -n1)
	v=""
	if [ -n "$lib" ]; then
		v=$(objdump -p "$lib" 2>/dev/null |
		    sed -n 's/.*NEEDED *libLLVM-\([0-9][0-9]*\).*/\1/p; s/.*NEEDED *libLLVM\.so\.\([0-9][0-9]*\).*/\1/p' |
		    head -n1)
	fi
	if [ -z "$v" ]; then
		case "$(release)" in
		"debian 12"|"ubuntu 24.04") v=14 ;;   # oclgrind 21.10 on both, linked with LLVM 14
		*) v=14 ;;                            # unverified release: the known default
		esac
	fi
	echo "$v"
}

all_pkgs() {
	echo "$PKGS"
	n=$(llvm_major)
	echo "llvm-$n-dev /usr/lib/llvm-$n/include/llvm/IR/Instruction.h"
}

missing() {
	{ if [ -n "${1:-}" ]; then echo "$1"; else all_pkgs; fi; } | while read -r pkg probe; do
		[ -n "$pkg" ] || continue
		case "$probe" in
		cmd:*) command -v "${probe#cmd:}" >/dev/null 2>&1 || echo "$pkg" ;;
		*)
			found=""
			for p in $(echo "$probe" | tr '|' ' '); do
				[ -e "$(echo "$p" | sed "s/x86_64-linux-gnu/$arch/")" ] && found=1
			done
			[ -n "$found" ] || echo "$pkg" ;;
		esac
	done
}

# Packages of the list this release's archive does not offer, from the apt lists.
unavailable() {
	for pkg in "$@"; do
		cand=$(apt-cache policy "$pkg" 2>/dev/null | sed -n 's/^ *Candidate: *//p')
		[ -n "$cand" ] && [ "$cand" != "(none)" ] || echo "$pkg"
	done
}

where_hint() {
	case "$(release)" in
	ubuntu*) echo "on Ubuntu, PoCL, Oclgrind, LLVM 14, Check and cJSON are in the universe component: sudo add-apt-repository universe && sudo apt-get update" ;;
	debian*) echo "check that the apt sources (/etc/apt/sources.list*) name this release's main component, then: sudo apt-get update" ;;
	*) echo "this release is not one the lab was checked on (Debian 12, Ubuntu 24.04): see README.md" ;;
	esac
}

case "${1:-check}" in
check)
	m=$(missing | tr '\n' ' ' | sed 's/ $//')
	[ -z "$m" ] && exit 0
	echo "missing package(s) on $(release): $m -- install them with: sudo make deps   (or: sudo apt-get install $m)"
	exit 2 ;;
install)
	tests=""
	case "${2:-}" in
	"") ;;
	tests) tests=1 ;;
	*) echo "usage: deps.sh install [tests]" >&2; exit 2 ;;
	esac
	m=$(missing | tr '\n' ' ')
	t=""
	[ -z "$tests" ] || t=$(missing "$SLURM_PKGS$HTML_TEST_PKGS" | tr '\n' ' ')
	if [ -z "$m$t" ]; then echo "deps: all packages present ($(release))"; exit 0; fi
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	case "$(release)" in
	"debian 12"|"ubuntu 24.04") ;;
	*) echo "deps: warning: $(release) is not a release the lab was checked on (Debian 12, Ubuntu 24.04); trying the same package names" ;;
	esac
	echo "deps: installing on $(release): $m$t"
	$sudo apt-get update -qq || exit 1
	# shellcheck disable=SC2086
	u=$(unavailable $m $t | tr '\n' ' ' | sed 's/ $//')
	if [ -n "$u" ]; then
		echo "deps: $(release) offers no package named: $u"
		echo "deps: $(where_hint)"
		exit 2
	fi
	if [ -n "$m" ]; then
		# shellcheck disable=SC2086
		DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $m || exit 1
	fi
	if [ -n "$t" ]; then
		# the cluster's daemons only: the test starts its own (tests/slurm-cluster.sh);
		# chromium without its recommends (no desktop integration)
		# shellcheck disable=SC2086
		DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $t ||
			exit 1
		t=$(missing "$SLURM_PKGS$HTML_TEST_PKGS" | tr '\n' ' ')
		[ -z "$t" ] || { echo "deps: still missing after install: $t"; exit 2; }
	fi
	# Oclgrind is in now: its LLVM decides the llvm-N-dev the plugin is built against
	m=$(missing | tr '\n' ' ')
	if [ -n "$m" ]; then
		# shellcheck disable=SC2086
		DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $m || exit 1
	fi
	m=$(missing | tr '\n' ' ')
	[ -z "$m" ] || { echo "deps: still missing after install: $m"; exit 2; } ;;
llvm)
	llvm_major ;;
slurm)
	m=$(missing "$SLURM_PKGS" | tr '\n' ' ' | sed 's/ $//')
	[ -z "$m" ] && exit 0
	echo "missing package(s) on $(release) for the Slurm test: $m -- install them with: sudo make deps   (or: sudo apt-get install --no-install-recommends $m)"
	exit 2 ;;
*)
	echo "usage: deps.sh check|install [tests]|llvm|slurm" >&2; exit 2 ;;
esac
