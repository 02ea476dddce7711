#!/bin/sh
# deps.sh — the one list of system packages OpenCL Memory Lab needs, and two verbs on it.
#   deps.sh check    print what is missing (package and install command), exit 2 if anything is
#   deps.sh install  install what is missing with apt-get (sudo when not root); no-op when complete
# Each package is probed by a file or command it ships, so a check costs milliseconds.
set -u

# package   probe (a path, or cmd:NAME for a command on PATH)
PKGS='
gcc                    cmd:gcc
g++                    cmd:g++
make                   cmd:make
pkg-config             cmd:pkg-config
ocl-icd-libopencl1     /usr/lib/x86_64-linux-gnu/libOpenCL.so.1
ocl-icd-opencl-dev     /usr/lib/x86_64-linux-gnu/pkgconfig/OpenCL.pc
opencl-c-headers       /usr/include/CL/cl.h
pocl-opencl-icd        /etc/OpenCL/vendors/pocl.icd
clinfo                 cmd:clinfo
check                  /usr/lib/x86_64-linux-gnu/pkgconfig/check.pc
libsubunit-dev         /usr/lib/x86_64-linux-gnu/pkgconfig/libsubunit.pc
oclgrind               /usr/lib/oclgrind/liboclgrind-rt-icd.so
liboclgrind-dev        /usr/include/oclgrind/Plugin.h
llvm-14-dev            /usr/lib/llvm-14/include/llvm/IR/Instruction.h
libcjson-dev           /usr/lib/x86_64-linux-gnu/pkgconfig/libcjson.pc
'

# Debian's multiarch folder differs off x86_64: rewrite the probes for this machine.
arch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)

missing() {
	echo "$PKGS" | while read -r pkg probe; do
		[ -n "$pkg" ] || continue
		case "$probe" in
		cmd:*) command -v "${probe#cmd:}" >/dev/null 2>&1 || echo "$pkg" ;;
		*) [ -e "$(echo "$probe" | sed "s/x86_64-linux-gnu/$arch/")" ] || echo "$pkg" ;;
		esac
	done
}

case "${1:-check}" in
check)
	m=$(missing | tr '\n' ' ' | sed 's/ $//')
	[ -z "$m" ] && exit 0
	echo "missing Debian package(s): $m -- install them with: sudo make deps   (or: sudo apt-get install $m)"
	exit 2 ;;
install)
	m=$(missing | tr '\n' ' ')
	if [ -z "$m" ]; then echo "deps: all packages present"; exit 0; fi
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	echo "deps: installing $m"
	$sudo apt-get update -qq || exit 1
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $m || exit 1
	m=$(missing | tr '\n' ' ')
	[ -z "$m" ] || { echo "deps: still missing after install: $m"; exit 2; } ;;
*)
	echo "usage: deps.sh check|install" >&2; exit 2 ;;
esac
