// arg_max_with_value: for each row of 64 floats, values[r] = max(x[r]) and indices[r] = the column of the first
// maximum (int32).
// Style: a cann-ops kernel with its tiling in GM (REGISTER_TILING_DEFAULT + GET_TILING_DATA) whose UB comes from a
// TBufPool: the pipe hands the pool its bytes with InitBufPool and the pool holds the queues and the scratch TBuf.
// WholeReduceMax with ReduceOrder::ORDER_VALUE_INDEX reduces one row per repeat into (value, index) pairs, and
// GatherMask with the built-in patterns 1 (even elements) and 2 (odd elements) splits the pairs, ASSERT checking the
// count GatherMask reports; 32 rows a tile, double-buffered.
#include "kernel_operator.h"

struct ArgMaxTilingData {
    uint32_t rowsPerCore;  // a multiple of ROWS_PER_TILE
};

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;
constexpr uint32_t ROW = 64;            // floats of a row: one vector repeat
constexpr uint32_t ROWS_PER_TILE = 32;  // 32 (value, index) pairs fill one repeat of GatherMask

class KernelArgMaxWithValue {
public:
    __aicore__ inline KernelArgMaxWithValue() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR values, GM_ADDR indices, uint32_t rowsPerCore)
    {
        rowsPerCore_ = rowsPerCore;
        const uint64_t firstRow = static_cast<uint64_t>(GetBlockIdx()) * rowsPerCore;
        xGm_.SetGlobalBuffer((__gm__ float*)x + firstRow * ROW, rowsPerCore * ROW);
        valuesGm_.SetGlobalBuffer((__gm__ float*)values + firstRow, rowsPerCore);
        indicesGm_.SetGlobalBuffer((__gm__ int32_t*)indices + firstRow, rowsPerCore);
        constexpr uint32_t tileBytes = ROWS_PER_TILE * ROW * sizeof(float);
        constexpr uint32_t outBytes = ROWS_PER_TILE * sizeof(float);
        pipe_.InitBufPool(pool_, BUFFER_NUM * (tileBytes + 2 * outBytes) + 2 * outBytes);
        pool_.InitBuffer(inQueueX_, BUFFER_NUM, tileBytes);
        pool_.InitBuffer(outQueueValues_, BUFFER_NUM, outBytes);
        pool_.InitBuffer(outQueueIndices_, BUFFER_NUM, outBytes);
        pool_.InitBuffer(pairsBuf_, 2 * outBytes);
    }
    __aicore__ inline void Process()
    {
        for (uint32_t tile = 0; tile < rowsPerCore_ / ROWS_PER_TILE; ++tile) {
            CopyIn(tile);
            Compute();
            CopyOut(tile);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t tile)
    {
        LocalTensor<float> xLocal = inQueueX_.AllocTensor<float>();
        DataCopy(xLocal, xGm_[tile * ROWS_PER_TILE * ROW], ROWS_PER_TILE * ROW);
        inQueueX_.EnQue(xLocal);
    }
    __aicore__ inline void Compute()
    {
        LocalTensor<float> xLocal = inQueueX_.DeQue<float>();
        LocalTensor<float> pairs = pairsBuf_.Get<float>();
        WholeReduceMax<float>(pairs, xLocal, ROW, ROWS_PER_TILE, 1, 1, 8, ReduceOrder::ORDER_VALUE_INDEX);
        PipeBarrier<PIPE_V>();

        LocalTensor<float> values = outQueueValues_.AllocTensor<float>();
        LocalTensor<int32_t> indices = outQueueIndices_.AllocTensor<int32_t>();
        uint64_t kept = 0;
        GatherMask(values, pairs, 1, false, 0, {1, 1, 8, 0}, kept);
        ASSERT(kept == ROWS_PER_TILE && "one value per row");
        GatherMask(indices.ReinterpretCast<uint32_t>(), pairs.ReinterpretCast<uint32_t>(), 2, false, 0,
                   {1, 1, 8, 0}, kept);
        ASSERT(kept == ROWS_PER_TILE && "one index per row");

        outQueueValues_.EnQue<float>(values);
        outQueueIndices_.EnQue<int32_t>(indices);
        inQueueX_.FreeTensor(xLocal);
    }
    __aicore__ inline void CopyOut(uint32_t tile)
    {
        LocalTensor<float> values = outQueueValues_.DeQue<float>();
        LocalTensor<int32_t> indices = outQueueIndices_.DeQue<int32_t>();
        DataCopy(valuesGm_[tile * ROWS_PER_TILE], values, ROWS_PER_TILE);
        DataCopy(indicesGm_[tile * ROWS_PER_TILE], indices, ROWS_PER_TILE);
        outQueueValues_.FreeTensor(values);
        outQueueIndices_.FreeTensor(indices);
    }

    TPipe pipe_;
    TBufPool<TPosition::VECCALC, 8> pool_;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX_;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueValues_, outQueueIndices_;
    TBuf<TPosition::VECCALC> pairsBuf_;
    GlobalTensor<float> xGm_, valuesGm_;
    GlobalTensor<int32_t> indicesGm_;
    uint32_t rowsPerCore_ = 0;
};

extern "C" __global__ __aicore__ void arg_max_with_value(GM_ADDR x, GM_ADDR values, GM_ADDR indices,
                                                         GM_ADDR workspace, GM_ADDR tiling)
{
    REGISTER_TILING_DEFAULT(ArgMaxTilingData);
    GET_TILING_DATA(tilingData, tiling);
    KernelArgMaxWithValue op;
    op.Init(x, values, indices, tilingData.rowsPerCore);
    op.Process();
}
