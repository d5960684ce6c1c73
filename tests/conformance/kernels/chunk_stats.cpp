// chunk_stats: per core, the sums of x's 64-float chunks (the last chunk short) and x's even elements, compacted.
// Style: an ops-math kernel on a length that is not a whole number of repeats, written in counter mode:
// SetMaskCount + SetVectorMask<float, MaskMode::COUNTER>(0, length) once, then ReduceRepeat<ReduceType::SUM, float,
// float, false> with MASK_PLACEHOLDER sums every repeat (the last one short) into consecutive floats, and GatherMask
// in counter mode (reduceMode true, mask = the element count) keeps the even elements with the built-in pattern 1,
// reporting how many it kept (rsvdCnt, checked with ASSERT); DivCeil for the chunk count, the tiling struct passed
// by value, single-buffered TQues (DataCopy only: 310P has no DataCopyPad, so the lengths keep 32-byte blocks).
#include "kernel_operator.h"

using namespace AscendC;

struct ChunkStatsTilingData {
    uint32_t length;  // floats per core, a multiple of 16; DivCeil(length, 64) a multiple of 8
};

constexpr uint32_t CHUNK = 64;  // floats in one 256-byte repeat

class KernelChunkStats {
public:
    __aicore__ inline KernelChunkStats() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR sums, GM_ADDR evens, const ChunkStatsTilingData& tiling)
    {
        length_ = tiling.length;
        chunks_ = DivCeil(length_, CHUNK);
        const uint32_t core = GetBlockIdx();
        xGm_.SetGlobalBuffer((__gm__ float*)x + core * length_, length_);
        sumsGm_.SetGlobalBuffer((__gm__ float*)sums + core * chunks_, chunks_);
        evensGm_.SetGlobalBuffer((__gm__ float*)evens + core * (length_ / 2), length_ / 2);
        pipe_.InitBuffer(inQueueX_, 1, length_ * sizeof(float));
        pipe_.InitBuffer(outQueueSums_, 1, chunks_ * sizeof(float));
        pipe_.InitBuffer(outQueueEvens_, 1, length_ / 2 * sizeof(float));
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
        DataCopy(xLocal, xGm_, length_);
        inQueueX_.EnQue(xLocal);
    }
    __aicore__ inline void Compute()
    {
        LocalTensor<float> xLocal = inQueueX_.DeQue<float>();
        LocalTensor<float> sums = outQueueSums_.AllocTensor<float>();
        LocalTensor<float> evens = outQueueEvens_.AllocTensor<float>();
        SetMaskCount();
        SetVectorMask<float, MaskMode::COUNTER>(0, length_);
        ReduceRepeat<ReduceType::SUM, float, float, false>(sums, xLocal, MASK_PLACEHOLDER, 1, 1, 1, 8);
        SetMaskNorm();
        ResetMask();
        uint64_t kept = 0;
        GatherMask(evens, xLocal, static_cast<uint8_t>(1), true, length_, {1, 1, 8, 0}, kept);
        ASSERT(kept == length_ / 2);
        outQueueSums_.EnQue<float>(sums);
        outQueueEvens_.EnQue<float>(evens);
        inQueueX_.FreeTensor(xLocal);
    }
    __aicore__ inline void CopyOut()
    {
        LocalTensor<float> sums = outQueueSums_.DeQue<float>();
        DataCopy(sumsGm_, sums, chunks_);
        outQueueSums_.FreeTensor(sums);
        LocalTensor<float> evens = outQueueEvens_.DeQue<float>();
        DataCopy(evensGm_, evens, length_ / 2);
        outQueueEvens_.FreeTensor(evens);
    }

    TPipe pipe_;
    TQue<QuePosition::VECIN, 1> inQueueX_;
    TQue<QuePosition::VECOUT, 1> outQueueSums_, outQueueEvens_;
    GlobalTensor<float> xGm_, sumsGm_, evensGm_;
    uint32_t length_ = 0, chunks_ = 0;
};

extern "C" __global__ __aicore__ void chunk_stats(GM_ADDR x, GM_ADDR sums, GM_ADDR evens, ChunkStatsTilingData tiling)
{
    KernelChunkStats op;
    op.Init(x, sums, evens, tiling);
    op.Process();
}
