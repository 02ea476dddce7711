/* clrun.c — OpenCL device choice, builds, guarded buffers, launches and timing (clrun.h). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <unistd.h>

#include "clrun.h"

const char *clrun_errstr(cl_int e)
{
	switch (e) {
#define E(x) case x: return #x;
	E(CL_SUCCESS) E(CL_DEVICE_NOT_FOUND) E(CL_OUT_OF_RESOURCES) E(CL_OUT_OF_HOST_MEMORY)
	E(CL_MEM_OBJECT_ALLOCATION_FAILURE) E(CL_BUILD_PROGRAM_FAILURE) E(CL_INVALID_VALUE)
	E(CL_INVALID_KERNEL_NAME) E(CL_INVALID_KERNEL_ARGS) E(CL_INVALID_ARG_INDEX)
	E(CL_INVALID_ARG_SIZE) E(CL_INVALID_ARG_VALUE) E(CL_INVALID_WORK_GROUP_SIZE)
	E(CL_INVALID_WORK_ITEM_SIZE) E(CL_INVALID_GLOBAL_WORK_SIZE) E(CL_INVALID_BUFFER_SIZE)
	E(CL_MISALIGNED_SUB_BUFFER_OFFSET) E(CL_INVALID_PROGRAM_EXECUTABLE)
	E(CL_INVALID_BUILD_OPTIONS) E(CL_INVALID_KERNEL_DEFINITION) E(CL_INVALID_OPERATION)
	E(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
#undef E
	default: return "CL_ERROR";
	}
}

static void dev_info(cl_platform_id p, cl_device_id d, clrun_device *o)
{
	cl_device_type t = 0;
	cl_device_local_mem_type lt = 0;
	cl_ulong lm = 0, gm = 0;
	cl_uint cu = 0;
	memset(o, 0, sizeof *o);
	clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof o->platform, o->platform, NULL);
	clGetDeviceInfo(d, CL_DEVICE_NAME, sizeof o->name, o->name, NULL);
	clGetDeviceInfo(d, CL_DEVICE_VERSION, sizeof o->version, o->version, NULL);
	clGetDeviceInfo(d, CL_DEVICE_TYPE, sizeof t, &t, NULL);
	clGetDeviceInfo(d, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cu, &cu, NULL);
	clGetDeviceInfo(d, CL_DEVICE_LOCAL_MEM_SIZE, sizeof lm, &lm, NULL);
	clGetDeviceInfo(d, CL_DEVICE_LOCAL_MEM_TYPE, sizeof lt, &lt, NULL);
	clGetDeviceInfo(d, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof o->max_wg, &o->max_wg, NULL);
	clGetDeviceInfo(d, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof gm, &gm, NULL);
	clGetDeviceInfo(d, CL_DEVICE_PROFILING_TIMER_RESOLUTION, sizeof o->timer_ns, &o->timer_ns, NULL);
	strcpy(o->type, t & CL_DEVICE_TYPE_GPU ? "GPU" : t & CL_DEVICE_TYPE_CPU ? "CPU" :
	       t & CL_DEVICE_TYPE_ACCELERATOR ? "ACCELERATOR" : "OTHER");
	strcpy(o->local_type, lt == CL_LOCAL ? "local" : "global");
	o->compute_units = cu;
	o->local_mem = lm;
	o->global_mem = gm;
}

enum { MAXP = 16, MAXD = 16 };

/* Every (platform, device) pair, in ICD order. */
static int enumerate(cl_platform_id *ps, cl_device_id *ds, int max)
{
	cl_platform_id plats[MAXP];
	cl_uint np = 0;
	int n = 0;
	if (clGetPlatformIDs(MAXP, plats, &np) != CL_SUCCESS)
		return 0;
	for (cl_uint i = 0; i < np && i < MAXP; i++) {
		cl_device_id devs[MAXD];
		cl_uint nd = 0;
		if (clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_ALL, MAXD, devs, &nd) != CL_SUCCESS)
			continue;
		for (cl_uint j = 0; j < nd && j < MAXD && n < max; j++, n++)
			ps[n] = plats[i], ds[n] = devs[j];
	}
	return n;
}

