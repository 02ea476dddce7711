// ircode.h — what the Oclgrind plugin (cltrace.cpp) reads from the kernel's LLVM IR: the
// code walked for the loads-in-flight model (irmlp.h), and each access's source line.  In
// C++ because LLVM's API is; every decision on what it reads is irmlp.c's and trace.c's.
#ifndef CLTRACE_IRCODE_H
#define CLTRACE_IRCODE_H

#include <cstdint>
#include <unordered_set>

namespace llvm
{
class Function;
class Instruction;
}

extern "C" {
#include "irmlp.h"
}

namespace cltrace
{

// The kernel function f's instructions, block by block, to m: __global/__constant loads,
// fences (calls, __global stores), the rest; a short `if` body marked as predicable.
void walkCode(irmlp* m, const llvm::Function* f);

// The source line and column of the access inst.  When the optimiser merges the identical
// accesses of an if and its else into one, that one gets line 0 ("several places"): it is
// named after the instruction computing its address, else after the block it was merged into,
// else after the nearest earlier instruction, and *merged is 1.  *line and *column are left
// as they are when no instruction has a line.
void sourceLine(const llvm::Instruction* inst, int* line, int* column, int* merged);

// The arithmetic of one execution of inst, in operations of the pipe it runs on (*pipe, as
// trace_arith_site takes it): FP32 (0) 1 for an add, a subtract or a multiply, 2 for a fused
// multiply-add (fma, mad, llvm.fmuladd), twice that in double (an H200 runs FP64 at half the
// FP32 rate); the special-function unit (1) 1 for a division, for each call of a
// transcendental builtin (sqrt, exp, log, the trigonometric and hyperbolic functions and their
// inverses, erf, gamma, pow, hypot, fmod and their native_ and half_ forms: their MUFU
// instruction, a lower bound, the full-precision functions add FP32 work) and for a conversion
// between float and integer (the same 16 a clock per SM); the integer pipe (2) 20 for an
// integer division or remainder by a value not known at compile time (CUDA C++ Best Practices
// Guide: "up to 20 instructions") and 1 for any other integer add, subtract, multiply, shift
// or logic operation (64 a clock per SM) but a loop counter's constant step, which a GPU's
// compiler unrolls or folds, and cheap builtins (cheapBuiltin) on their result's pipe; each
// times the elements of a vector.  0 for anything else.
unsigned flopsOf(const llvm::Instruction* inst, int* pipe);

// The private loads and stores of f that a GPU's compiler puts in local memory (per work-item,
// off-chip, through the L1 and L2) rather than registers: those into a private array some
// access of which has an index known only at run time (not a constant, nor a counter of a loop
// the compiler unrolls whole: ircode.cpp, constantTurns).  *bytes: those arrays' size per
// work-item; *cause: the first access whose index is known only at run time (null: none).
void localMemoryAccesses(const llvm::Function* f, std::unordered_set<const llvm::Instruction*>* out,
                         uint64_t* bytes, const llvm::Instruction** cause);

} // namespace cltrace

#endif
