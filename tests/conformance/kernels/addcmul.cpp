// addcmul: y = input + value * t1 * t2 (torch.addcmul), float32.
// Style: an ops-math elementwise kernel for Atlas A2 (910B) with its tiling struct passed by value: the output
// starts as a UB -> UB vector Copy of the input (the mask form with CopyRepeatParams), then Muls and MulAddDst
// (dst = src0 * src1 + dst, one rounding) accumulate into it; TPipe with double-buffered TQues, GetBlockIdx().
#include "kernel_operator.h"

struct AddcmulTiling {
    uint32_t blockLength;  // elements per core, a multiple of TILE
    float value;
};

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;
constexpr uint32_t TILE = 1024;

class KernelAddcmul {
public:
    __aicore__ inline KernelAddcmul() {}
    __aicore__ inline void Init(GM_ADDR input, GM_ADDR t1, GM_ADDR t2, GM_ADDR y, const AddcmulTiling& tiling)
    {
        blockLength_ = tiling.blockLength;
        value_ = tiling.value;
        const uint64_t offset = static_cast<uint64_t>(GetBlockIdx()) * blockLength_;
        inputGm_.SetGlobalBuffer((__gm__ float*)input + offset, blockLength_);
        t1Gm_.SetGlobalBuffer((__gm__ float*)t1 + offset, blockLength_);
        t2Gm_.SetGlobalBuffer((__gm__ float*)t2 + offset, blockLength_);
        yGm_.SetGlobalBuffer((__gm__ float*)y + offset, blockLength_);
        pipe_.InitBuffer(inQueue_, BUFFER_NUM, 3 * TILE * sizeof(float));  // input | t1 | t2
        pipe_.InitBuffer(outQueueY_, BUFFER_NUM, TILE * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        for (uint32_t i = 0; i < blockLength_ / TILE; ++i) {
            CopyIn(i);
            Compute();
            CopyOut(i);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t progress)
    {
        LocalTensor<float> inLocal = inQueue_.AllocTensor<float>();
        DataCopy(inLocal, inputGm_[progress * TILE], TILE);
        DataCopy(inLocal[TILE], t1Gm_[progress * TILE], TILE);
        DataCopy(inLocal[2 * TILE], t2Gm_[progress * TILE], TILE);
        inQueue_.EnQue(inLocal);
    }
    __aicore__ inline void Compute()
    {
        LocalTensor<float> inLocal = inQueue_.DeQue<float>();
        LocalTensor<float> inputLocal = inLocal;
        LocalTensor<float> t1Local = inLocal[TILE];
        LocalTensor<float> t2Local = inLocal[2 * TILE];
        LocalTensor<float> yLocal = outQueueY_.AllocTensor<float>();
        Copy(yLocal, inputLocal, 64, TILE / 64, {1, 1, 8, 8});
        Muls(t1Local, t1Local, value_, TILE);
        PipeBarrier<PIPE_V>();
        MulAddDst(yLocal, t1Local, t2Local, TILE);
        outQueueY_.EnQue<float>(yLocal);
        inQueue_.FreeTensor(inLocal);
    }
    __aicore__ inline void CopyOut(uint32_t progress)
    {
        LocalTensor<float> yLocal = outQueueY_.DeQue<float>();
        DataCopy(yGm_[progress * TILE], yLocal, TILE);
        outQueueY_.FreeTensor(yLocal);
    }

    TPipe pipe_;
    TQue<TPosition::VECIN, BUFFER_NUM> inQueue_;
    TQue<TPosition::VECOUT, BUFFER_NUM> outQueueY_;
    GlobalTensor<float> inputGm_, t1Gm_, t2Gm_, yGm_;
    uint32_t blockLength_ = 0;
    float value_ = 0;
};

extern "C" __global__ __aicore__ void addcmul(GM_ADDR input, GM_ADDR t1, GM_ADDR t2, GM_ADDR y, AddcmulTiling tiling)
{
    KernelAddcmul op;
    op.Init(input, t1, t2, y, tiling);
    op.Process();
}
