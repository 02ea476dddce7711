/* ptrcheck.h — refuse, before any build, a kernel that turns a pointer's value into data.
 *
 * The preprocessed text (preproc.h) is parsed by clang in a confined child (clang -cc1
 * -fsyntax-only -ast-dump=json, OpenCL C 1.2, the 64-bit spir64 target: the pointer size of
 * PoCL on x86-64 and of Oclgrind on a 64-bit host), and the grader walks the JSON syntax tree
 * of the nodes that lie in the kernel's text (clang's own opencl-c-base.h is skipped).
 * Refused (each a "path:L:C: error: ..." line naming the student's file):
 *   - a cast between a pointer and an integer, either direction, explicit or implicit, but
 *     the null pointer constant; a pointer used as a truth value ((bool)p, if (p), !p, p && q,
 *     p ? a : b: a comparison with null, and p - K turns that into a test of the address);
 *   - an ordered comparison of pointers (< > <= >=), always: in + K wraps around the address
 *     space for the right K, so `in + K < in` tells the address even within one buffer;
 *   - a difference or an equality test (- == !=) of two pointers unless both are derived, by
 *     pointer arithmetic and element-pointer casts only, from the same parameter, array or
 *     variable (p - A and p != A + n with p = A + k stay allowed: modulo 2^64 they depend on
 *     k and n only; p - q across buffers, p == 0 do not);
 *   - a union with a pointer member; a pointer cast that makes a pointer's memory readable as
 *     something other than a pointer or the other way round ((__private ulong *)&p,
 *     (void *)&p, (__global float **)out, a struct holding a pointer seen as another type);
 *     __builtin_astype / as_T of a pointer; a clang __builtin_ given a pointer
 *     (__builtin_is_aligned(p, 64), __builtin_memcpy(&x, &p, 8)) or one that yields an address
 *     (__builtin_frame_address);
 *   - a syntax tree the grader cannot read: clang crashed or ran out of time, the dump is over
 *     64 MiB, or it is nested deeper than cJSON parses (an expression nested ~450 levels deep).
 * Allowed: pointer arithmetic (A + r * N), casts between element pointer types
 * ((__global const float4 *)in), vload/vstore, address spaces, __local arrays, NULL
 * initialisers.  A kernel clang cannot compile is not refused for that here (unless a finding
 * is in what clang could parse): its build fails with the compiler's own message. */
#ifndef PTRCHECK_H
#define PTRCHECK_H

#include <limits.h>
#include <stddef.h>

#include "confine.h"
#include "sandbox.h"

typedef enum { PTRCHECK_OK, PTRCHECK_REFUSED, PTRCHECK_ERROR } ptrcheck_result;

/* The size tests of a kernel the check accepted (ptrcheck_size.c says what one is): not a
 * refusal, but what the analysis cannot vouch for (criteria.c).  n of them, the first at
 * "path:L:C" (placed as the findings are); tests of divisibility by powers of two apart. */
typedef struct ptrcheck_sizes {
	int n;
	char first[640];
	int how;                 /* the first's: 0 the size with a constant, 1 sizes with each
	                            other, 2 a value of the size alone as a truth value */
	unsigned div_mask;       /* bit k: `X % 2^k == 0` (or != 0) of the size, kept apart */
	char div_first[640];     /* the first of those, "path:L:C" */
	int ngroup;              /* a group's (or global) id compared with a constant */
	char group_first[640];
	int group_how;           /* the first's: 0 a group's id, 1 a global id */
} ptrcheck_sizes;

/* One check in flight: clang's AST dump in a confined child. */
typedef struct ptrcheck_run {
	char in[PATH_MAX + 32], out[PATH_MAX + 32], err[PATH_MAX + 32], interp[PATH_MAX];
	const char *clang;
	char *text;              /* the text clang parses (a copy) */
	confine_policy pol;
	confine_storage cst;
	sandbox_limits lim;
	sandbox_child child;
	int started;
} ptrcheck_run;

/* Start checking text (preprocessed and vetted: the text every compiler will see) with the
 * clang at clang_path, files in tmpdir named with tag (a TILE), the child confined (confine.h,
 * lesson_dir readable) when confine is set, for at most timeout_s (<= 0 or over 20: 20 s),
 * within mem_bytes of address space (0, or over 2 GiB: 2 GiB).
 * 0, or -1 with a reason in msg (a grader failure). */
int ptrcheck_start(ptrcheck_run *r, const char *clang_path, const char *text,
                   const char *lesson_dir, const char *tmpdir, int tag, int confine,
                   double timeout_s, size_t mem_bytes, char *msg, size_t msglen);

/* Wait for a started check and judge the tree.  PTRCHECK_OK; PTRCHECK_REFUSED with
 * "path:L:C: error: ..." lines in msg, at most 8, in source order (path: kernel_path for the
 * "<kernel>" file, else the name the #line markers give; L: the line in that file; C: the
 * column in source, the student's text before preprocessing, of the same token, or of the
 * macro use that made it; source NULL: the column in the preprocessed text);
 * PTRCHECK_ERROR when the grader itself failed (msg says why).  Removes the check's files.
 * *sz (when not NULL): the size tests of an accepted kernel (n 0 otherwise). */
ptrcheck_result ptrcheck_finish(ptrcheck_run *r, const char *kernel_path, const char *source,
                                char *msg, size_t msglen, ptrcheck_sizes *sz);

/* The judgement alone: json is clang's -ast-dump=json of text, read from the file main_file
 * (the name clang was given).  PTRCHECK_OK or PTRCHECK_REFUSED as above. */
ptrcheck_result ptrcheck_ast(const char *json, size_t json_len, const char *text,
                             const char *main_file, const char *kernel_path, const char *source,
                             char *msg, size_t msglen, ptrcheck_sizes *sz);

#endif
