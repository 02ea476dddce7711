/* l7-probe.c -- the stand-alone timing probe of lesson 7's exploration (GUIDE.md, lesson 7 in
 * "Speedup thresholds"): builds FILE's KERNEL with OPTS, launches it at N x N with TILE x TILE
 * groups of WPT x WPT blocks, times 9 launches with OpenCL events (median of the last 7),
 * checks 64 sampled elements against a double reference.  PROBE_LOG=1 prints the build log.
 *   cc -O2 -o probe tests/gpu/l7-probe.c -lOpenCL -lm; ./probe FILE KERNEL "-DTILE=16" 4096 8 */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
static char *slurp(const char *f){FILE*fp=fopen(f,"rb");if(!fp){perror(f);exit(1);}fseek(fp,0,2);long n=ftell(fp);rewind(fp);char*b=malloc(n+1);fread(b,1,n,fp);b[n]=0;fclose(fp);return b;}
static int cmp(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
int main(int argc,char**argv){
  if(argc<6){fprintf(stderr,"probe FILE KERNEL OPTS N WPT\n");return 2;}
  const char*file=argv[1],*kn=argv[2],*opts=argv[3];int N=atoi(argv[4]),wpt=atoi(argv[5]);
  cl_platform_id pl[8];cl_uint np;clGetPlatformIDs(8,pl,&np);cl_device_id dev=0;
  for(cl_uint i=0;i<np;i++){char nm[256];clGetPlatformInfo(pl[i],CL_PLATFORM_NAME,256,nm,0);if(strstr(nm,"NVIDIA")||np==1){clGetDeviceIDs(pl[i],CL_DEVICE_TYPE_ALL,1,&dev,0);break;}}
  if(!dev){fprintf(stderr,"no device\n");return 1;}
  cl_int e;cl_context ctx=clCreateContext(0,1,&dev,0,0,&e);
  cl_command_queue q=clCreateCommandQueue(ctx,dev,CL_QUEUE_PROFILING_ENABLE,&e);
  char*src=slurp(file);cl_program p=clCreateProgramWithSource(ctx,1,(const char**)&src,0,&e);
  char o2[512];char pn[256];clGetDeviceInfo(dev,CL_DEVICE_VENDOR,256,pn,0);snprintf(o2,512,strstr(pn,"NVIDIA")?"%s -cl-nv-verbose":"%s",opts);
  e=clBuildProgram(p,1,&dev,o2,0,0);
  size_t ln;clGetProgramBuildInfo(p,dev,CL_PROGRAM_BUILD_LOG,0,0,&ln);char*log=malloc(ln+1);clGetProgramBuildInfo(p,dev,CL_PROGRAM_BUILD_LOG,ln,log,0);
  if(getenv("PROBE_LOG"))printf("----log----\n%s\n-----------\n",log);char*u=strstr(log,"Used");if(u){char*nl=strchr(u,'\n');if(nl)*nl=0;printf("  [%s]\n",u);}
  if(e){printf("build failed %d\n%s\n",e,log);return 1;}
  cl_kernel k=clCreateKernel(p,kn,&e);if(e){printf("kernel %d\n",e);return 1;}
  size_t n=(size_t)N*N;float*a=malloc(n*4),*b=malloc(n*4),*c=malloc(n*4);
  srand(1);for(size_t i=0;i<n;i++){a[i]=rand()/(float)RAND_MAX-0.5f;b[i]=rand()/(float)RAND_MAX-0.5f;}
  cl_mem A=clCreateBuffer(ctx,CL_MEM_READ_ONLY|CL_MEM_COPY_HOST_PTR,n*4,a,&e),B=clCreateBuffer(ctx,CL_MEM_READ_ONLY|CL_MEM_COPY_HOST_PTR,n*4,b,&e),C=clCreateBuffer(ctx,CL_MEM_WRITE_ONLY,n*4,0,&e);
  clSetKernelArg(k,0,sizeof A,&A);clSetKernelArg(k,1,sizeof B,&B);clSetKernelArg(k,2,sizeof C,&C);clSetKernelArg(k,3,4,&N);
  int tile=16;const char*t=strstr(opts,"TILE=");if(t)tile=atoi(t+5);
  int bt=tile*wpt;size_t g[2]={(size_t)(N+bt-1)/bt*tile,(size_t)(N+bt-1)/bt*tile},l[2]={(size_t)tile,(size_t)tile};
  double ms[7];
  for(int r=0;r<9;r++){cl_event ev;e=clEnqueueNDRangeKernel(q,k,2,0,g,l,0,0,&ev);if(e){printf("enqueue %d\n",e);return 1;}clWaitForEvents(1,&ev);
    cl_ulong s0,s1;clGetEventProfilingInfo(ev,CL_PROFILING_COMMAND_START,8,&s0,0);clGetEventProfilingInfo(ev,CL_PROFILING_COMMAND_END,8,&s1,0);if(r>=2)ms[r-2]=(s1-s0)*1e-6;clReleaseEvent(ev);}
  qsort(ms,7,8,cmp);
  clEnqueueReadBuffer(q,C,1,0,n*4,c,0,0,0);
  double maxerr=0;for(int s=0;s<64;s++){int i=(s*7919)%N,j=(s*104729+13)%N;if(s==0){i=0;j=0;}if(s==1){i=N-1;j=N-1;}double ref=0;for(int kk=0;kk<N;kk++)ref+=(double)a[(size_t)i*N+kk]*b[(size_t)kk*N+j];double d=fabs(ref-c[(size_t)i*N+j]);if(d>maxerr)maxerr=d;}
  printf("%s %s N=%d median %.3f ms  %.2f TFLOP/s  (min %.3f max %.3f) maxerr %.2e\n",file,opts,N,ms[3],2.0*N*(double)N*N/ms[3]*1e-9,ms[0],ms[6],maxerr);
  return 0;}