int clrun_list(void)
{
	cl_platform_id ps[64];
	cl_device_id ds[64];
	int n = enumerate(ps, ds, 64);
	if (n == 0) {
		printf("no OpenCL platform found: install one with `sudo make deps` (PoCL runs on any CPU)\n");
		return 0;
	}
	for (int i = 0; i < n; i++) {
		clrun_device d;
		dev_info(ps[i], ds[i], &d);
		printf("[%d] %s / %s (%s)\n"
		       "    compute units                 %u\n"
		       "    local memory                  %llu bytes (%llu KiB), type %s%s\n"
		       "    max work-group size           %zu work-items\n"
		       "    profiling timer resolution    %zu ns\n"
		       "    global memory                 %llu MiB\n"
		       "    version                       %s\n", i, d.platform, d.name, d.type,
		       d.compute_units, d.local_mem, d.local_mem >> 10, d.local_type,
		       strcmp(d.local_type, "local") == 0 ? " (dedicated on-chip memory)" :
		       " (emulated in global memory: no banks)", d.max_wg, d.timer_ns,
		       d.global_mem >> 20, d.version);
	}
	return n;
}

static int matches(const clrun_device *d, const char *want)
{
	char all[320];
	snprintf(all, sizeof all, "%s %s %s", d->platform, d->name, d->type);
	size_t n = strlen(want);
	for (char *s = all; *s; s++)
		if (strncasecmp(s, want, n) == 0)
			return 1;
	return 0;
}

int clrun_open(clrun *r, const char *want, char *err, size_t errlen)
{
	cl_platform_id ps[64];
	cl_device_id ds[64];
	memset(r, 0, sizeof *r);
	int n = enumerate(ps, ds, 64), pick = -1;
	if (n == 0) {
		snprintf(err, errlen, "no OpenCL platform found (is an ICD installed? `sudo make deps` "
		         "installs PoCL, which runs on any CPU)");
		return -1;
	}
	for (int pass = 0; pass < 3 && pick < 0; pass++)
		for (int i = 0; i < n && pick < 0; i++) {
			clrun_device d;
			dev_info(ps[i], ds[i], &d);
			if (want && *want)
				pick = matches(&d, want) ? i : -1;
			else if (pass == 0)
				pick = strstr(d.platform, "Portable") && !strcmp(d.type, "CPU") ? i : -1;
			else if (pass == 1)
				pick = !strcmp(d.type, "CPU") ? i : -1;
			else
				pick = i;
		}
	if (pick < 0) {
		snprintf(err, errlen, "no OpenCL device matches \"%s\" (see `build/clgrade devices`)", want);
		return -1;
	}
	r->platform = ps[pick];
	r->device = ds[pick];
	dev_info(r->platform, r->device, &r->info);
	cl_int e;
	r->ctx = clCreateContext(NULL, 1, &r->device, NULL, NULL, &e);
	if (e == CL_SUCCESS)
		r->queue = clCreateCommandQueue(r->ctx, r->device, CL_QUEUE_PROFILING_ENABLE, &e);
	if (e != CL_SUCCESS) {
		snprintf(err, errlen, "cannot open %s: %s", r->info.name, clrun_errstr(e));
		return -1;
	}
	return 0;
}

void clrun_close(clrun *r)
{
	if (r->queue)
		clReleaseCommandQueue(r->queue);
	if (r->ctx)
		clReleaseContext(r->ctx);
	memset(r, 0, sizeof *r);
}

cl_int clrun_build(clrun *r, const char *source, const char *options, cl_program *prog,
                   char *log, size_t loglen)
{
	cl_int e;
	log[0] = '\0';
	*prog = clCreateProgramWithSource(r->ctx, 1, &source, NULL, &e);
	if (e != CL_SUCCESS)
		return e;
	e = clBuildProgram(*prog, 1, &r->device, options, NULL, NULL);
	size_t need = 0;
	clGetProgramBuildInfo(*prog, r->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &need);
	char *all = need ? malloc(need + 1) : NULL;
	if (all && clGetProgramBuildInfo(*prog, r->device, CL_PROGRAM_BUILD_LOG, need, all, NULL) == CL_SUCCESS) {
		all[need] = '\0';
		/* a log longer than the buffer keeps its start, where the first errors are */
		snprintf(log, loglen, "%s", all);
	}
	free(all);
	log[loglen - 1] = '\0';
	return e;
}

