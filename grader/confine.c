/* confine.c — Landlock, seccomp, no_new_privs and rlimits for confine.h.
 *
 * Landlock has no library on Debian 12: the three system calls and the ABI's bit values are
 * its API (this file defines the bits newer than the installed header).  The seccomp filter is
 * a deny-list, built with libseccomp: PoCL, LLVM, Oclgrind and vendor drivers make far too many
 * ordinary calls for an allow-list to stay correct, so it forbids the calls that reach beyond
 * the process (tracing, other processes' memory, sockets, mounts, namespaces, BPF, keyrings,
 * kernel modules, io_uring, in-memory executables ...). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <linux/capability.h>
#include <linux/landlock.h>
#include <sched.h>
#include <seccomp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "confine.h"

/* Landlock ABI bits newer than Debian 12's header. */
#define LL_FS_TRUNCATE   (1ULL << 14)   /* ABI 3 */
#define LL_FS_IOCTL_DEV  (1ULL << 15)   /* ABI 5 */
#define LL_NET_BIND      (1ULL << 0)    /* ABI 4 */
#define LL_NET_CONNECT   (1ULL << 1)
#define LL_SCOPE_ABSTRACT_UNIX (1ULL << 0) /* ABI 6 */
#define LL_SCOPE_SIGNAL  (1ULL << 1)

struct ll_ruleset_attr { uint64_t fs, net, scoped; };   /* sized by ABI at creation */

#define LL_READ   (LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR)
#define LL_WRITE  (LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR | \
                   LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_DIR | \
                   LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SYM)

static int ll_abi(void)
{
	long v = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	return v < 0 ? 0 : (int)v;
}

void confine_probe(confine_support *s)
{
	s->landlock_abi = ll_abi();
	s->seccomp = prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0;
}

const char *confine_missing(void)
{
	confine_support s;
	confine_probe(&s);
	if (s.landlock_abi && s.seccomp)
		return "";
	return !s.landlock_abi && !s.seccomp ? "this Linux kernel offers neither Landlock nor seccomp" :
	       !s.landlock_abi ? "this Linux kernel offers no Landlock (file-system confinement)" :
	                         "this Linux kernel offers no seccomp (system-call filter)";
}

/* ---- the default policy ------------------------------------------------------------------ */

static const char *keep(confine_storage *st, const char *s)
{
	size_t n = strlen(s) + 1;
	if (st->used + n > sizeof st->buf)
		return NULL;
	char *p = memcpy(st->buf + st->used, s, n);
	st->used += n;
	return p;
}

static void add(const char **list, size_t max, const char *s)
{
	for (size_t i = 0; s && i + 1 < max; i++)
		if (!list[i]) {
			list[i] = s;
			return;
		}
}

/* A runtime installed off the system paths (a bundle's own libraries, an ICD folder of its
 * own): the folders LD_LIBRARY_PATH and OCL_ICD_VENDORS name, and each .icd's library. */
static void runtime_paths(confine_policy *p, confine_storage *st)
{
	const char *lp = getenv("LD_LIBRARY_PATH");
	for (const char *s = lp ? lp : ""; *s;) {
		size_t n = strcspn(s, ":");
		char dir[PATH_MAX];
		if (n && n < sizeof dir && *s == '/') {
			snprintf(dir, sizeof dir, "%.*s", (int)n, s);
			add(p->read, CONFINE_MAX_PATHS, keep(st, dir));
		}
		s += n + (s[n] == ':');
	}
	const char *v = getenv("OCL_ICD_VENDORS");
	if (!v || *v != '/')
		return;
	add(p->read, CONFINE_MAX_PATHS, keep(st, v));
	DIR *d = opendir(v);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		size_t n = strlen(e->d_name);
		char path[PATH_MAX + 300], lib[PATH_MAX] = "";
		if (n < 5 || strcmp(e->d_name + n - 4, ".icd") != 0)
			continue;
		snprintf(path, sizeof path, "%s/%s", v, e->d_name);
		FILE *f = fopen(path, "r");
		if (f && fgets(lib, sizeof lib, f)) {
			lib[strcspn(lib, "\r\n")] = '\0';
			if (lib[0] == '/')
				add(p->read, CONFINE_MAX_PATHS, keep(st, lib));
		}
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
}

