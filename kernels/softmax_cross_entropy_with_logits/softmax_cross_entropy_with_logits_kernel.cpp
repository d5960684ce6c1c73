// SoftmaxCrossEntropyWithLogits for Ascend910B vector cores (dav-c220-vec).
// Contract: specs/softmax_cross_entropy_with_logits.md. §2 math, §3.4-§3.5 paths, §3.7 flows, §8 decisions.
// Host tiling: workbench/ops/softmax_cross_entropy_with_logits/{tiling,geometry}.py.
//
// Paths, told apart by the tiling fields (the tiling key is informative, §3.6):
//   r == 0                                     EMPTY      loss = 0 (DECISION-SCE-3)
//   rLoopTime > 1                              SPLIT_R    three passes over class chunks, AR or RA (§3.5)
//   fullLoadMode == 1                          C_ONE      contiguous [A] vector, NaN-exact (DECISION-SCE-8)
//   fullLoadMode == 2                          SMALL_C    packed rows Gathered into planes (DECISION-SCE-8)
//   fullLoadMode == 0, layoutMode 0 / 1        GENERIC    [rows, R_align] tiles / [C planes, lanes] tiles
//                                                         (AR rows of <= 64 classes run batched, §3.7)
// Every intermediate is fp32: Cast(CAST_NONE) up (exact), Cast(CAST_RINT) down (§2 precision rules).
// Pad lanes (past R in a row, past the valid lanes in a plane) are never reduced or stored (DECISION-SCE-9).
#include "kernel_operator.h"
#include "softmax_cross_entropy_with_logits_tiling.h"

using namespace AscendC;

#ifndef DTYPE_FEATURES
#define DTYPE_FEATURES float
#endif

namespace {

constexpr int32_t BUFFER_NUM = 2;       // double-buffered queues (§3.1)
constexpr uint32_t BLOCK_BYTES = 32;
constexpr uint32_t ONE_REPEAT_BYTES = 256;
constexpr uint32_t F32_PER_REPEAT = ONE_REPEAT_BYTES / sizeof(float);
constexpr uint32_t MAX_REPEAT = 255;     // repeatTime is a uint8_t
constexpr uint32_t ROWS_PER_CALL = 248;  // <= MAX_REPEAT and a multiple of 8: every call starts 32 B aligned
constexpr uint32_t BRCB_ELEMS = 8;       // Brcb: 8 source elements per repeat, one 32 B block each
constexpr uint32_t MAX_SPLIT_ROWS = 16;  // SplitR AR row tile aTileS <= perBlock <= 16 (§3.5)
constexpr int64_t LAYOUT_RA = 1;
constexpr int64_t MODE_C_ONE = 1;
constexpr int64_t MODE_SMALL_C = 2;
constexpr float NEG_INF = -__builtin_huge_valf();

template <typename A, typename B>
struct IsSame {
    static constexpr bool value = false;
};
template <typename A>
struct IsSame<A, A> {
    static constexpr bool value = true;
};

__aicore__ inline uint32_t CeilDiv(uint32_t x, uint32_t y) { return (x + y - 1) / y; }
__aicore__ inline uint32_t AlignUp(uint32_t x, uint32_t y) { return CeilDiv(x, y) * y; }

// A vector instruction that reads what an earlier one wrote waits for it: CANN's PipeBarrier page asks for
// PipeBarrier<PIPE_V> between same-pipe instructions with a data dependency (docs/device-readiness.md §2). Auto-sync
// may insert it as well; stating it keeps the kernel correct without relying on that.
__aicore__ inline void VBar() { PipeBarrier<PIPE_V>(); }

// Scalar reads of vector results (row max / sum / log sum) need the V pipe drained first.
__aicore__ inline void WaitVectorForScalar()
{
    event_t ev = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::V_S));
    SetFlag<HardEvent::V_S>(ev);
    WaitFlag<HardEvent::V_S>(ev);
}

using Buf = TBuf<TPosition::VECCALC>;

template <typename T>
class KernelSoftmaxCrossEntropy {
public:
    static constexpr bool F32 = IsSame<T, float>::value;
    static constexpr uint32_t B = sizeof(T);
    static constexpr uint32_t PER_BLOCK = BLOCK_BYTES / sizeof(T);

    __aicore__ inline KernelSoftmaxCrossEntropy() {}

    __aicore__ inline void Init(GM_ADDR features, GM_ADDR labels, GM_ADDR loss, GM_ADDR backprop,
                                const SoftmaxCrossEntropyWithLogitsTilingData& tiling)
    {
        td_ = tiling;
        const int64_t core = GetBlockIdx();
        const bool last = core == td_.realCoreNum - 1;
        aStart_ = core * td_.blockFactor;
        aCount_ = core >= td_.realCoreNum ? 0 : (last ? td_.tailBlockFactor : td_.blockFactor);
        loops_ = last ? td_.aLoopTimesT : td_.aLoopTimes;
        tail_ = last ? td_.aLoopTailT : td_.aLoopTail;
        r_ = static_cast<uint32_t>(td_.r);
        hw_ = td_.hw;
        xGm_.SetGlobalBuffer((__gm__ T*)features, td_.a * td_.r);
        yGm_.SetGlobalBuffer((__gm__ T*)labels, td_.a * td_.r);
        bpGm_.SetGlobalBuffer((__gm__ T*)backprop, td_.a * td_.r);
        lossGm_.SetGlobalBuffer((__gm__ T*)loss, td_.a);
    }

    __aicore__ inline void Process()
    {
        if (aCount_ <= 0) {
            return;
        }
        if (td_.r == 0) {
            RunEmpty();
        } else if (td_.rLoopTime > 1) {
            if (td_.layoutMode == LAYOUT_RA) {
                RunSplitRa();
            } else {
                RunSplitAr();
            }
        } else if (td_.fullLoadMode == MODE_C_ONE) {
            RunCOne();
        } else if (td_.fullLoadMode == MODE_SMALL_C) {
            RunSmallC();
        } else if (td_.layoutMode == LAYOUT_RA) {
            RunFullRa();
        } else {
            RunFullAr();
        }
    }

private:
    // ---------------------------------------------------------------- dtype plumbing (fp32 skips the casts)
    // fp32 view of an input tile: the tile itself for float, else its CAST_NONE (exact) widening into `buf`.
    // The scratch is passed as its TBuf so the fp32 build never touches buffers it did not allocate.
    __aicore__ inline LocalTensor<float> Widen(const LocalTensor<T>& in, Buf& buf, uint32_t n)
    {
        if constexpr (F32) {
            return in;
        } else {
            LocalTensor<float> f = buf.Get<float>();
            Cast(f, in, RoundMode::CAST_NONE, n);
            VBar();  // every caller reads f next
            return f;
        }
    }
    // fp32 tensor an output is computed in: the output tile itself for float, else the scratch `buf`.
    __aicore__ inline LocalTensor<float> Wide(const LocalTensor<T>& out, Buf& buf)
    {
        if constexpr (F32) {
            return out;
        } else {
            return buf.Get<float>();
        }
    }
    // Moves a Wide() result into the output tile: CAST_RINT (the only float->bf16 mode family A2 has, §2).
    __aicore__ inline void Narrow(const LocalTensor<T>& out, const LocalTensor<float>& f, uint32_t n)
    {
        if constexpr (!F32) {
            VBar();  // f is the previous vector instruction's result
            Cast(out, f, RoundMode::CAST_RINT, n);
        }
    }

