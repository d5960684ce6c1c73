// Issue 21, the sort family on 310P in the style of the older (TIK C++ era) samples (tests/realworld/test_rw_sort.py):
// `using namespace tik2;`, `tik2::LocalTensor` and the kernel class inside `namespace tik2 { ... }`.  64 half scores
// become region proposals (ProposalConcat of the scores and of their labels), RpSort16 sorts each 16, MrgSort4 merges
// the four lists, ProposalExtract takes scores and labels back out.  The same through the helpers (Concat,
// Sort<half, true>, Extract: the uint32 index split over y1 / label), a merge that stops when a list is used up
// (MrgSort<half, true>, GetMrgSortResult), and an int4 quantisation (Cast half -> int4b_t, CAST_NONE: the only mode
// 310P has) copied to GM packed.  REFUSE = 1 calls the 910B-only Sort32 instead.
#include "kernel_operator.h"
using namespace tik2;

struct ProposalParams {
    int32_t refuse;
    int32_t pad;
};

namespace tik2 {
constexpr int32_t N = 64;                    // scores
constexpr uint32_t OUT_SCORES = 0;           // half[64], instruction path
constexpr uint32_t OUT_LABELS = 128;         // half[64]
constexpr uint32_t OUT_SCORES2 = 256;        // half[64], helper path
constexpr uint32_t OUT_INDEX2 = 384;         // uint32[64]
constexpr uint32_t OUT_SORTED_NUM = 640;     // uint32[4] sortedNum, uint16 GetMrgSortResult as uint32[4]
constexpr uint32_t OUT_INT4 = 672;           // int4b_t[64]: 32 bytes
constexpr uint32_t OUT_PROPOSALS = 704;      // the 64 merged region proposals: 1024 bytes
constexpr uint32_t OUT_BYTES = 1728;

class KernelProposalSort {
  public:
    __aicore__ inline KernelProposalSort() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR labels, GM_ADDR index, GM_ADDR out, const ProposalParams& p)
    {
        p_ = p;
        xGm.SetGlobalBuffer((__gm__ half*)x, N);
        labelGm.SetGlobalBuffer((__gm__ half*)labels, N);
        indexGm.SetGlobalBuffer((__gm__ uint32_t*)index, N);
        outGm.SetGlobalBuffer((__gm__ uint8_t*)out, OUT_BYTES);
        int4Gm.SetGlobalBuffer((__gm__ int4b_t*)(out + OUT_INT4), N);
        pipe.InitBuffer(inQueue, 1, N * sizeof(half));
        pipe.InitBuffer(labelQueue, 1, N * sizeof(half));
        pipe.InitBuffer(indexQueue, 1, N * sizeof(uint32_t));
        pipe.InitBuffer(proposalBuf, N * 8 * sizeof(half));
        pipe.InitBuffer(mergeBuf, N * 8 * sizeof(half));
        pipe.InitBuffer(tmpBuf, N * 8 * sizeof(half));
        pipe.InitBuffer(outBuf, N * sizeof(uint32_t));
        pipe.InitBuffer(quantBuf, 64);
    }
    __aicore__ inline void Process()
    {
        LocalTensor<half> x = inQueue.AllocTensor<half>();
        LocalTensor<half> labels = labelQueue.AllocTensor<half>();
        LocalTensor<uint32_t> index = indexQueue.AllocTensor<uint32_t>();
        DataCopy(x, xGm, N);
        DataCopy(labels, labelGm, N);
        DataCopy(index, indexGm, N);
        inQueue.EnQue(x);
        labelQueue.EnQue(labels);
        indexQueue.EnQue(index);
        x = inQueue.DeQue<half>();
        labels = labelQueue.DeQue<half>();
        index = indexQueue.DeQue<uint32_t>();
        if (p_.refuse) {
            LocalTensor<half> sorted = proposalBuf.Get<half>();
            Sort32<half>(sorted, x, index, 1);  // 910B only: refused when it runs
        } else {
            ByInstructions(x, labels);
            ByHelpers(x, index);
            SuspendedMerge(x, labels);
            Quantise(x);
        }
        inQueue.FreeTensor(x);
        labelQueue.FreeTensor(labels);
        indexQueue.FreeTensor(index);
    }

