/* compat-localmem.c — what each OpenCL runtime answers for CL_KERNEL_LOCAL_MEM_SIZE, and when.
 * Some runtimes (Ubuntu 24.04's PoCL) answer 0 for __local arrays declared inside a kernel;
 * this probe asks after the build, after setting the arguments and after a launch, on every
 * device, so the compatibility matrix records the facts the grader's fallbacks rest on.
 * Build: cc -o compat-localmem tests/compat-localmem.c -lOpenCL */
#define CL_TARGET_OPENCL_VERSION 120
#include <stdio.h>
#include <string.h>
#include <CL/cl.h>

/* Address space of this process now and at its peak (MiB): the grader limits its children's
 * address space, and runtimes reserve very different amounts of it. */
static void vm(const char *when)
{
	char line[256];
	long size = -1, peak = -1;
	FILE *f = fopen("/proc/self/status", "r");
	while (f && fgets(line, sizeof line, f)) {
		sscanf(line, "VmSize: %ld", &size);
		sscanf(line, "VmPeak: %ld", &peak);
	}
	if (f)
		fclose(f);
	printf("  address space %s: %ld MiB (peak %ld MiB)\n", when, size >> 10, peak >> 10);
}

static const char *src =
	"__kernel void two_tiles(__global float *out) {\n"
	"    __local float As[16][16];\n"
	"    __local float Bs[16][17];\n"
	"    int x = get_local_id(0), y = get_local_id(1);\n"
	"    As[y][x] = x; Bs[y][x] = y;\n"
	"    barrier(CLK_LOCAL_MEM_FENCE);\n"
	"    out[get_global_id(1) * 16 + get_global_id(0)] = As[x][y] + Bs[x][y];\n"
	"}\n"
	"__kernel void no_local(__global float *out) {\n"
	"    out[get_global_id(1) * 16 + get_global_id(0)] = 1.0f;\n"
	"}\n"
	"__kernel void local_arg(__global float *out, __local float *t) {\n"
	"    t[get_local_id(0)] = 1.0f;\n"
	"    barrier(CLK_LOCAL_MEM_FENCE);\n"
	"    out[get_global_id(1) * 16 + get_global_id(0)] = t[15 - get_local_id(0)];\n"
	"}\n";

static cl_ulong lmem(cl_kernel k, cl_device_id d)
{
	cl_ulong v = 12345;
	if (clGetKernelWorkGroupInfo(k, d, CL_KERNEL_LOCAL_MEM_SIZE, sizeof v, &v, NULL) != CL_SUCCESS)
		return (cl_ulong)-1;
	return v;
}

static void probe(cl_context ctx, cl_command_queue q, cl_device_id d, cl_program p,
                  const char *name, int with_arg)
{
	cl_int e;
	cl_kernel k = clCreateKernel(p, name, &e);
	if (e != CL_SUCCESS) {
		printf("  %-10s clCreateKernel %d\n", name, e);
		return;
	}
	cl_ulong built = lmem(k, d);
	cl_mem out = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 256 * sizeof(float), NULL, &e);
	clSetKernelArg(k, 0, sizeof out, &out);
	if (with_arg)
		clSetKernelArg(k, 1, 16 * sizeof(float), NULL);
	cl_ulong set = lmem(k, d);
	size_t g[2] = { 16, 16 }, l[2] = { 16, 16 };
	e = clEnqueueNDRangeKernel(q, k, 2, NULL, g, l, 0, NULL, NULL);
	clFinish(q);
	cl_ulong ran = lmem(k, d);
	size_t wg = 0;
	clGetKernelWorkGroupInfo(k, d, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg, NULL);
	printf("  %-10s after build %llu, after args %llu, after launch (%d) %llu; kernel max wg %zu\n",
	       name, (unsigned long long)built, (unsigned long long)set, e,
	       (unsigned long long)ran, wg);
	clReleaseMemObject(out);
	clReleaseKernel(k);
}

int main(void)
{
	cl_platform_id ps[8];
	cl_uint np = 0;
	vm("at start");
	clGetPlatformIDs(8, ps, &np);
	vm("after clGetPlatformIDs");
	for (cl_uint i = 0; i < np; i++) {
		char pn[256] = "", pv[256] = "";
		clGetPlatformInfo(ps[i], CL_PLATFORM_NAME, sizeof pn, pn, NULL);
		clGetPlatformInfo(ps[i], CL_PLATFORM_VERSION, sizeof pv, pv, NULL);
		cl_device_id ds[8];
		cl_uint nd = 0;
		clGetDeviceIDs(ps[i], CL_DEVICE_TYPE_ALL, 8, ds, &nd);
		for (cl_uint j = 0; j < nd && j < 1; j++) {
			char dn[256] = "";
			cl_ulong lm = 0;
			cl_device_local_mem_type lt = 0;
			size_t mwg = 0;
			clGetDeviceInfo(ds[j], CL_DEVICE_NAME, sizeof dn, dn, NULL);
			clGetDeviceInfo(ds[j], CL_DEVICE_LOCAL_MEM_SIZE, sizeof lm, &lm, NULL);
			clGetDeviceInfo(ds[j], CL_DEVICE_LOCAL_MEM_TYPE, sizeof lt, &lt, NULL);
			clGetDeviceInfo(ds[j], CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof mwg, &mwg, NULL);
			printf("%s | %s | %s\n  device local memory %llu bytes (%s), max work-group %zu\n",
			       pn, pv, dn, (unsigned long long)lm, lt == CL_LOCAL ? "local" : "global", mwg);
			cl_int e;
			cl_context ctx = clCreateContext(NULL, 1, &ds[j], NULL, NULL, &e);
			cl_command_queue q = clCreateCommandQueue(ctx, ds[j], 0, &e);
			vm("after clCreateContext");
			cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, &e);
			e = clBuildProgram(p, 1, &ds[j], "", NULL, NULL);
			vm("after clBuildProgram");
			if (e != CL_SUCCESS) {
				printf("  build failed %d\n", e);
				continue;
			}
			probe(ctx, q, ds[j], p, "two_tiles", 0);  /* declares 16*16*4 + 16*17*4 = 2112 */
			probe(ctx, q, ds[j], p, "no_local", 0);
			probe(ctx, q, ds[j], p, "local_arg", 1);  /* 64 bytes through an argument */
			vm("after the launches");
			clReleaseProgram(p);
			clReleaseCommandQueue(q);
			clReleaseContext(ctx);
		}
	}
	return 0;
}