    // features-in, labels-in, backprop-out ([tile] each) and loss-out, all double-buffered (DECISION-SCE-6).
    __aicore__ inline void InitQueues(uint32_t tileBytes, uint32_t lossBytes)
    {
        pipe_.InitBuffer(xq_, BUFFER_NUM, AlignUp(tileBytes, BLOCK_BYTES));
        pipe_.InitBuffer(yq_, BUFFER_NUM, AlignUp(tileBytes, BLOCK_BYTES));
        pipe_.InitBuffer(bq_, BUFFER_NUM, AlignUp(tileBytes, BLOCK_BYTES));
        pipe_.InitBuffer(lq_, BUFFER_NUM, AlignUp(lossBytes, BLOCK_BYTES));
    }

    // ReduceMax count-form tmp: RoundUp(2 * repeats, 8) fp32 (ascend-facts §2.6); ReduceSum's method 2 takes any.
    __aicore__ inline void InitReduceTmp(uint32_t maxCount)
    {
        pipe_.InitBuffer(tmp_, AlignUp(2 * CeilDiv(maxCount, F32_PER_REPEAT), 8) * sizeof(float));
    }

    // ---------------------------------------------------------------- GM <-> UB moves (all DataCopyPad, §3.4)
    // Pad lanes of a row/plane (len..AlignUp(len, perBlock)-1) are filled with NaN: their content is
    // unspecified (DECISION-SCE-9) and whole-tile elementwise ops read them, so they are defined, and any
    // leak into a reduction or a store shows up as NaN.
    __aicore__ inline DataCopyPadExtParams<T> NanPad(uint32_t len)
    {
        const uint32_t pad = AlignUp(len, PER_BLOCK) - len;
        return DataCopyPadExtParams<T>(pad != 0, 0, static_cast<uint8_t>(pad), static_cast<T>(__builtin_nanf("")));
    }
    // n rows x classes [r0, r0+len) of an [A, R] tensor -> UB rows of AlignUp(len, perBlock) elements.
    __aicore__ inline void LoadRows(TQue<TPosition::VECIN, BUFFER_NUM>& q, const GlobalTensor<T>& gm, int64_t a,
                                    uint32_t n, uint32_t r0, uint32_t len)
    {
        LocalTensor<T> t = q.AllocTensor<T>();
        DataCopyExtParams p(static_cast<uint16_t>(n), len * B, (r_ - len) * B, 0, 0);
        DataCopyPad(t, gm[a * td_.r + r0], p, NanPad(len));
        q.EnQue(t);
    }
    // A contiguous run of n elements (C_ONE vector, SMALL_C packed rows): one block, no padding between rows.
    __aicore__ inline void LoadFlat(TQue<TPosition::VECIN, BUFFER_NUM>& q, const GlobalTensor<T>& gm, int64_t off,
                                    uint32_t n)
    {
        LocalTensor<T> t = q.AllocTensor<T>();
        DataCopyPad(t, gm[off], DataCopyExtParams(1, n * B, 0, 0, 0), pad_);
        q.EnQue(t);
    }
    __aicore__ inline void StoreBackpropFlat(int64_t off, uint32_t n)
    {
        LocalTensor<T> t = bq_.DeQue<T>();
        DataCopyPad(bpGm_[off], t, DataCopyExtParams(1, n * B, 0, 0, 0));
        bq_.FreeTensor(t);
    }
    __aicore__ inline void StoreRows(const GlobalTensor<T>& gm, const LocalTensor<T>& t, int64_t a, uint32_t n,
                                     uint32_t r0, uint32_t len)
    {
        DataCopyExtParams p(static_cast<uint16_t>(n), len * B, 0, (r_ - len) * B, 0);
        DataCopyPad(gm[a * td_.r + r0], t, p);
    }
    // NCHW: classes [c0, c0+planes) x lanes [a, a+lanes) of one image -> UB planes of AlignUp(lanes, perBlock)
    // (DECISION-SCE-5: one strided DataCopyPad, srcStride = (HW - lanes) * b).
    __aicore__ inline int64_t PlaneOffset(int64_t a, uint32_t c0)
    {
        return (a / hw_) * td_.r * hw_ + static_cast<int64_t>(c0) * hw_ + a % hw_;
    }
    __aicore__ inline void LoadPlanes(TQue<TPosition::VECIN, BUFFER_NUM>& q, const GlobalTensor<T>& gm, int64_t a,
                                      uint32_t lanes, uint32_t c0, uint32_t planes)
    {
        LocalTensor<T> t = q.AllocTensor<T>();
        DataCopyExtParams p(static_cast<uint16_t>(planes), lanes * B, static_cast<uint32_t>((hw_ - lanes) * B), 0, 0);
        DataCopyPad(t, gm[PlaneOffset(a, c0)], p, NanPad(lanes));
        q.EnQue(t);
    }
    __aicore__ inline void StorePlanes(const LocalTensor<T>& t, int64_t a, uint32_t lanes, uint32_t c0,
                                       uint32_t planes)
    {
        DataCopyExtParams p(static_cast<uint16_t>(planes), lanes * B, 0, static_cast<uint32_t>((hw_ - lanes) * B), 0);
        DataCopyPad(bpGm_[PlaneOffset(a, c0)], t, p);
    }
    __aicore__ inline void StoreLoss(int64_t a, uint32_t n)
    {
        LocalTensor<T> t = lq_.DeQue<T>();
        DataCopyExtParams p(1, n * B, 0, 0, 0);
        DataCopyPad(lossGm_[a], t, p);
        lq_.FreeTensor(t);
    }
    __aicore__ inline void StoreBackpropRows(int64_t a, uint32_t n, uint32_t r0, uint32_t len)
    {
        LocalTensor<T> t = bq_.DeQue<T>();
        StoreRows(bpGm_, t, a, n, r0, len);
        bq_.FreeTensor(t);
    }
    __aicore__ inline void StoreBackpropPlanes(int64_t a, uint32_t lanes, uint32_t c0, uint32_t planes)
    {
        LocalTensor<T> t = bq_.DeQue<T>();
        StorePlanes(t, a, lanes, c0, planes);
        bq_.FreeTensor(t);
    }

