// softmax_rows: y[r] = exp(x[r] - max(x[r])) / sum(exp(x[r] - max(x[r]))) along the last axis, float32.
// Style: an ops-nn op_kernel: `extern "C" __global__ __aicore__ void op(GM_ADDR x, GM_ADDR y, GM_ADDR workspace,
// GM_ADDR tiling)`, kernel_tiling/kernel_tiling.h, REGISTER_TILING_DEFAULT + GET_TILING_DATA, KERNEL_TASK_TYPE_DEFAULT,
// dispatch on TILING_KEY_IS, a templated kernel class in a namespace with rows split over the cores by blockFactor
// (the last core takes the rest), ASSERT on the block dim, TBuf<VECCALC> scratch for the reductions, and the scalar
// reads of a reduction result ordered by SetFlag / WaitFlag<HardEvent::V_S> on an event fetched through
// GetTPipePtr().
#include "kernel_tiling/kernel_tiling.h"
#include "kernel_operator.h"
#include "softmax_rows_tiling.h"

namespace SoftmaxRows {
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

template <typename T>
class KernelSoftmaxRows {
public:
    __aicore__ inline KernelSoftmaxRows() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const SoftmaxRowsTilingData* tiling)
    {
        ASSERT(GetBlockNum() != 0 && "block dim can not be zero!");
        numCol_ = tiling->numCol;
        const uint32_t blockIdx = GetBlockIdx();
        rowWork_ = blockIdx + 1 == GetBlockNum() ? tiling->numRow - blockIdx * tiling->blockFactor
                                                  : tiling->blockFactor;
        const uint64_t offset = static_cast<uint64_t>(blockIdx) * tiling->blockFactor * numCol_;
        xGm_.SetGlobalBuffer((__gm__ T*)x + offset, static_cast<uint64_t>(rowWork_) * numCol_);
        yGm_.SetGlobalBuffer((__gm__ T*)y + offset, static_cast<uint64_t>(rowWork_) * numCol_);
        pipe_.InitBuffer(inQueueX_, BUFFER_NUM, numCol_ * sizeof(T));
        pipe_.InitBuffer(outQueueY_, BUFFER_NUM, numCol_ * sizeof(T));
        pipe_.InitBuffer(workBuf_, numCol_ * sizeof(float));
        pipe_.InitBuffer(reduceBuf_, 32);
    }
    __aicore__ inline void Process()
    {
        for (uint32_t row = 0; row < rowWork_; ++row) {
            CopyIn(row);
            Compute();
            CopyOut(row);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t row)
    {
        LocalTensor<T> xLocal = inQueueX_.AllocTensor<T>();
        DataCopy(xLocal, xGm_[static_cast<uint64_t>(row) * numCol_], numCol_);
        inQueueX_.EnQue(xLocal);
    }
    __aicore__ inline T ScalarOf(const LocalTensor<T>& reduced)
    {
        event_t eventVS = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::V_S));
        SetFlag<HardEvent::V_S>(eventVS);
        WaitFlag<HardEvent::V_S>(eventVS);
        return reduced.GetValue(0);
    }
    __aicore__ inline void Compute()
    {
        LocalTensor<T> xLocal = inQueueX_.DeQue<T>();
        LocalTensor<T> yLocal = outQueueY_.AllocTensor<T>();
        LocalTensor<T> work = workBuf_.Get<T>();
        LocalTensor<T> reduced = reduceBuf_.Get<T>();

        ReduceMax<T>(reduced, xLocal, work, numCol_, false);
        const T rowMax = ScalarOf(reduced);
        Adds(yLocal, xLocal, static_cast<T>(-rowMax), numCol_);
        PipeBarrier<PIPE_V>();
        Exp(yLocal, yLocal, numCol_);
        PipeBarrier<PIPE_V>();
        ReduceSum<T>(reduced, yLocal, work, numCol_);
        const T rowSum = ScalarOf(reduced);
        Muls(yLocal, yLocal, static_cast<T>(1.0f / rowSum), numCol_);

        outQueueY_.EnQue<T>(yLocal);
        inQueueX_.FreeTensor(xLocal);
    }
    __aicore__ inline void CopyOut(uint32_t row)
    {
        LocalTensor<T> yLocal = outQueueY_.DeQue<T>();
        DataCopy(yGm_[static_cast<uint64_t>(row) * numCol_], yLocal, numCol_);
        outQueueY_.FreeTensor(yLocal);
    }

    TPipe pipe_;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX_;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueY_;
    TBuf<TPosition::VECCALC> workBuf_, reduceBuf_;
    GlobalTensor<T> xGm_, yGm_;
    uint32_t numCol_ = 0;
    uint32_t rowWork_ = 0;
};
}  // namespace SoftmaxRows

extern "C" __global__ __aicore__ void softmax_rows(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    REGISTER_TILING_DEFAULT(SoftmaxRowsTilingData);
    GET_TILING_DATA(tilingData, tiling);
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    if (TILING_KEY_IS(1)) {  // float32 rows
        SoftmaxRows::KernelSoftmaxRows<float> op;
        op.Init(x, y, &tilingData);
        op.Process();
    }
}
