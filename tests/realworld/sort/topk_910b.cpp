// Issue 21, the sort family on 910B (tests/realworld/test_rw_sort.py): a top-k in the style of CANN's sort samples.
// 128 float scores with their positions as uint32 indices: Sort32 sorts four groups of 32 into (score, index)
// structures, MrgSort merges the four sorted lists, Extract splits values and indices.  The same through the helpers
// (Sort<float, true> + Extract), a merge that stops when a list is used up (MrgSort<float, true> + GetMrgSortResult),
// Sort32 of half scores (the 8-byte structure with 2 reserved bytes), and an int4 quantise / dequantise:
// Cast half -> int4b_t (CAST_RINT, count form, and CAST_CEIL in the mask form of CANN's Cast page), DataCopy of the
// packed bytes to GM and back, GetValue / SetValue of single values in UB and GM, Cast int4b_t -> half.
// REFUSE = 1 calls the 310P-only ProposalConcat instead.
#include "kernel_operator.h"

struct TopkParams {
    int32_t refuse;
    float qscale;  // scores * qscale before the int4 quantisation
};

namespace {
constexpr int32_t N = 128;                     // scores
constexpr uint32_t OUT_VALUES = 0;             // float[128], MrgSort path
constexpr uint32_t OUT_INDEX = 512;            // uint32[128]
constexpr uint32_t OUT_VALUES2 = 1024;         // float[128], Sort<float, true> path
constexpr uint32_t OUT_INDEX2 = 1536;          // uint32[128]
constexpr uint32_t OUT_SORTED_NUM = 2048;      // uint32[4] sortedNum, then uint16[4] GetMrgSortResult (32 bytes)
constexpr uint32_t OUT_MERGED = 2080;          // 64 (score, index) structures of the suspended merge: 512 bytes
constexpr uint32_t OUT_HALF_SORT = 2592;       // 32 half (score, index) structures: 256 bytes
constexpr uint32_t OUT_INT4 = 2848;            // int4b_t[128] RINT: 64 bytes; then int4b_t[128] CEIL: 64 bytes
constexpr uint32_t OUT_DEQUANT = 2976;         // half[128]: 256 bytes
constexpr uint32_t OUT_BYTES = 3232;
}  // namespace

