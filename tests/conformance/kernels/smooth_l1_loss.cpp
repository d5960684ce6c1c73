// smooth_l1_loss (reduction 'none'): d = x - y, loss = |d| < beta ? 0.5 * d * d / beta : |d| - 0.5 * beta.
// Style: the KernelLaunch samples' class kernel with an attribute passed by value after the GM_ADDR parameters
// (`float beta`, no tiling struct): Init / Process / CopyIn / Compute / CopyOut over double-buffered TQues,
// TBuf<VECCALC> scratch, the branch done with Duplicate (beta as a tensor), Compare (CMPMODE::LT into a uint8_t bit
// mask) and Select (VSEL_TENSOR_TENSOR_MODE) between the two branches; Sub, Abs, Mul, Muls, Adds, PipeBarrier<PIPE_V>.
#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;
constexpr uint32_t TILE_LENGTH = 512;  // Compare's count form needs whole 256-byte repeats

class KernelSmoothL1Loss {
public:
    __aicore__ inline KernelSmoothL1Loss() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR loss, uint32_t blockLength, float beta)
    {
        blockLength_ = blockLength;
        beta_ = beta;
        const uint64_t offset = static_cast<uint64_t>(GetBlockIdx()) * blockLength;
        xGm_.SetGlobalBuffer((__gm__ float*)x + offset, blockLength);
        yGm_.SetGlobalBuffer((__gm__ float*)y + offset, blockLength);
        lossGm_.SetGlobalBuffer((__gm__ float*)loss + offset, blockLength);
        pipe_.InitBuffer(inQueueX_, BUFFER_NUM, TILE_LENGTH * sizeof(float));
        pipe_.InitBuffer(inQueueY_, BUFFER_NUM, TILE_LENGTH * sizeof(float));
        pipe_.InitBuffer(outQueueLoss_, BUFFER_NUM, TILE_LENGTH * sizeof(float));
        pipe_.InitBuffer(absBuf_, TILE_LENGTH * sizeof(float));
        pipe_.InitBuffer(betaBuf_, TILE_LENGTH * sizeof(float));
        pipe_.InitBuffer(maskBuf_, TILE_LENGTH / 8);
    }
    __aicore__ inline void Process()
    {
        Duplicate(betaBuf_.Get<float>(), beta_, TILE_LENGTH);
        for (uint32_t i = 0; i < blockLength_ / TILE_LENGTH; ++i) {
            CopyIn(i);
            Compute();
            CopyOut(i);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t progress)
    {
        LocalTensor<float> xLocal = inQueueX_.AllocTensor<float>();
        LocalTensor<float> yLocal = inQueueY_.AllocTensor<float>();
        DataCopy(xLocal, xGm_[progress * TILE_LENGTH], TILE_LENGTH);
        DataCopy(yLocal, yGm_[progress * TILE_LENGTH], TILE_LENGTH);
        inQueueX_.EnQue(xLocal);
        inQueueY_.EnQue(yLocal);
    }
    __aicore__ inline void Compute()
    {
        LocalTensor<float> xLocal = inQueueX_.DeQue<float>();
        LocalTensor<float> yLocal = inQueueY_.DeQue<float>();
        LocalTensor<float> lossLocal = outQueueLoss_.AllocTensor<float>();
        LocalTensor<float> absDiff = absBuf_.Get<float>();
        LocalTensor<uint8_t> isSmall = maskBuf_.Get<uint8_t>();

        Sub(xLocal, xLocal, yLocal, TILE_LENGTH);  // d, in place
        PipeBarrier<PIPE_V>();
        Abs(absDiff, xLocal, TILE_LENGTH);
        Mul(yLocal, xLocal, xLocal, TILE_LENGTH);  // d * d
        PipeBarrier<PIPE_V>();
        Muls(yLocal, yLocal, 0.5f / beta_, TILE_LENGTH);
        Compare(isSmall, absDiff, betaBuf_.Get<float>(), CMPMODE::LT, TILE_LENGTH);
        Adds(absDiff, absDiff, -0.5f * beta_, TILE_LENGTH);
        PipeBarrier<PIPE_V>();
        Select(lossLocal, isSmall, yLocal, absDiff, SELMODE::VSEL_TENSOR_TENSOR_MODE, TILE_LENGTH);

        outQueueLoss_.EnQue<float>(lossLocal);
        inQueueX_.FreeTensor(xLocal);
        inQueueY_.FreeTensor(yLocal);
    }
    __aicore__ inline void CopyOut(uint32_t progress)
    {
        LocalTensor<float> lossLocal = outQueueLoss_.DeQue<float>();
        DataCopy(lossGm_[progress * TILE_LENGTH], lossLocal, TILE_LENGTH);
        outQueueLoss_.FreeTensor(lossLocal);
    }

    TPipe pipe_;
    TQue<TPosition::VECIN, BUFFER_NUM> inQueueX_, inQueueY_;
    TQue<TPosition::VECOUT, BUFFER_NUM> outQueueLoss_;
    TBuf<TPosition::VECCALC> absBuf_, betaBuf_, maskBuf_;
    GlobalTensor<float> xGm_, yGm_, lossGm_;
    uint32_t blockLength_ = 0;
    float beta_ = 1.0f;
};

extern "C" __global__ __aicore__ void smooth_l1_loss(GM_ADDR x, GM_ADDR y, GM_ADDR loss, uint32_t blockLength,
                                                     float beta)
{
    KernelSmoothL1Loss op;
    op.Init(x, y, loss, blockLength, beta);
    op.Process();
}