  private:
    __aicore__ inline void Emit(const tik2::LocalTensor<uint8_t>& src, uint32_t offset, uint32_t bytes)
    {
        SetFlag<HardEvent::V_MTE3>(0);
        WaitFlag<HardEvent::V_MTE3>(0);
        DataCopy(outGm[offset], src, bytes);
        SetFlag<HardEvent::MTE3_V>(0);
        WaitFlag<HardEvent::MTE3_V>(0);
    }
    __aicore__ inline void ByInstructions(const LocalTensor<half>& x, const LocalTensor<half>& labels)
    {
        LocalTensor<half> rp = proposalBuf.Get<half>();
        Duplicate(rp, half(0), N * 8);  // x1 .. y2 and the reserved elements: zero
        PipeBarrier<PIPE_V>();
        ProposalConcat(rp, x, N / 16, 4);
        ProposalConcat(rp, labels, N / 16, 5);
        PipeBarrier<PIPE_V>();
        RpSort16(rp, rp, N / 16);
        PipeBarrier<PIPE_V>();
        LocalTensor<half> merged = mergeBuf.Get<half>();
        uint16_t lengths[4] = {16, 16, 16, 16};
        MrgSortSrcList<half> lists(rp[0], rp[128], rp[256], rp[384]);
        MrgSort4Info info(lengths, false, 15, 1);
        MrgSort4(merged, lists, info);
        PipeBarrier<PIPE_V>();
        LocalTensor<half> out = outBuf.Get<half>();
        ProposalExtract(out, merged, N / 16, 4);
        ProposalExtract(out[N], merged, N / 16, 5);
        Emit(out.ReinterpretCast<uint8_t>(), OUT_SCORES, 2 * N * sizeof(half));
        Emit(merged.ReinterpretCast<uint8_t>(), OUT_PROPOSALS, N * 8 * sizeof(half));
    }
    __aicore__ inline void ByHelpers(const LocalTensor<half>& x, const LocalTensor<uint32_t>& index)
    {
        LocalTensor<half> concat;
        LocalTensor<half> tmp = tmpBuf.Get<half>();
        Concat(concat, x, tmp, N / 16);
        LocalTensor<half> sorted = proposalBuf.Get<half>();
        LocalTensor<half> work = mergeBuf.Get<half>();
        PipeBarrier<PIPE_V>();
        Sort<half, true>(sorted, concat, index, work, N / 16);
        PipeBarrier<PIPE_V>();
        LocalTensor<half> values = outBuf.Get<half>();
        LocalTensor<uint32_t> idx = tmpBuf.Get<uint32_t>();
        Extract(values, idx, sorted, N / 16);
        Emit(values.ReinterpretCast<uint8_t>(), OUT_SCORES2, N * sizeof(half));
        Emit(idx.ReinterpretCast<uint8_t>(), OUT_INDEX2, N * sizeof(uint32_t));
    }
    __aicore__ inline void SuspendedMerge(const LocalTensor<half>& x, const LocalTensor<half>& labels)
    {
        LocalTensor<half> rp = proposalBuf.Get<half>();
        Duplicate(rp, half(0), N * 8);
        PipeBarrier<PIPE_V>();
        ProposalConcat(rp, x, 2, 4);
        ProposalConcat(rp, labels, 2, 5);
        PipeBarrier<PIPE_V>();
        RpSort16(rp, rp, 2);
        PipeBarrier<PIPE_V>();
        LocalTensor<half> merged = mergeBuf.Get<half>();
        MrgSortSrcList<half> lists;
        lists.src1 = rp[0];
        lists.src2 = rp[128];
        const uint16_t counts[4] = {16, 16, 0, 0};
        uint32_t sortedNum[4] = {0, 0, 0, 0};
        MrgSort<half, true>(merged, lists, counts, sortedNum, 0b0011, 1);
        uint16_t got[4] = {0, 0, 0, 0};
        GetMrgSortResult(got[0], got[1], got[2], got[3]);
        PipeBarrier<PIPE_ALL>();
        LocalTensor<uint32_t> small = quantBuf.Get<uint32_t>();
        for (int i = 0; i < 4; ++i) small.SetValue(i, sortedNum[i]);
        for (int i = 0; i < 4; ++i) small.SetValue(4 + i, (uint32_t)got[i]);
        PipeBarrier<PIPE_ALL>();
        Emit(small.ReinterpretCast<uint8_t>(), OUT_SORTED_NUM, 32);
    }
    __aicore__ inline void Quantise(const LocalTensor<half>& x)
    {
        LocalTensor<int4b_t> q = quantBuf.Get<int4b_t>();  // 128 values in 64 bytes
        Cast(q, x, RoundMode::CAST_NONE, N);
        SetFlag<HardEvent::V_MTE3>(0);
        WaitFlag<HardEvent::V_MTE3>(0);
        DataCopy(int4Gm, q, N / 2);  // 32 bytes: the 64 values
    }

    TPipe pipe;
    TQue<TPosition::VECIN, 1> inQueue, labelQueue, indexQueue;
    TBuf<TPosition::VECCALC> proposalBuf, mergeBuf, tmpBuf, outBuf, quantBuf;
    GlobalTensor<half> xGm, labelGm;
    GlobalTensor<uint32_t> indexGm;
    GlobalTensor<uint8_t> outGm;
    GlobalTensor<int4b_t> int4Gm;
    ProposalParams p_{};
};
}  // namespace tik2

extern "C" __global__ __aicore__ void proposal_310p(GM_ADDR x, GM_ADDR labels, GM_ADDR index, GM_ADDR out,
                                                    ProposalParams p)
{
    tik2::KernelProposalSort op;
    op.Init(x, labels, index, out, p);
    op.Process();
}