    // ---------------------------------------------------------------- EMPTY (C == 0, A > 0)
    __aicore__ inline void RunEmpty()
    {
        const uint32_t u = static_cast<uint32_t>(td_.aUbNumFactor);
        pipe_.InitBuffer(lq_, 1, AlignUp(u * B, BLOCK_BYTES));
        LocalTensor<T> z = lq_.AllocTensor<T>();
        // +0.0 has all-zero bits in fp32, fp16 and bf16: fill through an integer view.
        if constexpr (sizeof(T) == 2) {
            Duplicate(z.template ReinterpretCast<int16_t>(), static_cast<int16_t>(0), static_cast<int32_t>(u));
        } else {
            Duplicate(z.template ReinterpretCast<int32_t>(), static_cast<int32_t>(0), static_cast<int32_t>(u));
        }
        lq_.EnQue(z);
        z = lq_.DeQue<T>();
        for (int64_t a = aStart_, end = aStart_ + aCount_; a < end; a += u) {
            const uint32_t n = static_cast<uint32_t>(end - a < u ? end - a : u);
            DataCopyPad(lossGm_[a], z, DataCopyExtParams(1, n * B, 0, 0, 0));
        }
        lq_.FreeTensor(z);
    }

    // ---------------------------------------------------------------- C_ONE (DECISION-SCE-8)
    // z = x - x is +0 for finite x and NaN for NaN/±inf, so with s = exp(z) = 1 and log s = 0:
    //   backprop = (1 + z) - y, loss = y * (log s - z) = y * z   (bit-identical to the generic formula,
    //   including the sign of zero: log s - z = +0 - +0 = +0 = z).
    __aicore__ inline void RunCOne()
    {
        const uint32_t u = static_cast<uint32_t>(td_.aUbNumFactor);
        InitQueues(u * B, u * B);
        if constexpr (!F32) {
            pipe_.InitBuffer(t0_, u * sizeof(float));
            pipe_.InitBuffer(t1_, u * sizeof(float));
            pipe_.InitBuffer(t2_, u * sizeof(float));
        }
        int64_t a = aStart_;
        for (int64_t t = 0; t < loops_; ++t, a += u) {
            COneTile(a, u);
        }
        if (tail_ > 0) {
            COneTile(a, static_cast<uint32_t>(tail_));
        }
    }
    __aicore__ inline void COneTile(int64_t a, uint32_t n)
    {
        LoadFlat(xq_, xGm_, a, n);  // ND [N,1] and NCHW [N,1,H,W] are both a contiguous [A] vector
        LoadFlat(yq_, yGm_, a, n);
        LocalTensor<T> x = xq_.DeQue<T>();
        LocalTensor<T> y = yq_.DeQue<T>();
        LocalTensor<float> xf = Widen(x, t0_, n);
        LocalTensor<float> yf = Widen(y, t1_, n);
        Sub(xf, xf, xf, n);  // z
        LocalTensor<T> bp = bq_.AllocTensor<T>();
        LocalTensor<float> bw = Wide(bp, t2_);
        VBar();
        Adds(bw, xf, 1.0f, n);
        VBar();
        Sub(bw, bw, yf, n);
        Narrow(bp, bw, n);
        bq_.EnQue(bp);
        LocalTensor<T> lo = lq_.AllocTensor<T>();
        LocalTensor<float> lw = Wide(lo, t2_);
        Mul(lw, yf, xf, n);
        Narrow(lo, lw, n);
        lq_.EnQue(lo);
        xq_.FreeTensor(x);
        yq_.FreeTensor(y);
        StoreBackpropFlat(a, n);
        StoreLoss(a, n);
    }

    // ---------------------------------------------------------------- RA plane math (GENERIC RA and SMALL_C)
    // X, Y: C fp32 planes of `la` lanes (pitch la); X is overwritten. E: fp32 scratch planes. bpOut receives
    // p - y (may alias E). m, s: [la] scratch; lossOut: [la] loss. Class reductions are elementwise across
    // planes (DECISION-SCE-5), so lanes never mix and pad lanes stay in their own lane.
    __aicore__ inline void PlaneMath(const LocalTensor<float>& X, const LocalTensor<float>& Y,
                                     const LocalTensor<float>& E, const LocalTensor<float>& bpOut,
                                     const LocalTensor<float>& m, const LocalTensor<float>& s,
                                     const LocalTensor<float>& lossOut, uint32_t c, uint32_t la)
    {
        const uint32_t cnt = c * la;
        VBar();  // X and Y may come from vector instructions (Gather, Widen)
        Max(m, X, X[la], la);
        for (uint32_t k = 2; k < c; ++k) {
            VBar();
            Max(m, m, X[k * la], la);
        }
        VBar();
        for (uint32_t k = 0; k < c; ++k) {
            Sub(X[k * la], X[k * la], m, la);  // z
        }
        VBar();
        Exp(E, X, cnt);
        VBar();
        Add(s, E, E[la], la);
        for (uint32_t k = 2; k < c; ++k) {
            VBar();
            Add(s, s, E[k * la], la);
        }
        VBar();
        for (uint32_t k = 0; k < c; ++k) {
            Div(E[k * la], E[k * la], s, la);  // p = e / s
        }
        VBar();
        Sub(bpOut, E, Y, cnt);
        Ln(m, s, la);  // m is dead: reuse it for log s
        VBar();
        for (uint32_t k = 0; k < c; ++k) {
            Sub(X[k * la], m, X[k * la], la);  // log s - z
        }
        VBar();
        Mul(X, Y, X, cnt);
        VBar();
        Add(lossOut, X, X[la], la);
        for (uint32_t k = 2; k < c; ++k) {
            VBar();
            Add(lossOut, lossOut, X[k * la], la);
        }
    }

