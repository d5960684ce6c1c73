// axpy_custom: z = AXPY_ALPHA * x + y on float vectors, the kernel file of a two-file CPU twin (main.cpp is its host).
// Style: CANN's KernelLaunch samples, the kernel in its own <op>_custom.cpp with `extern "C" __global__ __aicore__`,
// an Init/Process class over TPipe + double-buffered TQue, the tiling struct read from GM through a header both files
// share, and the NPU-side launch wrapper (`<op>_do` with <<<>>>) kept under #ifndef ASCENDC_CPU_DEBUG as the samples
// keep it; their CMake compiles this file and main.cpp into one CPU-debug executable.
#include "kernel_operator.h"
#include "axpy_custom_tiling.h"

constexpr int32_t BUFFER_NUM = 2;

class KernelAxpy {
public:
    __aicore__ inline KernelAxpy() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, const AxpyCustomTilingData &tiling)
    {
        this->blockLength = tiling.totalLength / AscendC::GetBlockNum();
        this->tileNum = tiling.tileNum;
        this->tileLength = this->blockLength / tiling.tileNum / BUFFER_NUM;
        uint32_t offset = this->blockLength * AscendC::GetBlockIdx();
        xGm.SetGlobalBuffer((__gm__ float *)x + offset, this->blockLength);
        yGm.SetGlobalBuffer((__gm__ float *)y + offset, this->blockLength);
        zGm.SetGlobalBuffer((__gm__ float *)z + offset, this->blockLength);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, this->tileLength * sizeof(float));
        pipe.InitBuffer(inQueueY, BUFFER_NUM, this->tileLength * sizeof(float));
        pipe.InitBuffer(outQueueZ, BUFFER_NUM, this->tileLength * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        int32_t loopCount = this->tileNum * BUFFER_NUM;
        for (int32_t i = 0; i < loopCount; i++) {
            CopyIn(i);
            Compute(i);
            CopyOut(i);
        }
    }

private:
    __aicore__ inline void CopyIn(int32_t progress)
    {
        AscendC::LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
        AscendC::LocalTensor<float> yLocal = inQueueY.AllocTensor<float>();
        AscendC::DataCopy(xLocal, xGm[progress * this->tileLength], this->tileLength);  // LINE:copy-x
        AscendC::DataCopy(yLocal, yGm[progress * this->tileLength], this->tileLength);
        inQueueX.EnQue(xLocal);
        inQueueY.EnQue(yLocal);
    }
    __aicore__ inline void Compute(int32_t progress)
    {
        AscendC::LocalTensor<float> xLocal = inQueueX.DeQue<float>();
        AscendC::LocalTensor<float> yLocal = inQueueY.DeQue<float>();
        AscendC::LocalTensor<float> zLocal = outQueueZ.AllocTensor<float>();
        AscendC::Muls(zLocal, xLocal, (float)AXPY_ALPHA, this->tileLength);
        AscendC::PipeBarrier<PIPE_V>();  // Add reads what Muls wrote
        AscendC::Add(zLocal, zLocal, yLocal, this->tileLength);
        outQueueZ.EnQue<float>(zLocal);
        inQueueX.FreeTensor(xLocal);
        inQueueY.FreeTensor(yLocal);
    }
    __aicore__ inline void CopyOut(int32_t progress)
    {
        AscendC::LocalTensor<float> zLocal = outQueueZ.DeQue<float>();
        AscendC::DataCopy(zGm[progress * this->tileLength], zLocal, this->tileLength);
        outQueueZ.FreeTensor(zLocal);
    }

private:
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::TPosition::VECIN, BUFFER_NUM> inQueueX, inQueueY;
    AscendC::TQue<AscendC::TPosition::VECOUT, BUFFER_NUM> outQueueZ;
    AscendC::GlobalTensor<float> xGm;
    AscendC::GlobalTensor<float> yGm;
    AscendC::GlobalTensor<float> zGm;
    uint32_t blockLength = 0;
    uint32_t tileNum = 0;
    uint32_t tileLength = 0;
};

extern "C" __global__ __aicore__ void axpy_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR tiling)
{
    AxpyCustomTilingData tilingData = *reinterpret_cast<__gm__ AxpyCustomTilingData *>(tiling);
    KernelAxpy op;
    op.Init(x, y, z, tilingData);
    op.Process();
}

#ifndef ASCENDC_CPU_DEBUG
// the NPU build's launch wrapper, called from main.cpp's ACL branch
void axpy_custom_do(uint32_t blockDim, void *stream, uint8_t *x, uint8_t *y, uint8_t *z, uint8_t *tiling)
{
    axpy_custom<<<blockDim, nullptr, stream>>>(x, y, z, tiling);
}
#endif
