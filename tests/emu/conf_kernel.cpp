// ascemu conformance kernel (spec §9).  One entry point; the launch tiling_key selects the case.
// Results go to `out` as int32 slots (floats/halves as their bit patterns); tests/test_emu_conformance.py
// decodes them and checks the report's diagnostics.
// Some cases exercise the run-time diagnostics of calls CANN refuses at compile time (bf16 on 310P, And<int32_t>,
// Cast pairs without an implementation): the kernel opts out of the CANN-strict build to reach them.
#define ASCEMU_CANN_STRICT 0
#include "kernel_operator.h"
using namespace AscendC;

struct ConfTiling {
    int32_t n;
    int32_t p0;
    int32_t p1;
    int32_t p2;
};

namespace {

struct Out {
    GlobalTensor<int32_t> g;
    uint32_t k = 0;
    void i(int32_t v) { g.SetValue(k++, v); }
    void f(float v) { int32_t b; std::memcpy(&b, &v, 4); g.SetValue(k++, b); }
    void h(half v) { g.SetValue(k++, (int32_t)v.to_bits()); }
};

constexpr RoundMode kModes[] = {RoundMode::CAST_RINT, RoundMode::CAST_FLOOR, RoundMode::CAST_CEIL,
                                RoundMode::CAST_ROUND, RoundMode::CAST_TRUNC};
constexpr RoundMode kAll7[] = {RoundMode::CAST_RINT,  RoundMode::CAST_FLOOR, RoundMode::CAST_CEIL, RoundMode::CAST_ROUND,
                               RoundMode::CAST_TRUNC, RoundMode::CAST_ODD,   RoundMode::CAST_NONE};

// Casts `n` values of src with each mode of `modes`; dst pre-filled with `sentinel` so rejected casts show.
template <class D, class S, size_t M>
void cast_modes(Out& o, const LocalTensor<D>& d, const LocalTensor<S>& s, uint32_t n, const RoundMode (&modes)[M],
                D sentinel) {
    for (RoundMode m : modes) {
        for (uint32_t i = 0; i < n; ++i) d.SetValue(i, sentinel);
        Cast(d, s, m, n);
        for (uint32_t i = 0; i < n; ++i) {
            D v = d.GetValue(i);
            if constexpr (std::is_same_v<D, half> || std::is_same_v<D, bfloat16_t>) o.i((int32_t)v.to_bits());
            else if constexpr (std::is_same_v<D, float>) o.f(v);
            else o.i((int32_t)v);
        }
    }
}

}  // namespace

