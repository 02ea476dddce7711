/* trace.h — what one kernel run under Oclgrind did to memory, per source line.
 *
 * Oclgrind interprets a kernel one work-item at a time on the CPU, so it can see every
 * __local and __global access, but it has no warps, no banks and no memory segments.  The
 * plugin (tracer/cltrace.cpp) hands each access and each Oclgrind diagnostic to these
 * functions, which rebuild the warps, price them through the bank models of bank.h and
 * the 32-byte sector model of global memory, turn the diagnostics into findings with
 * variable names, and write one small JSON summary per kernel run (to $CLTRACE_OUT).
 *
 * Everything here is plain C and needs no Oclgrind, so tests feed it synthetic accesses.
 *
 * Warps.  Work-items arrive one at a time (each runs until a barrier or its end), so an
 * "instruction" is rebuilt as: the k-th execution of one access site by each lane of one
 * warp (lane = linear local id, warp = lane / warp size), counted since the last barrier.
 * This is exact when control flow is uniform within the warp. */
#ifndef TRACE_H
#define TRACE_H

#include <stddef.h>
#include <stdint.h>

/* Oclgrind on 64-bit hosts: an address is buffer << TRACE_ADDR_BITS | byte offset, for
 * __global (one buffer per cl_mem) and __local (one buffer per variable) alike. */
enum { TRACE_ADDR_BITS = 48 };

enum {
	TRACE_MAX_PROFILES = 8,    /* bank profiles priced (bank_profile_count() is smaller) */
	TRACE_MAX_FINDINGS = 64,   /* distinct findings kept; the rest are only counted */
	TRACE_GLOBAL_WARP = 32,    /* lanes per global-memory request */
	TRACE_SECTOR = 32,         /* bytes per global-memory sector */
};

typedef enum { TRACE_LOCAL, TRACE_GLOBAL } trace_space;

/* An atomic read-modify-write reaches Oclgrind as an atomic load and then an atomic store:
 * the load half is the access (kind "atomic", priced like a store: no broadcast merge of
 * pairs, same-address lanes count once), the store half only adds to the stored bytes. */
typedef enum { TRACE_LOAD, TRACE_STORE, TRACE_ATOMIC, TRACE_ATOMIC_STORE } trace_kind;

/* Oclgrind's MessageType, in its order. */
typedef enum { TRACE_MSG_DEBUG, TRACE_MSG_INFO, TRACE_MSG_WARNING, TRACE_MSG_ERROR } trace_msg_type;

/* One access by one work-item. */
typedef struct trace_access {
	const void *site;     /* identity of the accessing instruction (an llvm::Instruction*) */
	int line, column;     /* its source location, 0 when unknown */
	trace_space space;
	trace_kind kind;
	uint64_t address;     /* raw Oclgrind address */
	uint32_t size;        /* bytes */
	uint32_t lane;        /* linear local id: x + y*Lx + z*Lx*Ly */
	int merged;           /* the instruction has no line of its own (the optimiser merged
	                         accesses of several lines): line/column are a neighbour's */
} trace_access;

/* One diagnostic, parsed (see trace_parse_message). */
typedef struct trace_finding {
	const char *kind;       /* "data_race", "barrier_divergence", "uninitialized",
	                           "out_of_bounds" or "other" (static strings) */
	trace_msg_type type;
	int line, column;       /* first location named by the message, 0 when none */
	int other_line, other_column; /* data races: the second entity's location */
	int across_groups;      /* data races: the two entities are in different work-groups */
	int has_address;        /* the first line names a memory address */
	const char *space;      /* "local", "global", "constant", "private" (static), or NULL */
	uint64_t address;
	char first_line[256];   /* the message's first line, trimmed */
} trace_finding;

typedef struct trace trace;

trace *trace_new(void);
void trace_free(trace *t);

/* A kernel run starts: forget the previous run's variables and sites.  local and groups
 * are the work-group size and the number of work-groups per dimension. */
void trace_kernel_begin(trace *t, const char *kernel, const size_t local[3], const size_t groups[3]);

/* Price whole only the work-groups wholly inside the problem: work-items x < x_extent
 * (dimension 0) and y < y_extent (dimension 1); of the other (edge) groups only the warps
 * whose every lane takes part in an access.  Bank and coalescing figures then come from full
 * warps only; findings and byte counts come from every access, edge groups included.  0 (the
 * default after trace_kernel_begin) prices every group whole.  The plugin takes the extent
 * from $CLTRACE_EXTENT ("x y"). */
void trace_interior(trace *t, uint64_t x_extent, uint64_t y_extent);

/* The kernel's code, for its loads in flight per warp (irmlp.h): the plugin steps it through
 * the kernel function's instructions after trace_kernel_begin, before any group runs, and
 * ends it; each __global load site's summary row then carries "mlp" (its group's size). */
struct irmlp *trace_code(trace *t);

/* A variable of the run: a __local variable or argument (base = its address in the
 * work-group's local memory) or a __global/__constant buffer argument (base = the
 * argument's pointer value).  Oclgrind names kernel-scope __local variables
 * "kernel.var": the prefix is stripped, and those of other kernels (which Oclgrind also
 * allocates when their name extends this kernel's) are ignored. */
void trace_variable(trace *t, trace_space space, const char *name, uint64_t base, uint64_t bytes);

