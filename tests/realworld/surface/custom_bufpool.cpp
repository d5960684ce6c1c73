// Issue 11, the kernel surface (tests/realworld/test_rw_surface.py): a user-defined TBufPool, written as CANN's
// "custom TBufPool" documentation shows it, is refused at compile time at its EXTERN_IMPL_BUFPOOL line (checked
// syntax-only); CUSTOM=0 is the supported TBufPool doing the same job.
#include "kernel_operator.h"

constexpr int32_t BUF_ID_SIZE = 4;

#if CUSTOM
class MyBufPool {
public:
    __aicore__ inline MyBufPool() { Init(); }
    template <AscendC::TPosition bufPos>
    __aicore__ inline bool InitBuffer(AscendC::TBuf<bufPos> &buf, uint32_t len)
    {
        auto ptr = this->GetBufHandle(this->GetCurBufSize());
        buf.InitStartBufHandle(ptr, 1, len);
        this->SetCurBufSize(this->GetCurBufSize() + 1);
        return true;
    }
    EXTERN_IMPL_BUFPOOL(MyBufPool, AscendC::TPosition::VECCALC, BUF_ID_SIZE);  // LINE:extern-impl
};
#else
using MyBufPool = AscendC::TBufPool<AscendC::TPosition::VECCALC, BUF_ID_SIZE>;
#endif

extern "C" __global__ __aicore__ void custom_bufpool(GM_ADDR x)
{
    AscendC::TPipe pipe;
    MyBufPool pool;
    AscendC::TBuf<AscendC::TPosition::VECCALC> tmp;
    pipe.InitBufPool(pool, 1024);
    pool.InitBuffer(tmp, 512);
    AscendC::Duplicate(tmp.Get<float>(), 1.0f, 128);
    (void)x;
}
