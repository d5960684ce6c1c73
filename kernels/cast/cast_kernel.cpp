// Cast kernel for Ascend310P (dav_m200): cast.md §3 (chains, building blocks, skeleton) and §4 (split, tiles,
// tail window, scalar staging). The dtype pair is fixed at compile time (-DDTYPE_X/-DDTYPE_Y; BF16 arrives as
// int16_t with -DCAST_SRC_BF16=1, BOOL as uint8_t with -DCAST_SRC_BOOL=1 / -DCAST_DST_BOOL=1), so every chain
// below is an `if constexpr` branch and the tiling only carries the split and the UB plan (§3.5, §4.4).
#include "kernel_operator.h"
#include "cast_tiling.h"

using namespace AscendC;

#ifndef CAST_SRC_BF16
#define CAST_SRC_BF16 0
#endif
#ifndef CAST_SRC_BOOL
#define CAST_SRC_BOOL 0
#endif
#ifndef CAST_DST_BOOL
#define CAST_DST_BOOL 0
#endif

namespace cast_impl {

constexpr int32_t BUFFER_NUM = 2;  // §4.2

// Logical dtypes; the value doubles as the bit index of the §2 target masks below.
enum Kind : uint32_t { K_F16 = 0, K_F32, K_BF16, K_I8, K_U8, K_BOOL, K_I16, K_I32, K_I64, K_BAD };

template <typename A, typename B> struct IsSame { static constexpr bool value = false; };
template <typename A> struct IsSame<A, A> { static constexpr bool value = true; };

template <typename T, bool bf16, bool boolean> struct KindOf {
    static constexpr Kind value = IsSame<T, half>::value      ? K_F16
                                  : IsSame<T, float>::value   ? K_F32
                                  : IsSame<T, int16_t>::value ? (bf16 ? K_BF16 : K_I16)
                                  : IsSame<T, int8_t>::value  ? K_I8
                                  : IsSame<T, uint8_t>::value ? (boolean ? K_BOOL : K_U8)
                                  : IsSame<T, int32_t>::value ? K_I32
                                  : IsSame<T, int64_t>::value ? K_I64
                                                              : K_BAD;
};

constexpr Kind S = KindOf<DTYPE_X, CAST_SRC_BF16 != 0, CAST_SRC_BOOL != 0>::value;
constexpr Kind D = KindOf<DTYPE_Y, false, CAST_DST_BOOL != 0>::value;
static_assert(S != K_BAD && D != K_BAD && D != K_BF16, "DTYPE_X / DTYPE_Y must be Ascend C names of a §2 dtype");

// §2 delivered matrix: targets of each source, indexed by Kind.
#define CAST_B(k) (1u << (k))
constexpr uint32_t TARGETS[9] = {
    /*F16 */ CAST_B(K_F32) | CAST_B(K_I32) | CAST_B(K_I16) | CAST_B(K_I8) | CAST_B(K_U8) | CAST_B(K_BOOL),
    /*F32 */ CAST_B(K_F16) | CAST_B(K_I32) | CAST_B(K_I16) | CAST_B(K_I8) | CAST_B(K_U8) | CAST_B(K_BOOL) |
        CAST_B(K_I64),
    /*BF16*/ CAST_B(K_F32) | CAST_B(K_F16) | CAST_B(K_I32) | CAST_B(K_I16) | CAST_B(K_I8) | CAST_B(K_U8) |
        CAST_B(K_BOOL) | CAST_B(K_I64),
    /*I8  */ CAST_B(K_F16) | CAST_B(K_F32) | CAST_B(K_I32) | CAST_B(K_I16) | CAST_B(K_U8) | CAST_B(K_BOOL) |
        CAST_B(K_I64),
    /*U8  */ CAST_B(K_F16) | CAST_B(K_F32) | CAST_B(K_I32) | CAST_B(K_I8) | CAST_B(K_I16) | CAST_B(K_I64),
    /*BOOL*/ CAST_B(K_F16) | CAST_B(K_F32) | CAST_B(K_I32) | CAST_B(K_I8) | CAST_B(K_U8) | CAST_B(K_I64),
    /*I16 */ CAST_B(K_F16) | CAST_B(K_F32) | CAST_B(K_I32) | CAST_B(K_I8) | CAST_B(K_U8) | CAST_B(K_I64),
    /*I32 */ CAST_B(K_F32) | CAST_B(K_F16) | CAST_B(K_I16) | CAST_B(K_I8) | CAST_B(K_U8) | CAST_B(K_BOOL) |
        CAST_B(K_I64),
    /*I64 */ CAST_B(K_F16) | CAST_B(K_F32) | CAST_B(K_I32) | CAST_B(K_I8) | CAST_B(K_U8) | CAST_B(K_I16) |
        CAST_B(K_BOOL),
};
#undef CAST_B
static_assert((TARGETS[S] >> D) & 1u, "dtype pair is not one of the 60 delivered pairs (cast.md §2, D20)");

constexpr bool SRC8 = S == K_I8 || S == K_U8 || S == K_BOOL;
constexpr bool DST8 = D == K_I8 || D == K_U8;  // BOOL is handled by its own chains
constexpr bool DIRECT = (S == K_F16 && (D == K_F32 || D == K_I32)) || (S == K_F32 && (D == K_F16 || D == K_I32)) ||
                        (S == K_I32 && (D == K_F32 || D == K_I16)) || (S == K_I16 && D == K_F16) ||
                        (SRC8 && D == K_F16);
// §3.2 D1 precedence; must equal tiling.pathClass (the host table).
constexpr uint32_t PATH = S == K_BF16      ? (D == K_F32 ? 5u : 6u)
                          : S == K_I64     ? 3u
                          : D == K_I64     ? 4u
                          : SRC8 && DST8   ? 7u
                          : D == K_BOOL    ? 2u
                          : DST8           ? 8u
                          : DIRECT         ? 0u
                                           : 1u;

// Scratch TBufs of the §3.4 chain (tables.py "scratch" column); each is ubFormer x its bytes per element.
constexpr bool USE_N8 = DST8 && (S == K_F16 || S == K_F32 || S == K_I32 || S == K_BF16);
constexpr bool USE_N8H = DST8 && (S == K_I16 || S == K_I64);
constexpr bool NEED_I =
    ((S == K_F16 || S == K_F32 || S == K_BF16) && (D == K_I16 || DST8)) || (S == K_F32 && D == K_BOOL);
constexpr bool NEED_M32 = USE_N8;
constexpr bool NEED_I16 = USE_N8 || (D == K_BOOL && (S == K_F32 || S == K_I32 || S == K_I64));
constexpr bool NEED_H = USE_N8 || USE_N8H || (D == K_BOOL && S != K_F16) ||
                        (SRC8 && (D == K_F32 || D == K_I32 || D == K_I16 || D == K_I64));
constexpr bool NEED_F = D == K_F16 && (S == K_I32 || S == K_I64);
constexpr bool NEED_L = S == K_I64 && (D == K_F16 || D == K_F32 || D == K_I16 || D == K_BOOL);
constexpr bool NEED_U = S == K_I64 && D == K_BOOL;
constexpr bool NEED_W = S == K_I64 && DST8;
constexpr bool NEED_M16LO = USE_N8H;
constexpr bool NEED_SPLIT = (S == K_I16 && (D == K_F32 || D == K_I32 || D == K_I64)) || (S == K_BF16 && D != K_BOOL);
constexpr bool NEED_X = S == K_BF16 && D != K_BOOL && D != K_F32;
constexpr bool NEED_W64 = D == K_I64;
constexpr bool NEED_BOOLB = S == K_BF16 && D == K_BOOL;
// middleBytes of §3.4: the host budget assumes exactly this much scratch per element (tests/test_cast_kernel.py
// checks the UB the kernel allocates against the plan's budget).
constexpr uint32_t MID_BYTES = 4 * NEED_I + 4 * NEED_M32 + 2 * NEED_I16 + 2 * NEED_H + 4 * NEED_F + 4 * NEED_L +
                               4 * NEED_U + 2 * NEED_W + 2 * NEED_M16LO + 12 * NEED_SPLIT + 4 * NEED_X +
                               16 * NEED_W64 + 4 * NEED_BOOLB;

template <typename U, typename T> __aicore__ inline LocalTensor<U> As(const LocalTensor<T>& t)
{
    return t.template ReinterpretCast<U>();
}

__aicore__ inline void VBar() { PipeBarrier<PIPE_V>(); }

// A class template, so that only the chain selected by `if constexpr` is instantiated (the discarded
// branches name Cast/vector ops for dtype combinations that do not exist on m200).
template <typename SrcT, typename DstT> class CastKernel {
public:
    __aicore__ inline CastKernel() {}

    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const CastTilingData& tiling)
    {
        t_ = tiling;
        F_ = tiling.ubFormer;
        xGm_.SetGlobalBuffer(reinterpret_cast<__gm__ SrcT*>(x), tiling.totalElements);
        yGm_.SetGlobalBuffer(reinterpret_cast<__gm__ DstT*>(y), tiling.totalElements);
        if constexpr (PATH == 7) {
            pipe_.InitBuffer(bindQue_, BUFFER_NUM, F_ * sizeof(SrcT));
        } else {
            InitChainBuffers();
        }
    }

