// tikicpulib.h — ascemu: the CANN CPU-twin host API (GmAlloc/GmFree, ICPU_RUN_KF, ICPU_SET_TILING_KEY), as
// CANN's own tikicpulib.h provides it to a host main that runs a kernel on the CPU.  Kernels include only
// kernel_operator.h; the host file that launches them includes this header too.  See kernels/emu/README.md.
#pragma once

#include "kernel_operator.h"
#include "ascemu/launch.h"
