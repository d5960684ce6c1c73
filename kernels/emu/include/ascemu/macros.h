// ascemu/macros.h — marker and fixed macros of spec §3.1.
#pragma once
#include <cstdint>
#include "ascemu/platform.h"

#ifndef __aicore__
#define __aicore__
#endif
#ifndef __global__
#define __global__
#endif
// The entry qualifier of CANN's single-source (.asc) programs, written `__global__ __vector__` for a kernel that
// runs on the vector cores; on the emulator every kernel runs on emulated vector cores, so it marks nothing.
#ifndef __vector__
#define __vector__
#endif
#ifndef __gm__
#define __gm__
#endif
#ifndef __ubuf__
#define __ubuf__
#endif
#ifndef __inout_pipe__
#define __inout_pipe__(x)
#endif
#ifndef __sync_alias__
#define __sync_alias__
#endif
#ifndef __sync_noalias__
#define __sync_noalias__
#endif
#ifndef __in_pipe__
#define __in_pipe__(x)
#endif
#ifndef __out_pipe__
#define __out_pipe__(x)
#endif
#ifndef GM_ADDR
#define GM_ADDR uint8_t*
#endif
#ifndef ASCENDC_CPU_DEBUG
#define ASCENDC_CPU_DEBUG 1
#endif
#ifndef __CCE_KT_TEST__
#define __CCE_KT_TEST__ 1
#endif
#define ASCEND_IS_AIV constexpr (true)
#define ASCEND_IS_AIC constexpr (false)
#define ASCEND_IS_NOT_AIV constexpr (false)
#define ASCEND_IS_NOT_AIC constexpr (true)
#define ASCEMU 1