cl_int clrun_compile_all(clrun *r, cl_program prog)
{
	size_t sz = 0;
	(void)r;
	cl_int e = clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof sz, &sz, NULL);
	unsigned char *bin = e == CL_SUCCESS && sz ? malloc(sz) : NULL;
	unsigned char *bins[1] = { bin };
	if (bin)
		e = clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof bins, bins, NULL);
	free(bin);
	return e;
}

static cl_int make_plain(clrun *r, clrun_bufs *b, const float *host, size_t len)
{
	cl_int e;
	size_t bytes = (len ? len : 1) * sizeof(float);
	int i = b->n++;
	b->len[i] = len;
	if (host) {
		b->whole[i] = clCreateBuffer(r->ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes,
		                             (void *)host, &e);
	} else {
		unsigned bits = REF_UNWRITTEN_BITS;
		b->whole[i] = clCreateBuffer(r->ctx, CL_MEM_READ_WRITE, bytes, NULL, &e);
		if (e == CL_SUCCESS)
			e = clEnqueueFillBuffer(r->queue, b->whole[i], &bits, sizeof bits, 0, bytes, 0, NULL, NULL);
	}
	if (e == CL_SUCCESS) {
		b->view[i] = b->whole[i];
		clRetainMemObject(b->view[i]);
	}
	return e;
}

/* A CPU device's guarded buffer, in a mapping of its own: flush against an inaccessible page
 * after it and with one before, so that a read or write beyond the guard zones ends the run
 * child at once (a fault: "runs" and "memory_safe" fail) instead of reading the heap's
 * neighbours; advised as huge pages.  NULL on failure. */
static float *stage_map(size_t whole, clrun_bufs *b, int i)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE), body = (whole + 128 + pg - 1) / pg * pg;
	char *m = mmap(NULL, body + 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
	               -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	if (mprotect(m, pg, PROT_NONE) != 0 || mprotect(m + pg + body, pg, PROT_NONE) != 0) {
		munmap(m, body + 2 * pg);
		return NULL;
	}
	madvise(m + pg, body, MADV_HUGEPAGE);   /* advice only */
	b->map[i] = m, b->maplen[i] = body + 2 * pg;
	/* the end as near the page after as the runtime's alignment (128 B) lets it */
	return (float *)((uintptr_t)(m + pg + body - whole) & ~(uintptr_t)127);
}

static cl_int make_buf(clrun *r, clrun_bufs *b, const float *host, size_t len)
{
	cl_int e;
	if (!b->guarded)
		return make_plain(r, b, host, len);
	size_t whole = (len + 2 * GUARD_FLOATS) * sizeof(float);
	/* a CPU device keeps its buffers in host memory: it takes this one as it is (the copy it
	 * would make is a tenth of a lesson-5 check in page faults); a GPU copies it to its own */
	int i = b->n, cpu = strcmp(r->info.type, "CPU") == 0;
	float *tmp = cpu ? stage_map(whole, b, i) : ref_alloc(whole);
	if (!tmp)
		return CL_OUT_OF_HOST_MEMORY;
	guard_fill(tmp, len);
	for (size_t i = 0; i < len; i++)
		if (host)
			tmp[GUARD_FLOATS + i] = host[i];
		else
			memcpy(&tmp[GUARD_FLOATS + i], &(unsigned){ REF_UNWRITTEN_BITS }, sizeof(float));
	b->whole[i] = clCreateBuffer(r->ctx, CL_MEM_READ_WRITE | (cpu ? CL_MEM_USE_HOST_PTR :
	                             CL_MEM_COPY_HOST_PTR), whole, tmp, &e);
	if (!cpu)
		free(tmp);
	if (e != CL_SUCCESS)
		return e;
	cl_buffer_region reg = { GUARD_FLOATS * sizeof(float), (len ? len : 1) * sizeof(float) };
	b->view[i] = clCreateSubBuffer(b->whole[i], CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION,
	                               &reg, &e);
	b->len[i] = len;
	b->n++;
	return e;
}

