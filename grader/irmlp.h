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
 * such bodies rather than branch (the CUDA C Programming Guide, "Branch predication").
 *
 * Loops are not unrolled here (the figure is per turn): H200 timings of the lesson-5 kernels
 * show NVIDIA's OpenCL compiler does not batch a one-load loop's turns either (GUIDE.md,
 * "Predicted GPU time").  Plain C, no LLVM: the plugin translates. */
#ifndef IRMLP_H
#define IRMLP_H

typedef enum {
	IRMLP_BLOCK,        /* a basic block starts                                            */
	IRMLP_BLOCK_IF,     /* the body of a short `if` starts (ops: its condition): the block
	                       before branches over it; a GPU compiler predicates it, so its
	                       loads join the open group unless the condition needs one of them */
	IRMLP_LOAD,         /* a __global or __constant load                                   */
	IRMLP_FENCE,        /* a call (barrier, function) or a __global store: loads after it
	                       are not hoisted above it                                        */
	IRMLP_OTHER         /* anything else                                                   */
} irmlp_op;

typedef struct irmlp irmlp;

irmlp *irmlp_new(void);
void irmlp_free(irmlp *m);
/* Forget the previous kernel's code. */
void irmlp_reset(irmlp *m);
/* One instruction, inst its identity, reading the n values ops (instructions or others). */
void irmlp_step(irmlp *m, irmlp_op op, const void *inst, const void *const *ops, int n);
/* Close the last group (after the last instruction). */
void irmlp_end(irmlp *m);
/* The group size of load inst, 0 when inst is not a load seen here. */
int irmlp_of(const irmlp *m, const void *inst);

#endif
