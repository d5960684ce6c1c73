// reduce_sum: the sum of a float32 vector over every core, y[0] by a two-phase reduction through the workspace and
// y[8] by atomic accumulation (y[1..7], y[9..15] stay 0).
// Style: a cann-ops multi-core reduction: `GM_ADDR workspace, GM_ADDR tiling` with GET_TILING_DATA, the user
// workspace from GetUserWorkspace after SetSysWorkspace, y zeroed by core 0 with InitGlobalMemory before a SyncAll,
// each core's partial sum (ReduceSum of a tile accumulator) staged in the workspace, a hard SyncAll() (so the kernel
// declares KERNEL_TYPE_MIX_AIV_1_0, as CANN's SyncAll page asks), core 0 summing the staged partials with WholeReduceSum under a bit mask, every core adding its partial to
// GM under SetAtomicAdd / DisableDmaAtomic, and core 0 printing the total with AscendC::printf after a V_S flag on
// the literal EVENT_ID0 beside the pipe's queues.
#include "kernel_operator.h"

struct ReduceSumTilingData {
    uint32_t totalLength;  // elements of x, split evenly over the cores
    uint32_t tileLength;   // elements per tile, a multiple of 64 (whole repeats)
};

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;
constexpr uint32_t SLOT = 8;  // floats of one core's partial in GM: one 32-byte block, so cores never share a block

class KernelReduceSum {
public:
    __aicore__ inline KernelReduceSum() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR usrWorkspace, const ReduceSumTilingData& tiling)
    {
        blockNum_ = GetBlockNum();
        blockIdx_ = GetBlockIdx();
        blockLength_ = tiling.totalLength / blockNum_;
        tileLength_ = tiling.tileLength;
        xGm_.SetGlobalBuffer((__gm__ float*)x + blockIdx_ * blockLength_, blockLength_);
        yGm_.SetGlobalBuffer((__gm__ float*)y, 2 * SLOT);
        partialGm_.SetGlobalBuffer((__gm__ float*)usrWorkspace, blockNum_ * SLOT);
        pipe_.InitBuffer(inQueueX_, BUFFER_NUM, tileLength_ * sizeof(float));
        pipe_.InitBuffer(accBuf_, tileLength_ * sizeof(float));
        pipe_.InitBuffer(workBuf_, tileLength_ * sizeof(float));
        pipe_.InitBuffer(slotBuf_, 64 * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        if (blockIdx_ == 0) {
            InitGlobalMemory(yGm_, 2 * SLOT, 0.0f);  // the atomic sum below starts from zero, whatever y held
        }
        SyncAll();
        LocalTensor<float> acc = accBuf_.Get<float>();
        Duplicate(acc, 0.0f, tileLength_);
        PipeBarrier<PIPE_V>();
        for (uint32_t i = 0; i < blockLength_ / tileLength_; ++i) {
            LocalTensor<float> xLocal = inQueueX_.AllocTensor<float>();
            DataCopy(xLocal, xGm_[i * tileLength_], tileLength_);
            inQueueX_.EnQue(xLocal);
            xLocal = inQueueX_.DeQue<float>();
            Add(acc, acc, xLocal, tileLength_);
            PipeBarrier<PIPE_V>();
            inQueueX_.FreeTensor(xLocal);
        }
        LocalTensor<float> slot = slotBuf_.Get<float>();
        Duplicate(slot, 0.0f, SLOT);
        PipeBarrier<PIPE_V>();
        ReduceSum<float>(slot, acc, workBuf_.Get<float>(), tileLength_);  // slot = [partial, 0 x 7]

        event_t eventVMte3 = static_cast<event_t>(pipe_.FetchEventID(HardEvent::V_MTE3));
        SetFlag<HardEvent::V_MTE3>(eventVMte3);
        WaitFlag<HardEvent::V_MTE3>(eventVMte3);
        DataCopy(partialGm_[blockIdx_ * SLOT], slot, SLOT);
        SetAtomicAdd<float>();
        DataCopy(yGm_[SLOT], slot, SLOT);
        DisableDmaAtomic();

        SyncAll();  // every partial is in the workspace
        if (blockIdx_ == 0) {
            Combine();
        }
    }

private:
    __aicore__ inline void Combine()
    {
        LocalTensor<float> partials = slotBuf_.Get<float>();
        LocalTensor<float> total = accBuf_.Get<float>();
        DataCopy(partials, partialGm_, blockNum_ * SLOT);
        Duplicate(total, 0.0f, SLOT);
        event_t eventMte2V = static_cast<event_t>(pipe_.FetchEventID(HardEvent::MTE2_V));
        SetFlag<HardEvent::MTE2_V>(eventMte2V);
        WaitFlag<HardEvent::MTE2_V>(eventMte2V);
        uint64_t mask[2] = {0, 0};  // lane 8 * c holds core c's partial: one bit per core
        for (uint32_t c = 0; c < blockNum_; ++c) {
            mask[0] |= 1ull << (c * SLOT);
        }
        WholeReduceSum<float>(total, partials, mask, 1, 1, 1, 8);

        SetFlag<HardEvent::V_S>(EVENT_ID0);  // a literal ID: no queue of this pipe holds V_S events
        WaitFlag<HardEvent::V_S>(EVENT_ID0);
        AscendC::printf("reduce_sum: %u cores, total %f\n", blockNum_, total.GetValue(0));

        event_t eventVMte3 = static_cast<event_t>(pipe_.FetchEventID(HardEvent::V_MTE3));
        SetFlag<HardEvent::V_MTE3>(eventVMte3);
        WaitFlag<HardEvent::V_MTE3>(eventVMte3);
        DataCopy(yGm_, total, SLOT);
    }

    TPipe pipe_;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX_;
    TBuf<TPosition::VECCALC> accBuf_, workBuf_, slotBuf_;
    GlobalTensor<float> xGm_, yGm_, partialGm_;
    uint32_t blockNum_ = 0, blockIdx_ = 0, blockLength_ = 0, tileLength_ = 0;
};

extern "C" __global__ __aicore__ void reduce_sum(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIV_1_0);
    REGISTER_TILING_DEFAULT(ReduceSumTilingData);
    GET_TILING_DATA(tilingData, tiling);
    SetSysWorkspace(workspace);
    GM_ADDR usrWorkspace = GetUserWorkspace(workspace);
    KernelReduceSum op;
    op.Init(x, y, usrWorkspace, tilingData);
    op.Process();
}