extern "C" __global__ __aicore__ void conf_kernel(GM_ADDR in, GM_ADDR out, GM_ADDR ws, ConfTiling t) {
    Out o;
    o.g.SetGlobalBuffer((__gm__ int32_t*)out, 4096);
    const int64_t key = TILING_KEY_IS(0) ? 0 : -1;
    (void)key;

    // ---------------------------------------------------------------- 1/2: half->int32 doc modes, NONE rejected
    if (TILING_KEY_IS(1)) {
        TPipe pipe;
        TBuf<TPosition::VECCALC> tb;
        pipe.InitBuffer(tb, 4096);
        LocalTensor<half> h = tb.Get<half>(32);
        LocalTensor<int32_t> d = tb.GetWithOffset<int32_t>(32, 1024);
        const float v[6] = {1.4f, 1.5f, 1.6f, 2.4f, 2.5f, 2.6f};
        for (int i = 0; i < 6; ++i) h.SetValue(i, half(v[i]));
        cast_modes(o, d, h, 6, kModes, (int32_t)-7);
        const RoundMode none[] = {RoundMode::CAST_NONE};
        cast_modes(o, d, h, 6, none, (int32_t)-7);  // UNSUPPORTED_CAST_MODE, dst unchanged
    }
    // ---------------------------------------------------------------- 3: float->int32 / float->int16 at 2^22+0.5
    if (TILING_KEY_IS(3)) {
        TPipe pipe;
        TBuf<TPosition::VECCALC> tb;
        pipe.InitBuffer(tb, 4096);
        LocalTensor<float> f = tb.Get<float>(8);
        LocalTensor<int32_t> d = tb.GetWithOffset<int32_t>(8, 1024);
        LocalTensor<int16_t> d16 = tb.GetWithOffset<int16_t>(16, 2048);
        f.SetValue(0, 4194304.5f);
        cast_modes(o, d, f, 1, kModes, (int32_t)-7);
        cast_modes(o, d16, f, 1, kModes, (int16_t)-7);  // P910B: 32767 each; P310: UNSUPPORTED_CAST_PAIR
    }
    // ---------------------------------------------------------------- 4: float->half 0.5+2^-12, all 7 modes
    if (TILING_KEY_IS(4)) {
        TPipe pipe;
        TBuf<TPosition::VECCALC> tb;
        pipe.InitBuffer(tb, 4096);
        LocalTensor<float> f = tb.Get<float>(8);
        LocalTensor<half> d = tb.GetWithOffset<half>(16, 1024);
        f.SetValue(0, 0.5f + 0x1p-12f);
        cast_modes(o, d, f, 1, kAll7, half::from_bits(0x7777));
    }
    // ---------------------------------------------------------------- 5: ODD sticky bit
    if (TILING_KEY_IS(5)) {
        TPipe pipe;
        TBuf<TPosition::VECCALC> tb;
        pipe.InitBuffer(tb, 4096);
        LocalTensor<float> f = tb.Get<float>(8);
        LocalTensor<half> d = tb.GetWithOffset<half>(16, 1024);
        const float v[5] = {1.0f, 1.0f + 0x1p-11f, 1.0f + 0x1p-12f, 1.0f + 0x1p-10f, 1.0f + 0x1p-9f};
        for (int i = 0; i < 5; ++i) f.SetValue(i, v[i]);
        const RoundMode odd[] = {RoundMode::CAST_ODD};
        cast_modes(o, d, f, 5, odd, half::from_bits(0x7777));
    }
    // ---------------------------------------------------------------- 6: float->float integral 0.5
    if (TILING_KEY_IS(6)) {
        TPipe pipe;
        TBuf<TPosition::VECCALC> tb;
        pipe.InitBuffer(tb, 4096);
        LocalTensor<float> f = tb.Get<float>(8);
        LocalTensor<float> d = tb.GetWithOffset<float>(8, 1024);
        f.SetValue(0, 0.5f);
        cast_modes(o, d, f, 1, kModes, -7.0f);
    }
    // ---------------------------------------------------------------- 7: half->int32 -1.5
    if (TILING_KEY_IS(7)) {
        TPipe pipe;
        TBuf<TPosition::VECCALC> tb;
        pipe.InitBuffer(tb, 4096);
        LocalTensor<half> h = tb.Get<half>(16);
        LocalTensor<int32_t> d = tb.GetWithOffset<int32_t>(8, 1024);
        h.SetValue(0, half(-1.5f));
        cast_modes(o, d, h, 1, kModes, (int32_t)-7);
    }
    // ---------------------------------------------------------------- 8/9/10: half->int16/int8/uint8
    if (TILING_KEY_IS(8)) {
        TPipe pipe;
        TBuf<TPosition::VECCALC> tb;
        pipe.InitBuffer(tb, 4096);
        LocalTensor<half> h = tb.Get<half>(16);
        LocalTensor<int16_t> d16 = tb.GetWithOffset<int16_t>(16, 1024);
        LocalTensor<int8_t> d8 = tb.GetWithOffset<int8_t>(32, 2048);
        LocalTensor<uint8_t> du = tb.GetWithOffset<uint8_t>(32, 3072);
        const RoundMode m6[] = {RoundMode::CAST_RINT, RoundMode::CAST_FLOOR, RoundMode::CAST_CEIL,
                                RoundMode::CAST_ROUND, RoundMode::CAST_TRUNC, RoundMode::CAST_NONE};
        h.SetValue(0, half(127.5f));
        cast_modes(o, d16, h, 1, kModes, (int16_t)-7);  // slots 0..4
        cast_modes(o, d8, h, 1, m6, (int8_t)-7);        // slots 5..10
        h.SetValue(0, half(1.75f));
        cast_modes(o, du, h, 1, m6, (uint8_t)77);       // slots 11..16
        h.SetValue(0, half(-3.0f));
        const RoundMode fl[] = {RoundMode::CAST_FLOOR};
        cast_modes(o, du, h, 1, fl, (uint8_t)77);       // slot 17: 0 + CAST_NEGATIVE_TO_UNSIGNED
    }
    // ---------------------------------------------------------------- 11/12/13: int sources
    if (TILING_KEY_IS(11)) {
        TPipe pipe;
        TBuf<TPosition::VECCALC> tb;
        pipe.InitBuffer(tb, 4096);
        LocalTensor<int16_t> s16 = tb.Get<int16_t>(16);
        LocalTensor<half> dh = tb.GetWithOffset<half>(16, 512);
        LocalTensor<int32_t> s32 = tb.GetWithOffset<int32_t>(8, 1024);
        LocalTensor<float> df = tb.GetWithOffset<float>(8, 1536);
        LocalTensor<int16_t> d16 = tb.GetWithOffset<int16_t>(16, 2048);
        const RoundMode m6[] = {RoundMode::CAST_RINT, RoundMode::CAST_FLOOR, RoundMode::CAST_CEIL,
                                RoundMode::CAST_ROUND, RoundMode::CAST_TRUNC, RoundMode::CAST_NONE};
        s16.SetValue(0, (int16_t)4098);
        cast_modes(o, dh, s16, 1, m6, half::from_bits(0x7777));  // slots 0..5
        s32.SetValue(0, (int32_t)33554435);
        cast_modes(o, df, s32, 1, m6, -7.0f);                    // slots 6..11
        s32.SetValue(0, (int32_t)2147483647);
        s32.SetValue(1, (int32_t)(-2147483647 - 1));
        const RoundMode none[] = {RoundMode::CAST_NONE};
        cast_modes(o, d16, s32, 2, none, (int16_t)-7);           // slots 12..13
    }
    // ---------------------------------------------------------------- 14: int32->half via DeqScale
    if (TILING_KEY_IS(14)) {
        TPipe pipe;
        TBuf<TPosition::VECCALC> tb;
        pipe.InitBuffer(tb, 4096);
        LocalTensor<int32_t> s = tb.Get<int32_t>(256);
        LocalTensor<half> d = tb.GetWithOffset<half>(256, 1024);
        CreateVecIndex(s, 1, 256);
        Cast(d, s, RoundMode::CAST_NONE, 256);  // DEQSCALE_UNSET (warning), scale 1.0
        o.h(d.GetValue(0));
        o.h(d.GetValue(255));
        SetDeqScale(half(1.0f));
        Cast(d, s, RoundMode::CAST_RINT, 256);
        int ok = 1;
        for (int i = 0; i < 256; ++i) ok &= ((float)d.GetValue(i) == (float)(i + 1));
        o.i(ok);
        SetDeqScale(half(0.5f));
        Cast(d, s, RoundMode::CAST_NONE, 256);
        o.h(d.GetValue(0));
        o.h(d.GetValue(9));
        o.h(d.GetValue(255));
    }
    // ---------------------------------------------------------------- 15: pairs unsupported on P310
    if (TILING_KEY_IS(15)) {
        TPipe pipe;
        TBuf<TPosition::VECCALC> tb;
        pipe.InitBuffer(tb, 4096);
        LocalTensor<float> f = tb.Get<float>(8);
        LocalTensor<float> f2 = tb.GetWithOffset<float>(8, 256);
        LocalTensor<int16_t> i16 = tb.GetWithOffset<int16_t>(16, 512);
        LocalTensor<int64_t> i64 = tb.GetWithOffset<int64_t>(4, 768);
        LocalTensor<int32_t> i32 = tb.GetWithOffset<int32_t>(8, 1024);
        f.SetValue(0, 3.0f);
        i16.SetValue(0, (int16_t)5);
        i64.SetValue(0, (int64_t)9);
        Cast(f2, f, RoundMode::CAST_RINT, 8);      // LINE:15a
        Cast(i16, f, RoundMode::CAST_RINT, 8);     // LINE:15b
        Cast(f2, i16, RoundMode::CAST_NONE, 8);    // LINE:15c
        Cast(i32, i64, RoundMode::CAST_NONE, 4);   // LINE:15d
        o.i(1);
    }
    // ---------------------------------------------------------------- 16: bf16
    if (TILING_KEY_IS(16)) {
        TPipe pipe;
        TBuf<TPosition::VECCALC> tb;
        pipe.InitBuffer(tb, 4096);
        LocalTensor<float> f = tb.Get<float>(8);
        LocalTensor<bfloat16_t> b = tb.GetWithOffset<bfloat16_t>(16, 1024);
        LocalTensor<int32_t> d = tb.GetWithOffset<int32_t>(8, 2048);
        f.SetValue(0, 0.5f + 0x1p-9f + 0x1p-11f);
        cast_modes(o, b, f, 1, kModes, bfloat16_t::from_bits(0x7777));  // slots 0..4
        b.SetValue(0, bfloat16_t(64.5f));
        cast_modes(o, d, b, 1, kModes, (int32_t)-7);                      // slots 5..9
        Duplicate(b, bfloat16_t(1.0f), 16);                               // P310: UNSUPPORTED_DTYPE
    }
    // ---------------------------------------------------------------- 17/18: overflow mode
    if (TILING_KEY_IS(17)) {
        TPipe pipe;
        TBuf<TPosition::VECCALC> tb;
        pipe.InitBuffer(tb, 4096);
        LocalTensor<float> f = tb.Get<float>(8);
        LocalTensor<half> d = tb.GetWithOffset<half>(16, 512);
        LocalTensor<int32_t> di = tb.GetWithOffset<int32_t>(8, 1024);
        LocalTensor<half> a = tb.GetWithOffset<half>(16, 1536);
        f.SetValue(0, INFINITY);
        f.SetValue(1, -INFINITY);
        f.SetValue(2, NAN);
        f.SetValue(3, 1e6f);
        Cast(d, f, RoundMode::CAST_NONE, 4);
        for (int i = 0; i < 4; ++i) o.h(d.GetValue(i));  // slots 0..3
        f.SetValue(0, NAN);
        f.SetValue(1, 3e9f);
        Cast(di, f, RoundMode::CAST_RINT, 2);
        o.i(di.GetValue(0));                            // slot 4
        o.i(di.GetValue(1));                            // slot 5
        Duplicate(a, half(60000.0f), 16);
        Add(a, a, a, 16);
        o.h(a.GetValue(0));                             // slot 6
    }
    // ---------------------------------------------------------------- 19: Cast repeat geometry
    if (TILING_KEY_IS(19)) {
        TPipe pipe;
        TBuf<TPosition::VECCALC> tb;
        pipe.InitBuffer(tb, 8192);
        LocalTensor<half> h = tb.Get<half>(512);
        LocalTensor<int32_t> d1 = tb.GetWithOffset<int32_t>(512, 1024);
        LocalTensor<int32_t> d2 = tb.GetWithOffset<int32_t>(512, 3072);
        for (int i = 0; i < 512; ++i) h.SetValue(i, half((float)(i % 97) - 40.25f));
        Cast(d1, h, RoundMode::CAST_RINT, 512);
        uint64_t mask[2] = {~0ull, 0};
        Cast(d2, h, RoundMode::CAST_RINT, mask, 8, UnaryRepeatParams(1, 1, 8, 4));
        int same = 1;
        for (int i = 0; i < 512; ++i) same &= d1.GetValue(i) == d2.GetValue(i);
        o.i(same);
        o.i(d1.GetValue(511));
    }
    // ---------------------------------------------------------------- 20: DataCopy round-down
    if (TILING_KEY_IS(20)) {
        TPipe pipe;
        TQue<QuePosition::VECIN, 1> q;
        pipe.InitBuffer(q, 1, 256);
        GlobalTensor<half> gi;
        gi.SetGlobalBuffer((__gm__ half*)in, 1024);
        LocalTensor<half> u = q.AllocTensor<half>();
        DataCopy(u, gi, 75);  // 150 B -> 128 B (DATACOPY_ROUNDED)
        o.h(u.GetValue(63));  // moved
        o.h(u.GetValue(64));  // poison (UB_UNINIT_READ)
        o.h(u.GetValue(74));
        q.FreeTensor(u);
    }
    // ---------------------------------------------------------------- 21: DataCopyParams layout
    if (TILING_KEY_IS(21)) {
        TPipe pipe;
        TBuf<TPosition::VECCALC> tb;
        pipe.InitBuffer(tb, 2048);
        GlobalTensor<int32_t> gi;
        gi.SetGlobalBuffer((__gm__ int32_t*)in, 1024);
        LocalTensor<int32_t> u = tb.Get<int32_t>();
        DataCopy(u, gi, DataCopyParams(2, 8, 0, 1));  // 2 blocks of 256 B, 32 B gap in UB
        o.i(u.GetValue(0));
        o.i(u.GetValue(63));
        o.i(u.GetValue(64));  // gap: poison
        o.i(u.GetValue(72));  // second block starts at 288 B = element 72
        o.i(u.GetValue(135));
    }
    // ---------------------------------------------------------------- 22: DataCopyPad
    if (TILING_KEY_IS(22)) {
        TPipe pipe;
        TBuf<TPosition::VECCALC> tb;
        pipe.InitBuffer(tb, 1024);
        GlobalTensor<uint8_t> gi;
        gi.SetGlobalBuffer((__gm__ uint8_t*)in, 1024);
        LocalTensor<uint8_t> u = tb.Get<uint8_t>();
        Duplicate(u.ReinterpretCast<int16_t>(), (int16_t)0x1111, 512);
        DataCopyPad(u, gi, DataCopyExtParams(3, 37, 0, 0, 0), DataCopyPadExtParams<uint8_t>(true, 0, 3, 0xAB));
        for (int r = 0; r < 3; ++r) {
            o.i(u.GetValue(r * 64 + 0));
            o.i(u.GetValue(r * 64 + 36));
            o.i(u.GetValue(r * 64 + 37));
            o.i(u.GetValue(r * 64 + 39));
            o.i(u.GetValue(r * 64 + 40));
        }
        GlobalTensor<uint8_t> go;
        go.SetGlobalBuffer((__gm__ uint8_t*)ws, 1024);
        DataCopyPad(go, u, DataCopyExtParams(2, 37, 0, 0, 0));  // rows of 37 B packed into GM
    }
    // ---------------------------------------------------------------- 23: GM slack and OOB (in has 96 bytes)
    if (TILING_KEY_IS(23)) {
        TPipe pipe;
        TBuf<TPosition::VECCALC> tb;
        pipe.InitBuffer(tb, 1024);
        GlobalTensor<float> gi;
        gi.SetGlobalBuffer((__gm__ float*)in);
        LocalTensor<float> u = tb.Get<float>();
        DataCopy(u, gi, 32);  // LINE:23slack  128 B: 32 B in the slack past ALIGN_UP(96, 32)
        o.f(u.GetValue(0));
        DataCopy(u, gi, 64);  // LINE:23oob  256 B: past the 128-B allocation
        o.i(u.ReinterpretCast<int32_t>().GetValue(63));  // poison
    }
    // ---------------------------------------------------------------- 24: UB capacity, 32-B rounding
    if (TILING_KEY_IS(24)) {
        TPipe pipe;
        TBuf<TPosition::VECCALC> a, b, c;
        pipe.InitBuffer(a, 33);
        pipe.InitBuffer(b, 32);
        o.i((int32_t)b.Get<uint8_t>().GetPhyAddr());  // 64
        pipe.InitBuffer(c, GetUBSizeInBytes() - 96 + 32);  // total ub_size + 32 -> UB_OVERFLOW   LINE:24
    }
    // ---------------------------------------------------------------- 25: buffer count limit
    if (TILING_KEY_IS(25)) {
        TPipe pipe;
        TBuf<TPosition::VECCALC> bufs[65];
        for (int i = 0; i < 65; ++i) pipe.InitBuffer(bufs[i], 32);  // LINE:25
        o.i(1);
    }
    // ---------------------------------------------------------------- 26: scratch zone (P910B)
    if (TILING_KEY_IS(26)) {
        TPipe pipe;
        TBuf<TPosition::VECCALC> a, m;
        pipe.InitBuffer(m, 256);
        pipe.InitBuffer(a, GetUBSizeInBytes() - 256);
        LocalTensor<half> x = a.Get<half>(128);
        Duplicate(x, half(1.0f), 128);
        Compares(m.Get<uint8_t>(), x, half(0.5f), CMPMODE::GT, 128);  // LINE:26
        o.i(m.Get<uint8_t>().GetValue(0));
    }
    // ---------------------------------------------------------------- 27: misaligned operand
    if (TILING_KEY_IS(27)) {
        TPipe pipe;
        TBuf<TPosition::VECCALC> tb;
        pipe.InitBuffer(tb, 1024);
        LocalTensor<half> x = tb.Get<half>();
        Duplicate(x, half(1.0f), 512);
        Add(x[3], x[3], x[3], 16);  // LINE:27
        o.h(x.GetValue(3));
    }
    // ---------------------------------------------------------------- 28: uninitialised read
    if (TILING_KEY_IS(28)) {
        TPipe pipe;
        TBuf<TPosition::VECCALC> tb;
        pipe.InitBuffer(tb, 1024);
        LocalTensor<float> x = tb.Get<float>(64);
        LocalTensor<float> y = tb.GetWithOffset<float>(64, 512);
        Exp(y, x, 64);  // LINE:28
        o.f(y.GetValue(0));
    }
    // ---------------------------------------------------------------- 29: queue protocol
    if (TILING_KEY_IS(29)) {
        TPipe pipe;
        TQue<QuePosition::VECIN, 1> q;
        pipe.InitBuffer(q, 2, 256);
        LocalTensor<float> e = q.DeQue<float>();  // LINE:29deque  QUE_DEQUE_EMPTY
        LocalTensor<float> a = q.AllocTensor<float>();
        LocalTensor<float> b = q.AllocTensor<float>();
        Duplicate(a, 1.0f, 64);
        Duplicate(b, 1.0f, 64);
        q.EnQue(a);
        q.EnQue(b);  // LINE:29depth  QUE_DEPTH_EXCEEDED
        LocalTensor<float> a2 = q.DeQue<float>();
        LocalTensor<float> b2 = q.DeQue<float>();
        q.FreeTensor(a2);
        q.FreeTensor(a2);  // LINE:29double  QUE_DOUBLE_FREE
        Duplicate(a, 2.0f, 64);  // LINE:29uaf  UB_USE_AFTER_FREE
        LocalTensor<float> c = q.AllocTensor<float>();
        LocalTensor<float> d = q.AllocTensor<float>();  // LINE:29alloc  QUE_ALLOC_EXHAUSTED (fatal)
        (void)e; (void)b2; (void)c; (void)d;
    }
    // ---------------------------------------------------------------- 30: ReduceSum fp16 saturation
    if (TILING_KEY_IS(30)) {
        TPipe pipe;
        TBuf<TPosition::VECCALC> tb;
        pipe.InitBuffer(tb, 4096);
        LocalTensor<half> x = tb.Get<half>(128);
        LocalTensor<half> tmp = tb.GetWithOffset<half>(256, 1024);
        LocalTensor<half> d = tb.GetWithOffset<half>(16, 2048);
        x.SetValue(0, half(60000.0f));
        x.SetValue(1, half(60000.0f));
        x.SetValue(2, half(-30000.0f));
        x.SetValue(3, half(100.0f));
        ReduceSum(d, x, tmp, 4);
        o.h(d.GetValue(0));
    }
    // ---------------------------------------------------------------- 31: ReduceSum order
    if (TILING_KEY_IS(31)) {
        TPipe pipe;
        TBuf<TPosition::VECCALC> tb;
        pipe.InitBuffer(tb, 8192);
        LocalTensor<float> x = tb.Get<float>(256);
        LocalTensor<float> tmp = tb.GetWithOffset<float>(256, 2048);
        LocalTensor<float> d = tb.GetWithOffset<float>(8, 4096);
        Duplicate(x, 0.0f, 256);
        x.SetValue(0, 1.0f);
        x.SetValue(64, 1e8f);
        x.SetValue(128, -1e8f);
        x.SetValue(192, 1.0f);
        ReduceSum(d, x, tmp, 256);
        o.f(d.GetValue(0));
        ReduceSum(d, x, tmp, 64, 4, 8);  // mask form (method 1 on both)
        o.f(d.GetValue(0));
    }
    // ---------------------------------------------------------------- 32: ReduceSum tmp size (8320 halves)
    if (TILING_KEY_IS(32)) {
        TPipe pipe;
        TBuf<TPosition::VECCALC> tb, tt, dd;
        pipe.InitBuffer(tb, 8320 * 2);
        pipe.InitBuffer(tt, 256);
        pipe.InitBuffer(dd, 32);
        LocalTensor<half> x = tb.Get<half>();
        Duplicate(x, half(1.0f), 8320);
        ReduceSum(dd.Get<half>(), x, tt.Get<half>(79), 8320);  // LINE:32 P310: REDUCE_TMP_TOO_SMALL
        ReduceSum(dd.Get<half>(), x, tt.Get<half>(80), 8320);
        o.h(dd.Get<half>().GetValue(0));
    }
    // ---------------------------------------------------------------- 33: ReduceMax first index
    if (TILING_KEY_IS(33)) {
        TPipe pipe;
        TBuf<TPosition::VECCALC> tb;
        pipe.InitBuffer(tb, 8192);
        LocalTensor<half> x = tb.Get<half>(256);
        LocalTensor<half> tmp = tb.GetWithOffset<half>(512, 1024);
        LocalTensor<half> d = tb.GetWithOffset<half>(16, 4096);
        const float v[5] = {3, 7, 7, 1, 7};
        for (int i = 0; i < 5; ++i) x.SetValue(i, half(v[i]));
        ReduceMax(d, x, tmp, 5, true);
        o.h(d.GetValue(0));
        o.i(d.ReinterpretCast<uint16_t>().GetValue(1));
        Duplicate(x, half(0.0f), 256);
        x.SetValue(128 + 3, half(9.0f));
        x.SetValue(5, half(9.0f));
        ReduceMax(d, x, tmp, 256, true);
        o.i(d.ReinterpretCast<uint16_t>().GetValue(1));  // 5 (first repeat wins)
    }
    // ---------------------------------------------------------------- 34: ReduceMax index bits / overflow
    if (TILING_KEY_IS(34)) {
        TPipe pipe;
        TBuf<TPosition::VECCALC> tb, tt, dd;
        pipe.InitBuffer(tb, 65600 * 2);
        pipe.InitBuffer(tt, 4096);
        pipe.InitBuffer(dd, 32);
        LocalTensor<half> x = tb.Get<half>();
        LocalTensor<half> d = dd.Get<half>();
        Duplicate(x, half(0.0f), 65600);
        x.SetValue(114, half(5.0f));
        ReduceMax(d, x, tt.Get<half>(), 512, true);
        o.i(d.ReinterpretCast<uint16_t>().GetValue(1));  // 0x0072
        o.f((float)d.GetValue(1));                      // 6.8e-06
        x.SetValue(65537, half(8.0f));
        ReduceMax(d, x, tt.Get<half>(), 65600, true);  // LINE:34 REDUCE_INDEX_OVERFLOW
    }
    // ---------------------------------------------------------------- 35: ReduceMax tmp (8320 halves, index: 176)
    if (TILING_KEY_IS(35)) {
        TPipe pipe;
        TBuf<TPosition::VECCALC> tb, tt, dd;
        pipe.InitBuffer(tb, 8320 * 2);
        pipe.InitBuffer(tt, 512);
        pipe.InitBuffer(dd, 32);
        LocalTensor<half> x = tb.Get<half>();
        Duplicate(x, half(1.0f), 8320);
        ReduceMax(dd.Get<half>(), x, tt.Get<half>(175), 8320, true);  // LINE:35 REDUCE_TMP_TOO_SMALL
        ReduceMax(dd.Get<half>(), x, tt.Get<half>(176), 8320, true);
        o.i(1);
    }
    // ---------------------------------------------------------------- 36: WholeReduceSum / WholeReduceMax
    if (TILING_KEY_IS(36)) {
        TPipe pipe;
        TBuf<TPosition::VECCALC> tb;
        pipe.InitBuffer(tb, 4096);
        LocalTensor<half> x = tb.Get<half>(512);
        LocalTensor<half> d = tb.GetWithOffset<half>(64, 2048);
        for (int i = 0; i < 512; ++i) x.SetValue(i, half((float)(i / 128 + 1)));
        WholeReduceSum(d, x, 128, 4, 1, 1, 8);
        for (int r = 0; r < 4; ++r) o.h(d.GetValue(r));  // 128, 256, 384, 512
        Duplicate(x, half(0.0f), 128);
        x.SetValue(52, half(3.0f));
        WholeReduceMax(d, x, 128, 1, 1, 1, 8);
        o.h(d.GetValue(0));
        o.i(d.ReinterpretCast<uint16_t>().GetValue(1));  // 0x0034
        WholeReduceMax(d, x, 128, 1, 1, 1, 8, ReduceOrder::ORDER_ONLY_VALUE);  // LINE:36 P310: PARAM_RANGE warning
    }
    // ---------------------------------------------------------------- 50: mask-form reduction source extent
    // The source footprint ends at the highest enabled lane of the last repeat (§4.1, §4.7), not at 8 blocks:
    // 4 rows of 16 floats (srcRepStride 2 blocks) in a 256-B buffer, mask 10 -> clean; mask 17 reaches past it.
    if (TILING_KEY_IS(50)) {
        TPipe pipe;
        TBuf<TPosition::VECCALC> xb, ob;
        pipe.InitBuffer(xb, 4 * 16 * 4);
        pipe.InitBuffer(ob, 64);
        LocalTensor<float> x = xb.Get<float>();
        LocalTensor<float> y = ob.Get<float>();
        for (int i = 0; i < 64; ++i) x.SetValue(i, (float)(i % 16 + i / 16));
        WholeReduceSum(y, x, 10, 4, 1, 1, 2);
        for (int r = 0; r < 4; ++r) o.f(y.GetValue(r));  // 45, 55, 65, 75
        WholeReduceMax(y, x, 10, 4, 1, 1, 2);
        for (int r = 0; r < 4; ++r) {
            o.f(y.GetValue(2 * r));                                // 9 + r
            o.i((int32_t)y.ReinterpretCast<uint32_t>().GetValue(2 * r + 1));  // lane 9
        }
        LocalTensor<float> t = ob.GetWithOffset<float>(8, 32);
        ReduceMax(y, x, t, 10, 4, 2, true);  // mask-form ReduceMax: same footprint rule
        o.f(y.GetValue(0));
        WholeReduceSum(y, x, 17, 4, 1, 1, 2);  // LINE:50overrun lane 16 of row 3 is byte 256: past the buffer
    }
    // ---------------------------------------------------------------- 37: Exp / Ln / Div rounding (n floats in `in`)
    if (TILING_KEY_IS(37)) {
        TPipe pipe;
        TBuf<TPosition::VECCALC> a, b, c;
        pipe.InitBuffer(a, 8192 * 4);
        pipe.InitBuffer(b, 8192 * 4);
        pipe.InitBuffer(c, 8192 * 4);
        GlobalTensor<float> gi, go;
        gi.SetGlobalBuffer((__gm__ float*)in);
        go.SetGlobalBuffer((__gm__ float*)out);
        int n = t.n;
        for (int off = 0; off < 3 * n; off += 8192) {
            int m = 8192;
            LocalTensor<float> x = a.Get<float>(), y = b.Get<float>(), z = c.Get<float>();
            DataCopy(x, gi[off % n], m);
            DataCopy(y, gi[(off + 8192) % n], m);
            int which = off / n;
            if (which == 0) Exp(z, x, m);
            else if (which == 1) { Abs(x, x, m); Ln(z, x, m); }
            else Div(z, x, y, m);
            PipeBarrier<PIPE_ALL>();
            DataCopy(go[off], z, m);
        }
    }
    // ---------------------------------------------------------------- 38: platform matrix
    if (TILING_KEY_IS(38)) {
        TPipe pipe;
        TBuf<TPosition::VECCALC> tb;
        pipe.InitBuffer(tb, 4096);
        LocalTensor<int16_t> s = tb.Get<int16_t>(128);
        LocalTensor<int32_t> i32 = tb.GetWithOffset<int32_t>(64, 1024);
        Duplicate(s, (int16_t)3, 128);
        Duplicate(i32, (int32_t)3, 64);
        ShiftLeft(s, s, (int16_t)1, 128);  // LINE:38shift
        o.i(s.GetValue(0));
        GlobalTensor<int16_t> gi;
        gi.SetGlobalBuffer((__gm__ int16_t*)in, 64);
        DataCopyPad(s, gi, DataCopyExtParams(1, 64, 0, 0, 0), DataCopyPadExtParams<int16_t>(false, 0, 0, 0));  // LINE:38pad
        And(i32, i32, i32, 64);  // LINE:38and  UNSUPPORTED_DTYPE
    }
    // ---------------------------------------------------------------- 39: atomics on 8 cores (out fill 0)
    if (TILING_KEY_IS(39)) {
        TPipe pipe;
        TQue<QuePosition::VECOUT, 1> q;
        pipe.InitBuffer(q, 1, 32);
        LocalTensor<float> u = q.AllocTensor<float>();
        Duplicate(u, 1.0f, 8);
        q.EnQue(u);
        u = q.DeQue<float>();
        GlobalTensor<float> g;
        g.SetGlobalBuffer((__gm__ float*)ws, 8);
        SetAtomicAdd<float>();
        DataCopy(g, u, 8);
        SetAtomicNone();
        q.FreeTensor(u);
    }
    // ---------------------------------------------------------------- 40: atomic types
    if (TILING_KEY_IS(40)) {
        TPipe pipe;
        TBuf<TPosition::VECCALC> tb;
        pipe.InitBuffer(tb, 1024);
        LocalTensor<half> u = tb.Get<half>(16);
        Duplicate(u, half(1.0f), 16);
        GlobalTensor<half> g;
        g.SetGlobalBuffer((__gm__ half*)ws, 16);
        SetAtomicAdd<int32_t>();  // LINE:40type  P310: UNSUPPORTED_ATOMIC_TYPE
        SetAtomicAdd<float>();    // LINE:40left  left enabled at exit
        DataCopy(g, u, 16);       // LINE:40mismatch  ATOMIC_TYPE_MISMATCH
    }
    // ---------------------------------------------------------------- 41: GM write race (p0 = 1: SyncAll between)
    if (TILING_KEY_IS(41)) {
        TPipe pipe;
        TBuf<TPosition::VECCALC> tb, sb;
        pipe.InitBuffer(tb, 1024);
        pipe.InitBuffer(sb, 1024);
        LocalTensor<int32_t> u = tb.Get<int32_t>(8);
        Duplicate(u, (int32_t)GetBlockIdx() + 1, 8);
        GlobalTensor<int32_t> g;
        g.SetGlobalBuffer((__gm__ int32_t*)out, 8);
        GlobalTensor<int32_t> sw;
        sw.SetGlobalBuffer((__gm__ int32_t*)ws, 256);
        if (t.p0 == 0) {
            DataCopy(g, u, 8);  // LINE:41
        } else {
            for (int i = 0; i < GetBlockNum(); ++i) {
                if (i == GetBlockIdx()) DataCopy(g, u, 8);
                SyncAll(sw, sb.Get<int32_t>(), (int32_t)GetBlockNum());
            }
        }
    }
    // ---------------------------------------------------------------- 42: EDG-style GM-flag soft barrier (ws fill 0)
    if (TILING_KEY_IS(42)) {
        TPipe pipe;
        TBuf<TPosition::VECCALC> tb, fb;
        pipe.InitBuffer(tb, 1024);
        pipe.InitBuffer(fb, 32 * 8);
        int n = (int)GetBlockNum();
        GlobalTensor<int32_t> slots;
        slots.SetGlobalBuffer((__gm__ int32_t*)ws, 8 * 8);
        GlobalTensor<int32_t> g;
        g.SetGlobalBuffer((__gm__ int32_t*)out, 8 * 8);
        // phase 1: each core writes its own block of out
        LocalTensor<int32_t> u = tb.Get<int32_t>(8);
        Duplicate(u, (int32_t)(GetBlockIdx() + 1) * 10, 8);
        PipeBarrier<PIPE_ALL>();
        DataCopy(g[GetBlockIdx() * 8], u, 8);
        PipeBarrier<PIPE_ALL>();
        // barrier: set own slot, poll all slots
        Duplicate(u, (int32_t)0, 8);
        u.SetValue(0, 1);
        DataCopy(slots[GetBlockIdx() * 8], u, 8);
        LocalTensor<int32_t> f = fb.Get<int32_t>();
        int polls = 0;
        for (;;) {
            DataCopy(f, slots, 8 * n);
            PipeBarrier<PIPE_ALL>();
            int sum = 0;
            for (int i = 0; i < n; ++i) sum += f.GetValue(i * 8);
            if (sum == n) break;
            if (++polls > 1000000) trap();
        }
        // phase 2: read the next core's block (written before the barrier): no race
        DataCopy(u, g[((GetBlockIdx() + 1) % n) * 8], 8);
        PipeBarrier<PIPE_ALL>();
        GlobalTensor<int32_t> r;
        r.SetGlobalBuffer((__gm__ int32_t*)out + 512, 64);
        r.SetValue(GetBlockIdx(), u.GetValue(0));
    }
    // ---------------------------------------------------------------- 42 (second half): GetValue polling + DCache
    // Each core caches its partner's flag line, sets its own flag, then polls the partner's flag with GetValue.
    // p0 = 0: no DataCacheCleanAndInvalid -> the poll hits the stale line (DCACHE_STALE_READ, §5.1).
    // p0 = 1: DCCI before every poll read -> a miss each time, clean.
    if (TILING_KEY_IS(51)) {
        GlobalTensor<int32_t> flags;
        flags.SetGlobalBuffer((__gm__ int32_t*)ws, 16 * 8);  // one 64-B line per core
        const int me = (int)GetBlockIdx(), other = (me + 1) % (int)GetBlockNum();
        int32_t before = flags.GetValue(other * 16);  // fills the partner's line
        flags.SetValue(me * 16, 1);
        DataCacheCleanAndInvalid<int32_t, CacheLine::SINGLE_CACHE_LINE>(flags[me * 16]);  // publish (device)
        int polls = 0;
        for (;;) {
            if (t.p0 == 1) DataCacheCleanAndInvalid<int32_t, CacheLine::SINGLE_CACHE_LINE>(flags[other * 16]);
            if (flags.GetValue(other * 16) == 1) break;  // LINE:42stale
            if (++polls > 1000000) trap();
        }
        o.g.SetValue(me, before * 100 + 1);
    }
    // ---------------------------------------------------------------- 43: soft / hard SyncAll
    if (TILING_KEY_IS(43)) {
        TPipe pipe;
        TBuf<TPosition::VECCALC> sb;
        pipe.InitBuffer(sb, 1024);
        GlobalTensor<int32_t> sw;
        sw.SetGlobalBuffer((__gm__ int32_t*)ws, 256);
        GlobalTensor<int32_t> g;
        g.SetGlobalBuffer((__gm__ int32_t*)out, 64);
        g.SetValue(GetBlockIdx(), (int32_t)GetBlockIdx() + 100);
        SyncAll(sw, sb.Get<int32_t>(), (int32_t)GetBlockNum());  // soft
        int32_t s = 0;
        for (int i = 0; i < GetBlockNum(); ++i) s += g.GetValue(i);
        if (t.p0 == 1) SyncAll();  // LINE:43hard  P310: UNSUPPORTED_API (still a barrier)
        g.SetValue(16 + GetBlockIdx(), s);
    }
    // ---------------------------------------------------------------- 44: deadlock / blockDim > cores
    if (TILING_KEY_IS(44)) {
        TPipe pipe;
        TBuf<TPosition::VECCALC> fb;
        pipe.InitBuffer(fb, 1024);
        GlobalTensor<int32_t> flag;
        flag.SetGlobalBuffer((__gm__ int32_t*)ws, 8);
        if (t.p0 == 0) {
            LocalTensor<int32_t> f = fb.Get<int32_t>(8);
            for (;;) {
                DataCopy(f, flag, 8);  // LINE:44  nobody ever sets it -> DEADLOCK
                PipeBarrier<PIPE_ALL>();
                if (f.GetValue(0) == 1) break;
            }
        } else {
            GlobalTensor<int32_t> sw;
            sw.SetGlobalBuffer((__gm__ int32_t*)ws, 1024);
            SyncAll(sw, fb.Get<int32_t>(), (int32_t)GetBlockNum());  // LINE:44blockdim
        }
    }
    // ---------------------------------------------------------------- 46: sync misuse
    if (TILING_KEY_IS(46)) {
        TPipe pipe;
        PipeBarrier<PIPE_S>();                // LINE:46pipes
        SetFlag<HardEvent::MTE2_V>(8);        // LINE:46range
        event_t e = static_cast<event_t>(pipe.FetchEventID(HardEvent::V_MTE3));
        SetFlag<HardEvent::V_MTE3>(e);
        WaitFlag<HardEvent::V_MTE3>(e);
        WaitFlag<HardEvent::V_MTE3>(e);       // LINE:46wait  EVENT_WAIT_WITHOUT_SET (fatal)
    }
    // ---------------------------------------------------------------- 48: system variables, printf
    if (TILING_KEY_IS(48)) {
        GlobalTensor<int32_t> g;
        g.SetGlobalBuffer((__gm__ int32_t*)out, 64);
        g.SetValue(GetBlockIdx(), (int32_t)GetBlockIdx());
        if (GetBlockIdx() == 0) {
            g.SetValue(32, (int32_t)(GetUserWorkspace(ws) - ws));
            g.SetValue(33, (int32_t)GetBlockNum());
            g.SetValue(34, (int32_t)GetUBSizeInBytes());
        }
        AscendC::printf("hello from core %d of %d\n", (int)GetBlockIdx(), (int)GetBlockNum());
    }
    // ---------------------------------------------------------------- 49: trace of a Cast f16->f32 kernel
    if (TILING_KEY_IS(49)) {
        TPipe pipe;
        TQue<QuePosition::VECIN, 2> qi;
        TQue<QuePosition::VECOUT, 2> qo;
        pipe.InitBuffer(qi, 2, 2048 * 2);
        pipe.InitBuffer(qo, 2, 2048 * 4);
        GlobalTensor<half> gi;
        gi.SetGlobalBuffer((__gm__ half*)in + GetBlockIdx() * 2048, 2048);
        GlobalTensor<float> go;
        go.SetGlobalBuffer((__gm__ float*)out + GetBlockIdx() * 2048, 2048);
        LocalTensor<half> a = qi.AllocTensor<half>();
        DataCopy(a, gi, 2048);
        qi.EnQue(a);
        LocalTensor<half> b = qi.DeQue<half>();
        LocalTensor<float> c = qo.AllocTensor<float>();
        Cast(c, b, RoundMode::CAST_NONE, 2048);
        qi.FreeTensor(b);
        qo.EnQue(c);
        LocalTensor<float> d = qo.DeQue<float>();
        DataCopy(go, d, 2048);
        qo.FreeTensor(d);
    }
}