/* Work-group events: group is the linear group index x + y*Nx + z*Nx*Ny. */
void trace_group_begin(trace *t, uint32_t group);
void trace_record(trace *t, const trace_access *a);
void trace_barrier(trace *t);
void trace_group_end(trace *t);

/* Bytes moved by a work-group-level copy (async_work_group_copy): counted, not priced. */
void trace_copy_bytes(trace *t, trace_space space, int is_store, uint64_t bytes);

/* One floating-point instruction executed by work-item lane (its linear local id) of the
 * running group (trace_arith.c): inst its identity, flops what it does (1 for an add, a
 * subtract or a multiply, 2 for a fused multiply-add, times its vector's elements, twice that
 * for a double).  The summary's "arith_sites" lists per instruction its executions
 * ("accesses", as a site's), flops, and "warp_runs": the warp instructions that issue it (per
 * warp of 32 lanes, its busiest lane's executions: a warp issues an instruction for all its
 * lanes however few are active), so that the GPU time model scales the kernel's own
 * arithmetic as it scales its accesses, at the warps' rate (gpumodel.c). */
void trace_flops(trace *t, const void *inst, uint32_t flops, uint32_t lane);

/* One access by a work-item to a private array a GPU keeps in local memory (per work-item,
 * off-chip: ircode.cpp, localMemoryAccesses), bytes wide; and those arrays' bytes per
 * work-item, named once per kernel with the line and column of the access whose index is
 * known only at run time (what puts them there).  The summary's "private_sites" lists per
 * instruction its executions ("accesses") and "bytes", "private_bytes" the size and
 * "private_line"/"private_column" that access (gpumodel.c prices them
 * as L1 lines, and as DRAM traffic when they do not fit the caches). */
void trace_private(trace *t, const void *inst, uint32_t bytes);
void trace_private_bytes(trace *t, uint64_t bytes, int line, int column);

/* The source line and column of an arithmetic instruction or a private access, and the pipe
 * an arithmetic one runs on (0 FP32, 1 the special-function unit, 2 integer division: its
 * "flops" are that pipe's operations), named by the plugin after trace_kernel_begin and
 * before any group runs: its row carries them ("line", "column", "pipe"). */
void trace_arith_site(trace *t, const void *inst, int line, int column, int pipe);

/* One Oclgrind diagnostic, the full multi-line text. */
void trace_message(trace *t, trace_msg_type type, const char *text);

/* Parse one diagnostic; returns 0, or -1 when text is empty. */
int trace_parse_message(const char *text, trace_finding *f);

/* The summary of the current run as a cJSON object (the caller deletes it). */
struct cJSON *trace_summary(trace *t);

/* Merge the summary of another run (run) into into, which starts as a copy of the first
 * run's summary (see trace_merge_first).  Sites are rows per (line, column, variable,
 * access, tile), tile being the run's work-group width: counts and figures add up, n_way
 * and the worst warp keep the worse.  Findings are kept once per (kind, place, variable)
 * with their counts added; byte counts, groups and messages add up; "complete" holds when
 * every run completed; "runs" lists each run's work-group geometry. */
void trace_merge(struct cJSON *into, const struct cJSON *run);
/* Only run's findings (counts added) and its completeness into into: a run whose sites would
 * count its accesses twice (check_an.c, a kernel's divisible size). */
void trace_merge_findings(struct cJSON *into, const struct cJSON *run);

/* A merged summary holding one run: a deep copy of run, its sites tagged with their tile. */
struct cJSON *trace_merge_first(const struct cJSON *run);

/* Why some work-items of a group skip the barrier at barrier_line of source (a kernel's
 * text): 1 when it sits inside `if (cond)` (or an else: "!(cond)"), the innermost such if;
 * 2 when an `if (cond) ... return` before it lets work-items leave first (the last such
 * return); 0 when neither shows in the text.  cond receives the condition, *cond_line the
 * if's line (1) or the return's line (2).  Comments and strings are ignored. */
int trace_skip_condition(const char *source, int barrier_line, char *cond, size_t len, int *cond_line);

/* The innermost `if (cond)` whose statement holds code on `line` of source: 1 with cond and
 * *cond_line (the if's line) filled, 0 when that line runs under no if.  An else branch does
 * not count (its condition is the if's negation, rarely the guard a student meant).  Comments
 * and strings are ignored. */
int trace_guard_condition(const char *source, int line, char *cond, size_t len, int *cond_line);

/* The innermost `if (cond)` whose statement holds code on `line` of source: 1 with cond and
 * *cond_line (the if's line) filled, 0 when that line runs under no if.  An else branch does
 * not count (its condition is the if's negation, rarely the guard a student meant).  Comments
 * and strings are ignored. */
int trace_guard_condition(const char *source, int line, char *cond, size_t len, int *cond_line);

/* Write the summary to path; 0 or -1. */
int trace_write(trace *t, const char *path);

/* The kernel run ends: flush, write the summary to $CLTRACE_OUT when set, then forget the
 * findings.  Returns what trace_write returned, or 0 when the variable is unset. */
int trace_kernel_end(trace *t);

/* The plugin goes away: if a run began and never ended (Oclgrind gave up on it), write what
 * is known with "complete": false.  Returns like trace_kernel_end. */
int trace_finish(trace *t);

#endif
