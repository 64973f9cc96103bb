// The floor of a kernel launch on this host: cuLaunchKernel in a C loop.
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include "cuda.h"

typedef CUresult (*launch_t)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             CUstream, void **, void **);
typedef CUresult (*sync_t)(CUstream);
typedef CUresult (*param_t)(CUfunction, size_t, size_t *, size_t *);

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

int param_info(uint64_t function, int index, uint64_t *offset, uint64_t *size) {
  void *lib = dlopen("libcuda.so.1", RTLD_LAZY);
  param_t info = (param_t)dlsym(lib, "cuFuncGetParamInfo");
  if (!info) return -1;
  size_t o, s;
  int status = info((CUfunction)function, index, &o, &s);
  *offset = o;
  *size = s;
  return status;
}

// params: up to 16 values, each passed as 8 bytes (the kernel reads the low bytes of i32 ones)
double floor_us(uint64_t function, uint64_t stream, int grid, int threads, int shared, int nparams,
                uint64_t *values, int iters) {
  void *lib = dlopen("libcuda.so.1", RTLD_LAZY);
  launch_t launch = (launch_t)dlsym(lib, "cuLaunchKernel");
  sync_t sync = (sync_t)dlsym(lib, "cuStreamSynchronize");
  void *params[16];
  for (int i = 0; i < nparams; i++) params[i] = &values[i];
  sync((CUstream)stream);
  double start = now();
  for (int i = 0; i < iters; i++) {
    CUresult r = launch((CUfunction)function, grid, 1, 1, threads, 1, 1, shared, (CUstream)stream, params, NULL);
    if (r != CUDA_SUCCESS) return -r;
  }
  sync((CUstream)stream);
  return (now() - start) / iters * 1e6;
}
