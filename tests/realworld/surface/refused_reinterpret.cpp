// Issue 11, the kernel surface (tests/realworld/test_rw_surface.py): GlobalTensor::ReinterpretCast exists in CANN
// for the Ascend 950 generation only, so this kernel must not compile for 310P or 910B (checked syntax-only).
#include "kernel_operator.h"

extern "C" __global__ __aicore__ void bits_of(GM_ADDR x, GM_ADDR y)
{
    AscendC::GlobalTensor<half> xGm;
    xGm.SetGlobalBuffer((__gm__ half*)x, 64);
    AscendC::GlobalTensor<int16_t> bits = xGm.ReinterpretCast<int16_t>();  // LINE:refused
    AscendC::GlobalTensor<int16_t> yGm;
    yGm.SetGlobalBuffer((__gm__ int16_t*)y, 64);
    yGm.SetValue(0, bits.GetValue(0));
}
