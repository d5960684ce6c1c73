// scale_floor: y = max(x * scale, floor) for half or float, the dtype chosen by the tiling key.
// Style: an op_kernel of an msOpGen operator project, compiled by CANN's operator build: the tiling class comes from
// op_host/scale_floor_tiling.h (declared in `namespace optiling`, re-declared at global scope by the build) and is
// named here unqualified; the host sets the tiling key to the input's ge::DataType code, so the entry dispatches on
// TILING_KEY_IS(DT_FLOAT16) / TILING_KEY_IS(DT_FLOAT) to one template; an ASSERT written with no `;` between it and
// the assignment before it, which the device build (ASSERT expands to nothing) accepts; Muls then Maxs with
// PipeBarrier<PIPE_V>, double-buffered queues.
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

template <typename T>
class KernelScaleFloor {
public:
    __aicore__ inline KernelScaleFloor() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const ScaleFloorTilingData *tiling)
    {
        blockLength_ = tiling->blockLength;
        tileNum_ = tiling->tileNum ASSERT(tiling->tileNum != 0 && "tile num can not be zero!");
        tileLength_ = blockLength_ / tileNum_ / BUFFER_NUM;
        scale_ = static_cast<T>(tiling->scale);
        floor_ = static_cast<T>(tiling->floor);
        xGm_.SetGlobalBuffer((__gm__ T *)x + blockLength_ * GetBlockIdx(), blockLength_);
        yGm_.SetGlobalBuffer((__gm__ T *)y + blockLength_ * GetBlockIdx(), blockLength_);
        pipe_.InitBuffer(inQueue_, BUFFER_NUM, tileLength_ * sizeof(T));
        pipe_.InitBuffer(outQueue_, BUFFER_NUM, tileLength_ * sizeof(T));
    }
    __aicore__ inline void Process()
    {
        for (uint32_t i = 0; i < tileNum_ * BUFFER_NUM; i++) {
            LocalTensor<T> xLocal = inQueue_.AllocTensor<T>();
            DataCopy(xLocal, xGm_[i * tileLength_], tileLength_);
            inQueue_.EnQue(xLocal);
            xLocal = inQueue_.DeQue<T>();
            LocalTensor<T> yLocal = outQueue_.AllocTensor<T>();
            Muls(yLocal, xLocal, scale_, tileLength_);
            PipeBarrier<PIPE_V>();
            Maxs(yLocal, yLocal, floor_, tileLength_);
            outQueue_.EnQue(yLocal);
            inQueue_.FreeTensor(xLocal);
            yLocal = outQueue_.DeQue<T>();
            DataCopy(yGm_[i * tileLength_], yLocal, tileLength_);
            outQueue_.FreeTensor(yLocal);
        }
    }

private:
    TPipe pipe_;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueue_;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueue_;
    GlobalTensor<T> xGm_;
    GlobalTensor<T> yGm_;
    uint32_t blockLength_;
    uint32_t tileNum_;
    uint32_t tileLength_;
    T scale_;
    T floor_;
};

extern "C" __global__ __aicore__ void scale_floor(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    if (TILING_KEY_IS(DT_FLOAT16)) {
        KernelScaleFloor<half> op;
        op.Init(x, y, &tilingData);
        op.Process();
    } else if (TILING_KEY_IS(DT_FLOAT)) {
        KernelScaleFloor<float> op;
        op.Init(x, y, &tilingData);
        op.Process();
    }
}