    __aicore__ inline void Process()
    {
        const uint32_t core = static_cast<uint32_t>(GetBlockIdx());
        if (core >= t_.usedCoreNum) return;
        if (t_.scalarStaging != 0) {
            Staging();
            return;
        }
        const bool former = core < t_.formerNum;
        const uint64_t start = former ? static_cast<uint64_t>(core) * t_.formerElems
                                      : static_cast<uint64_t>(t_.formerNum) * t_.formerElems +
                                            static_cast<uint64_t>(core - t_.formerNum) * t_.latterElems;
        const uint32_t tiles = former ? t_.formerTileNum : t_.latterTileNum;
        const uint32_t last = former ? t_.formerLastTileSize : t_.latterLastTileSize;
        for (uint32_t i = 0; i < tiles; ++i) {
            Tile(start + static_cast<uint64_t>(i) * F_, i + 1 == tiles ? last : F_, false);
        }
        // §4.3 tail window: one in-bounds BLOCK window [N-BLOCK, N) on the last core; it rewrites up to
        // BLOCK-1 of this core's own elements with the same values.
        if (core + 1 == t_.usedCoreNum && t_.tailElems != 0) {
            Tile(t_.totalElements - t_.blockElems, t_.blockElems, true);
        }
    }

private:
    __aicore__ inline void InitChainBuffers()
    {
        pipe_.InitBuffer(inQue_, BUFFER_NUM, F_ * sizeof(SrcT));
        pipe_.InitBuffer(outQue_, BUFFER_NUM, F_ * sizeof(DstT));
        if constexpr (NEED_I) pipe_.InitBuffer(bufI_, F_ * 4);
        if constexpr (NEED_M32) pipe_.InitBuffer(bufM32_, F_ * 4);
        if constexpr (NEED_I16) pipe_.InitBuffer(bufI16_, F_ * 2);
        if constexpr (NEED_H) pipe_.InitBuffer(bufH_, F_ * 2);
        if constexpr (NEED_F) pipe_.InitBuffer(bufF_, F_ * 4);
        if constexpr (NEED_L) pipe_.InitBuffer(bufL_, F_ * 4);
        if constexpr (NEED_U) pipe_.InitBuffer(bufU_, F_ * 4);
        if constexpr (NEED_W) pipe_.InitBuffer(bufW_, F_ * 2);
        if constexpr (NEED_M16LO) pipe_.InitBuffer(bufM16lo_, F_ * 2);
        if constexpr (NEED_SPLIT) {
            pipe_.InitBuffer(bufM16hi_, F_ * 2);
            pipe_.InitBuffer(bufA_, F_ * 2);
            pipe_.InitBuffer(bufHA_, F_ * 2);
            pipe_.InitBuffer(bufHB_, F_ * 2);
            pipe_.InitBuffer(bufT2_, F_ * 4);
        }
        if constexpr (NEED_X) pipe_.InitBuffer(bufX_, F_ * 4);
        if constexpr (NEED_W64) {
            pipe_.InitBuffer(bufRH_, F_ * 8);
            pipe_.InitBuffer(bufOFF_, F_ * 8);
        }
        if constexpr (NEED_BOOLB) {
            pipe_.InitBuffer(bufM7FFF_, F_ * 2);
            pipe_.InitBuffer(bufT_, F_ * 2);
        }
        FillConstants();
    }

