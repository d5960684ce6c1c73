// kernel_tiling/kernel_tiling.h — what `#include "kernel_tiling/kernel_tiling.h"` gives a kernel under ascemu.
//
// CANN generates this header at build time (cann/asc-devkit impl/adv_api/cmake/scripts/
// gen_kernel_tiling_data_def.py): it holds the tiling structs of the high-level APIs (TCubeTiling for Matmul,
// SoftMaxTiling, LayerNormTiling, TopkTiling, ...) in namespace AscendC::tiling, plus `using` declarations that also
// export some of them at global scope.  Kernels include it for those structs, and many include it out of habit.
//
// [CHOICE] The high-level APIs those structs configure (Matmul/cube, SoftMax, LayerNorm, ...) are not emulated
// (docs/emulator.md "Not modelled"), so ascemu declares the namespace but none of their structs: a kernel that only
// includes the header compiles, and one that uses such a struct fails to compile naming it.  The kernel-side tiling
// macros (GET_TILING_DATA and its variants, TILING_KEY_IS, TILING_KEY_LIST, REGISTER_TILING_DEFAULT, the
// BEGIN_TILING_DATA_DEF family) are part of the kernel API that kernel_operator.h brings, so this header includes it.
#pragma once
#include <cstdint>
#include <cstring>

#include "kernel_operator.h"

namespace AscendC::tiling {}
