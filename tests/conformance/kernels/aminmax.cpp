// aminmax: the global maximum and minimum of a float vector (a quantisation observer): y[0..8) = max(x),
// y[8..16) = min(x), yh[0..16) = half(max(x)); the host fills y and yh with -inf / +inf first.
// Style: multi-core atomics as CANN's atomic examples write them: each core reduces its slice (Max / Min of tiles into
// accumulators that Duplicate starts at -inf / +inf, then ReduceMax / ReduceMin), broadcasts its result to a block
// with Duplicate, and writes it under SetAtomicMax<float> / SetAtomicMin<float>, SetAtomicType<half> switching the
// dtype of the running max for the half copy (Cast with CAST_RINT), DisableDmaAtomic at the end; PipeBarrier<PIPE_MTE3>
// between atomic copies of different kinds.  The GM_ADDR parameters end with the outputs and a by-value length.
#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;
constexpr uint32_t TILE = 512;
constexpr float NEG_INF = -__builtin_huge_valf();
constexpr float POS_INF = __builtin_huge_valf();

class KernelAminmax {
public:
    __aicore__ inline KernelAminmax() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR yh, uint32_t lengthPerCore)
    {
        length_ = lengthPerCore;
        xGm_.SetGlobalBuffer((__gm__ float*)x + GetBlockIdx() * length_, length_);
        yGm_.SetGlobalBuffer((__gm__ float*)y, 16);
        yhGm_.SetGlobalBuffer((__gm__ half*)yh, 16);
        pipe_.InitBuffer(inQueueX_, BUFFER_NUM, TILE * sizeof(float));
        pipe_.InitBuffer(maxBuf_, TILE * sizeof(float));
        pipe_.InitBuffer(minBuf_, TILE * sizeof(float));
        pipe_.InitBuffer(workBuf_, TILE * sizeof(float));
        pipe_.InitBuffer(outBuf_, 64 * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        LocalTensor<float> accMax = maxBuf_.Get<float>();
        LocalTensor<float> accMin = minBuf_.Get<float>();
        Duplicate(accMax, NEG_INF, TILE);
        Duplicate(accMin, POS_INF, TILE);
        PipeBarrier<PIPE_V>();
        for (uint32_t i = 0; i < length_ / TILE; ++i) {
            LocalTensor<float> xLocal = inQueueX_.AllocTensor<float>();
            DataCopy(xLocal, xGm_[i * TILE], TILE);
            inQueueX_.EnQue(xLocal);
            xLocal = inQueueX_.DeQue<float>();
            Max(accMax, accMax, xLocal, TILE);
            Min(accMin, accMin, xLocal, TILE);
            PipeBarrier<PIPE_V>();
            inQueueX_.FreeTensor(xLocal);
        }
        LocalTensor<float> work = workBuf_.Get<float>();
        LocalTensor<float> out = outBuf_.Get<float>();  // [0, 16) max, [16, 24) min, [32, 48) the max as half
        ReduceMax<float>(out, accMax, work, TILE, false);
        ReduceMin<float>(out[16], accMin, work, TILE, false);

        event_t eventVS = static_cast<event_t>(pipe_.FetchEventID(HardEvent::V_S));
        SetFlag<HardEvent::V_S>(eventVS);
        WaitFlag<HardEvent::V_S>(eventVS);
        const float coreMax = out.GetValue(0);
        const float coreMin = out.GetValue(16);
        event_t eventSV = static_cast<event_t>(pipe_.FetchEventID(HardEvent::S_V));
        SetFlag<HardEvent::S_V>(eventSV);
        WaitFlag<HardEvent::S_V>(eventSV);
        Duplicate(out, coreMax, 16);
        Duplicate(out[16], coreMin, 8);
        PipeBarrier<PIPE_V>();
        LocalTensor<half> outHalf = out[32].ReinterpretCast<half>();
        Cast(outHalf, out, RoundMode::CAST_RINT, 16);

        event_t eventVMte3 = static_cast<event_t>(pipe_.FetchEventID(HardEvent::V_MTE3));
        SetFlag<HardEvent::V_MTE3>(eventVMte3);
        WaitFlag<HardEvent::V_MTE3>(eventVMte3);
        SetAtomicMax<float>();
        DataCopy(yGm_, out, 8);
        PipeBarrier<PIPE_MTE3>();
        SetAtomicType<half>();  // still max, now on halves
        DataCopy(yhGm_, outHalf, 16);
        PipeBarrier<PIPE_MTE3>();
        SetAtomicMin<float>();
        DataCopy(yGm_[8], out[16], 8);
        DisableDmaAtomic();
    }

private:
    TPipe pipe_;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX_;
    TBuf<TPosition::VECCALC> maxBuf_, minBuf_, workBuf_, outBuf_;
    GlobalTensor<float> xGm_, yGm_;
    GlobalTensor<half> yhGm_;
    uint32_t length_ = 0;
};

extern "C" __global__ __aicore__ void aminmax(GM_ADDR x, GM_ADDR y, GM_ADDR yh, uint32_t lengthPerCore)
{
    KernelAminmax op;
    op.Init(x, y, yh, lengthPerCore);
    op.Process();
}
