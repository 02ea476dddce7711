/* gpum-bench.c -- the micro-benchmarks behind the GPU time model's constants (grader/gpumodel.c,
 * GUIDE.md "Predicted GPU time"), through OpenCL on the first GPU of a platform whose name holds
 * argv[1] (default NVIDIA).  None of them is a lesson kernel: they are the fit subset.
 *   cc -O2 -o gpum-bench tests/gpu/gpum-bench.c -lOpenCL && ./gpum-bench NVIDIA
 * Prints: streaming read with k = 1, 2, 4, 8 independent loads per turn (2048 x 256 work-items,
 * 2^26 floats); a one-work-item pointer chase over 4 MiB (L2) and 1 GiB (DRAM); an 8192^2 copy
 * by 32x32 groups with a barrier (one round of a one-shot group); an 8192^2 scattered store (each
 * lane of a warp in its own 32-byte sector).  Median of 21 launches after 2 warm-ups (events). */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *src =
"__kernel void rd1(__global const float* in, __global float* out, int n) {\n"
" int g = get_global_size(0); float a = 0; for (int i = get_global_id(0); i < n; i += g) a += in[i];\n"
" out[get_global_id(0)] = a; }\n"
"__kernel void rd2(__global const float* in, __global float* out, int n) {\n"
" int g = get_global_size(0); float a = 0, b = 0; int i = get_global_id(0);\n"
" for (; i + g < n; i += 2 * g) { a += in[i]; b += in[i + g]; }\n"
" out[get_global_id(0)] = a + b; }\n"
"__kernel void rd4(__global const float* in, __global float* out, int n) {\n"
" int g = get_global_size(0); float a = 0, b = 0, c = 0, d = 0; int i = get_global_id(0);\n"
" for (; i + 3 * g < n; i += 4 * g) { a += in[i]; b += in[i + g]; c += in[i + 2 * g]; d += in[i + 3 * g]; }\n"
" out[get_global_id(0)] = a + b + c + d; }\n"
"__kernel void rd8(__global const float* in, __global float* out, int n) {\n"
" int g = get_global_size(0); float a[8] = {0}; int i = get_global_id(0);\n"
" for (; i + 7 * g < n; i += 8 * g) { for (int j = 0; j < 8; j++) a[j] += in[i + j * g]; }\n"
" float s = 0; for (int j = 0; j < 8; j++) s += a[j]; out[get_global_id(0)] = s; }\n"
"__kernel void chase(__global const int* next, __global int* out, int steps) {\n"
" int i = 0; for (int s = 0; s < steps; s++) i = next[i]; out[0] = i; }\n"
"__kernel void copy2d(__global const float* in, __global float* out, int rows, int cols) {\n"
" int c = get_global_id(0), r = get_global_id(1); float t = in[r * cols + c];\n"
" barrier(CLK_LOCAL_MEM_FENCE); out[r * cols + c] = t; }\n"
"__kernel void scatter(__global const float* in, __global float* out, int rows, int cols) {\n"
" int c = get_global_id(0), r = get_global_id(1); out[c * rows + r] = (float)r; }\n";

static cl_context ctx;
static cl_command_queue q;
static cl_program prog;

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* median ms of 21 launches of k over global/local (dims 1 or 2) */
static double timed(cl_kernel k, int dims, const size_t *g, const size_t *l)
{
	double t[21];
	for (int i = -2; i < 21; i++) {
		cl_event e;
		if (clEnqueueNDRangeKernel(q, k, dims, NULL, g, l, 0, NULL, &e) != CL_SUCCESS) {
			fprintf(stderr, "launch failed\n");
			exit(1);
		}
		clWaitForEvents(1, &e);
		cl_ulong a, b;
		clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof a, &a, NULL);
		clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof b, &b, NULL);
		clReleaseEvent(e);
		if (i >= 0)
			t[i] = (b - a) * 1e-6;
	}
	qsort(t, 21, sizeof t[0], cmp);
	return t[10];
}

static cl_mem buf(size_t bytes, void *init)
{
	cl_int e;
	cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE | (init ? CL_MEM_COPY_HOST_PTR : 0), bytes,
	                          init, &e);
	if (e != CL_SUCCESS) {
		fprintf(stderr, "buffer of %zu bytes: %d\n", bytes, e);
		exit(1);
	}
	return m;
}

static void args(cl_kernel k, cl_mem a, cl_mem b, int x, int y, int n)
{
	clSetKernelArg(k, 0, sizeof a, &a);
	clSetKernelArg(k, 1, sizeof b, &b);
	clSetKernelArg(k, 2, sizeof x, &x);
	if (n > 3)
		clSetKernelArg(k, 3, sizeof y, &y);
}

