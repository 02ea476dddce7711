/* diag.h — what the student sees of the compiler, and the real cause of a failure.
 *
 * OpenCL compilers report errors against a temporary file (PoCL: ~/.cache/pocl/kcache/
 * tempfile_XXXX.cl; NVIDIA: "<kernel>"); diag_rewrite() puts them back on the student's file
 * with the source line and a caret.  (Which files an #include may open is decided by the
 * confined preprocessor, preproc.h, not here.)
 *
 * The rest names the real cause of a failure from evidence the check gathered, so a student
 * is not sent after the wrong bug: a link error in the runtime's own words, a parameter list
 * that is not the lesson's, barriers and their fences as the source spells them, what the
 * pattern of right and wrong sizes says, an output read before it is written. */
#ifndef DIAG_H
#define DIAG_H

#include <stddef.h>

#include "lesson.h"


/* Rewrite a raw build log.  Lines "error: FILE:L:C: msg" (PoCL) and "FILE:L:C: error: msg"
 * (clang, NVIDIA) become "path:L:C: error: msg" followed by the source line and a caret; lines
 * about other files (an allowed header) keep their own name; driver chatter is dropped.
 * Returns the number of errors found; out is always NUL-terminated. */
int diag_rewrite(const char *raw, const char *source, const char *path, char *out, size_t outlen);

/* First "path:L:C: error: msg" line of a rewritten log, or "" (for one-line summaries). */
void diag_first_error(const char *rewritten, char *out, size_t outlen);

/* ---- diagnoses that name the real cause ------------------------------------------------ */

/* For a failed build whose log has no located error (a link step: PoCL's "Cannot find
 * symbol dot_row in kernel library", ptxas's "Unresolved extern function 'dot_row'"): append
 * the runtime's own lines to out as one "path[:L:C]: error: <runtime's text>" line, located
 * at the first mention of the symbol it names when the source has one.  Returns 1 when it
 * wrote an error, 0 when the log held nothing to show. */
int diag_unlocated(const char *raw, const char *source, const char *path, char *out,
                   size_t outlen);

/* One kernel argument as the runtime describes it (clGetKernelArgInfo). */
typedef enum { DIAG_ARG_GLOBAL, DIAG_ARG_LOCAL, DIAG_ARG_CONSTANT, DIAG_ARG_PRIVATE } diag_addr;
typedef struct diag_arg {
	char type[64];            /* "float*", "int" ("" when the runtime did not say) */
	char name[64];
	diag_addr addr;
} diag_arg;

/* Compare a kernel's arguments with what the lesson passes: names (NULL-terminated, the
 * kind's args) of n_inputs float input buffers (__global, or __constant), one float output
 * buffer (__global), then int scalars.  nargs from CL_KERNEL_NUM_ARGS; args may be NULL when
 * the runtime gives no argument info (then only the count is judged).  0 when it matches,
 * else -1 and "the lesson passes (A, B, C, N); your kernel takes 6 arguments (...): why". */
int diag_signature(const char *const *names, int n_inputs, const diag_arg *args, int nargs,
                   char *msg, size_t len);

/* 1 when the source (comments and strings aside) calls barrier() or work_group_barrier(). */
int diag_has_barrier(const char *source);

/* The source as the preprocessor's directives see it (diag.c's one cleaning: line splices
 * joined, comments blanked, literals kept, every line at its number), malloc'd; NULL when
 * out of memory. */
char *diag_clean(const char *source);

/* How many subscripts follow the array name on source line `line` (its most, over the
 * line's uses: 2 for tile[r][c], 1 for a flat tile[r * W + c]), or 0 when the name is not
 * subscripted there (a macro, a pointer to it, a helper). */
int diag_subscripts(const char *source, int line, const char *name);

/* Line of the first #line directive or GNU line marker (`# 40 "f.cl"`) of the source, as the
 * preprocessor reads it (line splices, comments, trigraphs, `%:`), or 0.  Such a directive
 * would move every location the compilers and the analysis report off the student's file. */
int diag_line_directive(const char *source);

/* Line of the first barrier inside an `if`, with that condition in cond and its line in
 * *cond_line (trace_skip_condition), or 0. */