    __aicore__ inline void Tile(uint64_t offset, uint32_t n, bool overlapsPrevious)
    {
        if constexpr (PATH == 7) {
            // SAMEWIDTH_8BIT: a bit-identical byte copy GM -> UB -> GM, no vector work (§3.2 class 7).
            LocalTensor<SrcT> b = bindQue_.AllocTensor<SrcT>();
            DataCopy(b, xGm_[offset], n);
            bindQue_.EnQue(b);
            b = bindQue_.DeQue<SrcT>();
            if (overlapsPrevious) PipeBarrier<PIPE_MTE3>();
            DataCopy(yGm_[offset], As<DstT>(b), n);
            bindQue_.FreeTensor(b);
        } else {
            LocalTensor<SrcT> x = inQue_.AllocTensor<SrcT>();
            DataCopy(x, xGm_[offset], n);
            inQue_.EnQue(x);
            Compute(n);
            LocalTensor<DstT> y = outQue_.DeQue<DstT>();
            if (overlapsPrevious) PipeBarrier<PIPE_MTE3>();  // overlapping GM destinations (DataCopy doc)
            DataCopy(yGm_[offset], y, n);
            outQue_.FreeTensor(y);
        }
    }

    __aicore__ inline void Compute(uint32_t n)
    {
        LocalTensor<SrcT> x = inQue_.DeQue<SrcT>();
        LocalTensor<DstT> y = outQue_.AllocTensor<DstT>();
        Chain(y, x, n);
        outQue_.EnQue(y);
        inQue_.FreeTensor(x);
    }