    // ---------------------------------------------------------------- GENERIC RA (NCHW FullLoad)
    __aicore__ inline void RunFullRa()
    {
        const uint32_t u = static_cast<uint32_t>(td_.aUbNumFactor);  // lanes, a multiple of perBlock
        const uint32_t tile = r_ * u;
        InitQueues(tile * B, u * B);
        if constexpr (!F32) {
            pipe_.InitBuffer(t0_, tile * sizeof(float));
            pipe_.InitBuffer(t2_, tile * sizeof(float));
        }
        pipe_.InitBuffer(t1_, tile * sizeof(float));
        pipe_.InitBuffer(v0_, u * sizeof(float));
        pipe_.InitBuffer(v1_, u * sizeof(float));
        pipe_.InitBuffer(v2_, u * sizeof(float));
        // §3.4: lane tiles never cross an image boundary.
        for (int64_t a = aStart_, end = aStart_ + aCount_; a < end;) {
            int64_t n = end - a;
            n = n < static_cast<int64_t>(u) ? n : u;
            n = n < hw_ - a % hw_ ? n : hw_ - a % hw_;
            FullRaTile(a, static_cast<uint32_t>(n));
            a += n;
        }
    }
    __aicore__ inline void FullRaTile(int64_t a, uint32_t lanes)
    {
        const uint32_t la = AlignUp(lanes, PER_BLOCK);
        const uint32_t cnt = r_ * la;
        LoadPlanes(xq_, xGm_, a, lanes, 0, r_);
        LoadPlanes(yq_, yGm_, a, lanes, 0, r_);
        LocalTensor<T> x = xq_.DeQue<T>();
        LocalTensor<T> y = yq_.DeQue<T>();
        LocalTensor<float> xf = Widen(x, t0_, cnt);
        LocalTensor<float> yf = Widen(y, t2_, cnt);
        LocalTensor<T> bp = bq_.AllocTensor<T>();
        LocalTensor<T> lo = lq_.AllocTensor<T>();
        LocalTensor<float> e = t1_.Get<float>();
        LocalTensor<float> bw = Wide(bp, t1_);
        LocalTensor<float> lw = Wide(lo, v2_);
        PlaneMath(xf, yf, e, bw, v0_.Get<float>(), v1_.Get<float>(), lw, r_, la);
        Narrow(bp, bw, cnt);
        Narrow(lo, lw, lanes);
        bq_.EnQue(bp);
        lq_.EnQue(lo);
        xq_.FreeTensor(x);
        yq_.FreeTensor(y);
        StoreBackpropPlanes(a, lanes, 0, r_);
        StoreLoss(a, lanes);
    }

    // ---------------------------------------------------------------- SMALL_C (ND, 2 <= C <= 8)
    // Packed rows [n*C] -> Gather -> C planes [C, la] -> RA math -> Gather back -> packed backprop.
    // Offsets (bytes, fp32 elements): fwd[c*la + j] = (min(j, n-1)*C + c)*4 (pad lanes repeat the last row,
    // so every Gather read is inside the loaded tile); inv[j*C + c] = (c*la + j)*4.
    __aicore__ inline void RunSmallC()
    {
        const uint32_t u = static_cast<uint32_t>(td_.aUbNumFactor);
        const uint32_t la = AlignUp(u, PER_BLOCK);
        const uint32_t packed = u * r_;
        const uint32_t planes = r_ * la;
        InitQueues(packed * B, la * B);
        if constexpr (!F32) {
            pipe_.InitBuffer(t3_, packed * sizeof(float));  // staging
        }
        pipe_.InitBuffer(t0_, planes * sizeof(float));  // X planes
        pipe_.InitBuffer(t2_, planes * sizeof(float));  // Y planes
        pipe_.InitBuffer(t1_, planes * sizeof(float));  // E planes
        pipe_.InitBuffer(off0_, planes * sizeof(uint32_t));
        pipe_.InitBuffer(off1_, packed * sizeof(uint32_t));
        pipe_.InitBuffer(v0_, la * sizeof(float));
        pipe_.InitBuffer(v1_, la * sizeof(float));
        pipe_.InitBuffer(v2_, la * sizeof(float));
        BuildInverseOffsets(u, la);  // its first n*C entries serve any tile of n <= u rows
        int64_t a = aStart_;
        if (loops_ > 0) {
            BuildForwardOffsets(u, la);
        }
        for (int64_t t = 0; t < loops_; ++t, a += u) {
            SmallCTile(a, u, la);
        }
        if (tail_ > 0) {  // pad lanes must repeat the tail's own last row
            BuildForwardOffsets(static_cast<uint32_t>(tail_), la);
            SmallCTile(a, static_cast<uint32_t>(tail_), la);
        }
    }
    // Index arithmetic in fp32 is exact here: every value is an integer below 2^24.
    __aicore__ inline void BuildForwardOffsets(uint32_t rows, uint32_t la)
    {
        LocalTensor<float> j = t2_.Get<float>();
        LocalTensor<float> f = t0_.Get<float>();
        CreateVecIndex(j, 0.0f, la);
        VBar();
        Mins(j, j, static_cast<float>(rows - 1), static_cast<int32_t>(la));
        VBar();
        Muls(j, j, static_cast<float>(r_ * sizeof(float)), static_cast<int32_t>(la));
        VBar();
        for (uint32_t c = 0; c < r_; ++c) {
            Adds(f[c * la], j, static_cast<float>(c * sizeof(float)), static_cast<int32_t>(la));
        }
        VBar();
        Cast(off0_.Get<int32_t>(), f, RoundMode::CAST_RINT, r_ * la);
        VBar();  // the tiles' Gathers read the offsets
    }
    __aicore__ inline void BuildInverseOffsets(uint32_t rows, uint32_t la)
    {
        const uint32_t n = rows * r_;
        const int32_t ni = static_cast<int32_t>(n);
        LocalTensor<float> k = t0_.Get<float>();
        LocalTensor<float> w = t2_.Get<float>();
        LocalTensor<float> j = t1_.Get<float>();
        LocalTensor<int32_t> inv = off1_.Get<int32_t>();
        CreateVecIndex(k, 0.0f, n);                       // packed position k = j*C + c
        Duplicate(w, static_cast<float>(r_), ni);
        VBar();
        Div(j, k, w, ni);                                 // j + c/C, c/C <= 7/8: floor is exact
        VBar();
        Cast(inv, j, RoundMode::CAST_FLOOR, n);
        VBar();
        Cast(j, inv, RoundMode::CAST_NONE, n);            // j
        VBar();
        Muls(w, j, -static_cast<float>(r_), ni);
        VBar();
        Add(w, w, k, ni);                                 // c = k - j*C
        VBar();
        Muls(w, w, static_cast<float>(la), ni);
        VBar();
        Add(w, w, j, ni);
        VBar();
        Muls(w, w, static_cast<float>(sizeof(float)), ni);  // (c*la + j) * 4
        VBar();
        Cast(inv, w, RoundMode::CAST_RINT, n);
        VBar();  // the tiles' Gathers read the offsets
    }
    __aicore__ inline void SmallCTile(int64_t a, uint32_t n, uint32_t la)
    {
        const uint32_t packed = n * r_;
        const uint32_t planes = r_ * la;
        LoadFlat(xq_, xGm_, a * td_.r, packed);
        LoadFlat(yq_, yGm_, a * td_.r, packed);
        LocalTensor<T> x = xq_.DeQue<T>();
        LocalTensor<T> y = yq_.DeQue<T>();
        LocalTensor<float> xp = t0_.Get<float>();
        LocalTensor<float> yp = t2_.Get<float>();
        LocalTensor<float> ep = t1_.Get<float>();
        LocalTensor<uint32_t> fwd = off0_.Get<uint32_t>();
        LocalTensor<uint32_t> inv = off1_.Get<uint32_t>();
        Gather(xp, Widen(x, t3_, packed), fwd, 0u, planes);
        Gather(yp, Widen(y, t3_, packed), fwd, 0u, planes);
        xq_.FreeTensor(x);
        yq_.FreeTensor(y);
        LocalTensor<T> lo = lq_.AllocTensor<T>();
        LocalTensor<float> lw = Wide(lo, v2_);
        PlaneMath(xp, yp, ep, ep, v0_.Get<float>(), v1_.Get<float>(), lw, r_, la);
        Narrow(lo, lw, n);
        lq_.EnQue(lo);
        LocalTensor<T> bp = bq_.AllocTensor<T>();
        LocalTensor<float> bw = Wide(bp, t3_);
        VBar();
        Gather(bw, ep, inv, 0u, packed);
        Narrow(bp, bw, packed);
        bq_.EnQue(bp);
        StoreBackpropFlat(a * td_.r, packed);
        StoreLoss(a, n);
    }