int diag_barrier_in_if(const char *source, char *cond, size_t len, int *cond_line);

/* Line of the first barrier whose flags name no CLK_LOCAL_MEM_FENCE in a source that
 * declares __local memory (a barrier that orders only __global memory around a __local
 * tile), or 0 when there is none. */
int diag_global_only_fence(const char *source);


/* Is `name` a double buffer (declared `name[2]...`) of which every use in the source names
 * one and the same buffer, `name[cur]` (a variable subscript, copied into sub)?  Then a step
 * stages into the buffer it reads: 1, else 0. */
int diag_one_buffer(const char *source, const char *name, char *sub, size_t len);

/* An access to `buffer` on line `line` runs past it under the guard `cond`: what the guard
 * misses of the index, into out ("the guard tests by+ly where the index uses bx+ly", "the
 * guard never tests gy, which the index uses", "the guard bounds y only from below"; sizes:
 * the kind's size arguments, which bound rather than need bounding; below: the access lands
 * before the buffer's start); 1 when found, 0 when the guard seems to cover the index. */
int diag_guard_gap(const char *source, int line, const char *cond, const char *buffer,
                   const char *const *sizes, int below, char *out, size_t len);

/* Does the source lean on warp-synchronous execution: a volatile __local array or pointer and
 * a test `< 32` (CUDA's unrolled last warp, no barrier once 32 work-items are left)? */
int diag_warp_sync(const char *source);

/* A private variable or array declared without a value whose first use adds into it (`float
 * acc;` then `acc += ...`, `acc[i][j] = fma(a, b, acc[i][j])` with no zeroing before): its name,
 * the declaration's line and that use's; 1 when found. */
int diag_unset_sum(const char *source, char *name, size_t len, int *decl, int *use);

/* Is the array `name` declared square (`tile[W][W]`, or padded, `tile[TILE][TILE + 1]`)?  1 also when its declaration is not
 * found (a macro, a pointer); 0 for `Cs[TILE][BT + TILE]`, whose indices cannot be swapped. */
int diag_square(const char *source, const char *name);

/* The condition of the first `?:` on line `line` (`(halo >= 0) ? in[..] : 0` gives "halo >=
 * 0"), into out; 1 when found. */
int diag_ternary_cond(const char *source, int line, char *out, size_t len);

/* Does line `line` of source declare `name` (a variable, array or macro of that name: "const
 * int TILE = 16", "#define TILE 16")?  Words only: TILE2 and MY_TILE are other names. */
int diag_declares(const char *source, int line, const char *name);

/* What the pattern of right and wrong sizes says, for a kernel wrong at some size of lesson
 * l, in its words (lesson_say):
 *   - first the kind's own reading of the pattern (kind.sizes_pattern), when it has one;
 *   - a non-square multiple of TILE is wrong while the square sizes are right: the kind's
 *     mix-up remark and try (rows and cols mixed up), when it has one (mixup_msg non-NULL);
 *   - every wrong size has a partial tile and a size that is a multiple of TILE is right:
 *     edge handling ("right at 32x96, a multiple of TILE=32, and wrong only at ...");
 *   - otherwise a size is right: a hard-coded size or a TILE-multiple assumption.
 * Writes " -- why" into extra and what to try into try_; returns 0 when nothing is said. */
int diag_sizes(const lesson *l, const diag_size *s, int n, int tile, char *extra, size_t elen,
               char *try_, size_t tlen);

/* Right at every size of lesson l on its inputs, wrong on the wide run's (ref.h
 * ref_draw_wide) at rows x cols: what (`what`, the comparison's pattern, or the guard zone's
 * message when wrong is 0) and why, in the lesson's words (KS_WIDE), into msg; the try
 * (KS_WIDE_TRY) into try_. */
void diag_wide(const lesson *l, int rows, int cols, unsigned long long seed, const char *what,
               char *msg, size_t mlen, char *try_, size_t tlen);

/* The pattern text for an output the kernel reads before writing (n_dep of n elements came
 * out NaN from the NaN-filled output and right when the output was zeroed first), and what
 * to try. */
void diag_reads_output(const char *out_name, size_t n_dep, size_t n, char *buf, size_t len,
                       char *try_, size_t tlen);

#endif
