// Issue 21 (tests/realworld/test_rw_names.py): a genuine mistake, the tiling struct given to TILING_KEY_IS instead of
// a key.  CANN rejects it too (its TILING_KEY_IS(k) is `(TILING_KEY_VAR == (k))`); g++ reports the bad cast inside the
// emulator's macro, and the workbench must place the error at this file's line.
#include "kernel_operator.h"

extern "C" __global__ __aicore__ void names_bad_key(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    if (TILING_KEY_IS(tilingData)) {  // LINE:bad-key
        AscendC::GlobalTensor<float> xGm;
        xGm.SetGlobalBuffer((__gm__ float *)x, tilingData.totalLength);
    }
}