void confine_default(confine_policy *p, confine_storage *st, const char *lesson_dir,
                     const char *tmpdir, const char *const *extra_read)
{
	/* What PoCL, the ICD loader, LLVM, Oclgrind and NVIDIA's driver open (strace -f -e
	 * trace=openat on a check): their libraries and data, a few files in /etc, the CPU
	 * topology in /sys and /proc.  No home, no /tmp, no /etc/passwd, no other user's data. */
	static const char *sys_read[] = {
		"/usr", "/lib", "/lib64", "/lib32", "/opt/rocm", "/etc/ld.so.cache", "/etc/ld.so.conf",
		"/etc/ld.so.conf.d", "/etc/OpenCL", "/etc/debian_version", "/etc/os-release",
		"/etc/lsb-release", "/etc/localtime", "/etc/nvidia", "/proc/cpuinfo", "/proc/meminfo",
		"/proc/stat", "/proc/self", "/proc/sys/vm/overcommit_memory", "/proc/driver/nvidia",
		"/sys", NULL,
	};
	static const char *devs[] = { "/dev/null", "/dev/zero", "/dev/full", "/dev/urandom",
	                              "/dev/random", "/dev/kfd", "/dev/dri", NULL };
	memset(p, 0, sizeof *p);
	st->used = 0;
	for (int i = 0; sys_read[i]; i++)
		add(p->read, CONFINE_MAX_PATHS, sys_read[i]);
	add(p->read, CONFINE_MAX_PATHS, keep(st, lesson_dir));
	for (int i = 0; extra_read && extra_read[i]; i++)
		add(p->read, CONFINE_MAX_PATHS, keep(st, extra_read[i]));
	if (tmpdir)
		add(p->write, 8, keep(st, tmpdir));
	for (int i = 0; devs[i]; i++)
		add(p->dev, CONFINE_MAX_DEVS, devs[i]);
	runtime_paths(p, st);
	glob_t g;
	if (glob("/dev/nvidia*", 0, NULL, &g) == 0) {
		/* the NVIDIA device files all live in /dev: one folder rule for /dev would also
		 * open every disk, so the files are named one by one (up to the table's room) */
		for (size_t i = 0; i < g.gl_pathc; i++)
			add(p->dev, CONFINE_MAX_DEVS, keep(st, g.gl_pathv[i]));
		globfree(&g);
	}
	/* PoCL links each kernel with the system linker (strace -f -e trace=execve shows one
	 * execve("/usr/bin/ld") per kernel build); execve also opens the ELF interpreter */
	char real[PATH_MAX];
	if (realpath("/usr/bin/ld", real))
		add(p->exec, 4, keep(st, real));
	if (realpath("/lib64/ld-linux-x86-64.so.2", real))
		add(p->exec, 4, keep(st, real));
	p->fsize = 64UL << 20;
	p->nproc = confine_user_tasks() + 512;
}

unsigned long confine_user_tasks(void)
{
	DIR *d = opendir("/proc");
	unsigned long n = 0;
	uid_t me = getuid();
	struct dirent *e;
	while (d && (e = readdir(d))) {
		char path[300], line[256];
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof path, "/proc/%s/status", e->d_name);
		FILE *f = fopen(path, "r");
		unsigned long uid = ULONG_MAX, threads = 1;
		while (f && fgets(line, sizeof line, f)) {
			sscanf(line, "Uid: %lu", &uid);
			sscanf(line, "Threads: %lu", &threads);
		}
		if (f)
			fclose(f);
		if (uid == me)
			n += threads;
	}
	if (d)
		closedir(d);
	return n;
}

/* ---- applying it ------------------------------------------------------------------------- */

static int fail(char *err, size_t len, const char *what)
{
	snprintf(err, len, "%s: %s", what, strerror(errno));
	return -1;
}

/* One path-beneath rule; a path that does not exist on this machine is skipped. */
static int ll_rule(int ruleset, const char *path, uint64_t access, uint64_t handled)
{
	int fd = open(path, O_PATH | O_CLOEXEC);
	if (fd < 0)
		return 0;
	struct stat s;
	if (fstat(fd, &s) == 0 && !S_ISDIR(s.st_mode))   /* directory-only rights on a file: EINVAL */
		access &= LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |
		          LANDLOCK_ACCESS_FS_READ_FILE | LL_FS_TRUNCATE | LL_FS_IOCTL_DEV;
	struct landlock_path_beneath_attr pb = { .allowed_access = access & handled, .parent_fd = fd };
	long rc = syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &pb, 0);
	close(fd);
	return rc < 0 ? -1 : 0;
}

