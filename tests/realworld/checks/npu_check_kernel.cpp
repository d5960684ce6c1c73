// Kernels of our own, written the way CANN's operator samples are (a Kernel class with Init and Process, CopyIn /
// Compute / CopyOut stages over TQue buffers, or TBuf tensors with explicit SetFlag / WaitFlag), each breaking one
// rule that CANN's CPU-debug checker ("npu check", cann/asc-tools docs/02_npu_check.md) has an error class for, or
// showing an idiom of CANN's own examples that must stay quiet.  One entry, one tiling key per case, so one build
// serves every case of a platform.  tests/realworld/test_rw_checks.py launches each key and expects the diagnostic
// at the line marked `// LINE:<tag>`; docs/diagnostics.md#canns-checker-classes-and-ours maps the classes.
#include "kernel_operator.h"
#include "npu_check_tiling.h"

using namespace AscendC;

namespace {

constexpr int32_t BUFFER_NUM = 2;
constexpr uint32_t TRAILER = 8;  // floats of the trailer every core stamps after z's data (KernelSyncShift)

// ------------------------------------------------------------------------------------------------ z = x + y
// The double-buffered add of CANN's samples; FAULT names the one deviation a case makes.
enum AddFault {
    ADD_CLEAN,
    READ_FREED,         // ErrorRead1: Add reads x after FreeTensor
    WRITE_FREED,        // ErrorWrite1 / ErrorBuffer2: the checker page's own example, FreeTensor right after AllocTensor
    UNINIT_READ,        // ErrorRead2: y is never copied in
    READ_OVERRUN,       // ErrorRead3: Add reads past y's buffer
    WRITE_OVERRUN,      // ErrorWrite2: Duplicate writes past z's buffer
    MISALIGNED,         // ErrorRead4 / ErrorWrite4: copies to and from UB addresses that are not 32-byte aligned
    WRITE_AFTER_ENQUE,  // ErrorWrite3: z is written again before CopyOut took it
    LEAK,               // ErrorLeak: the last z is never freed
    DOUBLE_FREE,        // ErrorFree
    WRONG_QUEUE,        // ErrorBuffer1: z (a VECOUT buffer) is freed through the VECIN queue
    LITERAL_IDS,        // literal EVENT_ID0 / EVENT_ID1 where no queue holds those IDs: quiet
    ID_HELD_BY_QUEUE,   // ErrorSync4: a literal MTE2_V ID 0 while x's EnQue holds MTE2_V ID 0 for its own flag
    ID_TAKEN_BY_QUEUE,  // ErrorSync4: x's EnQue takes MTE2_V ID 0 while the kernel's SetFlag on it still waits
};

template <int FAULT>
class KernelAdd {
public:
    __aicore__ inline KernelAdd() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t totalLength, uint32_t tileNum)
    {
        blockLength = totalLength / GetBlockNum();
        this->tileNum = tileNum;
        tileLength = blockLength / tileNum / BUFFER_NUM;
        xGm.SetGlobalBuffer((__gm__ float*)x + blockLength * GetBlockIdx(), blockLength);
        yGm.SetGlobalBuffer((__gm__ float*)y + blockLength * GetBlockIdx(), blockLength);
        zGm.SetGlobalBuffer((__gm__ float*)z + blockLength * GetBlockIdx(), blockLength);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, tileLength * sizeof(float));
        pipe.InitBuffer(inQueueY, BUFFER_NUM, tileLength * sizeof(float));
        pipe.InitBuffer(outQueueZ, BUFFER_NUM, tileLength * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        int32_t loopCount = tileNum * BUFFER_NUM;
        for (int32_t i = 0; i < loopCount; i++) {
            CopyIn(i);
            Compute(i);
            CopyOut(i, i == loopCount - 1);
        }
    }

private:
    __aicore__ inline void CopyIn(int32_t progress)
    {
        LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
        LocalTensor<float> yLocal = inQueueY.AllocTensor<float>();
        if constexpr (FAULT == WRITE_FREED) {
            inQueueX.FreeTensor(xLocal);
            DataCopy(xLocal, xGm[progress * tileLength], tileLength);  // LINE:write_freed
            inQueueX.EnQue(xLocal);                                    // LINE:enque_freed
        } else if constexpr (FAULT == MISALIGNED) {
            DataCopy(xLocal[1], xGm[progress * tileLength], tileLength - 8);  // LINE:misaligned_write
            inQueueX.EnQue(xLocal);
        } else if constexpr (FAULT == ID_TAKEN_BY_QUEUE) {
            DataCopy(xLocal, xGm[progress * tileLength], tileLength);
            SetFlag<HardEvent::MTE2_V>(EVENT_ID0);  // LINE:id_taken
            inQueueX.EnQue(xLocal);
            WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
        } else {
            DataCopy(xLocal, xGm[progress * tileLength], tileLength);
            inQueueX.EnQue(xLocal);  // LINE:enque_x
        }
        if constexpr (FAULT != UNINIT_READ) DataCopy(yLocal, yGm[progress * tileLength], tileLength);
        if constexpr (FAULT == ID_HELD_BY_QUEUE) {
            SetFlag<HardEvent::MTE2_V>(EVENT_ID0);  // LINE:id_held
            WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
        }
        inQueueY.EnQue(yLocal);
    }
    __aicore__ inline void Compute(int32_t progress)
    {
        (void)progress;
        LocalTensor<float> xLocal = inQueueX.DeQue<float>();  // LINE:deque_x
        LocalTensor<float> yLocal = inQueueY.DeQue<float>();
        if constexpr (FAULT == LITERAL_IDS) {  // both DeQues released the MTE2_V IDs the queues held
            SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
            WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
        }
        LocalTensor<float> zLocal = outQueueZ.AllocTensor<float>();
        if constexpr (FAULT == READ_FREED) {
            inQueueX.FreeTensor(xLocal);
            Add(zLocal, xLocal, yLocal, tileLength);  // LINE:read_freed
        } else if constexpr (FAULT == READ_OVERRUN) {
            Add(zLocal, xLocal, yLocal[tileLength / 2], tileLength);  // LINE:read_overrun
        } else if constexpr (FAULT == WRITE_OVERRUN) {
            Duplicate(zLocal, 0.0f, tileLength * 2);  // LINE:write_overrun
            PipeBarrier<PIPE_V>();
            Add(zLocal, xLocal, yLocal, tileLength);
        } else {
            Add(zLocal, xLocal, yLocal, tileLength);  // LINE:add
        }
        outQueueZ.EnQue<float>(zLocal);
        if constexpr (FAULT == WRITE_AFTER_ENQUE) Duplicate(zLocal, 0.0f, tileLength);  // LINE:rewrite
        if constexpr (FAULT != READ_FREED) inQueueX.FreeTensor(xLocal);
        inQueueY.FreeTensor(yLocal);
    }
    __aicore__ inline void CopyOut(int32_t progress, bool last)
    {
        LocalTensor<float> zLocal = outQueueZ.DeQue<float>();
        if constexpr (FAULT == MISALIGNED) {
            DataCopy(zGm[progress * tileLength], zLocal[3], tileLength - 8);  // LINE:misaligned_read
        } else {
            DataCopy(zGm[progress * tileLength], zLocal, tileLength);
        }
        if constexpr (FAULT == LITERAL_IDS) {  // no queue here takes MTE3_MTE2 IDs
            SetFlag<HardEvent::MTE3_MTE2>(EVENT_ID1);
            WaitFlag<HardEvent::MTE3_MTE2>(EVENT_ID1);
        }
        if constexpr (FAULT == LEAK) {
            if (!last) outQueueZ.FreeTensor(zLocal);
        } else if constexpr (FAULT == DOUBLE_FREE) {
            outQueueZ.FreeTensor(zLocal);
            outQueueZ.FreeTensor(zLocal);  // LINE:double_free
        } else if constexpr (FAULT == WRONG_QUEUE) {
            if (last) inQueueX.FreeTensor(zLocal);  // LINE:wrong_queue
            outQueueZ.FreeTensor(zLocal);
        } else {
            outQueueZ.FreeTensor(zLocal);
        }
    }

