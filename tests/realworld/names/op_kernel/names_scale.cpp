// Issue 21, an op_kernel file in the style of public ops repositories (tests/realworld/test_rw_names.py):
// y = x * scale + bias for half or float, the dtype chosen by the tiling key, which the host sets to the input's
// ge::DataType code (TILING_KEY_IS(DT_FLOAT16) / TILING_KEY_IS(DT_FLOAT)); the tiling class comes from
// op_host/names_scale_tiling.h (namespace optiling) and is named here unqualified; one ASSERT is glued to the
// expression before it and one has no `;` before a `}`, which only CANN's device build (ASSERT expands to nothing)
// compiles as written.
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

template <typename T>
class KernelNamesScale {
public:
    __aicore__ inline KernelNamesScale() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const NamesScaleTilingData &tiling)
    {
        this->blockLength = tiling.totalLength / GetBlockNum();
        this->tileNum = tiling.tileNum ASSERT(tiling.tileNum != 0 && "tile num can not be zero!");  // LINE:glued
        this->tileLength = this->blockLength / tileNum / BUFFER_NUM;
        this->scale = static_cast<T>(tiling.scale);
        this->bias = static_cast<T>(tiling.bias);
        xGm.SetGlobalBuffer((__gm__ T *)x + this->blockLength * GetBlockIdx(), this->blockLength);
        yGm.SetGlobalBuffer((__gm__ T *)y + this->blockLength * GetBlockIdx(), this->blockLength);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, this->tileLength * sizeof(T));
        pipe.InitBuffer(outQueueY, BUFFER_NUM, this->tileLength * sizeof(T));
    }
    __aicore__ inline void Process()
    {
        int32_t loopCount = this->tileNum * BUFFER_NUM;
        for (int32_t i = 0; i < loopCount; i++) {
            CopyIn(i);
            Compute();
            CopyOut(i);
        }
    }

private:
    __aicore__ inline void CopyIn(int32_t progress)
    {
        LocalTensor<T> xLocal = inQueueX.AllocTensor<T>();
        DataCopy(xLocal, xGm[progress * this->tileLength], this->tileLength);
        inQueueX.EnQue(xLocal);
    }
    __aicore__ inline void Compute()
    {
        LocalTensor<T> xLocal = inQueueX.DeQue<T>();
        LocalTensor<T> yLocal = outQueueY.AllocTensor<T>();
        Muls(yLocal, xLocal, this->scale, this->tileLength);
        PipeBarrier<PIPE_V>();
        Adds(yLocal, yLocal, this->bias, this->tileLength);
        outQueueY.EnQue<T>(yLocal);
        inQueueX.FreeTensor(xLocal);
    }
    __aicore__ inline void CopyOut(int32_t progress)
    {
        LocalTensor<T> yLocal = outQueueY.DeQue<T>();
        DataCopy(yGm[progress * this->tileLength], yLocal, this->tileLength);
        outQueueY.FreeTensor(yLocal);
        if (progress == 0) { ASSERT(this->tileLength % (32 / sizeof(T)) == 0) }
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueY;
    GlobalTensor<T> xGm;
    GlobalTensor<T> yGm;
    uint32_t blockLength;
    uint32_t tileNum;
    uint32_t tileLength;
    T scale;
    T bias;
};

extern "C" __global__ __aicore__ void names_scale(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    if (TILING_KEY_IS(DT_FLOAT16)) {
        KernelNamesScale<half> op;
        op.Init(x, y, tilingData);
        op.Process();
    } else if (TILING_KEY_IS(DT_FLOAT)) {
        KernelNamesScale<float> op;
        op.Init(x, y, tilingData);
        op.Process();
    }
}