    // §4.3 scalar staging (0 < N < BLOCK, one core): zero a BLOCK tile, stage the N inputs with scalar
    // GetValue/SetValue, run the same chain on BLOCK elements, write the N results back with SetValue + DCCI.
    __aicore__ inline void Staging()
    {
        const uint32_t n = static_cast<uint32_t>(t_.totalElements);
        if constexpr (PATH == 7) {
            // No chain to run: the staged bytes are the result.
            for (uint32_t i = 0; i < n; ++i) yGm_.SetValue(i, static_cast<DstT>(xGm_.GetValue(i)));
            DataCacheCleanAndInvalid<DstT, CacheLine::ENTIRE_DATA_CACHE>(yGm_);
        } else {
            StageThroughChain(n);
        }
    }

    __aicore__ inline void StageThroughChain(uint32_t n)
    {
        const uint32_t block = t_.blockElems;
        LocalTensor<SrcT> x = inQue_.AllocTensor<SrcT>();
        // Zero through a 16-bit view: Duplicate has no 8-bit or 64-bit form (BLOCK·sizeof(Src) is a multiple of 32).
        Duplicate(As<uint16_t>(x), static_cast<uint16_t>(0), static_cast<int32_t>(block * sizeof(SrcT) / 2));
        TEventID vs = pipe_.FetchEventID(HardEvent::V_S);
        SetFlag<HardEvent::V_S>(vs);
        WaitFlag<HardEvent::V_S>(vs);
        for (uint32_t i = 0; i < n; ++i) x.SetValue(i, xGm_.GetValue(i));
        TEventID sv = pipe_.FetchEventID(HardEvent::S_V);
        SetFlag<HardEvent::S_V>(sv);
        WaitFlag<HardEvent::S_V>(sv);
        inQue_.EnQue(x);
        Compute(block);
        LocalTensor<DstT> y = outQue_.DeQue<DstT>();
        TEventID vs2 = pipe_.FetchEventID(HardEvent::V_S);
        SetFlag<HardEvent::V_S>(vs2);
        WaitFlag<HardEvent::V_S>(vs2);
        for (uint32_t i = 0; i < n; ++i) yGm_.SetValue(i, y.GetValue(i));
        DataCacheCleanAndInvalid<DstT, CacheLine::ENTIRE_DATA_CACHE>(yGm_);
        outQue_.FreeTensor(y);
    }

