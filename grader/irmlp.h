/* irmlp.h — memory-level parallelism from a kernel's instruction stream: how many independent
 * __global loads a warp can have in flight before it first needs one of their results.
 *
 * The tracer plugin walks the kernel function's code once per run (no per-instruction
 * callback, so the interpreter pays nothing) and hands each instruction here, block by block:
 * what it is (a __global/__constant load, a fence, anything else) and the values it reads.
 * A *group* is the run of loads of one basic block, between fences (a barrier or any other
 * call, a __global store), none of whose addresses depends on another load of the group
 * (directly or through the arithmetic that uses it).  A GPU's compiler may hoist every load
 * of a group to the group's start, so all of them are in flight together; a load whose
 * address needs an earlier load's value starts a new group.  Each load's figure is the size
 * of its group: 1 for `acc += in[i]` in a loop, 4 for four independent loads per turn.  The
 * body of a short `if` (one block that the block before it branches over, `if (i + h < n)
 * acc += in[i + h];`) continues the group of the block before it: GPU compilers predicate
 * such bodies rather than branch (the CUDA C Programming Guide, "Branch predication"); so
 * does the block where such an `if` rejoins, so four guarded loads in a row are one group of
 * four, as on the H200 (tests/attacks3/l5_guarded_loads.cl: 1.66-1.68x, the solution's time).
 * The same holds for a block entered only from the block before it on a condition that needs
 * no load of the group, whatever the branch's other target: a loop that clang unrolled
 * (`#pragma unroll 4`) keeps its exit test after each copy, and NVIDIA's compiler issues the
 * copies' loads together (tests/attacks3/l5_pragma_unroll.cl: 1.65x).
 *
 * Loops with a trip count known only at run time are not unrolled here (the figure is per
 * turn): H200 timings of the lesson-5 kernels show NVIDIA's OpenCL compiler does not batch a
 * one-load loop's turns either (GUIDE.md, "Predicted GPU time").  A loop whose trip count is
 * a small constant (`for (k = 0; k < 4; k++)`) is unrolled whole by a GPU's compiler, though
 * Oclgrind's build keeps it a loop: the plugin walks its blocks as straight code, and each of
 * its loads counts as many times as the loop turns (irmlp_times; tests/fixtures/
 * l5_guarded_loop4.cl: 1.65-1.68x on the H200, four loads in flight).  Plain C, no LLVM: the
 * plugin translates. */
#ifndef IRMLP_H
#define IRMLP_H

typedef enum {
	IRMLP_BLOCK,        /* a basic block starts                                            */
	IRMLP_BLOCK_IF,     /* the body of a short `if` starts (ops: its condition): the block
	                       before branches over it; a GPU compiler predicates it, so its
	                       loads join the open group unless the condition needs one of them */
	IRMLP_BLOCK_JOIN,   /* the block where a short `if` rejoins (its predecessors: the if's
	                       head and its body, whose group went on): the group goes on too;
	                       a value merged from the body's loads stays tainted (a phi reads
	                       them) */
	IRMLP_LOAD,         /* a __global or __constant load                                   */
	IRMLP_STORE,        /* a store to private or __local memory (ops: the value stored, then
	                       every variable it may go to): a value that needs a load of the
	                       group taints them, so that what is read back from them does too
	                       (a load whose address goes through a private array still waits) */
	IRMLP_FENCE,        /* a barrier, an atomic, a call that touches memory or an unknown
	                       function, or a __global store: loads after it are not hoisted
	                       above it (a call that touches no memory is IRMLP_OTHER)          */
	IRMLP_OTHER         /* anything else (a private or __local load: ops include the variable
	                       read)                                                           */
} irmlp_op;

typedef struct irmlp irmlp;

irmlp *irmlp_new(void);
void irmlp_free(irmlp *m);
/* Forget the previous kernel's code. */
void irmlp_reset(irmlp *m);
/* One instruction, inst its identity, reading the n values ops (instructions or others). */
void irmlp_step(irmlp *m, irmlp_op op, const void *inst, const void *const *ops, int n);
/* The loads stepped from now on count times each in their group's size (1: once; a load in a
 * loop a GPU's compiler unrolls 4 times counts 4). */
void irmlp_times(irmlp *m, int times);
/* Close the last group (after the last instruction). */
void irmlp_end(irmlp *m);
/* The group size of load inst, 0 when inst is not a load seen here. */
int irmlp_of(const irmlp *m, const void *inst);
/* Its group's number (1 .. irmlp_groups, in the order the groups closed) and what it counts
 * in it (irmlp_times); 0 when inst is not a load seen here.  The tracer weighs a group's
 * loads by how often each ran (trace_summary.c), so that a load the code holds but the
 * kernel never runs is not in flight. */
int irmlp_group_of(const irmlp *m, const void *inst);
int irmlp_times_of(const irmlp *m, const void *inst);
int irmlp_groups(const irmlp *m);

#endif
