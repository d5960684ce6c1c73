// Issue 11, the kernel surface (tests/realworld/test_rw_surface.py): one misuse per `mode` of the APIs the surface
// added, each at a `// LINE:<tag>` the test finds; mode 0 is correct use and must stay silent.  The entry takes a
// scalar after its one GM buffer, so the launch passes `mode` as a number.
#include "kernel_operator.h"

using namespace AscendC;

constexpr uint32_t UB_BYTES = ASCEMU_IS_310P ? 262144 : 196608;

__aicore__ inline void CleanUse(GlobalTensor<float>& outGm)
{
    LocalMemAllocator<Hardware::UB> ub;
    LocalTensor<float> a = ub.Alloc<float, 64>();
    LocalTensor<float> b(TPosition::VECCALC, ub.GetCurAddr(), 64);
    if (a.GetSize() == 64) ASSERT(b.GetSize() == 64); else return;
    Duplicate(a, 1.5f, 64);
    Duplicate(b, 2.0f, 64);
    PipeBarrier<PIPE_V>();
    Add(a, a, b, 64);
    SetFlag<HardEvent::V_MTE3>(0);
    WaitFlag<HardEvent::V_MTE3>(0);
    DataCopy(outGm, a, 64);
}

extern "C" __global__ __aicore__ void surface_faults(GM_ADDR out, int32_t mode)
{
    GlobalTensor<float> outGm;
    outGm.SetGlobalBuffer((__gm__ float*)out, 64);
    if (mode == 0) {
        CleanUse(outGm);
    } else if (mode == 1) {  // a static tensor that ends past UB
        LocalTensor<float> t(TPosition::VECCALC, UB_BYTES - 128, 64);  // LINE:static-overflow
        Duplicate(t, 0.0f, 64);                                         // LINE:static-overflow-use
    } else if (mode == 2) {  // a static tensor at an address that is not 32-byte aligned
        LocalTensor<float> t(TPosition::VECCALC, 16, 64);  // LINE:static-misaligned
        (void)t;
    } else if (mode == 3) {  // an allocator next to a live TPipe: its tensor lands on a queue buffer
        TPipe pipe;
        TQue<QuePosition::VECIN, 1> que;
        pipe.InitBuffer(que, 1, 1024);
        LocalMemAllocator<Hardware::UB> ub;         // LINE:allocator-with-pipe
        LocalTensor<float> t = ub.Alloc<float>(64);  // LINE:allocator-overlap
        (void)t;
    } else if (mode == 4) {  // the allocator runs out of UB
        LocalMemAllocator<Hardware::UB> ub;
        LocalTensor<float> big = ub.Alloc<float>(UB_BYTES / sizeof(float) - 8);
        LocalTensor<float> more = ub.Alloc<float>(64);  // LINE:allocator-overflow
        (void)big;
        (void)more;
    } else if (mode == 5) {  // a pool asked for more than it holds
        TPipe pipe;
        TBufPool<TPosition::VECCALC> pool;
        pipe.InitBufPool(pool, 1024);
        TQue<QuePosition::VECIN, 2> que;
        pool.InitBuffer(que, 2, 1024);  // LINE:pool-overflow
    } else if (mode == 6) {  // a tensor of a pool used after the pool's Reset
        TPipe pipe;
        TBufPool<TPosition::VECCALC> pool;
        pipe.InitBufPool(pool, 1024);
        TBuf<TPosition::VECCALC> buf;
        pool.InitBuffer(buf, 256);
        LocalTensor<float> t = buf.Get<float>();
        Duplicate(t, 1.0f, 64);
        pool.Reset();
        Duplicate(t, 2.0f, 64);  // LINE:pool-after-reset
    } else if (mode == 7) {  // more buffers than the pool's bufIDSize
        TPipe pipe;
        TBufPool<TPosition::VECCALC, 2> pool;
        pipe.InitBufPool(pool, 4096);
        TQue<QuePosition::VECIN, 1> que;
        pool.InitBuffer(que, 3, 256);  // LINE:pool-too-many
    } else if (mode == 8) {  // a pool sharing a shorter one
        TPipe pipe;
        TBufPool<TPosition::VECCALC> small, large;
        pipe.InitBufPool(small, 512);
        pipe.InitBufPool(large, 1024, small);  // LINE:pool-share-longer
    } else if (mode == 9) {  // GlobalTensor::operator() past the GM allocation
        float v = outGm(1 << 20);  // LINE:gm-parentheses-oob
        (void)v;
    } else if (mode == 10) {  // a failing ASSERT ends the launch, as CANN's CPU-debug assert does
        ASSERT(mode != 10 && "mode 10 asserts")  // LINE:assert-fails
        outGm.SetValue(0, 1.0f);
    }
}