    // Constants are full-tile TBufs (D13), filled once per launch, followed by one barrier (§3.5).
    __aicore__ inline void FillConstants()
    {
        const int32_t f = static_cast<int32_t>(F_);
        if constexpr (NEED_M32) Duplicate(bufM32_.Get<int32_t>(), static_cast<int32_t>(0xFF), f);
        if constexpr (NEED_M16LO) Duplicate(bufM16lo_.Get<int16_t>(), static_cast<int16_t>(0x00FF), f);
        if constexpr (NEED_SPLIT) Duplicate(bufM16hi_.Get<int16_t>(), static_cast<int16_t>(-256), f);  // 0xFF00
        if constexpr (NEED_BOOLB) Duplicate(bufM7FFF_.Get<int16_t>(), static_cast<int16_t>(0x7FFF), f);
        if constexpr (NEED_W64) {
            // OFF[j] = 2j + (4F-2)(j&1): byte offsets of R[i] (j = 2i) and HI[i] = RH[F+i] (j = 2i+1) (D7).
            // RH is the temporary here; the tile loop overwrites it.
            LocalTensor<int32_t> off = bufOFF_.Get<int32_t>();
            LocalTensor<int32_t> tmp = bufRH_.Get<int32_t>();
            CreateVecIndex(off, static_cast<int32_t>(0), 2 * F_);
            Duplicate(tmp, static_cast<int32_t>(1), 2 * f);
            VBar();
            And(As<uint16_t>(tmp), As<uint16_t>(off), As<uint16_t>(tmp), 4 * f);  // j & 1 (int32 And via .u16)
            VBar();
            Muls(tmp, tmp, static_cast<int32_t>(4 * F_ - 2), 2 * f);
            Muls(off, off, static_cast<int32_t>(2), 2 * f);
            VBar();
            Add(off, off, tmp, 2 * f);
        }
        VBar();
    }

    // ---- §3.3 building blocks ----------------------------------------------------------------------

    // N8(L): int32 lane -> 8-bit, mod 256 (D2, D3). L is overwritten.
    __aicore__ inline void N8(const LocalTensor<DstT>& y, const LocalTensor<int32_t>& l, uint32_t n)
    {
        LocalTensor<int16_t> i16 = bufI16_.Get<int16_t>();
        LocalTensor<half> h = bufH_.Get<half>();
        And(As<uint16_t>(l), As<uint16_t>(l), As<uint16_t>(bufM32_.Get<int32_t>()), static_cast<int32_t>(2 * n));
        VBar();
        Cast(i16, l, RoundMode::CAST_NONE, n);  // values in [0, 255]: every hop is exact
        VBar();
        Cast(h, i16, RoundMode::CAST_NONE, n);
        VBar();
        Cast(As<uint8_t>(y), h, RoundMode::CAST_NONE, n);
    }

    // N8h(W): int16 lane -> 8-bit, mod 256. W is overwritten.
    __aicore__ inline void N8h(const LocalTensor<DstT>& y, const LocalTensor<int16_t>& w, uint32_t n)
    {
        LocalTensor<half> h = bufH_.Get<half>();
        And(w, w, bufM16lo_.Get<int16_t>(), static_cast<int32_t>(n));
        VBar();
        Cast(h, w, RoundMode::CAST_NONE, n);
        VBar();
        Cast(As<uint8_t>(y), h, RoundMode::CAST_NONE, n);
    }

    // SPLIT(T, m): exact int16 -> T (float with CAST_NONE, int32 with CAST_TRUNC) through two f16-exact parts.
    template <typename T>
    __aicore__ inline void Split(const LocalTensor<T>& out, const LocalTensor<int16_t>& src, RoundMode m, uint32_t n)
    {
        const int32_t cnt = static_cast<int32_t>(n);
        LocalTensor<int16_t> a = bufA_.Get<int16_t>();
        LocalTensor<half> ha = bufHA_.Get<half>();
        LocalTensor<half> hb = bufHB_.Get<half>();
        LocalTensor<T> t2 = bufT2_.Get<T>();
        And(a, src, bufM16hi_.Get<int16_t>(), cnt);  // multiples of 256 in [-32768, 32512]
        VBar();
        Sub(src, src, a, cnt);  // low byte 0..255
        VBar();
        Cast(ha, a, RoundMode::CAST_NONE, n);
        Cast(hb, src, RoundMode::CAST_NONE, n);
        VBar();
        Cast(out, ha, m, n);
        Cast(t2, hb, m, n);
        VBar();
        Add(out, out, t2, cnt);
    }

    // XB: BF16 bits -> f32 bits as int32 int16(h)·2^16 (D8). src is overwritten.
    __aicore__ inline void Xb(const LocalTensor<int32_t>& x32, const LocalTensor<int16_t>& src, uint32_t n)
    {
        Split(x32, src, RoundMode::CAST_TRUNC, n);
        VBar();
        Muls(x32, x32, static_cast<int32_t>(65536), static_cast<int32_t>(n));
    }

