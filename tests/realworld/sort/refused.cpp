// Issue 21: what CANN's compiler rejects in the sort family and the int4b_t Casts (tests/realworld/test_rw_sort.py),
// checked syntax-only on both chips; each refused line carries a REFUSED tag.
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void refused(GM_ADDR x)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 4096);
    LocalTensor<half> h = buf.Get<half>();
    LocalTensor<float> f = buf.Get<float>();
    LocalTensor<int32_t> i32 = buf.Get<int32_t>();
    LocalTensor<uint32_t> u32 = buf.Get<uint32_t>();
    LocalTensor<int4b_t> q = buf.Get<int4b_t>();
    Cast(q, h, RoundMode::CAST_NONE, 64);  // accepted on both
    Cast(h, q, RoundMode::CAST_NONE, 64);  // REFUSED:int4-to-half (310P has no vconv_s42f16)
    Cast(f, q, RoundMode::CAST_NONE, 64);  // REFUSED:int4-to-float
    Sort32(i32, i32, u32, 1);              // REFUSED:sort32-int32
    RpSort16(i32, i32, 1);                 // REFUSED:rpsort16-int32
    (void)x;
}