    // ---------------------------------------------------------------- GENERIC AR (ND FullLoad, §3.7 steps 1-9)
    // Rows of R_align * 4 <= 256 B (R <= 64) run batched (§3.7): one WholeReduce repeat per row and Brcb
    // broadcasts read with block stride 0, so a tile costs a dozen instructions instead of several per row.
    // Inside one 64-lane repeat the WholeReduce tree is the count-form tree, so both give the same bits.
    __aicore__ inline void RunFullAr()
    {
        const uint32_t u = static_cast<uint32_t>(td_.aUbNumFactor);
        const uint32_t ra = static_cast<uint32_t>(td_.rAlign);
        const uint32_t tile = u * ra;
        const bool batched = ra * sizeof(float) <= ONE_REPEAT_BYTES;
        const uint32_t vec = batched ? AlignUp(u, BRCB_ELEMS) : u;  // Brcb reads whole groups of 8
        // Batched: a WholeReduce source's footprint ends at the last row's highest masked lane, so x, T0 and
        // T1 need no slack; Brcb writes 8 whole blocks per 8 rows (t3_ is sized for that below).
        InitQueues(tile * B, u * B);
        pipe_.InitBuffer(t0_, tile * sizeof(float));  // x (cast) -> z -> y * (log s - z)
        pipe_.InitBuffer(t1_, tile * sizeof(float));  // e -> p
        if constexpr (!F32) {
            pipe_.InitBuffer(t2_, tile * sizeof(float));  // y
        }
        const uint32_t brcBytes = vec * BLOCK_BYTES;
        pipe_.InitBuffer(t3_, tile * sizeof(float) > brcBytes ? tile * sizeof(float) : brcBytes);  // m / s / log s
        pipe_.InitBuffer(v0_, 2 * vec * sizeof(float));  // row max (per-row form: even slots), then log s
        pipe_.InitBuffer(v1_, vec * sizeof(float));      // row sum
        if constexpr (!F32) {
            pipe_.InitBuffer(v2_, vec * sizeof(float));  // row loss
        }
        int64_t a = aStart_;
        if (batched) {
            Duplicate(v0_.Get<float>(), 0.0f, static_cast<int32_t>(2 * vec));  // Brcb's group tail: defined
            Duplicate(v1_.Get<float>(), 0.0f, static_cast<int32_t>(vec));
            for (int64_t t = 0; t < loops_; ++t, a += u) {
                BatchedArTile(a, u, ra);
            }
            if (tail_ > 0) {
                BatchedArTile(a, static_cast<uint32_t>(tail_), ra);
            }
            return;
        }
        InitReduceTmp(r_);
        for (int64_t t = 0; t < loops_; ++t, a += u) {
            FullArTile(a, u, ra);
        }
        if (tail_ > 0) {
            FullArTile(a, static_cast<uint32_t>(tail_), ra);
        }
    }
    // dst[row] = src[row] - brc[row] (or / brc[row]) for n rows of `ra` fp32 lanes; brc holds one 32 B block
    // per row (Brcb), read with block stride 0. brcFirst computes brc[row] - src[row] instead.
    __aicore__ inline void RowBroadcastOp(bool isDiv, const LocalTensor<float>& dst, const LocalTensor<float>& src,
                                          const LocalTensor<float>& brc, uint32_t n, uint32_t ra, bool brcFirst)
    {
        const uint8_t rs = static_cast<uint8_t>(ra * sizeof(float) / BLOCK_BYTES);
        const BinaryRepeatParams srcFirst(1, 1, 0, rs, rs, 1);
        const BinaryRepeatParams brcLead(1, 0, 1, rs, 1, rs);
        for (uint32_t i = 0; i < n; i += ROWS_PER_CALL) {
            const uint8_t rep = static_cast<uint8_t>(n - i < ROWS_PER_CALL ? n - i : ROWS_PER_CALL);
            if (isDiv) {
                Div(dst[i * ra], src[i * ra], brc[i * BRCB_ELEMS], ra, rep, srcFirst);
            } else if (brcFirst) {
                Sub(dst[i * ra], brc[i * BRCB_ELEMS], src[i * ra], ra, rep, brcLead);
            } else {
                Sub(dst[i * ra], src[i * ra], brc[i * BRCB_ELEMS], ra, rep, srcFirst);
            }
        }
    }
    // brc block i = v[i] repeated (one Brcb repeat covers 8 rows).
    __aicore__ inline void BroadcastRows(const LocalTensor<float>& brc, const LocalTensor<float>& v, uint32_t n)
    {
        const uint32_t groups = CeilDiv(n, BRCB_ELEMS);
        for (uint32_t g = 0; g < groups; g += MAX_REPEAT) {
            const uint8_t rep = static_cast<uint8_t>(groups - g < MAX_REPEAT ? groups - g : MAX_REPEAT);
            Brcb(brc[g * BRCB_ELEMS * BRCB_ELEMS], v[g * BRCB_ELEMS], rep, BrcbRepeatParams(1, BRCB_ELEMS));
        }
    }
    // out[row] = reduce(src[row, 0:R]) with one WholeReduce repeat per row (mask R excludes the pad lanes).
    __aicore__ inline void RowsReduce(bool isMax, const LocalTensor<float>& out, const LocalTensor<float>& src,
                                      uint32_t n, uint32_t ra)
    {
        const int32_t rs = static_cast<int32_t>(ra * sizeof(float) / BLOCK_BYTES);
        for (uint32_t i = 0; i < n; i += ROWS_PER_CALL) {
            const int32_t rep = static_cast<int32_t>(n - i < ROWS_PER_CALL ? n - i : ROWS_PER_CALL);
            if (isMax) {
                WholeReduceMax(out[i], src[i * ra], static_cast<int32_t>(r_), rep, 1, 1, rs,
                               ReduceOrder::ORDER_ONLY_VALUE);
            } else {
                WholeReduceSum(out[i], src[i * ra], static_cast<int32_t>(r_), rep, 1, 1, rs);
            }
        }
    }
    __aicore__ inline void BatchedArTile(int64_t a, uint32_t n, uint32_t ra)
    {
        const uint32_t cnt = n * ra;
        LoadRows(xq_, xGm_, a, n, 0, r_);
        LoadRows(yq_, yGm_, a, n, 0, r_);
        LocalTensor<T> x = xq_.DeQue<T>();
        LocalTensor<T> y = yq_.DeQue<T>();
        LocalTensor<float> z = t0_.Get<float>();
        LocalTensor<float> e = t1_.Get<float>();
        LocalTensor<float> brc = t3_.Get<float>();  // AlignUp(n, 8) blocks of 32 B (t3_ is sized for it)
        LocalTensor<float> rowA = v0_.Get<float>();
        LocalTensor<float> rowS = v1_.Get<float>();
        LocalTensor<float> xf = Widen(x, t0_, cnt);
        LocalTensor<float> yf = Widen(y, t2_, cnt);
        RowsReduce(true, rowA, xf, n, ra);
        VBar();
        BroadcastRows(brc, rowA, n);
        VBar();
        RowBroadcastOp(false, z, xf, brc, n, ra, false);  // z = x - m
        VBar();
        Exp(e, z, cnt);
        VBar();
        RowsReduce(false, rowS, e, n, ra);
        VBar();
        Ln(rowA, rowS, n);
        BroadcastRows(brc, rowS, n);
        VBar();
        RowBroadcastOp(true, e, e, brc, n, ra, false);  // p = e / s
        LocalTensor<T> bp = bq_.AllocTensor<T>();
        LocalTensor<float> bw = Wide(bp, t1_);
        VBar();
        Sub(bw, e, yf, cnt);
        Narrow(bp, bw, cnt);
        bq_.EnQue(bp);
        BroadcastRows(brc, rowA, n);
        VBar();
        RowBroadcastOp(false, z, z, brc, n, ra, true);  // log s - z
        VBar();
        Mul(z, yf, z, cnt);
        LocalTensor<T> lo = lq_.AllocTensor<T>();
        LocalTensor<float> lw = Wide(lo, v2_);
        VBar();
        RowsReduce(false, lw, z, n, ra);
        Narrow(lo, lw, n);
        lq_.EnQue(lo);
        xq_.FreeTensor(x);
        yq_.FreeTensor(y);
        StoreBackpropRows(a, n, 0, r_);
        StoreLoss(a, n);
    }
    __aicore__ inline void FullArTile(int64_t a, uint32_t n, uint32_t ra)
    {
        const uint32_t cnt = n * ra;
        LoadRows(xq_, xGm_, a, n, 0, r_);
        LoadRows(yq_, yGm_, a, n, 0, r_);
        LocalTensor<T> x = xq_.DeQue<T>();
        LocalTensor<T> y = yq_.DeQue<T>();
        LocalTensor<float> z = t0_.Get<float>();
        LocalTensor<float> e = t1_.Get<float>();
        LocalTensor<float> brc = t3_.Get<float>();
        LocalTensor<float> rowA = v0_.Get<float>();
        LocalTensor<float> rowS = v1_.Get<float>();
        LocalTensor<float> tmp = tmp_.Get<float>();
        LocalTensor<float> xf = Widen(x, t0_, cnt);
        LocalTensor<float> yf = Widen(y, t2_, cnt);
        for (uint32_t i = 0; i < n; ++i) {
            ReduceMax(rowA[2 * i], xf[i * ra], tmp, static_cast<int32_t>(r_));
        }
        WaitVectorForScalar();
        for (uint32_t i = 0; i < n; ++i) {
            Adds(z[i * ra], xf[i * ra], -rowA.GetValue(2 * i), static_cast<int32_t>(ra));  // x - m, exactly
        }
        VBar();
        Exp(e, z, cnt);
        VBar();
        for (uint32_t i = 0; i < n; ++i) {
            ReduceSum(rowS[i], e[i * ra], tmp, static_cast<int32_t>(r_));
        }
        VBar();
        Ln(rowA, rowS, n);
        WaitVectorForScalar();
        for (uint32_t i = 0; i < n; ++i) {
            Duplicate(brc[i * ra], rowS.GetValue(i), static_cast<int32_t>(ra));
        }
        VBar();
        Div(e, e, brc, cnt);
        LocalTensor<T> bp = bq_.AllocTensor<T>();
        LocalTensor<float> bw = Wide(bp, t1_);
        VBar();
        Sub(bw, e, yf, cnt);
        Narrow(bp, bw, cnt);
        bq_.EnQue(bp);
        for (uint32_t i = 0; i < n; ++i) {
            Duplicate(brc[i * ra], rowA.GetValue(i), static_cast<int32_t>(ra));
        }
        VBar();
        Sub(z, brc, z, cnt);
        VBar();
        Mul(z, yf, z, cnt);
        LocalTensor<T> lo = lq_.AllocTensor<T>();
        LocalTensor<float> lw = Wide(lo, v2_);
        VBar();
        for (uint32_t i = 0; i < n; ++i) {
            ReduceSum(lw[i], z[i * ra], tmp, static_cast<int32_t>(r_));
        }
        Narrow(lo, lw, n);
        lq_.EnQue(lo);
        xq_.FreeTensor(x);
        yq_.FreeTensor(y);
        StoreBackpropRows(a, n, 0, r_);
        StoreLoss(a, n);
    }