static int landlock(const confine_policy *p, int abi, char *err, size_t len)
{
	struct ll_ruleset_attr a = { 0 };
	a.fs = LANDLOCK_ACCESS_FS_EXECUTE | LL_READ | LL_WRITE | LANDLOCK_ACCESS_FS_MAKE_CHAR |
	       LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO |
	       LANDLOCK_ACCESS_FS_MAKE_BLOCK;
	if (abi >= 2)
		a.fs |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= 3)
		a.fs |= LL_FS_TRUNCATE;
	if (abi >= 5)
		a.fs |= LL_FS_IOCTL_DEV;
	size_t size = sizeof a.fs;
	if (abi >= 4) {
		a.net = LL_NET_BIND | LL_NET_CONNECT;    /* no rule: no TCP at all */
		size = offsetof(struct ll_ruleset_attr, scoped);
	}
	if (abi >= 6) {
		a.scoped = LL_SCOPE_ABSTRACT_UNIX | LL_SCOPE_SIGNAL;  /* no signal leaves the domain */
		size = sizeof a;
	}
	int rs = (int)syscall(SYS_landlock_create_ruleset, &a, size, 0);
	if (rs < 0)
		return fail(err, len, "landlock_create_ruleset");
	uint64_t wr = LL_READ | LL_WRITE | LL_FS_TRUNCATE | LANDLOCK_ACCESS_FS_REFER;
	uint64_t dev = LL_READ | LANDLOCK_ACCESS_FS_WRITE_FILE | LL_FS_TRUNCATE | LL_FS_IOCTL_DEV;
	int bad = 0;
	for (int i = 0; i < CONFINE_MAX_PATHS && p->read[i]; i++)
		bad |= ll_rule(rs, p->read[i], LL_READ, a.fs);
	for (int i = 0; i < 8 && p->write[i]; i++)
		bad |= ll_rule(rs, p->write[i], wr, a.fs);
	for (int i = 0; i < CONFINE_MAX_DEVS && p->dev[i]; i++)
		bad |= ll_rule(rs, p->dev[i], dev, a.fs);
	for (int i = 0; i < 4 && p->exec[i]; i++)
		bad |= ll_rule(rs, p->exec[i], LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE, a.fs);
	if (bad) {
		close(rs);
		return fail(err, len, "landlock_add_rule");
	}
	long rc = syscall(SYS_landlock_restrict_self, rs, 0);
	close(rs);
	return rc < 0 ? fail(err, len, "landlock_restrict_self") : 0;
}

static int seccomp(char *err, size_t len)
{
	static const char *deny[] = {
		"ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd",
		"socket", "socketpair", "connect", "bind", "listen", "accept", "accept4",
		"mount", "umount2", "pivot_root", "chroot", "mount_setattr", "fsopen", "fsmount",
		"fsconfig", "fspick", "move_mount", "open_tree", "unshare", "setns",
		"bpf", "perf_event_open", "userfaultfd", "keyctl", "add_key", "request_key",
		"kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module",
		"open_by_handle_at", "name_to_handle_at", "swapon", "swapoff", "reboot", "acct",
		"quotactl", "syslog", "iopl", "ioperm", "fanotify_init", "io_uring_setup",
		"io_uring_enter", "io_uring_register", "lookup_dcookie", "vhangup", "settimeofday",
		"clock_settime", "adjtimex", "clock_adjtime", "memfd_create", "memfd_secret",
		"execveat", "migrate_pages", "move_pages", "process_madvise", "setdomainname",
		"sethostname",
		/* a process that leaves its process group would outlive the kill that ends the check */
		"setsid", "setpgid",
		NULL,
	};
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx)
		return fail(err, len, "seccomp_init");
	int rc = 0;
	for (int i = 0; deny[i] && rc == 0; i++) {
		int nr = seccomp_syscall_resolve_name(deny[i]);
		if (nr != __NR_SCMP_ERROR)
			rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 0);
	}
	/* threads yes, new namespaces no; clone3 hides its flags in memory: ENOSYS makes glibc
	 * fall back to clone */
	const uint64_t ns = CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER |
	                    CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWCGROUP;
	for (uint64_t f = 1; f && rc == 0; f <<= 1)
		if (ns & f)
			rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
			                      SCMP_A0(SCMP_CMP_MASKED_EQ, f, f));
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
	/* no typing into a terminal; no changing another process' limits */
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1,
		                      SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, TIOCSTI));
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1,
		                      SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, TIOCLINUX));
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(prlimit64), 1,
		                      SCMP_A0(SCMP_CMP_NE, 0));
	if (rc == 0)
		rc = seccomp_load(ctx);
	seccomp_release(ctx);
	if (rc != 0) {
		errno = -rc;
		return fail(err, len, "seccomp");
	}
	return 0;
}

/* A grader run as root: give up every capability, so root's exemptions (file permissions,
 * rlimits) do not reach the student's code.  Landlock binds root too. */
static int drop_caps(char *err, size_t len)
{
	if (geteuid() != 0 && getuid() != 0)
		return 0;
	for (int c = 0; c <= 63; c++)
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0 && errno != EINVAL)
			return fail(err, len, "PR_CAPBSET_DROP");
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	memset(d, 0, sizeof d);
	if (syscall(SYS_capset, &h, d) < 0)
		return fail(err, len, "capset");
	return 0;
}

int confine_apply(const confine_policy *p, char *err, size_t errlen)
{
	struct rlimit core = { 0, 0 };
	setrlimit(RLIMIT_CORE, &core);
	if (p->fsize) {
		struct rlimit fs = { p->fsize, p->fsize };
		setrlimit(RLIMIT_FSIZE, &fs);
	}
	if (p->nproc) {
		struct rlimit np = { p->nproc, p->nproc };
		setrlimit(RLIMIT_NPROC, &np);
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return fail(err, errlen, "no_new_privs");
	int abi = ll_abi();
	if (abi > 0 && landlock(p, abi, err, errlen) < 0)
		return -1;
	confine_support s;
	confine_probe(&s);
	if (s.seccomp && seccomp(err, errlen) < 0)
		return -1;
	return drop_caps(err, errlen);
}