cl_int clrun_upload(clrun *r, const ref_problem *p, clrun_bufs *b, int guarded)
{
	memset(b, 0, sizeof *b);
	b->p = p;
	b->guarded = guarded;
	b->queue = r->queue;
	cl_int e = CL_SUCCESS;
	for (int i = 0; i < p->n_in && e == CL_SUCCESS; i++)
		e = make_buf(r, b, p->in[i], p->in_len[i]);
	if (e == CL_SUCCESS)
		e = make_buf(r, b, NULL, p->out_len);
	return e;
}

void clrun_release(clrun_bufs *b)
{
	if (b->queue && (b->map[0] || b->map[1] || b->map[2]))
		clFinish(b->queue);   /* nothing queued may still write the memory unmapped below */
	for (int i = 0; i < b->n; i++) {
		if (b->view[i])
			clReleaseMemObject(b->view[i]);
		if (b->whole[i])
			clReleaseMemObject(b->whole[i]);
		if (b->map[i])      /* after the buffer that used it */
			munmap(b->map[i], b->maplen[i]);
	}
	memset(b, 0, sizeof *b);
}

cl_int clrun_reset_output(clrun *r, clrun_bufs *b)
{
	return clrun_fill_output(r, b, REF_UNWRITTEN_BITS);
}

cl_int clrun_fill_output(clrun *r, clrun_bufs *b, unsigned bits)
{
	int o = b->n - 1;
	return clEnqueueFillBuffer(r->queue, b->view[o], &bits, sizeof bits, 0,
	                           b->len[o] * sizeof(float), 0, NULL, NULL);
}

static cl_int run_timed(clrun *r, cl_kernel k, int dims, const size_t *global,
                        const size_t *local, double *ms);

cl_int clrun_launch(clrun *r, cl_kernel k, const clrun_bufs *b, int tile, double *ms)
{
	return clrun_launch_local(r, k, b, tile, tile, ms);
}

cl_int clrun_launch_local(clrun *r, cl_kernel k, const clrun_bufs *b, int lx, int ly, double *ms)
{
	const ref_problem *p = b->p;
	cl_int e = CL_SUCCESS;
	int a = 0, v[KIND_MAX_SCALARS], nv = p->kind->scalars(p, v);
	for (int i = 0; i < b->n && e == CL_SUCCESS; i++)
		e = clSetKernelArg(k, a++, sizeof(cl_mem), &b->view[i]);
	for (int i = 0; i < nv && e == CL_SUCCESS; i++) {
		cl_int x = v[i];
		e = clSetKernelArg(k, a++, sizeof x, &x);
	}
	if (e != CL_SUCCESS)
		return e;
	size_t global[3], local[3];
	int dims = p->kind->geometry(p, lx, global, local);
	if (dims == 2 && ly != lx) {     /* a non-square local size: each extent rounded to its own */
		p->kind->geometry(p, 1, global, local);
		local[0] = (size_t)lx, local[1] = (size_t)ly;
		global[0] = kind_round_up(global[0], local[0]);
		global[1] = kind_round_up(global[1], local[1]);
	}
	return run_timed(r, k, dims, global, local, ms);
}

/* Enqueue k over an NDRange, wait, and read its profiling time into *ms (when not NULL). */
static cl_int run_timed(clrun *r, cl_kernel k, int dims, const size_t *global,
                        const size_t *local, double *ms)
{
	cl_event ev;
	cl_int e = clEnqueueNDRangeKernel(r->queue, k, dims, NULL, global, local, 0, NULL, &ev);
	if (e != CL_SUCCESS)
		return e;
	e = clWaitForEvents(1, &ev);
	cl_int st = CL_SUCCESS;
	clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL);
	if (e == CL_SUCCESS && st < 0)
		e = st;
	cl_ulong t0 = 0, t1 = 0;
	clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL);
	clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL);
	if (ms)
		*ms = (t1 - t0) * 1e-6;
	clReleaseEvent(ev);
	return e;
}

static const char *copy_source =
	"__kernel void clgrade_copy(__global const float *in, __global float *out, const int n)\n"
	"{\n"
	"\tint i = get_global_id(0);\n"
	"\tif (i < n)\n"
	"\t\tout[i] = in[i];\n"
	"}\n";

