// softplus: y = log(1 + exp(x)), computed stably as relu(x) + log(1 + exp(-|x|)), on a float vector whose length is
// not a multiple of 8.
// Style: an ops-nn elementwise op_kernel for Atlas A2 (910B): `GM_ADDR workspace, GM_ADDR tiling` with
// REGISTER_TILING_DEFAULT + GET_TILING_DATA, KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY), the former / tail core
// split (formerNum cores take one element more), tiles of tileLength with a shorter last tile, and every GM move a
// DataCopyPad with DataCopyExtParams (byte lengths, so neither the core boundaries nor the tail need 32-byte
// alignment); Abs, Muls, Exp, Adds, Ln, Relu, Add with PipeBarrier<PIPE_V> between dependent steps; DivCeil for the
// tile count, and the body guarded by `#if __CCE_AICORE__ == 220` as ops-nn guards its Atlas A2 paths.
#include "kernel_operator.h"

struct SoftplusTilingData {
    uint32_t formerNum;     // cores that take formerLength elements; the rest take tailLength = formerLength - 1
    uint32_t formerLength;
    uint32_t tailLength;
    uint32_t tileLength;    // elements per full tile, a multiple of 8
};

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

class KernelSoftplus {
public:
    __aicore__ inline KernelSoftplus() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const SoftplusTilingData& tiling)
    {
        const uint32_t blockIdx = GetBlockIdx();
        uint64_t offset;
        if (blockIdx < tiling.formerNum) {
            blockLength_ = tiling.formerLength;
            offset = static_cast<uint64_t>(blockIdx) * tiling.formerLength;
        } else {
            blockLength_ = tiling.tailLength;
            offset = static_cast<uint64_t>(tiling.formerNum) * tiling.formerLength +
                     static_cast<uint64_t>(blockIdx - tiling.formerNum) * tiling.tailLength;
        }
        tileLength_ = tiling.tileLength;
        xGm_.SetGlobalBuffer((__gm__ float*)x + offset, blockLength_);
        yGm_.SetGlobalBuffer((__gm__ float*)y + offset, blockLength_);
        pipe_.InitBuffer(inQueueX_, BUFFER_NUM, tileLength_ * sizeof(float));
        pipe_.InitBuffer(outQueueY_, BUFFER_NUM, tileLength_ * sizeof(float));
        pipe_.InitBuffer(tmpBuf_, tileLength_ * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        const uint32_t tileNum = DivCeil(blockLength_, tileLength_);
        for (uint32_t i = 0; i < tileNum; ++i) {
            const uint32_t count = i + 1 == tileNum ? blockLength_ - i * tileLength_ : tileLength_;
            CopyIn(i, count);
            Compute(count);
            CopyOut(i, count);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t progress, uint32_t count)
    {
        LocalTensor<float> xLocal = inQueueX_.AllocTensor<float>();
        DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(float)), 0, 0, 0};
        DataCopyPadExtParams<float> padParams{false, 0, 0, 0.0f};
        DataCopyPad(xLocal, xGm_[progress * tileLength_], copyParams, padParams);
        inQueueX_.EnQue(xLocal);
    }
    __aicore__ inline void Compute(uint32_t count)
    {
        LocalTensor<float> xLocal = inQueueX_.DeQue<float>();
        LocalTensor<float> yLocal = outQueueY_.AllocTensor<float>();
        LocalTensor<float> t = tmpBuf_.Get<float>();
        Abs(t, xLocal, count);
        PipeBarrier<PIPE_V>();
        Muls(t, t, -1.0f, count);
        PipeBarrier<PIPE_V>();
        Exp(t, t, count);
        PipeBarrier<PIPE_V>();
        Adds(t, t, 1.0f, count);
        PipeBarrier<PIPE_V>();
        Ln(t, t, count);
        Relu(yLocal, xLocal, count);
        PipeBarrier<PIPE_V>();
        Add(yLocal, yLocal, t, count);
        outQueueY_.EnQue<float>(yLocal);
        inQueueX_.FreeTensor(xLocal);
    }
    __aicore__ inline void CopyOut(uint32_t progress, uint32_t count)
    {
        LocalTensor<float> yLocal = outQueueY_.DeQue<float>();
        DataCopyExtParams copyParams{1, static_cast<uint32_t>(count * sizeof(float)), 0, 0, 0};
        DataCopyPad(yGm_[progress * tileLength_], yLocal, copyParams);
        outQueueY_.FreeTensor(yLocal);
    }

    TPipe pipe_;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX_;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueY_;
    TBuf<TPosition::VECCALC> tmpBuf_;
    GlobalTensor<float> xGm_, yGm_;
    uint32_t blockLength_ = 0;
    uint32_t tileLength_ = 0;
};

extern "C" __global__ __aicore__ void softplus(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    REGISTER_TILING_DEFAULT(SoftplusTilingData);
    GET_TILING_DATA(tilingData, tiling);
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
#if __CCE_AICORE__ == 220
    KernelSoftplus op;
    op.Init(x, y, tilingData);
    op.Process();
#endif
}