    TPipe pipe;
    TQue<TPosition::VECIN, BUFFER_NUM> inQueueX, inQueueY;
    TQue<TPosition::VECOUT, BUFFER_NUM> outQueueZ;
    GlobalTensor<float> xGm, yGm, zGm;
    uint32_t blockLength = 0, tileNum = 0, tileLength = 0;
};

// ------------------------------------------------------------------------------------------------ z = 2x + 1
// One tile per core in TBuf tensors, ordered by explicit flags (the style of kernels that manage events themselves).
enum SyncFault {
    SYNC_CLEAN,
    NO_MTE2_V,     // ErrorSync2: Muls reads x with no MTE2_V after its copy
    NO_V_BARRIER,  // ErrorSync2: Adds reads Muls' output with no PipeBarrier<PIPE_V>
    WAW_NO_SYNC,   // ErrorSync1: Duplicate overwrites bytes the MTE2 copy wrote, with no MTE2_V between them
    MTE2_OVERLAP,  // ErrorSync1: two MTE2 copies into overlapping UB with no PipeBarrier<PIPE_MTE2>
    SET_NO_WAIT,   // ErrorSync3: a SetFlag nobody waits for
    WAIT_NO_SET,   // ErrorSync3: a WaitFlag nothing sets (the pipe would wait forever)
    DUP_ID,        // ErrorSync4: the same event ID set twice before its WaitFlag
    LITERAL_ID,    // EVENT_ID0 / EVENT_ID1 written as literals, as static-Tensor kernels do: no queue, no collision
};

