// Issue 11, the kernel surface (tests/realworld/test_rw_surface.py): a cann-ops style kernel that takes its tiling
// through GM (GET_TILING_DATA), with the idioms kernels bring from CANN: `kernel_tiling/kernel_tiling.h`,
// float16_t / float32_t, ASSERT with and without a `;`, GetTPipePtr() from a helper outside namespace AscendC,
// GlobalTensor::operator(), two TBufPool stages sharing one UB region, TBuf::AllocTensor, and printf / PRINTF.
//
//   y = float(x) * scale          (stage 1: pool stage1, a TBuf temporary)
//   z = float(x) * float(x)       (stage 2: pool stage2, sharing stage1's start and length after stage1.Reset())
#include "kernel_tiling/kernel_tiling.h"
#include "kernel_operator.h"
#include "surface_tiling.h"

// A helper outside namespace AscendC, as shared utility headers write them: the scalar unit waits for the vector
// pipe through the core's TPipe, which GetTPipePtr() finds without being passed.
__aicore__ inline void WaitVectorForScalar()
{
    event_t eventId = static_cast<event_t>(GetTPipePtr()->FetchEventID(AscendC::HardEvent::V_S));
    AscendC::SetFlag<AscendC::HardEvent::V_S>(eventId);
    AscendC::WaitFlag<AscendC::HardEvent::V_S>(eventId);
}

using namespace AscendC;

static_assert(std::is_same_v<float16_t, half> && std::is_same_v<float32_t, float>);
constexpr int32_t BUFFER_NUM = 2;

class KernelCastScale {
public:
    __aicore__ inline KernelCastScale() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR tiling, const SurfaceTilingData& td)
    {
        ASSERT(GetBlockNum() != 0 && "block dim can not be zero!")  // no ';': the device build drops ASSERT
        ASSERT(td.tileLength <= td.maxTile && "tile longer than the pools hold");  // LINE:assert-tile
        // The tiling read element by element from GM as well, the way the GlobalTensor::GetValue page does.
        GlobalTensor<uint32_t> tilingGm;
        tilingGm.SetGlobalBuffer((__gm__ uint32_t*)tiling, sizeof(SurfaceTilingData) / sizeof(uint32_t));
        ASSERT(tilingGm(0) == td.totalLength && tilingGm(1) == td.tileLength);

        this->blockLength = td.totalLength / GetBlockNum();
        this->tileLength = td.tileLength;
        this->tileNum = this->blockLength / this->tileLength;
        this->scale = td.scale;
        xGm.SetGlobalBuffer((__gm__ float16_t*)x + this->blockLength * GetBlockIdx(), this->blockLength);
        yGm.SetGlobalBuffer((__gm__ float32_t*)y + this->blockLength * GetBlockIdx(), this->blockLength);
        zGm.SetGlobalBuffer((__gm__ float32_t*)z + this->blockLength * GetBlockIdx(), this->blockLength);

        const uint32_t poolBytes = td.maxTile * (BUFFER_NUM * sizeof(float16_t) + BUFFER_NUM * sizeof(float32_t) +
                                                 sizeof(float32_t));
        GetTPipePtr()->InitBufPool(stage1, poolBytes);
        GetTPipePtr()->InitBufPool(stage2, poolBytes, stage1);
        stage1.InitBuffer(inQueueX, BUFFER_NUM, this->tileLength * sizeof(float16_t));
        stage1.InitBuffer(outQueueY, BUFFER_NUM, this->tileLength * sizeof(float32_t));
        stage1.InitBuffer(castBuf, this->tileLength * sizeof(float32_t));
    }
    __aicore__ inline void Process()
    {
        for (uint32_t i = 0; i < this->tileNum; i++) {
            CopyIn(i);
            ComputeScale(i);
            CopyOut(outQueueY, yGm, i);
        }
        stage1.Reset();
        stage2.InitBuffer(inQueueX2, BUFFER_NUM, this->tileLength * sizeof(float16_t));
        stage2.InitBuffer(outQueueZ, BUFFER_NUM, this->tileLength * sizeof(float32_t));
        for (uint32_t i = 0; i < this->tileNum; i++) {
            LocalTensor<float16_t> xLocal = inQueueX2.AllocTensor<float16_t>();
            DataCopy(xLocal, xGm[i * this->tileLength], this->tileLength);
            inQueueX2.EnQue(xLocal);
            ComputeSquare();
            CopyOut(outQueueZ, zGm, i);
        }
        PRINTF("core %ld: %u tiles of %u, y[0] = %f\n", (long)GetBlockIdx(), this->tileNum, this->tileLength,
               (double)this->firstY);
    }

private:
    __aicore__ inline void CopyIn(uint32_t progress)
    {
        LocalTensor<float16_t> xLocal = inQueueX.AllocTensor<float16_t>();
        DataCopy(xLocal, xGm[progress * this->tileLength], this->tileLength);
        inQueueX.EnQue(xLocal);
    }
    __aicore__ inline void ComputeScale(uint32_t progress)
    {
        LocalTensor<float16_t> xLocal = inQueueX.DeQue<float16_t>();
        LocalTensor<float32_t> xFloat = castBuf.AllocTensor<float32_t>();
        LocalTensor<float32_t> yLocal = outQueueY.AllocTensor<float32_t>();
        Cast(xFloat, xLocal, RoundMode::CAST_NONE, this->tileLength);
        PipeBarrier<PIPE_V>();
        Muls(yLocal, xFloat, this->scale, this->tileLength);
        if (progress == 0) {
            WaitVectorForScalar();
            this->firstY = yLocal.GetValue(0);
            AscendC::printf("core %ld: first tile scaled\n", (long)GetBlockIdx());
        }
        castBuf.FreeTensor(xFloat);
        outQueueY.EnQue<float32_t>(yLocal);
        inQueueX.FreeTensor(xLocal);
    }
    __aicore__ inline void ComputeSquare()
    {
        LocalTensor<float16_t> xLocal = inQueueX2.DeQue<float16_t>();
        LocalTensor<float32_t> zLocal = outQueueZ.AllocTensor<float32_t>();
        Cast(zLocal, xLocal, RoundMode::CAST_NONE, this->tileLength);
        PipeBarrier<PIPE_V>();
        Mul(zLocal, zLocal, zLocal, this->tileLength);
        outQueueZ.EnQue<float32_t>(zLocal);
        inQueueX2.FreeTensor(xLocal);
    }
    template <class Q>
    __aicore__ inline void CopyOut(Q& queue, GlobalTensor<float32_t>& dst, uint32_t progress)
    {
        LocalTensor<float32_t> out = queue.template DeQue<float32_t>();
        DataCopy(dst[progress * this->tileLength], out, this->tileLength);
        queue.FreeTensor(out);
    }

private:
    TBufPool<TPosition::VECCALC, 8> stage1, stage2;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX, inQueueX2;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueY, outQueueZ;
    TBuf<TPosition::VECCALC> castBuf;
    GlobalTensor<float16_t> xGm;
    GlobalTensor<float32_t> yGm, zGm;
    uint32_t blockLength = 0, tileLength = 0, tileNum = 0;
    float32_t scale = 0, firstY = 0;
};

extern "C" __global__ __aicore__ void surface_kernel(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace,
                                                     GM_ADDR tiling)
{
    REGISTER_TILING_DEFAULT(SurfaceTilingData);
    GET_TILING_DATA(tilingData, tiling);
    TPipe pipe;
    KernelCastScale op;
    op.Init(x, y, z, tiling, tilingData);
    op.Process();
}
