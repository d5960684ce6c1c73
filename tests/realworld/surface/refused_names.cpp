// Issue 11, the kernel surface (tests/realworld/test_rw_surface.py): names that exist, but whose use is refused at
// compile time, one per REFUSE value (checked syntax-only).  REFUSE=0 is the accepted use of the same names.
#include "kernel_operator.h"
#include "lib/matmul_intf.h"

using AType = matmul::MatmulType<AscendC::TPosition::GM, AscendC::CubeFormat::ND, half>;  // a descriptor: fine

extern "C" __global__ __aicore__ void refused_names(GM_ADDR x, GM_ADDR workspace)
{
    AscendC::TPipe pipe;
    AscendC::GlobalTensor<int32_t> xGm;
    xGm.SetGlobalBuffer((__gm__ int32_t*)x, 64);
    xGm.SetL2CacheHint<AscendC::CacheRwMode::READ>(AscendC::CacheMode::CACHE_MODE_NORMAL);
    const AscendC::int4b_t q(-3);
    xGm.SetValue(0, (int8_t)q + 1);  // int4b_t scalars take part in int arithmetic, as in CANN
    xGm.SetValue(1, AscendC::CeilDivision(100, 32) + (int32_t)AscendC::DivCeil(100, 32));  // both chips have both
#if REFUSE == 1
    AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 256);
    AscendC::LocalTensor<AscendC::int4b_t> packed = buf.Get<AscendC::int4b_t>();  // packed int4b_t tensors exist
    AscendC::Adds(packed, packed, q, 64);  // LINE:int4-tensor
#elif REFUSE == 2
    AscendC::Matmul<AType, AType, AType> mm;  // LINE:matmul
    (void)mm;
#elif REFUSE == 3
    REGIST_MATMUL_OBJ(&pipe, workspace, nullptr);  // LINE:regist
#elif REFUSE == 4
    AscendC::GlobalTensor<int8_t> bytes;
    bytes.SetGlobalBuffer((__gm__ int8_t*)x, 256);
    AscendC::Fill(bytes, 256, (int8_t)0);  // LINE:fill-int8
#endif
    (void)workspace;
}