template <int FAULT>
class KernelScaleSync {
public:
    __aicore__ inline KernelScaleSync() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR z, uint32_t totalLength)
    {
        blockLength = totalLength / GetBlockNum();
        xGm.SetGlobalBuffer((__gm__ float*)x + blockLength * GetBlockIdx(), blockLength);
        zGm.SetGlobalBuffer((__gm__ float*)z + blockLength * GetBlockIdx(), blockLength);
        pipe.InitBuffer(xBuf, blockLength * sizeof(float));
        pipe.InitBuffer(zBuf, blockLength * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        LocalTensor<float> xLocal = xBuf.Get<float>();
        LocalTensor<float> zLocal = zBuf.Get<float>();
        event_t eventMte2V = EVENT_ID0, eventVMte3 = EVENT_ID1;  // LITERAL_ID keeps the literals
        if constexpr (FAULT != LITERAL_ID) {
            eventMte2V = static_cast<event_t>(pipe.FetchEventID(HardEvent::MTE2_V));
            eventVMte3 = static_cast<event_t>(pipe.FetchEventID(HardEvent::V_MTE3));
        }
        if constexpr (FAULT == MTE2_OVERLAP) {
            // the first half, then the second half from one block early: both copies write UB [half - 8, half)
            uint32_t half = blockLength / 2;
            DataCopy(xLocal, xGm, half);
            DataCopy(xLocal[half - 8], xGm[half - 8], half + 8);  // LINE:mte2_overlap
        } else {
            DataCopy(xLocal, xGm, blockLength);
        }
        if constexpr (FAULT == WAW_NO_SYNC) Duplicate(xLocal, 0.0f, 8);  // LINE:waw
        if constexpr (FAULT == DUP_ID) {
            SetFlag<HardEvent::MTE2_V>(eventMte2V);
            SetFlag<HardEvent::MTE2_V>(eventMte2V);  // LINE:dup_id
            WaitFlag<HardEvent::MTE2_V>(eventMte2V);
            WaitFlag<HardEvent::MTE2_V>(eventMte2V);
        } else if constexpr (FAULT != NO_MTE2_V) {
            SetFlag<HardEvent::MTE2_V>(eventMte2V);
            WaitFlag<HardEvent::MTE2_V>(eventMte2V);
        }
        Muls(zLocal, xLocal, 2.0f, blockLength);  // LINE:muls
        if constexpr (FAULT != NO_V_BARRIER) PipeBarrier<PIPE_V>();
        Adds(zLocal, zLocal, 1.0f, blockLength);  // LINE:adds
        if constexpr (FAULT == SET_NO_WAIT) {
            event_t eventVS = static_cast<event_t>(pipe.FetchEventID(HardEvent::V_S));
            SetFlag<HardEvent::V_S>(eventVS);  // LINE:set_no_wait
        }
        if constexpr (FAULT == WAIT_NO_SET) {
            event_t eventMte3V = static_cast<event_t>(pipe.FetchEventID(HardEvent::MTE3_V));
            WaitFlag<HardEvent::MTE3_V>(eventMte3V);  // LINE:wait_no_set
        }
        SetFlag<HardEvent::V_MTE3>(eventVMte3);
        WaitFlag<HardEvent::V_MTE3>(eventVMte3);
        DataCopy(zGm, zLocal, blockLength);
    }

private:
    TPipe pipe;
    TBuf<TPosition::VECCALC> xBuf, zBuf;
    GlobalTensor<float> xGm, zGm;
    uint32_t blockLength = 0;
};

