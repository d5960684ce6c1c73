// cast_round: y = DST_T(x) under a round mode and z = SRC_T(y) (a quantise / dequantise round trip), here float32 ->
// bfloat16 with CAST_RINT (round to nearest, ties to even) and back exactly with CAST_NONE.
// Style: a kernel template entry with several template arguments (source type, destination type, round mode), as
// CANN's templated examples write them, launched as `cast_round<float32_t, bfloat16_t, AscendC::RoundMode::CAST_RINT>`,
// whose GM_ADDR parameters end with the outputs and a by-value length; float16_t / float32_t / bfloat16_t spelled as
// CANN's type aliases; a class template with TPipe and double-buffered TQue, two Cast calls with their RoundMode.
#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;
constexpr uint32_t TILE_LENGTH = 512;

template <typename SRC_T, typename DST_T, RoundMode MODE>
class KernelCastRound {
public:
    __aicore__ inline KernelCastRound() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t blockLength)
    {
        blockLength_ = blockLength;
        const uint64_t offset = static_cast<uint64_t>(GetBlockIdx()) * blockLength;
        xGm_.SetGlobalBuffer((__gm__ SRC_T*)x + offset, blockLength);
        yGm_.SetGlobalBuffer((__gm__ DST_T*)y + offset, blockLength);
        zGm_.SetGlobalBuffer((__gm__ SRC_T*)z + offset, blockLength);
        pipe_.InitBuffer(inQueueX_, BUFFER_NUM, TILE_LENGTH * sizeof(SRC_T));
        pipe_.InitBuffer(outQueueY_, BUFFER_NUM, TILE_LENGTH * sizeof(DST_T));
        pipe_.InitBuffer(outQueueZ_, BUFFER_NUM, TILE_LENGTH * sizeof(SRC_T));
    }
    __aicore__ inline void Process()
    {
        for (uint32_t i = 0; i < blockLength_ / TILE_LENGTH; ++i) {
            CopyIn(i);
            Compute();
            CopyOut(i);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t progress)
    {
        LocalTensor<SRC_T> xLocal = inQueueX_.AllocTensor<SRC_T>();
        DataCopy(xLocal, xGm_[progress * TILE_LENGTH], TILE_LENGTH);
        inQueueX_.EnQue(xLocal);
    }
    __aicore__ inline void Compute()
    {
        LocalTensor<SRC_T> xLocal = inQueueX_.DeQue<SRC_T>();
        LocalTensor<DST_T> yLocal = outQueueY_.AllocTensor<DST_T>();
        LocalTensor<SRC_T> zLocal = outQueueZ_.AllocTensor<SRC_T>();
        Cast(yLocal, xLocal, MODE, TILE_LENGTH);
        PipeBarrier<PIPE_V>();
        Cast(zLocal, yLocal, RoundMode::CAST_NONE, TILE_LENGTH);  // widening: exact
        outQueueY_.EnQue<DST_T>(yLocal);
        outQueueZ_.EnQue<SRC_T>(zLocal);
        inQueueX_.FreeTensor(xLocal);
    }
    __aicore__ inline void CopyOut(uint32_t progress)
    {
        LocalTensor<DST_T> yLocal = outQueueY_.DeQue<DST_T>();
        LocalTensor<SRC_T> zLocal = outQueueZ_.DeQue<SRC_T>();
        DataCopy(yGm_[progress * TILE_LENGTH], yLocal, TILE_LENGTH);
        DataCopy(zGm_[progress * TILE_LENGTH], zLocal, TILE_LENGTH);
        outQueueY_.FreeTensor(yLocal);
        outQueueZ_.FreeTensor(zLocal);
    }

    TPipe pipe_;
    TQue<TPosition::VECIN, BUFFER_NUM> inQueueX_;
    TQue<TPosition::VECOUT, BUFFER_NUM> outQueueY_, outQueueZ_;
    GlobalTensor<SRC_T> xGm_, zGm_;
    GlobalTensor<DST_T> yGm_;
    uint32_t blockLength_ = 0;
};

template <typename SRC_T, typename DST_T, RoundMode MODE>
__global__ __aicore__ void cast_round(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t blockLength)
{
    static_assert(sizeof(float16_t) == 2 && sizeof(float32_t) == 4 && sizeof(bfloat16_t) == 2);
    KernelCastRound<SRC_T, DST_T, MODE> op;
    op.Init(x, y, z, blockLength);
    op.Process();
}
