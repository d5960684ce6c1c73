// Ours (issue 21, items 2 and 8a; tests/realworld/test_rw_semantics.py): an ops-repo style op_kernel for 910B that
// leans on what the device does where CANN only asserts.  The operator (probe 0) is a masked fill:
//     mask = x > 0 (Compares into an int8_t tensor, which Compare's dst allows)
//     z = mask ? x : y        (Select, tensor-tensor mode, with that int8_t mask)
//     w = mask ? y : fill     (Select, tensor-scalar mode, the same mask)
// CANN lists uint8_t..uint64_t for Select's mask and checks it with ASCENDC_ASSERT only, so on the device both Selects
// read the int8_t tensor's bits.  The kernel also takes its event IDs from the pipe (AllocEventID / FetchEventID) and
// stores what FetchEventID returned in `ids`, per core: [held, first, again, freed, queueHeld, 0, 0, 0].
// Probe 1 runs calls whose rules CANN only asserts, on x and y, into z's first 512 bytes: two Compare calls, a
// WholeReduceMax with more than 255 repeats and two GatherMask calls on int8_t tensors.
#include "kernel_operator.h"
using namespace AscendC;

struct MaskedFillTilingData {
    uint32_t totalLength;
    uint32_t tileLength;
    float fillValue;
    uint32_t probe;
};

constexpr int32_t BUFFER_NUM = 2;
constexpr uint32_t ID_SLOTS = 8;

class KernelMaskedFill {
public:
    __aicore__ inline KernelMaskedFill() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR w, GM_ADDR ids,
                                const MaskedFillTilingData& tiling)
    {
        blockLength = tiling.totalLength / GetBlockNum();
        tileLength = tiling.tileLength;
        tileNum = blockLength / tileLength;
        fillValue = tiling.fillValue;
        xGm.SetGlobalBuffer((__gm__ float*)x + blockLength * GetBlockIdx(), blockLength);
        yGm.SetGlobalBuffer((__gm__ float*)y + blockLength * GetBlockIdx(), blockLength);
        zGm.SetGlobalBuffer((__gm__ float*)z + blockLength * GetBlockIdx(), blockLength);
        wGm.SetGlobalBuffer((__gm__ float*)w + blockLength * GetBlockIdx(), blockLength);
        idsGm.SetGlobalBuffer((__gm__ int32_t*)ids + ID_SLOTS * GetBlockIdx(), ID_SLOTS);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, tileLength * sizeof(float));
        pipe.InitBuffer(inQueueY, BUFFER_NUM, tileLength * sizeof(float));
        pipe.InitBuffer(outQueueZ, BUFFER_NUM, tileLength * sizeof(float));
        pipe.InitBuffer(outQueueW, BUFFER_NUM, tileLength * sizeof(float));
        pipe.InitBuffer(maskBuf, tileLength / 8);
        pipe.InitBuffer(idBuf, ID_SLOTS * sizeof(int32_t));
    }
    __aicore__ inline void Process()
    {
        LocalTensor<int32_t> idLocal = idBuf.Get<int32_t>();
        TEventID held = pipe.AllocEventID<HardEvent::V_S>();  // the kernel holds one V_S ID ...
        TEventID first = pipe.FetchEventID(HardEvent::V_S);   // ... so the lowest free one is the next
        SetFlag<HardEvent::V_S>(first);
        WaitFlag<HardEvent::V_S>(first);
        TEventID again = pipe.FetchEventID<HardEvent::V_S>();  // FetchEventID holds nothing: the same ID again
        pipe.ReleaseEventID<HardEvent::V_S>(held);
        TEventID freed = pipe.FetchEventID(HardEvent::V_S);  // the released ID is the lowest free one once more
        idLocal.SetValue(0, static_cast<int32_t>(held));
        idLocal.SetValue(1, static_cast<int32_t>(first));
        idLocal.SetValue(2, static_cast<int32_t>(again));
        idLocal.SetValue(3, static_cast<int32_t>(freed));
        idLocal.SetValue(5, 0);
        idLocal.SetValue(6, 0);
        idLocal.SetValue(7, 0);
        for (int32_t i = 0; i < tileNum; i++) {
            CopyIn(i);
            Compute(i, idLocal);
            CopyOut(i);
        }
        event_t toMte3 = static_cast<event_t>(pipe.FetchEventID(HardEvent::S_MTE3));
        SetFlag<HardEvent::S_MTE3>(toMte3);
        WaitFlag<HardEvent::S_MTE3>(toMte3);
        DataCopy(idsGm, idLocal, ID_SLOTS);
    }
    // Probe 1: Compare of int32_t with LT (910B's int32_t instruction compares for equality), Compares over 100
    // floats (count * 4 bytes is no multiple of 256: the device compares 64 and leaves the other bits alone) and
    // WholeReduceMax with repeatTime 257 (the 8-bit repeat field runs 1 repeat: one max, the next dst value kept),
    // GatherMask of int8_t with built-in pattern 1 (gathered as uint32_t elements) and with a uint16_t pattern tensor
    // (gathered as uint16_t elements; the pattern is the first 16 bytes of the Compare results above).
    __aicore__ inline void Probe()
    {
        CopyIn(0);
        LocalTensor<float> xLocal = inQueueX.DeQue<float>();
        LocalTensor<float> yLocal = inQueueY.DeQue<float>();
        LocalTensor<float> zLocal = outQueueZ.AllocTensor<float>();
        LocalTensor<uint8_t> eqBits = zLocal.ReinterpretCast<uint8_t>();
        LocalTensor<uint8_t> tailBits = eqBits[32];
        Duplicate(zLocal.ReinterpretCast<uint16_t>(), static_cast<uint16_t>(0xA5A5), 256);
        PipeBarrier<PIPE_V>();
        Compare(eqBits, xLocal.ReinterpretCast<int32_t>(), yLocal.ReinterpretCast<int32_t>(), CMPMODE::LT, 64);  // LINE:compare-int32
        Compares(tailBits, xLocal, 0.0f, CMPMODE::GT, 100);  // LINE:compares-tail
        WholeReduceMax(zLocal[16], xLocal, 64, 257, 1, 1, 8, ReduceOrder::ORDER_ONLY_VALUE);  // LINE:reduce-repeat
        PipeBarrier<PIPE_V>();
        uint64_t kept = 0;
        LocalTensor<int8_t> yBytes = yLocal.ReinterpretCast<int8_t>();
        GatherMask(zLocal[32].ReinterpretCast<int8_t>(), yBytes, 1, false, 0, {1, 1, 8, 0}, kept);  // LINE:gather-mask-pattern
        LocalTensor<uint16_t> pattern = eqBits.ReinterpretCast<uint16_t>();
        GatherMask(zLocal[64].ReinterpretCast<int8_t>(), yBytes, pattern, false, 0, {1, 1, 8, 0}, kept);  // LINE:gather-mask-tensor
        outQueueZ.EnQue(zLocal);
        inQueueX.FreeTensor(xLocal);
        inQueueY.FreeTensor(yLocal);
        zLocal = outQueueZ.DeQue<float>();
        DataCopy(zGm, zLocal, 128);
        outQueueZ.FreeTensor(zLocal);
    }

