/* confine.h — confine a child that builds or runs a student's code with the kernel's own
 * mechanisms: Landlock (which files it may read, write and execute), a seccomp filter (which
 * system calls it may make), no_new_privs, and rlimits (processes, file size, core dumps).
 *
 * A kernel is native code on PoCL: inline assembly, a call to an undeclared libc function or
 * a stray pointer runs system calls inside the grading child.  Whatever it does, the child may
 * only read what the OpenCL runtime needs plus the lesson's folder, write only its private
 * temporary folder, execute only the programs the runtime runs (PoCL's linker), and never
 * trace, signal or share memory with a process outside its own Landlock domain. */
#ifndef CONFINE_H
#define CONFINE_H

#include <stddef.h>

enum { CONFINE_MAX_PATHS = 64, CONFINE_MAX_DEVS = 32 };

typedef struct confine_policy {
	const char *read[CONFINE_MAX_PATHS];  /* files or folders it may read (NULL-terminated) */
	const char *write[8];                 /* folders it may read, write, create and remove in */
	const char *exec[4];                  /* programs it may execute (the ELF interpreter too) */
	const char *dev[CONFINE_MAX_DEVS];    /* device files it may read, write and ioctl */
	unsigned long nproc;                  /* RLIMIT_NPROC; 0: leave as is */
	unsigned long fsize;                  /* RLIMIT_FSIZE in bytes; 0: leave as is */
} confine_policy;

/* What this kernel offers, probed once: Landlock's ABI version (0: none) and seccomp. */
typedef struct confine_support {
	int landlock_abi;
	int seccomp;
} confine_support;

void confine_probe(confine_support *s);

/* "" when both mechanisms are there; else a sentence naming what is missing, for reports. */
const char *confine_missing(void);

/* The policy every child that builds or runs a kernel gets: the runtime's system folders
 * read-only (with the folders OCL_ICD_VENDORS, its .icd files' libraries and LD_LIBRARY_PATH
 * name, for a runtime installed off the system paths), lesson_dir and extra_read read-only,
 * tmpdir read-write, PoCL's linker executable, the GPU device files.  extra_read may be NULL.  Strings point into p's own
 * storage or are static; p lives as long as the child needs it. */
typedef struct confine_storage {
	char buf[16384];
	size_t used;
} confine_storage;
void confine_default(confine_policy *p, confine_storage *st, const char *lesson_dir,
                     const char *tmpdir, const char *const *extra_read);

/* Apply p to the calling process (and, inherited, to everything it starts): rlimits,
 * no_new_privs, Landlock, then seccomp.  Irreversible.  Returns 0 when every mechanism the
 * kernel offers is in force, -1 with a reason in err otherwise (the caller must not go on). */
int confine_apply(const confine_policy *p, char *err, size_t errlen);

/* Tasks (processes and threads) the calling user runs now: the base of an RLIMIT_NPROC
 * that leaves the runtime its threads but stops a fork bomb. */
unsigned long confine_user_tasks(void);

#endif
