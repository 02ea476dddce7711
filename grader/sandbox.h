/* sandbox.h — run untrusted work in a child process with a wall-time limit and rlimits.
 *
 * A student's kernel can hang, or write out of bounds and corrupt the host heap under PoCL
 * (a crash of the *host* process).  So every OpenCL call happens in a child forked before any
 * OpenCL initialisation; results come back through shared memory the parent mapped first, so
 * whatever the child wrote before dying survives it. */
#ifndef SANDBOX_H
#define SANDBOX_H

#include <stddef.h>
#include <sys/stat.h>

#include "confine.h"

typedef struct sandbox_limits {
	double timeout_s;    /* wall-time limit; <= 0: none */
	size_t mem_bytes;    /* address-space limit (RLIMIT_AS); 0: none */
	const char *log_path;/* child's stdout+stderr go here (truncated); NULL: /dev/null; "": inherited */
	const confine_policy *confine; /* applied in the child before fn runs (confine.h); NULL: none */
	size_t log_cap;      /* the log is cut to this many bytes when the child ends; 0: no cut */
} sandbox_limits;

typedef enum { SANDBOX_EXITED, SANDBOX_SIGNALED, SANDBOX_TIMEOUT, SANDBOX_FAILED } sandbox_end;

/* A child that could not be confined exits with this status before running fn; sandbox_wait
 * reports it as SANDBOX_FAILED (a grader failure, never the student's). */
enum { SANDBOX_CONFINE_FAILED = 126 };

typedef struct sandbox_status {
	sandbox_end end;
	int code;            /* exit status, or the signal number */
	double wall_s;
	char what[160];      /* "exited 0", "killed by SIGSEGV (segmentation fault)", "timed out after 20 s" */
} sandbox_status;

/* In a child that will run student code (sandbox_spawn does it for every confined child,
 * before confine_apply): drop every environment variable but those the OpenCL runtimes,
 * the tracer and the preprocessor read (PATH, LD_LIBRARY_PATH, TMPDIR, LANG, LANGUAGE and
 * POCL_*, OCLGRIND_*, OCL_ICD_*, CLTRACE_*, CUDA_*, __GL_*, NVIDIA_*, GPU_*, AMD_*, HSA_*,
 * ROCR_*, LC_*), and wipe their bytes, so native kernel code that reads its own memory or
 * /proc/self/environ finds none of the grader's environment to copy into a report. */
void sandbox_scrub_env(void);

/* Shared, zeroed memory visible to parent and child; NULL on failure. */
void *sandbox_shared(size_t size);
void sandbox_unshare(void *p, size_t size);

/* A running child, for running two at once (the check and its analysis). */
typedef struct sandbox_child {
	int pid;
	double t0;
	sandbox_limits lim;
} sandbox_child;

/* Start fn(arg) in a limited child (0, or -1 when fork failed); sandbox_wait waits for it
 * until its own deadline, then kills its process group.  Same outcome as sandbox_run. */
int sandbox_spawn(int (*fn)(void *arg), void *arg, const sandbox_limits *lim, sandbox_child *c);
int sandbox_wait(sandbox_child *c, sandbox_status *st);

/* Fork, apply limits, run fn(arg) in the child and _exit with its return value; wait at most
 * timeout_s, then kill the child's whole process group.  Returns 0 when the child ran (see
 * st->end for how it ended), -1 when it could not be started. */
int sandbox_run(int (*fn)(void *arg), void *arg, const sandbox_limits *lim, sandbox_status *st);

/* A private temporary folder (mode 0700) under $TMPDIR or /tmp, named clgrade-<pid>-XXXXXX,
 * removed with everything in it by sandbox_tmp_remove, or by the signal handlers when the
 * grader is interrupted (SIGINT, SIGTERM, SIGHUP), or else by the next run's
 * sandbox_tmp_sweep.  0, or -1 when it cannot be made. */
int sandbox_tmp_make(char *dir, size_t len);
void sandbox_tmp_remove(const char *dir);

/* Remove the clgrade-<pid>-* folders of runs whose process is gone (killed with SIGKILL, a
 * power cut): a killed run's leftovers go with the next run. */
void sandbox_tmp_sweep(void);

/* Open path for reading only if it is a regular file, in one open: never blocking on a FIFO
 * or a device, and with nofollow never through a link as its last component.  The
 * descriptor (*st filled), or -1 with errno (EINVAL: not a regular file).  Untrusted files
 * (a student's kernel, batch's submissions) are read from that descriptor only. */
int sandbox_open_regular(const char *path, int nofollow, struct stat *st);

/* Bytes of address space the calling process holds now (/proc/self/statm), 0 when unknown:
 * the base of an RLIMIT_AS set once a runtime has made its reservations. */
size_t sandbox_address_space(void);

/* Copy the regular files and folders under from into to (made if missing; no link followed,
 * names starting with '.' left out, a file already in to kept).  0, or -1 when something could not be copied. */
int sandbox_copytree(const char *from, const char *to);

/* The first max bytes of the file at path, NUL-terminated (malloc'd), *len the bytes read (more
 * than max when the file is longer); NULL when it cannot be opened.  For files a child wrote. */
char *sandbox_slurp(const char *path, size_t max, size_t *len);

/* Remove a folder tree (no symlink followed); the PoCL cache and temp folders use it. */
void sandbox_rmtree(const char *path);

#endif
