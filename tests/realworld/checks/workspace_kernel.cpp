// A kernel of our own that stages its data through the user workspace, as operators do that keep intermediates in
// GM: z = 3x, where each core writes 3x to its part of GetUserWorkspace(workspace) and copies it back to z.
// GetUserWorkspace only works once the system workspace is set: by the framework (a custom-operator project, or a
// kernel-launch build with HAVE_WORKSPACE), or by the kernel calling SetSysWorkspace (tiling setSysWorkspace = 1).
// tests/realworld/test_rw_checks.py launches it in each of those settings and in none of them.
#include "kernel_operator.h"
#include "npu_check_tiling.h"

using namespace AscendC;

namespace {

class KernelStageThroughWorkspace {
public:
    __aicore__ inline KernelStageThroughWorkspace() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR z, GM_ADDR usrWorkspace, uint32_t totalLength)
    {
        blockLength = totalLength / GetBlockNum();
        xGm.SetGlobalBuffer((__gm__ float*)x + blockLength * GetBlockIdx(), blockLength);
        zGm.SetGlobalBuffer((__gm__ float*)z + blockLength * GetBlockIdx(), blockLength);
        stageGm.SetGlobalBuffer((__gm__ float*)usrWorkspace + blockLength * GetBlockIdx(), blockLength);
        pipe.InitBuffer(inQueue, 1, blockLength * sizeof(float));
        pipe.InitBuffer(outQueue, 1, blockLength * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        LocalTensor<float> xLocal = inQueue.AllocTensor<float>();
        DataCopy(xLocal, xGm, blockLength);
        inQueue.EnQue(xLocal);
        xLocal = inQueue.DeQue<float>();
        LocalTensor<float> yLocal = outQueue.AllocTensor<float>();
        Muls(yLocal, xLocal, 3.0f, blockLength);
        outQueue.EnQue(yLocal);
        inQueue.FreeTensor(xLocal);
        yLocal = outQueue.DeQue<float>();
        DataCopy(stageGm, yLocal, blockLength);  // LINE:stage_out
        outQueue.FreeTensor(yLocal);

        PipeBarrier<PIPE_ALL>();  // the staged bytes are in GM before they are read back
        LocalTensor<float> sLocal = inQueue.AllocTensor<float>();
        DataCopy(sLocal, stageGm, blockLength);  // LINE:stage_in
        inQueue.EnQue(sLocal);
        sLocal = inQueue.DeQue<float>();
        LocalTensor<float> zLocal = outQueue.AllocTensor<float>();
        Adds(zLocal, sLocal, 0.0f, blockLength);
        outQueue.EnQue(zLocal);
        inQueue.FreeTensor(sLocal);
        zLocal = outQueue.DeQue<float>();
        DataCopy(zGm, zLocal, blockLength);
        outQueue.FreeTensor(zLocal);
    }

private:
    TPipe pipe;
    TQue<TPosition::VECIN, 1> inQueue;
    TQue<TPosition::VECOUT, 1> outQueue;
    GlobalTensor<float> xGm, zGm, stageGm;
    uint32_t blockLength = 0;
};

}  // namespace

extern "C" __global__ __aicore__ void workspace_kernel(GM_ADDR x, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    REGISTER_TILING_DEFAULT(NpuCheckTilingData);
    GET_TILING_DATA(tilingData, tiling);
    if (tilingData.setSysWorkspace) SetSysWorkspace(workspace);
    GM_ADDR usrWorkspace = GetUserWorkspace(workspace);  // LINE:get_user_workspace
    KernelStageThroughWorkspace op;
    op.Init(x, z, usrWorkspace, tilingData.totalLength);
    op.Process();
}
