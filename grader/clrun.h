/* clrun.h — the OpenCL side of a check: pick a device, build, launch a lesson kernel on
 * guarded buffers, time it with profiling events.  Call only inside a sandbox child (an
 * OpenCL runtime initialised before fork() does not survive it). */
#ifndef CLRUN_H
#define CLRUN_H

#include <stddef.h>
#include <CL/cl.h>

#include "diag.h"
#include "guard.h"
#include "ref.h"

typedef struct clrun_device {
	char platform[128];
	char name[128];
	char type[16];               /* "CPU", "GPU", "ACCELERATOR", "OTHER" */
	unsigned compute_units;
	unsigned long long local_mem;/* CL_DEVICE_LOCAL_MEM_SIZE */
	char local_type[16];         /* "local" (dedicated) or "global" (emulated in RAM) */
	size_t max_wg;
	unsigned long long global_mem;
	size_t timer_ns;             /* CL_DEVICE_PROFILING_TIMER_RESOLUTION */
	char version[128];
} clrun_device;

typedef struct clrun {
	cl_platform_id platform;
	cl_device_id device;
	cl_context ctx;
	cl_command_queue queue;      /* with profiling */
	clrun_device info;
} clrun;

/* Print every platform/device with type, compute units, local memory size and type, max
 * work-group size, profiling timer resolution (the host-side facts lesson 4 shows how to
 * query).  Returns the number of devices; 0 with a message when there is none. */
int clrun_list(void);

/* Open a device: want = substring matched (case-insensitively) against "platform device
 * type"; NULL or "" = the first CPU device of PoCL, else the first device.  0 on success,
 * else -1 with a reason in err. */
int clrun_open(clrun *r, const char *want, char *err, size_t errlen);
void clrun_close(clrun *r);

/* Build source with options.  Returns the OpenCL status; the raw build log goes into log. */
cl_int clrun_build(clrun *r, const char *source, const char *options, cl_program *prog,
                   char *log, size_t loglen);

/* Ask a built program for its binary: PoCL then compiles the generic work-group function of
 * every kernel (used when POCL_WORK_GROUP_SPECIALIZATION=0) into its cache, without a launch.
 * Other runtimes just answer.  The OpenCL status. */
cl_int clrun_compile_all(clrun *r, cl_program prog);

/* Device buffers of one problem, each guarded (guard.h), plus the problem they hold. */
typedef struct clrun_bufs {
	const ref_problem *p;
	cl_mem whole[3], view[3];    /* inputs then output; view = the payload sub-buffer */
	void *map[3];                /* a CPU device's guarded buffers live in these mappings */
	size_t maplen[3];            /* (USE_HOST_PTR), inaccessible pages around each */
	cl_command_queue queue;      /* the one they were uploaded on */
	size_t len[3];
	int n;
	int guarded;                 /* 0: plain buffers (under Oclgrind, which checks bounds itself) */
} clrun_bufs;

/* Create buffers (guarded or plain), upload the inputs, fill guards and the output
 * (REF_UNWRITTEN_BITS).  Download needs guarded buffers. */
cl_int clrun_upload(clrun *r, const ref_problem *p, clrun_bufs *b, int guarded);
void clrun_release(clrun_bufs *b);
/* Refill the output with the unwritten pattern (between a baseline and a student run). */
cl_int clrun_reset_output(clrun *r, clrun_bufs *b);
/* Fill the output with the 32-bit pattern bits (0: zeros, to see what reads the output). */
cl_int clrun_fill_output(clrun *r, clrun_bufs *b, unsigned bits);

/* Launch kernel once on the problem at TILE, with the arguments and NDRange its kind gives
 * (kind.h: buffers, then scalars; e.g. TILE x TILE groups, global size rounded up), and wait; *ms = profiling time.  Returns the OpenCL status of the enqueue or the wait. */
cl_int clrun_launch(clrun *r, cl_kernel k, const clrun_bufs *b, int tile, double *ms);
/* The same with an lx x ly local size (the global size rounded up to it in each dimension). */
cl_int clrun_launch_local(clrun *r, cl_kernel k, const clrun_bufs *b, int lx, int ly, double *ms);

/* A copy kernel of n floats from the problem's first input into a buffer of its own: the
 * bandwidth a kernel that reads those bytes is shown beside (kind.h copy_floats).  1-D, work-
 * groups of 256, one float per work-item. */
typedef struct clrun_copy { cl_kernel k; cl_mem out; cl_mem in; cl_int n; } clrun_copy;
cl_int clrun_copy_open(clrun *r, const clrun_bufs *b, size_t n, clrun_copy *c);
cl_int clrun_copy_launch(clrun *r, const clrun_copy *c, double *ms);
void clrun_copy_close(clrun_copy *c);

/* The output's payload into out (b->len of the output floats), guarded buffers or plain. */
cl_int clrun_read_output(clrun *r, const clrun_bufs *b, float *out);

/* Local memory the kernel uses (CL_KERNEL_LOCAL_MEM_SIZE) and its max work-group size. */
void clrun_kernel_info(clrun *r, cl_kernel k, size_t *local_bytes, size_t *max_wg);

/* The kernel's arguments (CL_KERNEL_NUM_ARGS, then clGetKernelArgInfo for the first max,
 * which needs a build with -cl-kernel-arg-info; a runtime without it leaves type ""). 
 * Returns the number of arguments, or -1 when the runtime does not say. */
int clrun_kernel_args(clrun *r, cl_kernel k, diag_arg *args, int max);

/* Name of an OpenCL status ("CL_OUT_OF_RESOURCES"). */
const char *clrun_errstr(cl_int e);

#endif