// ------------------------------------------------------------------------------------------------ buffer set-up
enum BufferFault {
    QUE_NO_INIT,   // ErrorBuffer0: AllocTensor on a queue that no InitBuffer set up
    TBUF_NO_INIT,  // ErrorBuffer0: TBuf::Get without InitBuffer
    UB_TOO_BIG,    // ErrorBuffer3: InitBuffer asks for more UB than the core has
    NO_TENSOR,     // ErrorBuffer3 / ErrorWrite1: a LocalTensor never obtained from a queue or TBuf
    POOL_NO_INIT,  // ErrorBuffer4: InitBuffer in a TBufPool that no InitBufPool set up
};

template <int FAULT>
class KernelBufferSetup {
public:
    __aicore__ inline KernelBufferSetup() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR z)
    {
        xGm.SetGlobalBuffer((__gm__ float*)x, TILE);
        zGm.SetGlobalBuffer((__gm__ float*)z, TILE);
        if constexpr (FAULT == UB_TOO_BIG) {
            pipe.InitBuffer(inQueue, BUFFER_NUM, 160 * 1024);  // LINE:ub_too_big
        } else if constexpr (FAULT == POOL_NO_INIT) {
            pool.InitBuffer(inQueue, 1, TILE * sizeof(float));  // LINE:pool_no_init
        } else if constexpr (FAULT != QUE_NO_INIT) {
            pipe.InitBuffer(inQueue, 1, TILE * sizeof(float));
        }
    }
    __aicore__ inline void Process()
    {
        if constexpr (FAULT == TBUF_NO_INIT) {
            LocalTensor<float> tmp = tmpBuf.Get<float>();  // LINE:tbuf_no_init
            (void)tmp;
        } else if constexpr (FAULT == NO_TENSOR) {
            LocalTensor<float> tmp;
            Duplicate(tmp, 1.0f, TILE);  // LINE:no_tensor
        } else {
            LocalTensor<float> xLocal = inQueue.AllocTensor<float>();  // LINE:que_alloc
            inQueue.FreeTensor(xLocal);
        }
    }

private:
    static constexpr uint32_t TILE = 64;
    TPipe pipe;
    TQue<TPosition::VECIN, BUFFER_NUM> inQueue;
    TBuf<TPosition::VECCALC> tmpBuf;
    TBufPool<TPosition::VECCALC> pool;
    GlobalTensor<float> xGm, zGm;
};

// ------------------------------------------------------------------------------------------------ GM neighbours
// An offset computed against the wrong tensor: through x's GlobalTensor into y, through z's into the workspace,
// and a GlobalTensor set just past x's allocation.  One core, so only the allocation bounds can catch them.
enum GmFault {
    NEIGHBOUR_READ,   // ErrorRead3 in GM: DataCopy through xGm that lands inside y
    NEIGHBOUR_WRITE,  // ErrorWrite2 in GM: DataCopy through zGm that lands inside the workspace
    PAST_ALLOCATION,  // a tensor set on the bytes right after x's allocation
};

