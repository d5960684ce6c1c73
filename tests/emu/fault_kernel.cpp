// ascemu fault catalogue: one deliberately broken kernel per check kind (tiling_key selects it).
// Each faulting statement carries a `// LINE:<tag>` marker; tests/test_emu_faults.py asserts that the
// reported diagnostic names exactly that line.
#include "kernel_operator.h"
using namespace AscendC;

struct FaultTiling {
    int32_t n;
    int32_t p0;
    int32_t p1;
    int32_t p2;
};

extern "C" __global__ __aicore__ void fault_kernel(GM_ADDR in, GM_ADDR out, GM_ADDR ws, FaultTiling t) {
    if (TILING_KEY_IS(1)) {  // GM out-of-bounds write (out has 100 bytes: allocation 160)
        TPipe pipe;
        TQue<QuePosition::VECOUT, 1> q;
        pipe.InitBuffer(q, 1, 1024);
        GlobalTensor<float> g;
        g.SetGlobalBuffer((__gm__ float*)out, 25);
        LocalTensor<float> u = q.AllocTensor<float>();
        Duplicate(u, 1.0f, 256);
        q.EnQue(u);
        u = q.DeQue<float>();
        DataCopy(g, u, 256);  // LINE:gm_oob
        q.FreeTensor(u);
    }
    if (TILING_KEY_IS(2)) {  // UB overflow
        TPipe pipe;
        TQue<QuePosition::VECIN, 2> qi;
        TBuf<TPosition::VECCALC> big;
        pipe.InitBuffer(qi, 2, 65536);
        pipe.InitBuffer(big, 160 * 1024);  // LINE:ub_overflow
    }
    if (TILING_KEY_IS(3)) {  // misaligned UB destination of a copy
        TPipe pipe;
        TBuf<TPosition::VECCALC> tb;
        pipe.InitBuffer(tb, 2048);
        GlobalTensor<half> g;
        g.SetGlobalBuffer((__gm__ half*)in, 256);
        LocalTensor<half> u = tb.Get<half>();
        DataCopy(u[5], g, 64);  // LINE:ub_misaligned
    }
    if (TILING_KEY_IS(4)) {  // misaligned GM source (float at byte offset 2)
        TPipe pipe;
        TBuf<TPosition::VECCALC> tb;
        pipe.InitBuffer(tb, 2048);
        GlobalTensor<float> g;
        g.SetGlobalBuffer((__gm__ float*)(in + 2), 64);
        LocalTensor<float> u = tb.Get<float>();
        DataCopy(u, g, 64);  // LINE:gm_misaligned
    }
    if (TILING_KEY_IS(5)) {  // queue misuse: DeQue on an empty queue, then use of the invalid tensor
        TPipe pipe;
        TQue<QuePosition::VECIN, 1> q;
        pipe.InitBuffer(q, 1, 1024);
        LocalTensor<float> u = q.DeQue<float>();  // LINE:deque_empty
        Duplicate(u, 0.0f, 64);                   // LINE:invalid_use
    }
    if (TILING_KEY_IS(6)) {  // unsupported Cast pair on 310P (float -> int16)
        TPipe pipe;
        TBuf<TPosition::VECCALC> tb;
        pipe.InitBuffer(tb, 2048);
        LocalTensor<float> f = tb.Get<float>(64);
        LocalTensor<int16_t> d = tb.GetWithOffset<int16_t>(64, 1024);
        Duplicate(f, 1.5f, 64);
        Cast(d, f, RoundMode::CAST_RINT, 64);  // LINE:cast_pair
    }
    if (TILING_KEY_IS(7)) {  // cross-core GM write race: every core writes the same 32-B block
        TPipe pipe;
        TBuf<TPosition::VECCALC> tb;
        pipe.InitBuffer(tb, 1024);
        LocalTensor<float> u = tb.Get<float>(8);
        Duplicate(u, (float)GetBlockIdx(), 8);
        GlobalTensor<float> g;
        g.SetGlobalBuffer((__gm__ float*)out, 8);
        DataCopy(g, u, 8);  // LINE:race
    }
    if (TILING_KEY_IS(8)) {  // infinite loop -> TIMEOUT
        TPipe pipe;
        TBuf<TPosition::VECCALC> tb;
        pipe.InitBuffer(tb, 1024);
        LocalTensor<int32_t> u = tb.Get<int32_t>(8);
        for (int32_t i = 0;; ++i) {
            u.SetValue(0, i);  // LINE:spin
        }
    }
    if (TILING_KEY_IS(9)) {  // wild-pointer crash
        TPipe pipe;
        TBuf<TPosition::VECCALC> tb;
        pipe.InitBuffer(tb, 1024);
        Duplicate(tb.Get<float>(8), 1.0f, 8);
        __gm__ volatile float* wild = (__gm__ volatile float*)(uintptr_t)(16 + t.p0);
        *wild = 1.0f;  // LINE:crash
    }
    if (TILING_KEY_IS(10)) {  // UB tensor overrun: a vector op past its buffer
        TPipe pipe;
        TBuf<TPosition::VECCALC> a, b;
        pipe.InitBuffer(a, 256);
        pipe.InitBuffer(b, 256);
        LocalTensor<float> x = a.Get<float>();
        Duplicate(x, 2.0f, 128);  // LINE:overrun
    }
    if (TILING_KEY_IS(11)) {  // use after free
        TPipe pipe;
        TQue<QuePosition::VECIN, 1> q;
        pipe.InitBuffer(q, 1, 1024);
        LocalTensor<float> u = q.AllocTensor<float>();
        Duplicate(u, 1.0f, 64);
        q.FreeTensor(u);
        Adds(u, u, 1.0f, 64);  // LINE:uaf
    }
    if (TILING_KEY_IS(12)) {  // trap()
        trap();  // LINE:trap
    }
    if (TILING_KEY_IS(13)) {  // strict mode: a DataCopy round-down becomes fatal
        TPipe pipe;
        TBuf<TPosition::VECCALC> tb;
        pipe.InitBuffer(tb, 2048);
        GlobalTensor<half> g;
        g.SetGlobalBuffer((__gm__ half*)in, 256);
        LocalTensor<half> u = tb.Get<half>();
        DataCopy(u, g, 75);  // LINE:strict_round
        Duplicate(u, half(0.0f), 16);
    }
    // ---- §5.5 pipe/event sync model (advisory).  p0 = 1 adds the missing sync, which must make it clean.
    if (TILING_KEY_IS(14)) {  // MTE2 -> V: DataCopy into a TBuf tensor read by Add
        TPipe pipe;
        TBuf<TPosition::VECCALC> tb;
        pipe.InitBuffer(tb, 1024);
        GlobalTensor<float> g;
        g.SetGlobalBuffer((__gm__ float*)in, 64);
        LocalTensor<float> x = tb.Get<float>(64);
        LocalTensor<float> y = tb.GetWithOffset<float>(64, 512);
        DataCopy(x, g, 64);  // LINE:mte2_write
        if (t.p0 == 1) {
            event_t e = static_cast<event_t>(pipe.FetchEventID(HardEvent::MTE2_V));
            SetFlag<HardEvent::MTE2_V>(e);
            WaitFlag<HardEvent::MTE2_V>(e);
        }
        Add(y, x, x, 64);  // LINE:hazard_mte2_v
    }
    if (TILING_KEY_IS(15)) {  // V -> S: a vector result read by the scalar unit
        TPipe pipe;
        TBuf<TPosition::VECCALC> tb;
        pipe.InitBuffer(tb, 1024);
        LocalTensor<float> x = tb.Get<float>(64);
        LocalTensor<float> w = tb.GetWithOffset<float>(64, 512);
        Duplicate(x, 1.0f, 64);
        ReduceSum(x, x, w, 64);  // LINE:v_write
        if (t.p0 == 1) {
            event_t e = static_cast<event_t>(pipe.FetchEventID(HardEvent::V_S));
            SetFlag<HardEvent::V_S>(e);
            WaitFlag<HardEvent::V_S>(e);
        }
        float s = x.GetValue(0);  // LINE:hazard_v_s
        GlobalTensor<float> o;
        o.SetGlobalBuffer((__gm__ float*)out, 8);
        o.SetValue(0, s);
    }
    if (TILING_KEY_IS(16)) {  // S -> V (SetValue then Muls); a queue round trip (clean); MTE2 -> S past a DeQue
        TPipe pipe;
        TBuf<TPosition::VECCALC> tb;
        TQue<QuePosition::VECIN, 1> qi;
        TQue<QuePosition::VECOUT, 1> qo;
        pipe.InitBuffer(tb, 1024);
        pipe.InitBuffer(qi, 1, 256);
        pipe.InitBuffer(qo, 1, 256);
        LocalTensor<float> x = tb.Get<float>(64);
        for (int i = 0; i < 64; ++i) x.SetValue(i, (float)i);
        if (t.p0 == 1) {
            event_t e = static_cast<event_t>(pipe.FetchEventID(HardEvent::S_V));
            SetFlag<HardEvent::S_V>(e);
            WaitFlag<HardEvent::S_V>(e);
        }
        Muls(x, x, 2.0f, 64);  // LINE:hazard_s_v
        GlobalTensor<float> g;
        g.SetGlobalBuffer((__gm__ float*)in, 64);
        GlobalTensor<float> o;
        o.SetGlobalBuffer((__gm__ float*)out, 64);
        LocalTensor<float> a = qi.AllocTensor<float>();
        DataCopy(a, g, 64);
        qi.EnQue(a);
        LocalTensor<float> b = qi.DeQue<float>();
        LocalTensor<float> c = qo.AllocTensor<float>();
        Adds(c, b, 1.0f, 64);  // MTE2 -> V through the VECIN queue: clean
        if (t.p0 == 1) {
            event_t e = static_cast<event_t>(pipe.FetchEventID(HardEvent::MTE2_S));
            SetFlag<HardEvent::MTE2_S>(e);
            WaitFlag<HardEvent::MTE2_S>(e);
        }
        float first = b.GetValue(0);  // LINE:hazard_mte2_s  the VECIN queue's flag is MTE2_V, not MTE2_S
        qi.FreeTensor(b);
        qo.EnQue(c);
        LocalTensor<float> d = qo.DeQue<float>();
        DataCopy(o, d, 64);
        qo.FreeTensor(d);
        (void)first;
    }
    if (TILING_KEY_IS(17)) {  // overlapping MTE2 destinations / MTE3 destinations without PipeBarrier
        TPipe pipe;
        TBuf<TPosition::VECCALC> tb;
        pipe.InitBuffer(tb, 1024);
        GlobalTensor<float> g;
        g.SetGlobalBuffer((__gm__ float*)in, 256);
        GlobalTensor<float> o;
        o.SetGlobalBuffer((__gm__ float*)out, 256);
        LocalTensor<float> x = tb.Get<float>(128);
        DataCopy(x, g, 64);
        if (t.p0 == 1) PipeBarrier<PIPE_MTE2>();
        DataCopy(x[32], g[64], 64);  // LINE:mte2_overlap
        PipeBarrier<PIPE_ALL>();
        DataCopy(o, x, 64);
        if (t.p0 == 1) PipeBarrier<PIPE_MTE3>();
        DataCopy(o[56], x[56], 64);  // LINE:mte3_overlap  back-stepped tail block
    }
    if (TILING_KEY_IS(18)) {  // V -> V read-after-write; p0 picks the ordering: 1 PipeBarrier<PIPE_V>, 2 a V_V flag,
        TPipe pipe;           // 3 the scalar waiting on V (V_S); 0 none
        TBuf<TPosition::VECCALC> tb;
        pipe.InitBuffer(tb, 2048);
        LocalTensor<float> x = tb.Get<float>(64);
        LocalTensor<float> y = tb.GetWithOffset<float>(64, 512);
        LocalTensor<float> w = tb.GetWithOffset<float>(64, 1024);
        Duplicate(x, 1.0f, 64);  // LINE:v_first
        if (t.p0 == 1) PipeBarrier<PIPE_V>();
        if (t.p0 == 2 || t.p0 == 3) {
            HardEvent ev = t.p0 == 2 ? HardEvent::V_V : HardEvent::V_S;
            event_t e = static_cast<event_t>(pipe.FetchEventID(ev));
            if (t.p0 == 2) {
                SetFlag<HardEvent::V_V>(e);
                WaitFlag<HardEvent::V_V>(e);
            } else {
                SetFlag<HardEvent::V_S>(e);
                WaitFlag<HardEvent::V_S>(e);
            }
        }
        Adds(y, x, 1.0f, 64);  // LINE:vraw
        PipeBarrier<PIPE_V>();
        ReduceSum(y, y, w, 64);  // ordered by the barrier; its own work-buffer steps are one instruction
        Duplicate(x, 2.0f, 64);  // a write after a read (not a dependency) is never reported
    }
    if (TILING_KEY_IS(19)) {  // out has 96 usable bytes (allocation 128): a 128-B copy writes 32 B past its end
        TPipe pipe;
        TBuf<TPosition::VECCALC> tb;
        pipe.InitBuffer(tb, 1024);
        GlobalTensor<float> gi;
        gi.SetGlobalBuffer((__gm__ float*)in);
        GlobalTensor<float> go;
        go.SetGlobalBuffer((__gm__ float*)out);
        LocalTensor<float> u = tb.Get<float>(32);
        DataCopy(u, gi, 32);  // LINE:slack_read  reading the slack stays GM_SLACK_ACCESS
        event_t e = static_cast<event_t>(pipe.FetchEventID(HardEvent::MTE2_MTE3));
        SetFlag<HardEvent::MTE2_MTE3>(e);
        WaitFlag<HardEvent::MTE2_MTE3>(e);
        if (t.p0 == 1) {  // the fix: whole blocks inside out, then one block ending exactly at its end
            DataCopy(go, u, 24);
            PipeBarrier<PIPE_MTE3>();
            DataCopy(go[17], u[8], 8);
        } else {
            DataCopy(go, u, 32);  // LINE:write_past_end
        }
    }
    if (TILING_KEY_IS(20)) {  // a GM-flag barrier across all blocks (the EmbeddingDenseGrad soft barrier pattern)
        TPipe pipe;
        TBuf<TPosition::VECCALC> tb;
        pipe.InitBuffer(tb, 1024);
        const int32_t n = static_cast<int32_t>(GetBlockNum());
        GlobalTensor<int32_t> flags;
        flags.SetGlobalBuffer((__gm__ int32_t*)ws, 8 * n);
        LocalTensor<int32_t> u = tb.Get<int32_t>(8 * n);
        for (int32_t i = 0; i < 8; ++i) u.SetValue(i, i == 0 ? 1 : 0);
        PipeBarrier<PIPE_ALL>();
        DataCopy(flags[8 * GetBlockIdx()], u, 8);
        PipeBarrier<PIPE_ALL>();
        for (int32_t arrived = 0; arrived < n;) {
            DataCopy(u, flags, 8 * n);  // LINE:poll
            PipeBarrier<PIPE_ALL>();
            arrived = 0;
            for (int32_t i = 0; i < n; ++i) arrived += u.GetValue(8 * i);
        }
    }
}