    // ---------------------------------------------------------------- SPLIT_R (§3.5), shared chunk geometry
    __aicore__ inline uint32_t ChunkLen(int64_t k)
    {
        return k < td_.rLoopTime - 1 ? static_cast<uint32_t>(td_.rUbNumFactor) : static_cast<uint32_t>(td_.rLoopTile);
    }

    // AR: aTileS rows x rUbNumFactor classes per chunk; a chunk's UB rows are AlignUp(len, perBlock) long
    // (rUbNumFactor, or rLoopTileAlign for the last chunk), so no UB lane between rows is left unloaded.
    __aicore__ inline void RunSplitAr()
    {
        const uint32_t u = static_cast<uint32_t>(td_.aUbNumFactor);
        const uint32_t chunk = static_cast<uint32_t>(td_.rUbNumFactor);
        const uint32_t tile = u * chunk;
        InitQueues(tile * B, u * B);
        pipe_.InitBuffer(t0_, tile * sizeof(float));
        pipe_.InitBuffer(t1_, tile * sizeof(float));
        if constexpr (!F32) {
            pipe_.InitBuffer(t2_, tile * sizeof(float));
        }
        pipe_.InitBuffer(t3_, tile * sizeof(float));
        pipe_.InitBuffer(v0_, 2 * u * sizeof(float));  // running row max (even slots)
        pipe_.InitBuffer(v1_, 2 * u * sizeof(float));  // chunk max (even slots)
        pipe_.InitBuffer(v2_, u * sizeof(float));      // running row sum
        pipe_.InitBuffer(v3_, u * sizeof(float));      // log s
        pipe_.InitBuffer(v4_, u * sizeof(float));      // chunk partial sums
        if constexpr (!F32) {
            pipe_.InitBuffer(v5_, u * sizeof(float));  // running row loss
        }
        InitReduceTmp(chunk);
        Duplicate(v1_.Get<float>(), 0.0f, static_cast<int32_t>(2 * u));  // odd slots are never ReduceMax'd
        int64_t a = aStart_;
        for (int64_t t = 0; t < loops_; ++t, a += u) {
            SplitArRows(a, u);
        }
        if (tail_ > 0) {
            SplitArRows(a, static_cast<uint32_t>(tail_));
        }
    }
    __aicore__ inline void SplitArRows(int64_t a, uint32_t n)
    {
        LocalTensor<float> z = t0_.Get<float>();
        LocalTensor<float> e = t1_.Get<float>();
        LocalTensor<float> brc = t3_.Get<float>();
        LocalTensor<float> rowMax = v0_.Get<float>();
        LocalTensor<float> chunkMax = v1_.Get<float>();
        LocalTensor<float> rowSum = v2_.Get<float>();
        LocalTensor<float> rowLog = v3_.Get<float>();
        LocalTensor<float> part = v4_.Get<float>();
        LocalTensor<float> tmp = tmp_.Get<float>();
        float m[MAX_SPLIT_ROWS];
        float s[MAX_SPLIT_ROWS];
        float ls[MAX_SPLIT_ROWS];

        // Pass 1: rowMax = max over chunks, from -inf.
        Duplicate(rowMax, NEG_INF, static_cast<int32_t>(2 * n));
        for (int64_t k = 0; k < td_.rLoopTime; ++k) {
            const uint32_t len = ChunkLen(k);
            const uint32_t pitch = AlignUp(len, PER_BLOCK);
            LoadRows(xq_, xGm_, a, n, static_cast<uint32_t>(k * td_.rUbNumFactor), len);
            LocalTensor<T> x = xq_.DeQue<T>();
            LocalTensor<float> xf = Widen(x, t0_, n * pitch);
            for (uint32_t i = 0; i < n; ++i) {
                ReduceMax(chunkMax[2 * i], xf[i * pitch], tmp, static_cast<int32_t>(len));
            }
            VBar();
            Max(rowMax, rowMax, chunkMax, static_cast<int32_t>(2 * n));
            xq_.FreeTensor(x);
        }
        WaitVectorForScalar();
        for (uint32_t i = 0; i < n; ++i) {
            m[i] = rowMax.GetValue(2 * i);
        }

        // Pass 2: rowSum += sum exp(x - m) per chunk (sequential across chunks, DECISION-SCE-10).
        Duplicate(rowSum, 0.0f, static_cast<int32_t>(n));
        for (int64_t k = 0; k < td_.rLoopTime; ++k) {
            const uint32_t len = ChunkLen(k);
            const uint32_t pitch = AlignUp(len, PER_BLOCK);
            LoadRows(xq_, xGm_, a, n, static_cast<uint32_t>(k * td_.rUbNumFactor), len);
            LocalTensor<T> x = xq_.DeQue<T>();
            LocalTensor<float> xf = Widen(x, t0_, n * pitch);
            for (uint32_t i = 0; i < n; ++i) {
                Adds(z[i * pitch], xf[i * pitch], -m[i], static_cast<int32_t>(pitch));
            }
            VBar();
            Exp(e, z, n * pitch);
            VBar();
            for (uint32_t i = 0; i < n; ++i) {
                ReduceSum(part[i], e[i * pitch], tmp, static_cast<int32_t>(len));
            }
            VBar();
            Add(rowSum, rowSum, part, static_cast<int32_t>(n));
            xq_.FreeTensor(x);
        }
        VBar();
        Ln(rowLog, rowSum, n);
        WaitVectorForScalar();
        for (uint32_t i = 0; i < n; ++i) {
            s[i] = rowSum.GetValue(i);
            ls[i] = rowLog.GetValue(i);
        }

        // Pass 3: backprop per chunk; rowLoss += sum y * (log s - z).
        LocalTensor<T> lo = lq_.AllocTensor<T>();
        LocalTensor<float> lw = Wide(lo, v5_);
        Duplicate(lw, 0.0f, static_cast<int32_t>(n));
        for (int64_t k = 0; k < td_.rLoopTime; ++k) {
            const uint32_t len = ChunkLen(k);
            const uint32_t pitch = AlignUp(len, PER_BLOCK);
            const uint32_t cnt = n * pitch;
            const uint32_t r0 = static_cast<uint32_t>(k * td_.rUbNumFactor);
            LoadRows(xq_, xGm_, a, n, r0, len);
            LoadRows(yq_, yGm_, a, n, r0, len);
            LocalTensor<T> x = xq_.DeQue<T>();
            LocalTensor<T> y = yq_.DeQue<T>();
            LocalTensor<float> xf = Widen(x, t0_, cnt);
            LocalTensor<float> yf = Widen(y, t2_, cnt);
            for (uint32_t i = 0; i < n; ++i) {
                Adds(z[i * pitch], xf[i * pitch], -m[i], static_cast<int32_t>(pitch));
                Duplicate(brc[i * pitch], s[i], static_cast<int32_t>(pitch));
            }
            VBar();
            Exp(e, z, cnt);
            VBar();
            Div(e, e, brc, cnt);
            LocalTensor<T> bp = bq_.AllocTensor<T>();
            LocalTensor<float> bw = Wide(bp, t1_);
            VBar();
            Sub(bw, e, yf, cnt);
            Narrow(bp, bw, cnt);
            bq_.EnQue(bp);
            for (uint32_t i = 0; i < n; ++i) {
                Duplicate(brc[i * pitch], ls[i], static_cast<int32_t>(pitch));
            }
            VBar();
            Sub(z, brc, z, cnt);
            VBar();
            Mul(z, yf, z, cnt);
            VBar();
            for (uint32_t i = 0; i < n; ++i) {
                ReduceSum(part[i], z[i * pitch], tmp, static_cast<int32_t>(len));
            }
            VBar();
            Add(lw, lw, part, static_cast<int32_t>(n));
            xq_.FreeTensor(x);
            yq_.FreeTensor(y);
            StoreBackpropRows(a, n, r0, len);
        }
        Narrow(lo, lw, n);
        lq_.EnQue(lo);
        StoreLoss(a, n);
    }

