/* localmem.h — how many bytes of __local memory a kernel uses per work-group, from more than
 * one runtime's answer.
 *
 * CL_KERNEL_LOCAL_MEM_SIZE is not portable: Debian 12's PoCL 3.1 counts the __local arrays a
 * kernel declares in its body, Ubuntu 24.04's PoCL 5.0 answers 0 for them (before and after a
 * launch), NVIDIA answers 1 for a kernel without any.  So the grader also reads the kernel's own
 * declarations (lmem_declared: the __local arrays in the kernel's body, sized with the TILE the
 * grader passes and the file's object-like #defines) and, when the Oclgrind analysis ran, the
 * bytes Oclgrind allocated; the bytes judged are the largest known, and the report says which
 * source gave them. */
#ifndef LOCALMEM_H
#define LOCALMEM_H

#include <stddef.h>

typedef enum { LMEM_RUNTIME, LMEM_DECLARED, LMEM_ANALYSIS } lmem_source;

/* Bytes of the __local arrays declared in the body of kernel `kernel` of source, built with
 * -DTILE=tile: element size (scalar and vector types) times every dimension.  Comments,
 * #if/#ifdef/#ifndef/#else/#endif, object-like #defines, pointers to __local (no storage) and
 * other kernels' arrays are handled; an array the body never reads (named only in its
 * declaration or as the target of plain stores) is not counted: compilers drop it, and PoCL
 * 3.1 then reports 0 for it.  -1 when the kernel is not found or a declaration cannot
 * be sized (an unknown type or macro, a non-constant dimension); why then says which. */
long lmem_declared(const char *source, const char *kernel, int tile, char *why, size_t whylen);

/* The bytes to judge: the largest of the runtime's answer, the declared bytes and the
 * analysis's bytes (-1: unknown); ties go to the runtime, then the analysis.  *src names the
 * source of the result. */
size_t lmem_pick(size_t runtime, long declared, long analysis, lmem_source *src);

/* "runtime", "declarations", "oclgrind" (the JSON report's local_memory.source). */
const char *lmem_source_name(lmem_source s);

/* For the text report: "the OpenCL runtime's CL_KERNEL_LOCAL_MEM_SIZE", "the kernel's __local
 * declarations", "the Oclgrind analysis". */
const char *lmem_source_text(lmem_source s);

#endif