private:
    __aicore__ inline void CopyIn(int32_t progress)
    {
        LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
        LocalTensor<float> yLocal = inQueueY.AllocTensor<float>();
        DataCopy(xLocal, xGm[progress * tileLength], tileLength);
        DataCopy(yLocal, yGm[progress * tileLength], tileLength);
        inQueueX.EnQue(xLocal);
        inQueueY.EnQue(yLocal);
    }
    __aicore__ inline void Compute(int32_t progress, LocalTensor<int32_t>& idLocal)
    {
        LocalTensor<float> xLocal = inQueueX.DeQue<float>();
        LocalTensor<float> yLocal = inQueueY.DeQue<float>();
        LocalTensor<float> zLocal = outQueueZ.AllocTensor<float>();
        LocalTensor<float> wLocal = outQueueW.AllocTensor<float>();
        LocalTensor<int8_t> mask = maskBuf.Get<int8_t>();
        Compares(mask, xLocal, 0.0f, CMPMODE::GT, tileLength);
        PipeBarrier<PIPE_V>();
        Select(zLocal, mask, xLocal, yLocal, SELMODE::VSEL_TENSOR_TENSOR_MODE, tileLength);  // LINE:select-tensor
        Select(wLocal, mask, yLocal, fillValue, SELMODE::VSEL_TENSOR_SCALAR_MODE, tileLength);  // LINE:select-scalar
        outQueueZ.EnQue<float>(zLocal);
        outQueueW.EnQue<float>(wLocal);
        if (progress == 0) {  // both output queues hold a V_MTE3 ID now
            idLocal.SetValue(4, static_cast<int32_t>(pipe.FetchEventID(HardEvent::V_MTE3)));
        }
        inQueueX.FreeTensor(xLocal);
        inQueueY.FreeTensor(yLocal);
    }
    __aicore__ inline void CopyOut(int32_t progress)
    {
        LocalTensor<float> zLocal = outQueueZ.DeQue<float>();
        LocalTensor<float> wLocal = outQueueW.DeQue<float>();
        DataCopy(zGm[progress * tileLength], zLocal, tileLength);
        DataCopy(wGm[progress * tileLength], wLocal, tileLength);
        outQueueZ.FreeTensor(zLocal);
        outQueueW.FreeTensor(wLocal);
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX, inQueueY;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueZ, outQueueW;
    TBuf<TPosition::VECCALC> maskBuf, idBuf;
    GlobalTensor<float> xGm, yGm, zGm, wGm;
    GlobalTensor<int32_t> idsGm;
    uint32_t blockLength = 0;
    uint32_t tileLength = 0;
    int32_t tileNum = 0;
    float fillValue = 0.0f;
};

extern "C" __global__ __aicore__ void masked_fill(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR w, GM_ADDR ids,
                                                  GM_ADDR workspace, GM_ADDR tiling)
{
    REGISTER_TILING_DEFAULT(MaskedFillTilingData);
    GET_TILING_DATA(tilingData, tiling);
    KernelMaskedFill op;
    op.Init(x, y, z, w, ids, tilingData);
    if (tilingData.probe == 1) {
        op.Probe();
    } else {
        op.Process();
    }
}