    // RA: perBlock lanes x rUbNumFactor planes per chunk; plane pitch perBlock.
    __aicore__ inline void RunSplitRa()
    {
        const uint32_t u = static_cast<uint32_t>(td_.aUbNumFactor);  // = perBlock lanes
        const uint32_t tile = static_cast<uint32_t>(td_.rUbNumFactor) * u;
        InitQueues(tile * B, u * B);
        if constexpr (!F32) {
            pipe_.InitBuffer(t0_, tile * sizeof(float));
            pipe_.InitBuffer(t2_, tile * sizeof(float));
        }
        pipe_.InitBuffer(t1_, tile * sizeof(float));
        pipe_.InitBuffer(v0_, u * sizeof(float));  // m
        pipe_.InitBuffer(v1_, u * sizeof(float));  // s
        pipe_.InitBuffer(v2_, u * sizeof(float));  // log s
        if constexpr (!F32) {
            pipe_.InitBuffer(v3_, u * sizeof(float));  // loss
        }
        for (int64_t a = aStart_, end = aStart_ + aCount_; a < end;) {
            int64_t n = end - a;
            n = n < static_cast<int64_t>(u) ? n : u;
            n = n < hw_ - a % hw_ ? n : hw_ - a % hw_;
            SplitRaLanes(a, static_cast<uint32_t>(n), u);
            a += n;
        }
    }
    __aicore__ inline void SplitRaLanes(int64_t a, uint32_t lanes, uint32_t la)
    {
        LocalTensor<float> e = t1_.Get<float>();
        LocalTensor<float> m = v0_.Get<float>();
        LocalTensor<float> s = v1_.Get<float>();
        LocalTensor<float> ls = v2_.Get<float>();
        const int32_t lai = static_cast<int32_t>(la);

        Duplicate(m, NEG_INF, lai);
        for (int64_t k = 0; k < td_.rLoopTime; ++k) {
            const uint32_t planes = ChunkLen(k);
            LoadPlanes(xq_, xGm_, a, lanes, static_cast<uint32_t>(k * td_.rUbNumFactor), planes);
            LocalTensor<T> x = xq_.DeQue<T>();
            LocalTensor<float> xf = Widen(x, t0_, planes * la);
            for (uint32_t c = 0; c < planes; ++c) {
                VBar();
                Max(m, m, xf[c * la], lai);
            }
            xq_.FreeTensor(x);
        }

        Duplicate(s, 0.0f, lai);
        for (int64_t k = 0; k < td_.rLoopTime; ++k) {
            const uint32_t planes = ChunkLen(k);
            LoadPlanes(xq_, xGm_, a, lanes, static_cast<uint32_t>(k * td_.rUbNumFactor), planes);
            LocalTensor<T> x = xq_.DeQue<T>();
            LocalTensor<float> xf = Widen(x, t0_, planes * la);
            VBar();
            for (uint32_t c = 0; c < planes; ++c) {
                Sub(xf[c * la], xf[c * la], m, lai);
            }
            VBar();
            Exp(e, xf, planes * la);
            for (uint32_t c = 0; c < planes; ++c) {
                VBar();
                Add(s, s, e[c * la], lai);
            }
            xq_.FreeTensor(x);
        }
        VBar();
        Ln(ls, s, lai);

        LocalTensor<T> lo = lq_.AllocTensor<T>();
        LocalTensor<float> lw = Wide(lo, v3_);
        Duplicate(lw, 0.0f, lai);
        for (int64_t k = 0; k < td_.rLoopTime; ++k) {
            const uint32_t planes = ChunkLen(k);
            const uint32_t c0 = static_cast<uint32_t>(k * td_.rUbNumFactor);
            const uint32_t cnt = planes * la;
            LoadPlanes(xq_, xGm_, a, lanes, c0, planes);
            LoadPlanes(yq_, yGm_, a, lanes, c0, planes);
            LocalTensor<T> x = xq_.DeQue<T>();
            LocalTensor<T> y = yq_.DeQue<T>();
            LocalTensor<float> xf = Widen(x, t0_, cnt);
            LocalTensor<float> yf = Widen(y, t2_, cnt);
            VBar();
            for (uint32_t c = 0; c < planes; ++c) {
                Sub(xf[c * la], xf[c * la], m, lai);
            }
            VBar();
            Exp(e, xf, cnt);
            VBar();
            for (uint32_t c = 0; c < planes; ++c) {
                Div(e[c * la], e[c * la], s, lai);
            }
            LocalTensor<T> bp = bq_.AllocTensor<T>();
            LocalTensor<float> bw = Wide(bp, t1_);
            VBar();
            Sub(bw, e, yf, cnt);
            Narrow(bp, bw, cnt);
            bq_.EnQue(bp);
            for (uint32_t c = 0; c < planes; ++c) {
                Sub(xf[c * la], ls, xf[c * la], lai);
            }
            VBar();
            Mul(xf, yf, xf, cnt);
            for (uint32_t c = 0; c < planes; ++c) {
                VBar();
                Add(lw, lw, xf[c * la], lai);
            }
            xq_.FreeTensor(x);
            yq_.FreeTensor(y);
            StoreBackpropPlanes(a, lanes, c0, planes);
        }
        Narrow(lo, lw, lanes);
        lq_.EnQue(lo);
        StoreLoss(a, lanes);
    }