cl_int clrun_copy_open(clrun *r, const clrun_bufs *b, size_t n, clrun_copy *c)
{
	char log[2048];
	cl_program prog = NULL;
	memset(c, 0, sizeof *c);
	cl_int e = clrun_build(r, copy_source, "", &prog, log, sizeof log);
	if (e == CL_SUCCESS)
		c->k = clCreateKernel(prog, "clgrade_copy", &e);
	if (e == CL_SUCCESS)
		clrun_compile_all(r, prog);
	if (prog)
		clReleaseProgram(prog);
	if (e == CL_SUCCESS)
		c->out = clCreateBuffer(r->ctx, CL_MEM_READ_WRITE, (n ? n : 1) * sizeof(float), NULL, &e);
	c->in = b->view[0];
	c->n = (cl_int)n;
	if (e == CL_SUCCESS)
		e = clSetKernelArg(c->k, 0, sizeof(cl_mem), &c->in);
	if (e == CL_SUCCESS)
		e = clSetKernelArg(c->k, 1, sizeof(cl_mem), &c->out);
	if (e == CL_SUCCESS)
		e = clSetKernelArg(c->k, 2, sizeof(cl_int), &c->n);
	if (e != CL_SUCCESS)
		clrun_copy_close(c);
	return e;
}

cl_int clrun_copy_launch(clrun *r, const clrun_copy *c, double *ms)
{
	size_t local = 256, global = kind_round_up((size_t)c->n, local);
	return run_timed(r, c->k, 1, &global, &local, ms);
}

void clrun_copy_close(clrun_copy *c)
{
	if (c->k)
		clReleaseKernel(c->k);
	if (c->out)
		clReleaseMemObject(c->out);
	memset(c, 0, sizeof *c);
}

cl_int clrun_read_output(clrun *r, const clrun_bufs *b, float *out)
{
	int o = b->n - 1;
	if (o < 0)
		return CL_INVALID_VALUE;
	return b->len[o] ? clEnqueueReadBuffer(r->queue, b->view[o], CL_TRUE, 0,
	                                       b->len[o] * sizeof(float), out, 0, NULL, NULL)
	                 : CL_SUCCESS;
}

void clrun_kernel_info(clrun *r, cl_kernel k, size_t *local_bytes, size_t *max_wg)
{
	cl_ulong lb = 0;
	*max_wg = 0;
	clGetKernelWorkGroupInfo(k, r->device, CL_KERNEL_LOCAL_MEM_SIZE, sizeof lb, &lb, NULL);
	clGetKernelWorkGroupInfo(k, r->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof *max_wg, max_wg, NULL);
	*local_bytes = (size_t)lb;
}

int clrun_kernel_args(clrun *r, cl_kernel k, diag_arg *args, int max)
{
	cl_uint n = 0;
	(void)r;
	if (clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof n, &n, NULL) != CL_SUCCESS)
		return -1;
	for (cl_uint i = 0; i < n && (int)i < max; i++) {
		diag_arg *a = &args[i];
		cl_kernel_arg_address_qualifier aq = 0;
		memset(a, 0, sizeof *a);
		if (clGetKernelArgInfo(k, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof aq, &aq, NULL) !=
		    CL_SUCCESS ||
		    clGetKernelArgInfo(k, i, CL_KERNEL_ARG_TYPE_NAME, sizeof a->type, a->type, NULL) !=
		    CL_SUCCESS) {
			a->type[0] = '\0';   /* no argument info: only the count is judged */
			continue;
		}
		a->type[sizeof a->type - 1] = '\0';
		if (clGetKernelArgInfo(k, i, CL_KERNEL_ARG_NAME, sizeof a->name, a->name, NULL) !=
		    CL_SUCCESS)
			a->name[0] = '\0';
		a->name[sizeof a->name - 1] = '\0';
		a->addr = aq == CL_KERNEL_ARG_ADDRESS_GLOBAL ? DIAG_ARG_GLOBAL :
		          aq == CL_KERNEL_ARG_ADDRESS_LOCAL ? DIAG_ARG_LOCAL :
		          aq == CL_KERNEL_ARG_ADDRESS_CONSTANT ? DIAG_ARG_CONSTANT : DIAG_ARG_PRIVATE;
	}
	return (int)n;
}