template <int FAULT>
class KernelGmNeighbour {
public:
    __aicore__ inline KernelGmNeighbour() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, uint32_t totalLength)
    {
        xGm.SetGlobalBuffer((__gm__ float*)x);
        zGm.SetGlobalBuffer((__gm__ float*)z);
        toY = (uint64_t)((__gm__ float*)y - (__gm__ float*)x);
        toWorkspace = (uint64_t)((__gm__ float*)workspace - (__gm__ float*)z);
        pastX.SetGlobalBuffer((__gm__ float*)x + totalLength + 64);  // 256 bytes after x's data: past its slack
        pipe.InitBuffer(tmpBuf, TILE * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        LocalTensor<float> tmp = tmpBuf.Get<float>();
        if constexpr (FAULT == NEIGHBOUR_READ) {
            DataCopy(tmp, xGm[toY], TILE);  // LINE:neighbour_read
        } else if constexpr (FAULT == NEIGHBOUR_WRITE) {
            Duplicate(tmp, 7.0f, TILE);
            PipeBarrier<PIPE_ALL>();
            DataCopy(zGm[toWorkspace], tmp, TILE);  // LINE:neighbour_write
        } else {
            DataCopy(tmp, pastX, TILE);  // LINE:past_allocation
        }
        PipeBarrier<PIPE_ALL>();
        DataCopy(zGm, tmp, TILE);  // whatever the case read (or wrote) lands in z[0, 8)
    }

private:
    static constexpr uint32_t TILE = 8;
    TPipe pipe;
    TBuf<TPosition::VECCALC> tmpBuf;
    GlobalTensor<float> xGm, zGm, pastX;
    uint64_t toY = 0, toWorkspace = 0;
};

// ------------------------------------------------------------------------------------------------ SyncAll
// Each core doubles its slice of x into the workspace, every core stamps the same trailer after z's data, all
// cores meet at SyncAll, then each core writes the next core's doubled slice + 1 to its own slice of z.  Hard
// SyncAll on 910B (as CANN's sync_all example and cann-ops kernels use it, with no kernel type declared), soft
// SyncAll on 310P, which has no hard one.
enum SyncShiftVariant {
    SAME_TRAILER,       // every core writes identical trailer bytes: benign
    AIV_ONLY_TYPE,      // the kernel declares KERNEL_TYPE_AIV_ONLY, which CANN's SyncAll page rules out
    DIFFERENT_TRAILER,  // every core writes its own index into the trailer: a real race
};

template <int VARIANT>
class KernelSyncShift {
public:
    __aicore__ inline KernelSyncShift() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR z, GM_ADDR workspace, uint32_t totalLength)
    {
        blockNum = GetBlockNum();
        blockIdx = GetBlockIdx();
        blockLength = totalLength / blockNum;
        this->totalLength = totalLength;
        xGm.SetGlobalBuffer((__gm__ float*)x + blockIdx * blockLength, blockLength);
        zGm.SetGlobalBuffer((__gm__ float*)z, totalLength + TRAILER);
        workGm.SetGlobalBuffer((__gm__ float*)workspace, totalLength);
        syncGm.SetGlobalBuffer((__gm__ int32_t*)(workspace + totalLength * sizeof(float)), blockNum * 8);
        pipe.InitBuffer(inQueue, 1, blockLength * sizeof(float));
        pipe.InitBuffer(outQueue, 1, blockLength * sizeof(float));
        pipe.InitBuffer(trailerBuf, TRAILER * sizeof(float));
        pipe.InitBuffer(syncBuf, blockNum * 32);
    }
    __aicore__ inline void Process()
    {
        Stage(xGm, workGm[blockIdx * blockLength], 2.0f, 0.0f);
        StampTrailer();
#if __NPU_ARCH__ == 2201
        SyncAll();  // LINE:sync_all
#else
        SyncAll(syncGm, syncBuf.Get<int32_t>());
#endif
        uint32_t next = (blockIdx + 1) % blockNum;
        Stage(workGm[next * blockLength], zGm[blockIdx * blockLength], 1.0f, 1.0f);
    }