    TPipe pipe_;
    TQue<TPosition::VECIN, BUFFER_NUM> xq_;
    TQue<TPosition::VECIN, BUFFER_NUM> yq_;
    TQue<TPosition::VECOUT, BUFFER_NUM> bq_;
    TQue<TPosition::VECOUT, BUFFER_NUM> lq_;
    Buf t0_, t1_, t2_, t3_;          // [tile] fp32 temps (§3.4 T0..T3, or SMALL_C planes / staging)
    Buf v0_, v1_, v2_, v3_, v4_, v5_;  // [rows] / [lanes] fp32 vectors
    Buf off0_, off1_;                // SMALL_C Gather offsets
    Buf tmp_;                        // ReduceMax / ReduceSum shared tmp
    GlobalTensor<T> xGm_, yGm_, bpGm_, lossGm_;
    DataCopyPadExtParams<T> pad_;  // packed loads: only exact counts are ever read, no padding needed
    SoftmaxCrossEntropyWithLogitsTilingData td_;
    int64_t aStart_ = 0;
    int64_t aCount_ = 0;
    int64_t loops_ = 0;
    int64_t tail_ = 0;
    int64_t hw_ = 1;
    uint32_t r_ = 0;
};

}  // namespace

extern "C" __global__ __aicore__ void softmax_cross_entropy_with_logits_kernel(
    GM_ADDR features, GM_ADDR labels, GM_ADDR loss, GM_ADDR backprop, GM_ADDR workspace,
    SoftmaxCrossEntropyWithLogitsTilingData tiling)
{
    (void)workspace;  // system workspace only (§3.1)
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    KernelSoftmaxCrossEntropy<DTYPE_FEATURES> op;
    op.Init(features, labels, loss, backprop, tiling);
    op.Process();
}
