// index_select: y[r, j] = x[r, index[j]] (a gather along the last axis; index holds int32 column numbers).
// Style: an operator kernel with `GM_ADDR workspace, GM_ADDR tiling` that reads its tiling with
// GET_TILING_DATA_WITH_STRUCT, turns the column numbers into byte offsets with Muls on int32 and a ReinterpretCast
// to uint32_t, and gathers a tile of rows at a time with Gather, each row through srcBaseAddr (its byte offset in
// the tile); rows double-buffered through TQue<VECIN> / TQue<VECOUT>, the index in a TBuf<VECCALC>.
#include "kernel_operator.h"

struct IndexSelectTilingData {
    uint32_t rowsPerCore;
    uint32_t rowsPerTile;  // divides rowsPerCore
    uint32_t numCol;       // columns of x, a multiple of 8
    uint32_t numIndex;     // columns of y, a multiple of 8
};

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

class KernelIndexSelect {
public:
    __aicore__ inline KernelIndexSelect() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR index, GM_ADDR y, const IndexSelectTilingData& tiling)
    {
        t_ = tiling;
        const uint64_t firstRow = static_cast<uint64_t>(GetBlockIdx()) * t_.rowsPerCore;
        xGm_.SetGlobalBuffer((__gm__ float*)x + firstRow * t_.numCol, t_.rowsPerCore * t_.numCol);
        indexGm_.SetGlobalBuffer((__gm__ int32_t*)index, t_.numIndex);
        yGm_.SetGlobalBuffer((__gm__ float*)y + firstRow * t_.numIndex, t_.rowsPerCore * t_.numIndex);
        pipe_.InitBuffer(inQueueX_, BUFFER_NUM, t_.rowsPerTile * t_.numCol * sizeof(float));
        pipe_.InitBuffer(outQueueY_, BUFFER_NUM, t_.rowsPerTile * t_.numIndex * sizeof(float));
        pipe_.InitBuffer(offsetBuf_, t_.numIndex * sizeof(uint32_t));
    }
    __aicore__ inline void Process()
    {
        LoadOffsets();
        for (uint32_t tile = 0; tile < t_.rowsPerCore / t_.rowsPerTile; ++tile) {
            CopyIn(tile);
            Compute();
            CopyOut(tile);
        }
    }

private:
    __aicore__ inline void LoadOffsets()
    {
        LocalTensor<int32_t> index = offsetBuf_.Get<int32_t>();
        DataCopy(index, indexGm_, t_.numIndex);
        event_t eventMte2V = static_cast<event_t>(pipe_.FetchEventID(HardEvent::MTE2_V));
        SetFlag<HardEvent::MTE2_V>(eventMte2V);
        WaitFlag<HardEvent::MTE2_V>(eventMte2V);
        Muls(index, index, static_cast<int32_t>(sizeof(float)), t_.numIndex);  // column -> byte offset
        PipeBarrier<PIPE_V>();
    }
    __aicore__ inline void CopyIn(uint32_t tile)
    {
        LocalTensor<float> xLocal = inQueueX_.AllocTensor<float>();
        DataCopy(xLocal, xGm_[tile * t_.rowsPerTile * t_.numCol], t_.rowsPerTile * t_.numCol);
        inQueueX_.EnQue(xLocal);
    }
    __aicore__ inline void Compute()
    {
        LocalTensor<float> xLocal = inQueueX_.DeQue<float>();
        LocalTensor<float> yLocal = outQueueY_.AllocTensor<float>();
        LocalTensor<uint32_t> offsets = offsetBuf_.Get<int32_t>().ReinterpretCast<uint32_t>();
        for (uint32_t r = 0; r < t_.rowsPerTile; ++r) {
            Gather(yLocal[r * t_.numIndex], xLocal, offsets, r * t_.numCol * sizeof(float), t_.numIndex);
        }
        outQueueY_.EnQue<float>(yLocal);
        inQueueX_.FreeTensor(xLocal);
    }
    __aicore__ inline void CopyOut(uint32_t tile)
    {
        LocalTensor<float> yLocal = outQueueY_.DeQue<float>();
        DataCopy(yGm_[tile * t_.rowsPerTile * t_.numIndex], yLocal, t_.rowsPerTile * t_.numIndex);
        outQueueY_.FreeTensor(yLocal);
    }

    TPipe pipe_;
    TQue<TPosition::VECIN, BUFFER_NUM> inQueueX_;
    TQue<TPosition::VECOUT, BUFFER_NUM> outQueueY_;
    TBuf<TPosition::VECCALC> offsetBuf_;
    GlobalTensor<float> xGm_, yGm_;
    GlobalTensor<int32_t> indexGm_;
    IndexSelectTilingData t_{};
};

extern "C" __global__ __aicore__ void index_select(GM_ADDR x, GM_ADDR index, GM_ADDR y, GM_ADDR workspace,
                                                   GM_ADDR tiling)
{
    GET_TILING_DATA_WITH_STRUCT(IndexSelectTilingData, tilingData, tiling);
    KernelIndexSelect op;
    op.Init(x, index, y, tilingData);
    op.Process();
}