private:
    // dst = src * scale + bias, one tile through the two queues
    __aicore__ inline void Stage(const GlobalTensor<float>& src, const GlobalTensor<float>& dst, float scale,
                                 float bias)
    {
        LocalTensor<float> inLocal = inQueue.AllocTensor<float>();
        DataCopy(inLocal, src, blockLength);
        inQueue.EnQue(inLocal);
        inLocal = inQueue.DeQue<float>();
        LocalTensor<float> outLocal = outQueue.AllocTensor<float>();
        Muls(outLocal, inLocal, scale, blockLength);
        PipeBarrier<PIPE_V>();
        Adds(outLocal, outLocal, bias, blockLength);
        outQueue.EnQue(outLocal);
        inQueue.FreeTensor(inLocal);
        outLocal = outQueue.DeQue<float>();
        DataCopy(dst, outLocal, blockLength);
        outQueue.FreeTensor(outLocal);
    }
    __aicore__ inline void StampTrailer()
    {
        LocalTensor<float> trailer = trailerBuf.Get<float>();
        Duplicate(trailer, VARIANT == DIFFERENT_TRAILER ? (float)blockIdx : 1.0f, TRAILER);
        event_t eventVMte3 = static_cast<event_t>(pipe.FetchEventID(HardEvent::V_MTE3));
        SetFlag<HardEvent::V_MTE3>(eventVMte3);
        WaitFlag<HardEvent::V_MTE3>(eventVMte3);
        DataCopy(zGm[totalLength], trailer, TRAILER);  // LINE:trailer
    }

    TPipe pipe;
    TQue<TPosition::VECIN, 1> inQueue;
    TQue<TPosition::VECOUT, 1> outQueue;
    TBuf<TPosition::VECCALC> trailerBuf, syncBuf;
    GlobalTensor<float> xGm, zGm, workGm;
    GlobalTensor<int32_t> syncGm;
    uint32_t blockNum = 0, blockIdx = 0, blockLength = 0, totalLength = 0;
};

template <int FAULT>
__aicore__ inline void RunAdd(GM_ADDR x, GM_ADDR y, GM_ADDR z, const NpuCheckTilingData& t)
{
    KernelAdd<FAULT> op;
    op.Init(x, y, z, t.totalLength, t.tileNum);
    op.Process();
}
template <int FAULT>
__aicore__ inline void RunScaleSync(GM_ADDR x, GM_ADDR z, const NpuCheckTilingData& t)
{
    KernelScaleSync<FAULT> op;
    op.Init(x, z, t.totalLength);
    op.Process();
}
template <int FAULT>
__aicore__ inline void RunBufferSetup(GM_ADDR x, GM_ADDR z)
{
    KernelBufferSetup<FAULT> op;
    op.Init(x, z);
    op.Process();
}
template <int FAULT>
__aicore__ inline void RunGmNeighbour(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, const NpuCheckTilingData& t)
{
    KernelGmNeighbour<FAULT> op;
    op.Init(x, y, z, workspace, t.totalLength);
    op.Process();
}
template <int VARIANT>
__aicore__ inline void RunSyncShift(GM_ADDR x, GM_ADDR z, GM_ADDR workspace, const NpuCheckTilingData& t)
{
    KernelSyncShift<VARIANT> op;
    op.Init(x, z, workspace, t.totalLength);
    op.Process();
}

}  // namespace