    // BOOLH(H): f16 lane holding integers -> {0,1} byte.
    __aicore__ inline void BoolH(const LocalTensor<DstT>& y, const LocalTensor<half>& h, uint32_t n)
    {
        Abs(h, h, static_cast<int32_t>(n));
        VBar();
        Mins(h, h, static_cast<half>(1.0f), static_cast<int32_t>(n));
        VBar();
        Cast(As<uint8_t>(y), h, RoundMode::CAST_NONE, n);
    }

    // BOOLB: BF16 bits -> BOOL without expansion (D9): 1 iff (h & 0x7FFF) != 0 and not NaN.
    __aicore__ inline void BoolB(const LocalTensor<DstT>& y, const LocalTensor<int16_t>& t, uint32_t n)
    {
        const int32_t cnt = static_cast<int32_t>(n);
        LocalTensor<int16_t> nan = bufT_.Get<int16_t>();
        LocalTensor<half> h = bufH_.Get<half>();
        And(t, t, bufM7FFF_.Get<int16_t>(), cnt);
        VBar();
        Adds(nan, t, static_cast<int16_t>(-0x7F80), cnt);
        VBar();
        Maxs(nan, nan, static_cast<int16_t>(0), cnt);
        Mins(t, t, static_cast<int16_t>(1), cnt);
        VBar();
        Mins(nan, nan, static_cast<int16_t>(1), cnt);  // 1 iff NaN
        VBar();
        Sub(t, t, nan, cnt);
        VBar();
        Cast(h, t, RoundMode::CAST_NONE, n);
        VBar();
        Cast(As<uint8_t>(y), h, RoundMode::CAST_NONE, n);
    }

    // W64: R = RH[0, n) -> int64 by interleaving (R, HI) with Gather; HI = min(max(R, -1), 0) (D7).
    __aicore__ inline void W64(const LocalTensor<DstT>& y, uint32_t n)
    {
        LocalTensor<int32_t> rh = bufRH_.Get<int32_t>();
        LocalTensor<int32_t> hi = rh[F_];
        Maxs(hi, rh, static_cast<int32_t>(-1), static_cast<int32_t>(n));
        VBar();
        Mins(hi, hi, static_cast<int32_t>(0), static_cast<int32_t>(n));
        VBar();
        Gather(As<uint32_t>(y), As<uint32_t>(rh), bufOFF_.Get<uint32_t>(), static_cast<uint32_t>(0), 2 * n);
    }

    // LO32 / HI32 / LO16 (D5): GatherMask built-in patterns 1 / 2 / 3 in counter mode (mask = total count).
    template <typename T>
    __aicore__ inline void Pick(const LocalTensor<T>& dst, const LocalTensor<SrcT>& x, uint8_t pattern, uint32_t count)
    {
        uint64_t rsvd = 0;
        GatherMask(dst, As<T>(x), pattern, true, count, GatherMaskParams(1, 1, 8, 0), rsvd);
    }

