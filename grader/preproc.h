/* preproc.h — the student's source as every compiler will see it: preprocessed once, by a
 * real preprocessor that can open nothing but the lesson's own folder.
 *
 * An #include, __has_include, #pragma GCC dependency ... reaches the disk in many spellings
 * (comments, #warning, line splices, macros, token pasting).  Rather than guess at a lexer,
 * clang's own preprocessor resolves them, in a confined child, through a virtual file system
 * (an -ivfsoverlay with fallthrough off) that holds only the lesson folder's files: a file
 * outside it does not exist for the preprocessor, whatever its spelling, so no byte of it and
 * no trace of its existence reaches any output.  The result has no directive left but line
 * markers and known pragmas; it is what PoCL, Oclgrind and a GPU driver compile, so the
 * analysis and the timed run see the same text.  Inline assembly in that text is refused:
 * after preprocessing, no macro or token pasting can hide it.  So is a kernel that turns a
 * pointer's value into data (ptrcheck.h): clang parses the same text, in a second confined
 * child, and the grader judges its syntax tree. */
#ifndef PREPROC_H
#define PREPROC_H

#include "ptrcheck.h"

#include <stddef.h>

/* Where the preprocessor is: the clang on PATH (realpath), or NULL when there is none. */
const char *preproc_clang(void);

typedef struct preproc_job {
	const char *source;      /* the student's text (in memory) */
	const char *kernel_path; /* the student's file, for messages */
	const char *lesson_dir;  /* the only folder the preprocessor sees */
	const char *tmpdir;      /* a private folder for its files */
	int tile;                /* -DTILE= */
	int confine;             /* confine the child (confine.h) */
	double timeout_s;
	size_t mem_bytes;        /* RLIMIT_AS of its children (preprocessor, pointer check); 0, or over
	                            2 GiB: 2 GiB.  The jobs of preproc_run_all run side by side: give
	                            each its share of the check's --memory */
	/* Macro names whose expansion at the end of the file is wanted (lesson 4's CHOSEN_*), or
	 * NULL: each is expanded on a line of its own appended after the source, a part cut off
	 * again before the text is vetted, so no compiler sees it.  On PREPROC_OK, probe_val[i]
	 * holds what the compiler would see for probe[i] there: the name itself when it is not
	 * defined at that point (never defined, #undef'd, or only inside an #if that is off). */
	const char *const *probe;            /* NULL-terminated, at most PREPROC_MAX_PROBE */
	char probe_val[4][64];
	int probed;                          /* probe_val is filled in */
	ptrcheck_sizes sizes;                /* on PREPROC_OK: the kernel's size tests (ptrcheck.h) */
} preproc_job;

enum { PREPROC_MAX_PROBE = 4 };

typedef enum { PREPROC_OK, PREPROC_REFUSED, PREPROC_ERROR } preproc_result;

/* Preprocess j.  PREPROC_OK: *out is the text to compile (malloc'd; #line markers name the
 * student's file "<kernel>").  PREPROC_REFUSED: msg says why, as "path:L:C: error: ..."
 * lines (a `builds` finding: an include that is not there, inline assembly, a directive made
 * by a macro, a pointer's value used as data ...).  PREPROC_ERROR: the grader could not run the preprocessor (msg says why). */
preproc_result preproc_run(preproc_job *j, char **out, char *msg, size_t msglen);

/* n jobs at once (lesson 4's TILEs: the preprocessors run side by side): out[i], msg[i]
 * (each msglen bytes) and r[i] as preproc_run would give them. */
void preproc_run_all(preproc_job *jobs, int n, char **out, char **msg, size_t msglen,
                     preproc_result *r);

/* Check preprocessed text (clang -E output) for what the compilers must never see: inline
 * assembly, _Pragma, directives other than line markers and known pragmas.  0 and *out (the
 * text with each GNU line marker "# 12 \"f\" 2" as "#line 12 \"f\"", malloc'd) when clean;
 * else -1 with "path:L:C: error: ..." in msg (path: kernel_path for "<kernel>" lines). */
int preproc_vet(const char *text, const char *kernel_path, char **out, char *msg, size_t msglen);

#endif