extern "C" __global__ __aicore__ void npu_check_kernel(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace,
                                                       GM_ADDR tiling)
{
    KERNEL_TASK_TYPE(3, KERNEL_TYPE_AIV_ONLY);
    REGISTER_TILING_DEFAULT(NpuCheckTilingData);
    GET_TILING_DATA(tilingData, tiling);
    if (TILING_KEY_IS(1)) {
        RunAdd<ADD_CLEAN>(x, y, z, tilingData);
    } else if (TILING_KEY_IS(2)) {
        RunSyncShift<SAME_TRAILER>(x, z, workspace, tilingData);
    } else if (TILING_KEY_IS(3)) {
        RunSyncShift<AIV_ONLY_TYPE>(x, z, workspace, tilingData);
    } else if (TILING_KEY_IS(4)) {
        RunSyncShift<DIFFERENT_TRAILER>(x, z, workspace, tilingData);
    } else if (TILING_KEY_IS(10)) {
        RunAdd<READ_FREED>(x, y, z, tilingData);
    } else if (TILING_KEY_IS(11)) {
        RunAdd<WRITE_FREED>(x, y, z, tilingData);
    } else if (TILING_KEY_IS(12)) {
        RunAdd<UNINIT_READ>(x, y, z, tilingData);
    } else if (TILING_KEY_IS(13)) {
        RunAdd<READ_OVERRUN>(x, y, z, tilingData);
    } else if (TILING_KEY_IS(14)) {
        RunAdd<WRITE_OVERRUN>(x, y, z, tilingData);
    } else if (TILING_KEY_IS(15)) {
        RunAdd<MISALIGNED>(x, y, z, tilingData);
    } else if (TILING_KEY_IS(16)) {
        RunAdd<WRITE_AFTER_ENQUE>(x, y, z, tilingData);
    } else if (TILING_KEY_IS(17)) {
        RunAdd<LEAK>(x, y, z, tilingData);
    } else if (TILING_KEY_IS(18)) {
        RunAdd<DOUBLE_FREE>(x, y, z, tilingData);
    } else if (TILING_KEY_IS(19)) {
        RunAdd<WRONG_QUEUE>(x, y, z, tilingData);
    } else if (TILING_KEY_IS(20)) {
        RunScaleSync<SYNC_CLEAN>(x, z, tilingData);
    } else if (TILING_KEY_IS(21)) {
        RunScaleSync<NO_MTE2_V>(x, z, tilingData);
    } else if (TILING_KEY_IS(22)) {
        RunScaleSync<NO_V_BARRIER>(x, z, tilingData);
    } else if (TILING_KEY_IS(23)) {
        RunScaleSync<WAW_NO_SYNC>(x, z, tilingData);
    } else if (TILING_KEY_IS(24)) {
        RunScaleSync<MTE2_OVERLAP>(x, z, tilingData);
    } else if (TILING_KEY_IS(25)) {
        RunScaleSync<SET_NO_WAIT>(x, z, tilingData);
    } else if (TILING_KEY_IS(26)) {
        RunScaleSync<WAIT_NO_SET>(x, z, tilingData);
    } else if (TILING_KEY_IS(27)) {
        RunScaleSync<DUP_ID>(x, z, tilingData);
    } else if (TILING_KEY_IS(28)) {
        RunScaleSync<LITERAL_ID>(x, z, tilingData);
    } else if (TILING_KEY_IS(35)) {
        RunAdd<LITERAL_IDS>(x, y, z, tilingData);
    } else if (TILING_KEY_IS(36)) {
        RunAdd<ID_HELD_BY_QUEUE>(x, y, z, tilingData);
    } else if (TILING_KEY_IS(37)) {
        RunAdd<ID_TAKEN_BY_QUEUE>(x, y, z, tilingData);
    } else if (TILING_KEY_IS(30)) {
        RunBufferSetup<QUE_NO_INIT>(x, z);
    } else if (TILING_KEY_IS(31)) {
        RunBufferSetup<TBUF_NO_INIT>(x, z);
    } else if (TILING_KEY_IS(32)) {
        RunBufferSetup<UB_TOO_BIG>(x, z);
    } else if (TILING_KEY_IS(33)) {
        RunBufferSetup<NO_TENSOR>(x, z);
    } else if (TILING_KEY_IS(34)) {
        RunBufferSetup<POOL_NO_INIT>(x, z);
    } else if (TILING_KEY_IS(40)) {
        RunGmNeighbour<NEIGHBOUR_READ>(x, y, z, workspace, tilingData);
    } else if (TILING_KEY_IS(41)) {
        RunGmNeighbour<NEIGHBOUR_WRITE>(x, y, z, workspace, tilingData);
    } else if (TILING_KEY_IS(42)) {
        RunGmNeighbour<PAST_ALLOCATION>(x, y, z, workspace, tilingData);
    } else if (TILING_KEY_IS(50)) {
#if __CCE_AICORE__ == 100  // a body for another chip only: here the kernel does nothing and z is never written
        RunAdd<ADD_CLEAN>(x, y, z, tilingData);
#endif
    }
}