    // ---- §3.4 chains --------------------------------------------------------------------------------
    __aicore__ inline void Chain(const LocalTensor<DstT>& y, const LocalTensor<SrcT>& x, uint32_t n)
    {
        const int32_t cnt = static_cast<int32_t>(n);
        if constexpr (DIRECT) {
            // float -> int uses TRUNC; everything else is CAST_NONE (rows 1,2,7,8,14,16,21,28,34,40).
            constexpr bool toInt = (S == K_F16 || S == K_F32) && D == K_I32;
            Cast(y, x, toInt ? RoundMode::CAST_TRUNC : RoundMode::CAST_NONE, n);
        } else if constexpr (S == K_F16 || S == K_F32) {
            if constexpr (D == K_BOOL && S == K_F16) {
                // row 6: ceil(min(|x|, 1)); NaN becomes 0 through the saturating vector unit / Cast rule.
                Abs(x, x, cnt);
                VBar();
                Mins(x, x, static_cast<half>(1.0f), cnt);
                VBar();
                Cast(As<uint8_t>(y), x, RoundMode::CAST_CEIL, n);
            } else if constexpr (D == K_BOOL) {
                // row 12 (D10): CEIL to int32 before Mins, so tiny values stay nonzero and NaN -> 0.
                LocalTensor<int32_t> i = bufI_.Get<int32_t>();
                LocalTensor<int16_t> i16 = bufI16_.Get<int16_t>();
                LocalTensor<half> h = bufH_.Get<half>();
                Abs(x, x, cnt);
                VBar();
                Cast(i, x, RoundMode::CAST_CEIL, n);
                VBar();
                Mins(i, i, static_cast<int32_t>(1), cnt);
                VBar();
                Cast(i16, i, RoundMode::CAST_NONE, n);
                VBar();
                Cast(h, i16, RoundMode::CAST_NONE, n);
                VBar();
                Cast(As<uint8_t>(y), h, RoundMode::CAST_NONE, n);
            } else if constexpr (D == K_I64) {
                Cast(bufRH_.Get<int32_t>(), x, RoundMode::CAST_TRUNC, n);  // row 13
                VBar();
                W64(y, n);
            } else {
                LocalTensor<int32_t> i = bufI_.Get<int32_t>();
                Cast(i, x, RoundMode::CAST_TRUNC, n);
                VBar();
                if constexpr (D == K_I16) {
                    Cast(y, i, RoundMode::CAST_NONE, n);  // rows 3, 9: saturating i32 -> i16
                } else {
                    N8(y, i, n);  // rows 4, 5, 10, 11
                }
            }
        } else if constexpr (S == K_I32) {
            if constexpr (D == K_F16) {
                LocalTensor<float> f = bufF_.Get<float>();  // row 15 (D12: not vconv_deq)
                Cast(f, x, RoundMode::CAST_NONE, n);
                VBar();
                Cast(y, f, RoundMode::CAST_NONE, n);
            } else if constexpr (D == K_BOOL) {
                LocalTensor<int16_t> i16 = bufI16_.Get<int16_t>();  // row 19: i16 saturation keeps x != 0
                LocalTensor<half> h = bufH_.Get<half>();
                Cast(i16, x, RoundMode::CAST_NONE, n);
                VBar();
                Cast(h, i16, RoundMode::CAST_NONE, n);
                VBar();
                BoolH(y, h, n);
            } else if constexpr (D == K_I64) {
                Adds(bufRH_.Get<int32_t>(), x, static_cast<int32_t>(0), cnt);  // row 20
                VBar();
                W64(y, n);
            } else {
                N8(y, x, n);  // rows 17, 18
            }
        } else if constexpr (SRC8) {
            // rows 22-24, 26, 27, 29, 30, 32, 33, 41, 42, 45: every 8-bit value is exact in f16.
            LocalTensor<half> h = bufH_.Get<half>();
            Cast(h, x, RoundMode::CAST_NONE, n);
            VBar();
            if constexpr (D == K_F32) {
                Cast(y, h, RoundMode::CAST_NONE, n);
            } else if constexpr (D == K_I32) {
                Cast(y, h, RoundMode::CAST_TRUNC, n);
            } else if constexpr (D == K_I16) {
                Cast(y, h, RoundMode::CAST_RINT, n);  // the only f16 -> i16 mode on m200 (D12)
            } else if constexpr (D == K_BOOL) {
                BoolH(y, h, n);
            } else {
                static_assert(IsSame<DstT, int64_t>::value, "8-bit source: the remaining target is I64");
                Cast(bufRH_.Get<int32_t>(), h, RoundMode::CAST_TRUNC, n);
                VBar();
                W64(y, n);
            }
        } else if constexpr (S == K_I16) {
            if constexpr (D == K_F32) {
                Split(y, x, RoundMode::CAST_NONE, n);  // row 35
            } else if constexpr (D == K_I32) {
                Split(y, x, RoundMode::CAST_TRUNC, n);  // row 36
            } else if constexpr (D == K_I64) {
                Split(bufRH_.Get<int32_t>(), x, RoundMode::CAST_TRUNC, n);  // row 39
                VBar();
                W64(y, n);
            } else {
                N8h(y, x, n);  // rows 37, 38
            }
        } else if constexpr (S == K_I64) {
            if constexpr (D == K_I32) {
                Pick(y, x, 1, 2 * n);  // row 48
            } else if constexpr (DST8) {
                LocalTensor<int16_t> w = bufW_.Get<int16_t>();  // rows 49, 50: low 16 bits are enough mod 256
                Pick(w, x, 3, 4 * n);
                VBar();
                N8h(y, w, n);
            } else if constexpr (D == K_BOOL) {
                // row 52: x != 0 over all 64 bits -> OR the halves, then the I32 -> BOOL tail.
                LocalTensor<int32_t> l = bufL_.Get<int32_t>();
                LocalTensor<int32_t> u = bufU_.Get<int32_t>();
                LocalTensor<int16_t> i16 = bufI16_.Get<int16_t>();
                LocalTensor<half> h = bufH_.Get<half>();
                Pick(l, x, 1, 2 * n);
                Pick(u, x, 2, 2 * n);
                VBar();
                Or(As<uint16_t>(l), As<uint16_t>(l), As<uint16_t>(u), 2 * cnt);
                VBar();
                Cast(i16, l, RoundMode::CAST_NONE, n);
                VBar();
                Cast(h, i16, RoundMode::CAST_NONE, n);
                VBar();
                BoolH(y, h, n);
            } else {
                LocalTensor<int32_t> l = bufL_.Get<int32_t>();  // rows 46, 47, 51: the low word (D5, D6)
                Pick(l, x, 1, 2 * n);
                VBar();
                if constexpr (D == K_F16) {
                    LocalTensor<float> f = bufF_.Get<float>();
                    Cast(f, l, RoundMode::CAST_NONE, n);
                    VBar();
                    Cast(y, f, RoundMode::CAST_NONE, n);
                } else {
                    Cast(y, l, RoundMode::CAST_NONE, n);  // F32 (RNE) or I16 (saturating)
                }
            }
        } else {  // S == K_BF16
            if constexpr (D == K_BOOL) {
                BoolB(y, x, n);  // row 59 (D9)
            } else if constexpr (D == K_F32) {
                Xb(As<int32_t>(y), x, n);  // row 53: the exact f32 bits, NaN/Inf kept
            } else {
                LocalTensor<int32_t> xb = bufX_.Get<int32_t>();
                Xb(xb, x, n);
                VBar();
                LocalTensor<float> f = As<float>(xb);
                if constexpr (D == K_F16) {
                    Cast(y, f, RoundMode::CAST_NONE, n);  // row 54
                } else if constexpr (D == K_I32) {
                    Cast(y, f, RoundMode::CAST_TRUNC, n);  // row 55
                } else if constexpr (D == K_I64) {
                    Cast(bufRH_.Get<int32_t>(), f, RoundMode::CAST_TRUNC, n);  // row 60
                    VBar();
                    W64(y, n);
                } else {
                    LocalTensor<int32_t> i = bufI_.Get<int32_t>();
                    Cast(i, f, RoundMode::CAST_TRUNC, n);
                    VBar();
                    if constexpr (D == K_I16) {
                        Cast(y, i, RoundMode::CAST_NONE, n);  // row 56
                    } else {
                        N8(y, i, n);  // rows 57, 58
                    }
                }
            }
        }
        VBar();
    }

