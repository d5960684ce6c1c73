// layer_norm: y[r] = (x[r] - mean(x[r])) / sqrt(var(x[r]) + eps) * gamma + beta over rows of 64 floats.
// Style: an ops-nn normalisation kernel that works on a tile of rows at once with the repeat forms: one row per
// repeat, the row statistics by WholeReduceSum (mean) and ReduceRepeat<ReduceType::SUM> (variance), each statistic
// broadcast back to its row by Brcb and a src1 block stride of 0 in BinaryRepeatParams (Sub, Div), Sqrt of the
// variances, and the affine step as one FusedMulAdd (dst = src0 * dst + src1) whose gamma / beta repeat stride is 0;
// GET_TILING_DATA, KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY), double-buffered TQues, TBuf<VECCALC> scratch.
#include "kernel_operator.h"

struct LayerNormTilingData {
    uint32_t rowsPerCore;  // a multiple of ROWS
    float epsilon;
};

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;
constexpr uint32_t COL = 64;   // floats of a row: one repeat
constexpr uint32_t ROWS = 16;  // rows of a tile: two Brcb repeats of 8

class KernelLayerNorm {
public:
    __aicore__ inline KernelLayerNorm() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR gamma, GM_ADDR beta, GM_ADDR y, const LayerNormTilingData& tiling)
    {
        rowsPerCore_ = tiling.rowsPerCore;
        epsilon_ = tiling.epsilon;
        const uint64_t offset = static_cast<uint64_t>(GetBlockIdx()) * rowsPerCore_ * COL;
        xGm_.SetGlobalBuffer((__gm__ float*)x + offset, rowsPerCore_ * COL);
        yGm_.SetGlobalBuffer((__gm__ float*)y + offset, rowsPerCore_ * COL);
        gammaGm_.SetGlobalBuffer((__gm__ float*)gamma, COL);
        betaGm_.SetGlobalBuffer((__gm__ float*)beta, COL);
        pipe_.InitBuffer(inQueueX_, BUFFER_NUM, ROWS * COL * sizeof(float));
        pipe_.InitBuffer(outQueueY_, BUFFER_NUM, ROWS * COL * sizeof(float));
        pipe_.InitBuffer(affineBuf_, 2 * COL * sizeof(float));        // gamma | beta
        pipe_.InitBuffer(statBuf_, 2 * ROWS * sizeof(float));         // mean | std, one per row
        pipe_.InitBuffer(broadcastBuf_, ROWS * 8 * sizeof(float));    // a statistic per row, one block each
    }
    __aicore__ inline void Process()
    {
        LocalTensor<float> affine = affineBuf_.Get<float>();
        DataCopy(affine, gammaGm_, COL);
        DataCopy(affine[COL], betaGm_, COL);
        event_t eventMte2V = static_cast<event_t>(pipe_.FetchEventID(HardEvent::MTE2_V));
        SetFlag<HardEvent::MTE2_V>(eventMte2V);
        WaitFlag<HardEvent::MTE2_V>(eventMte2V);
        for (uint32_t tile = 0; tile < rowsPerCore_ / ROWS; ++tile) {
            CopyIn(tile);
            Compute(affine);
            CopyOut(tile);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t tile)
    {
        LocalTensor<float> xLocal = inQueueX_.AllocTensor<float>();
        DataCopy(xLocal, xGm_[tile * ROWS * COL], ROWS * COL);
        inQueueX_.EnQue(xLocal);
    }
    __aicore__ inline void Compute(const LocalTensor<float>& affine)
    {
        LocalTensor<float> xLocal = inQueueX_.DeQue<float>();
        LocalTensor<float> yLocal = outQueueY_.AllocTensor<float>();
        LocalTensor<float> mean = statBuf_.Get<float>();
        LocalTensor<float> stdev = mean[ROWS];
        LocalTensor<float> perRow = broadcastBuf_.Get<float>();
        const BinaryRepeatParams rowByBlock{1, 1, 0, 8, 8, 1};  // src1: one block per row, every lane of it

        WholeReduceSum<float>(mean, xLocal, COL, ROWS, 1, 1, 8);
        PipeBarrier<PIPE_V>();
        Muls(mean, mean, 1.0f / COL, ROWS);
        PipeBarrier<PIPE_V>();
        Brcb(perRow, mean, ROWS / 8, {1, 8});
        PipeBarrier<PIPE_V>();
        Sub(xLocal, xLocal, perRow, COL, ROWS, rowByBlock);  // centred, in place
        PipeBarrier<PIPE_V>();
        Mul(yLocal, xLocal, xLocal, ROWS * COL);
        PipeBarrier<PIPE_V>();
        ReduceRepeat<ReduceType::SUM, float, float>(stdev, yLocal, COL, ROWS, 1, 1, 8);
        PipeBarrier<PIPE_V>();
        Muls(stdev, stdev, 1.0f / COL, ROWS);
        PipeBarrier<PIPE_V>();
        Adds(stdev, stdev, epsilon_, ROWS);
        PipeBarrier<PIPE_V>();
        Sqrt(stdev, stdev, ROWS);
        PipeBarrier<PIPE_V>();
        Brcb(perRow, stdev, ROWS / 8, {1, 8});
        PipeBarrier<PIPE_V>();
        Div(yLocal, xLocal, perRow, COL, ROWS, rowByBlock);
        PipeBarrier<PIPE_V>();
        FusedMulAdd(yLocal, affine, affine[COL], COL, ROWS, {1, 1, 1, 8, 0, 0});  // gamma * y + beta

        outQueueY_.EnQue<float>(yLocal);
        inQueueX_.FreeTensor(xLocal);
    }
    __aicore__ inline void CopyOut(uint32_t tile)
    {
        LocalTensor<float> yLocal = outQueueY_.DeQue<float>();
        DataCopy(yGm_[tile * ROWS * COL], yLocal, ROWS * COL);
        outQueueY_.FreeTensor(yLocal);
    }

    TPipe pipe_;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX_;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueY_;
    TBuf<TPosition::VECCALC> affineBuf_, statBuf_, broadcastBuf_;
    GlobalTensor<float> xGm_, gammaGm_, betaGm_, yGm_;
    uint32_t rowsPerCore_ = 0;
    float epsilon_ = 0;
};

extern "C" __global__ __aicore__ void layer_norm(GM_ADDR x, GM_ADDR gamma, GM_ADDR beta, GM_ADDR y,
                                                 GM_ADDR workspace, GM_ADDR tiling)
{
    REGISTER_TILING_DEFAULT(LayerNormTilingData);
    GET_TILING_DATA(tilingData, tiling);
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    KernelLayerNorm op;
    op.Init(x, gamma, beta, y, tilingData);
    op.Process();
}
