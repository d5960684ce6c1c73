// The event log's test kernel (tests/emu/test_emu_events.py): two cores, each a strided read, a vector op, a flag
// pair V -> MTE3, a scalar GM read, a write that both cores make to the same bytes (a race the log shows as an
// overlap) and an atomic add that both make to the same bytes (an overlap that is no race).
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void events_kernel(GM_ADDR x, GM_ADDR y, GM_ADDR z) {
    TPipe pipe;
    TQue<TPosition::VECIN, 1> qin;
    TBuf<TPosition::VECCALC> calc;
    pipe.InitBuffer(qin, 1, 1024);
    pipe.InitBuffer(calc, 1024);
    GlobalTensor<float> gx, gy, gz;
    gx.SetGlobalBuffer((__gm__ float*)x + GetBlockIdx() * 256, 256);
    gy.SetGlobalBuffer((__gm__ float*)y, 64);
    gz.SetGlobalBuffer((__gm__ float*)z, 16);
    LocalTensor<float> a = qin.AllocTensor<float>();
    DataCopy(a, gx, DataCopyParams(2, 2, 2, 0));  // LINE:strided  rows of 64 B, 128 B apart
    qin.EnQue(a);
    LocalTensor<float> b = qin.DeQue<float>();
    LocalTensor<float> c = calc.Get<float>();
    Adds(c, b, (float)gx.GetValue(0), 32);  // LINE:adds
    SetFlag<HardEvent::V_MTE3>(0);  // LINE:set
    WaitFlag<HardEvent::V_MTE3>(0);  // LINE:wait
    DataCopy(gy, c, 32);  // LINE:race  both cores write y[0, 32)
    SetAtomicAdd<float>();
    DataCopy(gz, c, 16);  // LINE:atomic  both cores add into z[0, 16)
    SetAtomicNone();
    PipeBarrier<PIPE_ALL>();
    qin.FreeTensor(b);
}