    TPipe pipe_;
    TQue<TPosition::VECIN, BUFFER_NUM> inQue_;
    TQue<TPosition::VECOUT, BUFFER_NUM> outQue_;
    TQueBind<TPosition::VECIN, TPosition::VECOUT, BUFFER_NUM> bindQue_;
    TBuf<TPosition::VECCALC> bufI_, bufM32_, bufI16_, bufH_, bufF_, bufL_, bufU_, bufW_, bufM16lo_;
    TBuf<TPosition::VECCALC> bufM16hi_, bufA_, bufHA_, bufHB_, bufT2_, bufX_, bufRH_, bufOFF_, bufM7FFF_, bufT_;
    GlobalTensor<SrcT> xGm_;
    GlobalTensor<DstT> yGm_;
    CastTilingData t_;
    uint32_t F_ = 0;
};
}  // namespace cast_impl

extern "C" __global__ __aicore__ void cast_kernel(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, CastTilingData tiling)
{
    (void)workspace;  // no user workspace (§1)
    // AI Cores only: the Atlas inference default made explicit (CANN "Setting the Kernel Type" allows AICORE and
    // MIX_VECTOR_CORE there; docs/device-readiness.md §1).
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AICORE);
    // A build for another pair than the host planned would compute the wrong chain: write nothing, so the
    // mismatch shows as an unwritten output instead of plausible numbers.
    if (tiling.pathClass != cast_impl::PATH || tiling.usedCoreNum == 0) return;
    cast_impl::CastKernel<DTYPE_X, DTYPE_Y> op;
    op.Init(x, y, tiling);
    op.Process();
}