static void streams(void)
{
	int n = 1 << 26;
	float *h = malloc(sizeof(float) * n);
	for (int i = 0; i < n; i++)
		h[i] = (float)(i % 7);
	cl_mem in = buf(sizeof(float) * n, h), out = buf(sizeof(float) * 2048 * 256, NULL);
	free(h);
	const char *names[] = { "rd1", "rd2", "rd4", "rd8" };
	size_t g = 2048 * 256, l = 256;
	for (int i = 0; i < 4; i++) {
		cl_kernel k = clCreateKernel(prog, names[i], NULL);
		args(k, in, out, n, 0, 3);
		double ms = timed(k, 1, &g, &l);
		printf("stream %s  %.4f ms  %.1f GB/s read\n", names[i], ms, 4.0 * n / ms * 1e-6);
		clReleaseKernel(k);
	}
	clReleaseMemObject(in);
	clReleaseMemObject(out);
}

static void chase(size_t bytes)
{
	size_t m = bytes / 4, stride = 32, slots = m / stride;
	int *h = calloc(m, sizeof *h);
	size_t *perm = malloc(slots * sizeof *perm);
	for (size_t i = 0; i < slots; i++)
		perm[i] = i;
	srand(7);
	for (size_t i = slots - 1; i > 0; i--) {
		size_t j = ((size_t)rand() * 65536u + (size_t)rand()) % (i + 1), t = perm[i];
		perm[i] = perm[j], perm[j] = t;
	}
	for (size_t i = 0; i < slots; i++)
		h[perm[i] * stride] = (int)(perm[(i + 1) % slots] * stride);
	cl_mem nx = buf(bytes, h), out = buf(4, NULL);
	free(h);
	free(perm);
	int steps = 100000;
	cl_kernel k = clCreateKernel(prog, "chase", NULL);
	args(k, nx, out, steps, 0, 3);
	size_t g = 1, l = 1;
	double ms = timed(k, 1, &g, &l);
	printf("chase %zu MiB  %.4f ms  %.1f ns per dependent load\n", bytes >> 20, ms, ms * 1e6 / steps);
	clReleaseKernel(k);
	clReleaseMemObject(nx);
	clReleaseMemObject(out);
}

static void two_d(const char *name)
{
	int n = 8192;
	cl_mem in = buf(sizeof(float) * n * n, NULL), out = buf(sizeof(float) * n * n, NULL);
	cl_kernel k = clCreateKernel(prog, name, NULL);
	args(k, in, out, n, n, 4);
	size_t g[2] = { (size_t)n, (size_t)n }, l[2] = { 32, 32 };
	double ms = timed(k, 2, g, l);
	printf("%s 8192^2 32x32  %.4f ms  %.1f GB/s (read + written)\n", name, ms,
	       (strcmp(name, "copy2d") == 0 ? 8.0 : 4.0) * n * n / ms * 1e-6);
	clReleaseKernel(k);
	clReleaseMemObject(in);
	clReleaseMemObject(out);
}

int main(int argc, char **argv)
{
	const char *want = argc > 1 ? argv[1] : "NVIDIA";
	cl_platform_id ps[8];
	cl_uint np = 0;
	clGetPlatformIDs(8, ps, &np);
	cl_device_id dev = NULL;
	for (cl_uint i = 0; i < np && !dev; i++) {
		char name[256];
		clGetPlatformInfo(ps[i], CL_PLATFORM_NAME, sizeof name, name, NULL);
		if (strstr(name, want) && clGetDeviceIDs(ps[i], CL_DEVICE_TYPE_ALL, 1, &dev, NULL) != CL_SUCCESS)
			dev = NULL;
	}
	if (!dev) {
		fprintf(stderr, "no platform named %s\n", want);
		return 2;
	}
	char dn[256];
	cl_uint cus = 0, mhz = 0;
	clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof dn, dn, NULL);
	clGetDeviceInfo(dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cus, &cus, NULL);
	clGetDeviceInfo(dev, CL_DEVICE_MAX_CLOCK_FREQUENCY, sizeof mhz, &mhz, NULL);
	printf("device %s: %u compute units, %u MHz\n", dn, cus, mhz);
	ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, NULL);
	q = clCreateCommandQueue(ctx, dev, CL_QUEUE_PROFILING_ENABLE, NULL);
	prog = clCreateProgramWithSource(ctx, 1, &src, NULL, NULL);
	if (clBuildProgram(prog, 1, &dev, "", NULL, NULL) != CL_SUCCESS) {
		char log[8192];
		clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
		fprintf(stderr, "%s\n", log);
		return 1;
	}
	streams();
	chase(4u << 20);
	chase(1u << 30);
	two_d("copy2d");
	two_d("scatter");
	return 0;
}
