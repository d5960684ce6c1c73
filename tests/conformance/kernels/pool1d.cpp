// pool1d: non-overlapping 1-D pooling of a float vector: max pooling with window 8 (tiling key 1), average pooling
// with window 8 (key 2) and with window 2 (key 3).
// Style: one entry that dispatches on TILING_KEY_IS to instances of a kernel class template whose template argument
// picks the compute path (as ops-nn kernels do per dtype and mode), with `GM_ADDR workspace, GM_ADDR tiling` and
// GET_TILING_DATA.  The reductions are the per-block and per-pair forms: BlockReduceMax / BlockReduceSum (8 floats of
// each 32-byte block into one) and PairReduceSum (lanes 2j, 2j+1 into one), each repeat covering 64 inputs, then
// Muls for the average; TPipe, double-buffered TQue, GetBlockIdx().
#include "kernel_operator.h"

struct Pool1dTilingData {
    uint32_t lengthPerCore;  // inputs per core, a multiple of TILE
};

using namespace AscendC;

enum class PoolMode { MAX8, AVG8, AVG2 };

constexpr int32_t BUFFER_NUM = 2;
constexpr uint32_t TILE = 512;                  // inputs per tile: 8 repeats of 64 floats
constexpr uint32_t REPEAT = TILE / 64;

template <PoolMode MODE>
class KernelPool1d {
public:
    static constexpr uint32_t WINDOW = MODE == PoolMode::AVG2 ? 2 : 8;

    __aicore__ inline KernelPool1d() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t lengthPerCore)
    {
        length_ = lengthPerCore;
        xGm_.SetGlobalBuffer((__gm__ float*)x + GetBlockIdx() * length_, length_);
        yGm_.SetGlobalBuffer((__gm__ float*)y + GetBlockIdx() * (length_ / WINDOW), length_ / WINDOW);
        pipe_.InitBuffer(inQueueX_, BUFFER_NUM, TILE * sizeof(float));
        pipe_.InitBuffer(outQueueY_, BUFFER_NUM, TILE / WINDOW * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        for (uint32_t i = 0; i < length_ / TILE; ++i) {
            CopyIn(i);
            Compute();
            CopyOut(i);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t progress)
    {
        LocalTensor<float> xLocal = inQueueX_.AllocTensor<float>();
        DataCopy(xLocal, xGm_[progress * TILE], TILE);
        inQueueX_.EnQue(xLocal);
    }
    __aicore__ inline void Compute()
    {
        LocalTensor<float> xLocal = inQueueX_.DeQue<float>();
        LocalTensor<float> yLocal = outQueueY_.AllocTensor<float>();
        if constexpr (MODE == PoolMode::MAX8) {
            BlockReduceMax<float>(yLocal, xLocal, REPEAT, 64, 1, 1, 8);
        } else if constexpr (MODE == PoolMode::AVG8) {
            BlockReduceSum<float>(yLocal, xLocal, REPEAT, 64, 1, 1, 8);
            PipeBarrier<PIPE_V>();
            Muls(yLocal, yLocal, 1.0f / WINDOW, TILE / WINDOW);
        } else {
            PairReduceSum<float>(yLocal, xLocal, REPEAT, 64, 1, 1, 8);
            PipeBarrier<PIPE_V>();
            Muls(yLocal, yLocal, 1.0f / WINDOW, TILE / WINDOW);
        }
        outQueueY_.EnQue<float>(yLocal);
        inQueueX_.FreeTensor(xLocal);
    }
    __aicore__ inline void CopyOut(uint32_t progress)
    {
        LocalTensor<float> yLocal = outQueueY_.DeQue<float>();
        DataCopy(yGm_[progress * (TILE / WINDOW)], yLocal, TILE / WINDOW);
        outQueueY_.FreeTensor(yLocal);
    }

    TPipe pipe_;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX_;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueY_;
    GlobalTensor<float> xGm_, yGm_;
    uint32_t length_ = 0;
};

extern "C" __global__ __aicore__ void pool1d(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    REGISTER_TILING_DEFAULT(Pool1dTilingData);
    GET_TILING_DATA(tilingData, tiling);
    if (TILING_KEY_IS(1)) {
        KernelPool1d<PoolMode::MAX8> op;
        op.Init(x, y, tilingData.lengthPerCore);
        op.Process();
    } else if (TILING_KEY_IS(2)) {
        KernelPool1d<PoolMode::AVG8> op;
        op.Init(x, y, tilingData.lengthPerCore);
        op.Process();
    } else if (TILING_KEY_IS(3)) {
        KernelPool1d<PoolMode::AVG2> op;
        op.Init(x, y, tilingData.lengthPerCore);
        op.Process();
    }
}