class KernelTopk {
  public:
    __aicore__ inline KernelTopk() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR index, GM_ADDR out, const TopkParams& p)
    {
        p_ = p;
        xGm.SetGlobalBuffer((__gm__ float*)x, N);
        indexGm.SetGlobalBuffer((__gm__ uint32_t*)index, N);
        outGm.SetGlobalBuffer((__gm__ uint8_t*)out, OUT_BYTES);
        int4Gm.SetGlobalBuffer((__gm__ AscendC::int4b_t*)(out + OUT_INT4), 2 * N);
        pipe.InitBuffer(inQueue, 1, N * sizeof(float));
        pipe.InitBuffer(indexQueue, 1, N * sizeof(uint32_t));
        pipe.InitBuffer(sortBuf, N * 8);
        pipe.InitBuffer(mergeBuf, N * 8);
        pipe.InitBuffer(tmpBuf, N * 8);
        pipe.InitBuffer(valueBuf, N * sizeof(float));
        pipe.InitBuffer(idxBuf, N * sizeof(uint32_t));
        pipe.InitBuffer(halfBuf, N * sizeof(half));
        pipe.InitBuffer(quantBuf, N);  // 2 * 128 int4b_t
        pipe.InitBuffer(smallBuf, 64);
    }
    __aicore__ inline void Process()
    {
        CopyIn();
        if (p_.refuse) {
            AscendC::LocalTensor<float> x = inQueue.DeQue<float>();
            AscendC::LocalTensor<float> rp = sortBuf.Get<float>();
            AscendC::ProposalConcat(rp, x, 1, 4);  // 310P only: refused when it runs
            inQueue.FreeTensor(x);
            return;
        }
        TopkByMerge();
        TopkBySort();
        SuspendedMerge();
        HalfSort32();
        Int4RoundTrip();
        inQueue.FreeTensor(x_);
        indexQueue.FreeTensor(idx_);
    }

  private:
    __aicore__ inline void CopyIn()
    {
        AscendC::LocalTensor<float> x = inQueue.AllocTensor<float>();
        AscendC::LocalTensor<uint32_t> idx = indexQueue.AllocTensor<uint32_t>();
        AscendC::DataCopy(x, xGm, N);
        AscendC::DataCopy(idx, indexGm, N);
        inQueue.EnQue(x);
        indexQueue.EnQue(idx);
        x_ = inQueue.DeQue<float>();
        idx_ = indexQueue.DeQue<uint32_t>();
    }
    __aicore__ inline void Emit(const AscendC::LocalTensor<uint8_t>& src, uint32_t offset, uint32_t bytes)
    {
        AscendC::SetFlag<AscendC::HardEvent::V_MTE3>(0);
        AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(0);
        AscendC::DataCopy(outGm[offset], src, bytes);
        AscendC::SetFlag<AscendC::HardEvent::MTE3_V>(0);
        AscendC::WaitFlag<AscendC::HardEvent::MTE3_V>(0);
    }
    __aicore__ inline void TopkByMerge()
    {
        AscendC::LocalTensor<float> sorted = sortBuf.Get<float>();
        AscendC::LocalTensor<float> merged = mergeBuf.Get<float>();
        AscendC::Sort32<float>(sorted, x_, idx_, N / 32);
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::MrgSort4Info params;
        for (int i = 0; i < 4; ++i) params.elementLengths[i] = 32;
        params.ifExhaustedSuspension = false;
        params.validBit = 0b1111;
        params.repeatTimes = 1;
        AscendC::MrgSortSrcList<float> srcList(sorted[0], sorted[64], sorted[128], sorted[192]);
        AscendC::MrgSort(merged, srcList, params);
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::LocalTensor<float> values = valueBuf.Get<float>();
        AscendC::LocalTensor<uint32_t> index = idxBuf.Get<uint32_t>();
        AscendC::Extract(values, index, merged, N / 32);
        Emit(values.ReinterpretCast<uint8_t>(), OUT_VALUES, N * 4);
        Emit(index.ReinterpretCast<uint8_t>(), OUT_INDEX, N * 4);
    }
    __aicore__ inline void TopkBySort()
    {
        AscendC::LocalTensor<float> concat;
        AscendC::LocalTensor<float> tmp = tmpBuf.Get<float>();
        AscendC::Concat(concat, x_, tmp, N / 16);
        AscendC::LocalTensor<float> sorted = sortBuf.Get<float>();
        AscendC::Sort<float, true>(sorted, concat, idx_, tmp, N / 32);
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::LocalTensor<float> values = valueBuf.Get<float>();
        AscendC::LocalTensor<uint32_t> index = idxBuf.Get<uint32_t>();
        AscendC::Extract(values, index, sorted, N / 32);
        Emit(values.ReinterpretCast<uint8_t>(), OUT_VALUES2, N * 4);
        Emit(index.ReinterpretCast<uint8_t>(), OUT_INDEX2, N * 4);
    }
    __aicore__ inline void SuspendedMerge()
    {
        AscendC::LocalTensor<float> sorted = sortBuf.Get<float>();
        AscendC::LocalTensor<float> merged = mergeBuf.Get<float>();
        AscendC::Sort32<float>(sorted, x_, idx_, 2);
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::MrgSortSrcList<float> srcList;
        srcList.src1 = sorted[0];
        srcList.src2 = sorted[64];
        const uint16_t counts[4] = {32, 32, 0, 0};
        uint32_t sortedNum[4] = {0, 0, 0, 0};
        AscendC::MrgSort<float, true>(merged, srcList, counts, sortedNum, 0b0011, 1);
        uint16_t got[4] = {0, 0, 0, 0};
        AscendC::GetMrgSortResult(got[0], got[1], got[2], got[3]);
        AscendC::PipeBarrier<PIPE_ALL>();
        AscendC::LocalTensor<uint32_t> small = smallBuf.Get<uint32_t>();
        for (int i = 0; i < 4; ++i) small.SetValue(i, sortedNum[i]);
        for (int i = 0; i < 4; ++i) small.SetValue(4 + i, (uint32_t)got[i]);
        AscendC::PipeBarrier<PIPE_ALL>();
        Emit(small.ReinterpretCast<uint8_t>(), OUT_SORTED_NUM, 32);
        Emit(merged.ReinterpretCast<uint8_t>(), OUT_MERGED, 64 * 8);
    }
    __aicore__ inline void HalfSort32()
    {
        AscendC::LocalTensor<half> h = halfBuf.Get<half>();
        AscendC::Cast(h, x_, AscendC::RoundMode::CAST_NONE, 32);
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::LocalTensor<half> sorted = sortBuf.Get<half>();
        AscendC::Sort32<half>(sorted, h, idx_, 1);
        Emit(sorted.ReinterpretCast<uint8_t>(), OUT_HALF_SORT, 32 * 8);
    }
    __aicore__ inline void Int4RoundTrip()
    {
        AscendC::LocalTensor<half> h = halfBuf.Get<half>();
        AscendC::LocalTensor<float> scaled = valueBuf.Get<float>();
        AscendC::Muls(scaled, x_, p_.qscale, N);
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::Cast(h, scaled, AscendC::RoundMode::CAST_NONE, N);
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::LocalTensor<AscendC::int4b_t> q = quantBuf.Get<AscendC::int4b_t>();  // 256 values
        AscendC::Cast(q, h, AscendC::RoundMode::CAST_RINT, N);
        AscendC::LocalTensor<AscendC::int4b_t> qCeil = q[N];
        AscendC::Cast<AscendC::int4b_t, half>(qCeil, h, AscendC::RoundMode::CAST_CEIL, 128, 1, {1, 1, 2, 8});
        AscendC::SetFlag<AscendC::HardEvent::V_MTE3>(0);
        AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(0);
        AscendC::DataCopy(int4Gm, q, N);  // count 128 of int4b_t: 128 bytes, both halves of q
        AscendC::PipeBarrier<PIPE_ALL>();
        int4Gm.SetValue(2 * N - 1, int4Gm.GetValue(3));  // GM values: the last CEIL value becomes RINT value 3
        AscendC::PipeBarrier<PIPE_ALL>();
        AscendC::LocalTensor<AscendC::int4b_t> back = tmpBuf.Get<AscendC::int4b_t>();
        AscendC::DataCopy(back, int4Gm, N / 2);  // the RINT half only: 64 bytes
        AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(0);
        AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(0);
        AscendC::PipeBarrier<PIPE_ALL>();
        AscendC::LocalTensor<half> deq = halfBuf.Get<half>();
        AscendC::Cast(deq, back, AscendC::RoundMode::CAST_NONE, N);
        AscendC::PipeBarrier<PIPE_V>();
        // element access: value 5 read back and value 7 of the dequantised copy overwritten through SetValue
        AscendC::PipeBarrier<PIPE_ALL>();
        AscendC::int4b_t v5 = back.GetValue(5);
        back.SetValue(7, v5);
        AscendC::PipeBarrier<PIPE_ALL>();
        AscendC::LocalTensor<half> seven = smallBuf.Get<half>();
        AscendC::Cast(seven, back, AscendC::RoundMode::CAST_NONE, 16);
        AscendC::PipeBarrier<PIPE_ALL>();
        deq.SetValue(N - 1, seven.GetValue(7));
        AscendC::PipeBarrier<PIPE_ALL>();
        Emit(deq.ReinterpretCast<uint8_t>(), OUT_DEQUANT, N * 2);
    }

    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::TPosition::VECIN, 1> inQueue, indexQueue;
    AscendC::TBuf<AscendC::TPosition::VECCALC> sortBuf, mergeBuf, tmpBuf, valueBuf, idxBuf, halfBuf, quantBuf, smallBuf;
    AscendC::GlobalTensor<float> xGm;
    AscendC::GlobalTensor<uint32_t> indexGm;
    AscendC::GlobalTensor<uint8_t> outGm;
    AscendC::GlobalTensor<AscendC::int4b_t> int4Gm;
    AscendC::LocalTensor<float> x_;
    AscendC::LocalTensor<uint32_t> idx_;
    TopkParams p_{};
};

extern "C" __global__ __aicore__ void topk_910b(GM_ADDR x, GM_ADDR index, GM_ADDR out, TopkParams p)
{
    KernelTopk op;
    op.Init(x, index, out, p);
    op.Process();
}
