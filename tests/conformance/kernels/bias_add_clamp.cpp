// bias_add_clamp: y[r] = min(max(x[r] + bias, lo), hi) for rows of `width` floats, width < 64 (narrower than one
// vector repeat) and a multiple of 8.
// Style: the basic-API mask forms of CANN's vector examples, in a kernel whose tiling struct is passed by value: a
// continuous mask (`uint64_t mask = width`) with BinaryRepeatParams that step one row per repeat and broadcast the bias
// row (src1RepStride 0), a bit mask (`uint64_t mask[2]`) with UnaryRepeatParams, and counter mode (SetMaskCount,
// SetVectorMask<float, MaskMode::COUNTER>, the `<float, false>` form with MASK_PLACEHOLDER, SetMaskNorm, ResetMask)
// over the whole contiguous block.
#include "kernel_operator.h"

struct BiasAddClampTiling {
    uint32_t rowsPerCore;  // <= 255: one repeat per row
    uint32_t width;        // floats of a row: a multiple of 8, at most 64
    float lo;
    float hi;
};

using namespace AscendC;

class KernelBiasAddClamp {
public:
    __aicore__ inline KernelBiasAddClamp() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR bias, GM_ADDR y, const BiasAddClampTiling& tiling)
    {
        tiling_ = tiling;
        count_ = tiling.rowsPerCore * tiling.width;
        xGm_.SetGlobalBuffer((__gm__ float*)x + GetBlockIdx() * count_, count_);
        biasGm_.SetGlobalBuffer((__gm__ float*)bias, tiling.width);
        yGm_.SetGlobalBuffer((__gm__ float*)y + GetBlockIdx() * count_, count_);
        pipe_.InitBuffer(inQueueX_, 1, count_ * sizeof(float));
        pipe_.InitBuffer(inQueueBias_, 1, tiling.width * sizeof(float));
        pipe_.InitBuffer(outQueueY_, 1, count_ * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        CopyIn();
        Compute();
        CopyOut();
    }

private:
    __aicore__ inline void CopyIn()
    {
        LocalTensor<float> xLocal = inQueueX_.AllocTensor<float>();
        LocalTensor<float> biasLocal = inQueueBias_.AllocTensor<float>();
        DataCopy(xLocal, xGm_, count_);
        DataCopy(biasLocal, biasGm_, tiling_.width);
        inQueueX_.EnQue(xLocal);
        inQueueBias_.EnQue(biasLocal);
    }
    __aicore__ inline void Compute()
    {
        LocalTensor<float> xLocal = inQueueX_.DeQue<float>();
        LocalTensor<float> biasLocal = inQueueBias_.DeQue<float>();
        LocalTensor<float> yLocal = outQueueY_.AllocTensor<float>();
        const uint8_t rowBlocks = static_cast<uint8_t>(tiling_.width / 8);  // 32-byte blocks per row
        const uint8_t repeat = static_cast<uint8_t>(tiling_.rowsPerCore);

        uint64_t rowMask = tiling_.width;  // continuous mode: the first `width` lanes of each repeat
        BinaryRepeatParams addParams{1, 1, 1, rowBlocks, rowBlocks, 0};  // src1 (the bias) repeats the same row
        Add(yLocal, xLocal, biasLocal, rowMask, repeat, addParams);
        PipeBarrier<PIPE_V>();

        uint64_t rowBits[2] = {tiling_.width == 64 ? ~0ull : (1ull << tiling_.width) - 1, 0};  // bit mode
        UnaryRepeatParams rowParams{1, 1, rowBlocks, rowBlocks};
        Maxs(yLocal, yLocal, tiling_.lo, rowBits, repeat, rowParams);
        PipeBarrier<PIPE_V>();

        SetMaskCount();
        SetVectorMask<float, MaskMode::COUNTER>(0, count_);
        Mins<float, false>(yLocal, yLocal, tiling_.hi, MASK_PLACEHOLDER, 1, UnaryRepeatParams{1, 1, 8, 8});
        SetMaskNorm();
        ResetMask();

        outQueueY_.EnQue<float>(yLocal);
        inQueueX_.FreeTensor(xLocal);
        inQueueBias_.FreeTensor(biasLocal);
    }
    __aicore__ inline void CopyOut()
    {
        LocalTensor<float> yLocal = outQueueY_.DeQue<float>();
        DataCopy(yGm_, yLocal, count_);
        outQueueY_.FreeTensor(yLocal);
    }

    TPipe pipe_;
    TQue<TPosition::VECIN, 1> inQueueX_, inQueueBias_;
    TQue<TPosition::VECOUT, 1> outQueueY_;
    GlobalTensor<float> xGm_, biasGm_, yGm_;
    BiasAddClampTiling tiling_{};
    uint32_t count_ = 0;
};

extern "C" __global__ __aicore__ void bias_add_clamp(GM_ADDR x, GM_ADDR bias, GM_ADDR y, BiasAddClampTiling tiling)
{
    KernelBiasAddClamp op;
    op.Init(x, bias, y, tiling);
    op.Process();
}
