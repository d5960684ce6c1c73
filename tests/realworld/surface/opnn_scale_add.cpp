// Issue 11, an ops-nn-style kernel (tests/realworld/test_rw_surface.py): z = x * scale + y, reading its tiling with a
// bare GET_TILING_DATA as ops-nn kernels do; the struct comes from op_host/scale_add_tiling.h, which CANN's build
// turns into the kernel-side struct.  Built with -DASCEMU_TILING_STRUCT (+ -DASCEMU_TILING_HEADER) it runs; without,
// the build fails at the GET_TILING_DATA line naming the fix.
#include "kernel_operator.h"

constexpr int32_t BUFFER_NUM = 2;

extern "C" __global__ __aicore__ void opnn_scale_add(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace,
                                                     GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);  // LINE:get-tiling
    uint32_t blockLength = tilingData.totalLength / AscendC::GetBlockNum();
    uint32_t tileLength = tilingData.tileLength;
    AscendC::GlobalTensor<float> xGm, yGm, zGm;
    xGm.SetGlobalBuffer((__gm__ float *)x + blockLength * AscendC::GetBlockIdx(), blockLength);
    yGm.SetGlobalBuffer((__gm__ float *)y + blockLength * AscendC::GetBlockIdx(), blockLength);
    zGm.SetGlobalBuffer((__gm__ float *)z + blockLength * AscendC::GetBlockIdx(), blockLength);
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::TPosition::VECIN, BUFFER_NUM> inQueue;
    AscendC::TQue<AscendC::TPosition::VECOUT, BUFFER_NUM> outQueue;
    pipe.InitBuffer(inQueue, BUFFER_NUM, 2 * tileLength * sizeof(float));
    pipe.InitBuffer(outQueue, BUFFER_NUM, tileLength * sizeof(float));
    for (uint32_t t = 0; t < blockLength / tileLength; t++) {
        AscendC::LocalTensor<float> in = inQueue.AllocTensor<float>();
        AscendC::DataCopy(in, xGm[t * tileLength], tileLength);
        AscendC::DataCopy(in[tileLength], yGm[t * tileLength], tileLength);
        inQueue.EnQue(in);
        in = inQueue.DeQue<float>();
        AscendC::LocalTensor<float> out = outQueue.AllocTensor<float>();
        AscendC::Muls(out, in, tilingData.scale, tileLength);
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::Add(out, out, in[tileLength], tileLength);
        outQueue.EnQue(out);
        inQueue.FreeTensor(in);
        out = outQueue.DeQue<float>();
        AscendC::DataCopy(zGm[t * tileLength], out, tileLength);
        outQueue.FreeTensor(out);
    }
}
