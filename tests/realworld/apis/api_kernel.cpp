// Issue 11, the APIs ascemu added (tests/realworld/test_rw_apis.py).  One entry, one check per ApiCase::id, each
// written the way CANN's examples and cann-ops operators call the API.  The host puts the inputs in x and y and
// the initial dst in out; the kernel moves them GM -> UB, makes the calls and moves out back (aux holds scalar
// results, ws is a zeroed workspace for the multi-core checks).
#include "kernel_operator.h"
using namespace AscendC;

struct ApiCase {
    int32_t id;
    int32_t n;   // elements of the call
    int32_t p0;  // per-check parameters (mask, repeat, size ...)
    int32_t p1;
    int32_t p2;
    float f0;    // a scalar operand
    int32_t xb;  // bytes of x, y and out that move between GM and UB (multiples of 32)
    int32_t yb;
    int32_t ob;
};

enum : int32_t {
    REDUCE_MIN_COUNT = 1,
    REDUCE_MIN_MASK,
    WHOLE_REDUCE_MIN,
    WHOLE_REDUCE_ONLY_INDEX,
    BLOCK_REDUCE,
    PAIR_REDUCE,
    REPEAT_REDUCE,
    ACC_VAL,
    COPY_MASK,
    TRANSPOSE,
    FUSED,
    SCATTER,
    SCALAR_CAST,
    PAD_VALUE,
    ATOMIC_MAX_MIN,
    CROSS_CORE,
    IB_CHAIN,
    COMPARE_SELECT,
    OPERATORS,
    GATHER_INDEX_SHIFT,
    GATHER_MASK_COUNTER,
    RUNTIME_REFUSALS,
    REDUCE_COUNTER,
    GATHER_MASK_SMALL_SOURCE,
    AICORE_GUARD,
};

constexpr uint32_t kBuf = 32 * 1024;

class ApiCheck {
  public:
    __aicore__ inline ApiCheck(GM_ADDR x, GM_ADDR y, GM_ADDR out, GM_ADDR aux, GM_ADDR ws, const ApiCase& c) : c_(c)
    {
        xGm_.SetGlobalBuffer((__gm__ uint8_t*)x, c.xb);
        yGm_.SetGlobalBuffer((__gm__ uint8_t*)y, c.yb);
        outGm_.SetGlobalBuffer((__gm__ uint8_t*)out, c.ob);
        auxGm_.SetGlobalBuffer((__gm__ int64_t*)aux, 8);
        wsGm_.SetGlobalBuffer((__gm__ int32_t*)ws, 1024);
        pipe_.InitBuffer(aBuf_, kBuf);
        pipe_.InitBuffer(bBuf_, kBuf);
        pipe_.InitBuffer(dBuf_, kBuf);
        pipe_.InitBuffer(tBuf_, kBuf / 2);
        pipe_.InitBuffer(mBuf_, 1024);
        pipe_.InitBuffer(sBuf_, 64);
    }

    __aicore__ inline void Process()
    {
        LocalTensor<uint8_t> a = aBuf_.Get<uint8_t>(), b = bBuf_.Get<uint8_t>(), d = dBuf_.Get<uint8_t>();
        if (c_.xb > 0) DataCopy(a, xGm_, c_.xb);
        if (c_.yb > 0) DataCopy(b, yGm_, c_.yb);
        const bool multiCore = c_.id == ATOMIC_MAX_MIN || c_.id == CROSS_CORE || c_.id == IB_CHAIN;  // write GM themselves
        if (c_.ob > 0 && !multiCore) DataCopy(d, outGm_, c_.ob);
        PipeBarrier<PIPE_ALL>();
        Run();
        PipeBarrier<PIPE_ALL>();
        if (c_.ob > 0 && !multiCore) DataCopy(outGm_, d, c_.ob);
    }

  private:
    template <class T>
    __aicore__ inline LocalTensor<T> A() { return aBuf_.Get<T>(); }
    template <class T>
    __aicore__ inline LocalTensor<T> B() { return bBuf_.Get<T>(); }
    template <class T>
    __aicore__ inline LocalTensor<T> D() { return dBuf_.Get<T>(); }
    template <class T>
    __aicore__ inline LocalTensor<T> Tmp() { return tBuf_.Get<T>(); }

    __aicore__ inline void Run()
    {
        switch (c_.id) {
            case REDUCE_MIN_COUNT: ReduceMin<half>(D<half>(), A<half>(), Tmp<half>(), c_.n, true); break;
            case REDUCE_MIN_MASK: ReduceMin<float>(D<float>(), A<float>(), Tmp<float>(), c_.p0, c_.p1, 8, true); break;
            case WHOLE_REDUCE_MIN: WholeMin(); break;
            case WHOLE_REDUCE_ONLY_INDEX:
                WholeReduceMin<half>(D<half>(), A<half>(), c_.p0, c_.p1, 1, 1, 8, ReduceOrder::ORDER_ONLY_INDEX);
                break;
            case BLOCK_REDUCE: BlockReduce(); break;
            case PAIR_REDUCE: PairReduce(); break;
            case REPEAT_REDUCE: RepeatReduce(); break;
            case ACC_VAL: AccVal(); break;
            case COPY_MASK: CopyMask(); break;
            case TRANSPOSE: TransposeBoth(); break;
            case FUSED: Fused(); break;
            case SCATTER:  // p0 1: int32_t, which CANN's ScatterCheck lists and the 310P's vscatter moves as 4 bytes
                if (c_.p0 == 1) {
                    Scatter(D<int32_t>(), A<int32_t>(), B<uint32_t>(), 0, c_.n);
                } else {
                    Scatter(D<float>(), A<float>(), B<uint32_t>(), 0, c_.n);
                }
                break;
            case SCALAR_CAST: ScalarCast(); break;
            case PAD_VALUE: PadValue(); break;
            case ATOMIC_MAX_MIN: AtomicMaxMin(); break;
            case CROSS_CORE: CrossCore(); break;
            case IB_CHAIN: IbChain(); break;
            case COMPARE_SELECT: CompareSelect(); break;
            case OPERATORS: Operators(); break;
            case GATHER_INDEX_SHIFT: GatherIndexShift(); break;
            case GATHER_MASK_COUNTER: GatherMaskCounter(); break;
            case RUNTIME_REFUSALS: RuntimeRefusals(); break;
            case REDUCE_COUNTER: ReduceCounter(); break;
            case GATHER_MASK_SMALL_SOURCE: GatherMaskSmallSource(); break;
            case AICORE_GUARD: AicoreGuard(); break;
            default: break;
        }
    }

    // p0 lanes of p1 repeats; the register holds the extremum of every repeat (GetReduceRepeatMaxMinSpr).
    __aicore__ inline void WholeMin()
    {
        WholeReduceMin<half>(D<half>(), A<half>(), c_.p0, c_.p1, 1, 1, 8);
#if defined(__DAV_C220_VEC__)
        half value, index;
        GetReduceRepeatMaxMinSpr<half>(value, index);
        auxGm_.SetValue(1, (int64_t)(*reinterpret_cast<uint16_t*>(&index)));
#else
        half value;
        GetReduceRepeatMaxMinSpr<half>(value);
#endif
        auxGm_.SetValue(0, (int64_t)(*reinterpret_cast<uint16_t*>(&value)));
    }

    // out: 4 sections of 128 halves: BlockReduceSum, BlockReduceMax, BlockReduceMin (p1 repeats, mask continuous
    // p0), ReduceDataBlock<SUM> with a bit mask that leaves block 1 of each repeat off
    __aicore__ inline void BlockReduce()
    {
        LocalTensor<half> d = D<half>(), a = A<half>();
        BlockReduceSum<half>(d, a, c_.p1, c_.p0, 1, 1, 8);
        BlockReduceMax<half>(d[128], a, c_.p1, c_.p0, 1, 1, 8);
        BlockReduceMin<half>(d[256], a, c_.p1, c_.p0, 1, 1, 8);
        uint64_t mask[2] = {0xFFFFFFFF0000FFFFull, 0x00000000FFFFFFFFull};
        ReduceDataBlock<ReduceType::SUM, half, half>(d[384], a, mask, c_.p1, 1, 1, 8);
    }

    // out: PairReduceSum of p1 repeats (mask p0), then ReducePairElem<SUM> with a bit mask (every 4th lane off)
    __aicore__ inline void PairReduce()
    {
        LocalTensor<float> d = D<float>(), a = A<float>();
        PairReduceSum<float>(d, a, c_.p1, c_.p0, 1, 1, 8);
        uint64_t mask[2] = {0x7777777777777777ull, 0};
        ReducePairElem<ReduceType::SUM, float, float>(d[256], a, mask, c_.p1, 1, 1, 8);
    }

    // out: RepeatReduceSum (mask p0, p1 repeats), ReduceRepeat<MAX> (value, index pairs), ReduceRepeat<MIN> (the
    // value alone on 910B, (index, value) pairs on 310P)
    __aicore__ inline void RepeatReduce()
    {
        LocalTensor<float> d = D<float>(), a = A<float>();
        RepeatReduceSum<float>(d, a, c_.p1, c_.p0, 0, 1, 1, 8);
        ReduceRepeat<ReduceType::MAX, float, float>(d[64], a, c_.p0, c_.p1, 1, 1, 8);
#if defined(__DAV_C220_VEC__)
        ReduceRepeat<ReduceType::MIN, float, float>(d[128], a, c_.p0, c_.p1, 1, 1, 8, ReduceOrder::ORDER_ONLY_VALUE);
#else  // the 310P's orders are VALUE_INDEX and INDEX_VALUE
        ReduceRepeat<ReduceType::MIN, float, float>(d[128], a, c_.p0, c_.p1, 1, 1, 8, ReduceOrder::ORDER_INDEX_VALUE);
#endif
    }

    __aicore__ inline void AccVal()
    {
        ReduceSum<float>(D<float>(), A<float>(), Tmp<float>(), c_.n);
#if defined(__DAV_C220_VEC__)
        float sum = GetReduceRepeatSumSpr<float>();
        auxGm_.SetValue(0, (int64_t)(*reinterpret_cast<uint32_t*>(&sum)));
#endif
    }

    // [18, 64] float rows: the first 8 of each (mask 8, dst rows of one block), then the counter-mode form
    __aicore__ inline void CopyMask()
    {
        LocalTensor<float> d = D<float>(), a = A<float>();
        uint64_t mask = 8;
        Copy(d, a, mask, 18, {1, 1, 1, 8});
        SetMaskCount();
        SetVectorMask<float, MaskMode::COUNTER>(144);
        Copy<float, false>(d[256], a, MASK_PLACEHOLDER, 1, {1, 8, 8, 8});
        SetMaskNorm();
        ResetMask();
    }

    // out: the 16x16 transpose of x's first 256 halves, then NCHW -> NHWC of n=1, c=p0, h=4, w=8 uint16_t
    __aicore__ inline void TransposeBoth()
    {
        Transpose(D<half>(), A<half>());
        TransposeParamsExt params(1, c_.p0, 4, 8, TransposeType::TRANSPOSE_NCHW2NHWC);
        Transpose(D<uint16_t>()[256], B<uint16_t>(), Tmp<uint8_t>(), params);
    }

    // out (float) : Axpy(float <- half x, scalar f0), MulAddDst(float <- half x * half y); LeakyRelu (half) of x;
    // FusedMulAdd (float, dst loaded with x as float)
    __aicore__ inline void Fused()
    {
        LocalTensor<float> d = D<float>();
        LocalTensor<half> x = A<half>(), y = B<half>();
        Axpy(d, x, (half)c_.f0, c_.n);
        MulAddDst(d[c_.n], x, y, c_.n);
        LocalTensor<half> lr = D<half>()[4 * c_.n];
        LeakyRelu(lr, x, (half)c_.f0, c_.n);
        LocalTensor<float> f = D<float>()[3 * c_.n];
        LocalTensor<float> xf = Tmp<float>();
        Cast(xf, x, RoundMode::CAST_NONE, c_.n);
        Cast(f, y, RoundMode::CAST_NONE, c_.n);
        PipeBarrier<PIPE_V>();
        FusedMulAdd(f, xf, xf, c_.n);  // f = xf * f + xf
    }

    __aicore__ inline void ScalarCast()
    {
        LocalTensor<float> x = A<float>();
        LocalTensor<int32_t> o = D<int32_t>();
        for (int32_t i = 0; i < c_.n; ++i) {
            float v = x.GetValue(i);
            o.SetValue(i, Cast<float, int32_t, RoundMode::CAST_RINT>(v));
            o.SetValue(c_.n + i, Cast<float, int32_t, RoundMode::CAST_ROUND>(v));
            o.SetValue(2 * c_.n + i, Cast<float, int32_t, RoundMode::CAST_FLOOR>(v));
            o.SetValue(3 * c_.n + i, Cast<float, int32_t, RoundMode::CAST_CEIL>(v));
            half h = Cast<float, half, RoundMode::CAST_ODD>(v);
            o.SetValue(4 * c_.n + i, (int32_t)(*reinterpret_cast<uint16_t*>(&h)));
#if defined(__DAV_C220_VEC__)
            bfloat16_t b = Cast(v);
            o.SetValue(5 * c_.n + i, (int32_t)(*reinterpret_cast<uint16_t*>(&b)));
            float back = ToFloat(ToBfloat16(v));
            o.SetValue(6 * c_.n + i, *reinterpret_cast<int32_t*>(&back));
#endif
        }
    }

    // p1 rows of p0 halves from x; SetPadValue(f0), isPad false: the right padding of each row is f0
    __aicore__ inline void PadValue()
    {
#if defined(__DAV_C220_VEC__)
        GlobalTensor<half> xGm;
        xGm.SetGlobalBuffer((__gm__ half*)xGm_.GetPhyAddr(), c_.p0 * c_.p1);
        SetPadValue<half>((half)c_.f0);
        DataCopyExtParams copy{(uint16_t)c_.p1, (uint32_t)(c_.p0 * sizeof(half)), 0, 0, 0};
        DataCopyPadExtParams<half> pad{false, 0, (uint8_t)c_.p2, (half)0};
        DataCopyPad(D<half>(), xGm, copy, pad);
#endif
    }

    // every core copies its row of p0 floats atomically: rows 0.. with max into out, with min into out + p0
    __aicore__ inline void AtomicMaxMin()
    {
#if defined(__DAV_C220_VEC__)
        int32_t core = GetBlockIdx();
        GlobalTensor<float> outF;
        outF.SetGlobalBuffer((__gm__ float*)outGm_.GetPhyAddr(), 2 * c_.p0);
        LocalTensor<float> row = A<float>()[core * c_.p0];
        SetAtomicMax<float>();
        DataCopy(outF, row, c_.p0);
        PipeBarrier<PIPE_MTE3>();
        SetAtomicMin<float>();
        DataCopy(outF[c_.p0], row, c_.p0);
        PipeBarrier<PIPE_MTE3>();
        // SetAtomicType keeps the operation (min) and changes the dtype: halves of y land by min too
        GlobalTensor<half> outH;
        outH.SetGlobalBuffer((__gm__ half*)outGm_.GetPhyAddr() + 8 * c_.p0, c_.p0);
        SetAtomicType<half>();
        DataCopy(outH, B<half>()[core * c_.p0], c_.p0);
        DisableDmaAtomic();
#endif
    }

    // every core writes its slot, sets flag 3 (mode 0), waits for all, then sums every slot
    __aicore__ inline void CrossCore()
    {
#if defined(__DAV_C220_VEC__)
        int32_t core = GetBlockIdx(), cores = GetBlockNum();
        LocalTensor<int32_t> v = Tmp<int32_t>();
        Duplicate(v, core * 10 + 1, 8);
        PipeBarrier<PIPE_ALL>();
        DataCopy(wsGm_[core * 8], v, 8);
        CrossCoreSetFlag<0x0, PIPE_MTE3>(3);
        CrossCoreWaitFlag(3);
        DataCopy(v, wsGm_, cores * 8);
        PipeBarrier<PIPE_ALL>();
        int32_t sum = 0;
        for (int32_t i = 0; i < cores; ++i) sum += v.GetValue(i * 8);
        GlobalTensor<int32_t> o;
        o.SetGlobalBuffer((__gm__ int32_t*)outGm_.GetPhyAddr(), 64);
        o.SetValue(core, sum);
#endif
    }

    // core i waits for core i - 1 (IBWait), adds its id to the running sum in ws[256], records it, then IBSets
    __aicore__ inline void IbChain()
    {
        int32_t core = GetBlockIdx();
        LocalTensor<int32_t> ub = Tmp<int32_t>();
        LocalTensor<int32_t> val = Tmp<int32_t>()[64];
        GlobalTensor<int32_t> sumGm = wsGm_[256];
        if (core > 0) IBWait(wsGm_, ub, core - 1, 0);
        DataCopy(val, sumGm, 8);
        PipeBarrier<PIPE_ALL>();
        int32_t sum = val.GetValue(0) + core + 1;
        val.SetValue(0, sum);
        PipeBarrier<PIPE_ALL>();
        DataCopy(sumGm, val, 8);
        PipeBarrier<PIPE_ALL>();
        GlobalTensor<int32_t> o;
        o.SetGlobalBuffer((__gm__ int32_t*)outGm_.GetPhyAddr(), 64);
        o.SetValue(core, sum);
        IBSet(wsGm_, ub, core, 0);
    }

    // x, y: 128 floats (2 repeats).  out bytes: [0, 16) Compare LT mask form, [32, 48) Compares GT 0 mask form,
    // [64, 80) GetCmpMask after Compare(x, y, LE) in the register; floats from 32: Select mode 0, 2, 1 (scalar f0)
    // with selMask = the LT bits, and the register-mode Select<float, VSEL_CMPMASK_SPR>
    __aicore__ inline void CompareSelect()
    {
        LocalTensor<float> x = A<float>(), y = B<float>(), df = D<float>();
        LocalTensor<uint8_t> d = D<uint8_t>(), m = mBuf_.Get<uint8_t>();
        Duplicate(mBuf_.Get<uint16_t>(), (uint16_t)0, 512);
        PipeBarrier<PIPE_V>();
        uint64_t mask[2] = {~0ull, 0};
        Compare(m, x, y, CMPMODE::LT, mask, 2, {1, 1, 1, 8, 8, 8});
        Compares(d[32], x, 0.0f, CMPMODE::GT, (uint64_t)64, 2, {1, 1, 8, 8});
        PipeBarrier<PIPE_V>();
        DataCopy(d, m, 32);
        Compare(x, y, CMPMODE::LE, (uint64_t)64, {1, 1, 1, 8, 8, 8});
        GetCmpMask(m[128]);
        PipeBarrier<PIPE_V>();
        DataCopy(d[64], m[128], 32);
        BinaryRepeatParams rp{1, 1, 1, 8, 8, 8};
        Select(df[32], m, x, y, SELMODE::VSEL_CMPMASK_SPR, (uint64_t)64, 2, rp);
        Select(df[160], m, x, y, SELMODE::VSEL_TENSOR_TENSOR_MODE, mask, 2, rp);
        Select(df[288], m, x, c_.f0, SELMODE::VSEL_TENSOR_SCALAR_MODE, (uint64_t)48, 2, rp);
        SetCmpMask(m[128]);  // the LE bits
        SetVectorMask<float>(0, ~0ull);
        Select<float, SELMODE::VSEL_CMPMASK_SPR>(df[416], x, y, 2, rp);
        ResetMask();
    }

    // x, y: n halves; out halves: x + y, x * y, x / y, x - y; then bytes of (x < y)
    __aicore__ inline void Operators()
    {
        LocalTensor<half> x = A<half>(), y = B<half>(), d = D<half>();
        LocalTensor<half> s0 = d[0], s1 = d[c_.n], s2 = d[2 * c_.n], s3 = d[3 * c_.n];
        s0.SetSize(c_.n), s1.SetSize(c_.n), s2.SetSize(c_.n), s3.SetSize(c_.n);
        x.SetSize(c_.n), y.SetSize(c_.n);
        s0 = x + y;
        s1 = x * y;
        s2 = x / y;
        s3 = x - y;
        LocalTensor<uint8_t> bits = D<uint8_t>()[8 * c_.n];
        bits.SetSize(c_.n / 8);
        bits = x < y;
    }

    // x: 128 halves, y: 128 uint32 byte offsets.  out halves: Gather (mask bits: even lanes), CreateVecIndex mask
    // continuous (p0 lanes, 2 repeats from 5), bits (odd lanes); 910B: ShiftLeft / ShiftRight mask forms of int16
    __aicore__ inline void GatherIndexShift()
    {
        LocalTensor<half> d = D<half>(), x = A<half>();
        uint64_t even[2] = {0x5555555555555555ull, 0x5555555555555555ull};
        Gather(d, x, B<uint32_t>(), 0, even, 1, 8);
        LocalTensor<half> idx = d[128];
        CreateVecIndex(idx, (half)5, (uint64_t)c_.p0, 2, 1, 8);
        LocalTensor<int16_t> idx2 = D<int16_t>()[384];
        uint64_t odd[2] = {0xAAAAAAAAAAAAAAAAull, 0xAAAAAAAAAAAAAAAAull};
        CreateVecIndex(idx2, (int16_t)-3, odd, 1, 1, 8);
#if defined(__DAV_C220_VEC__)
        LocalTensor<int16_t> s = A<int16_t>();
        LocalTensor<int16_t> o = D<int16_t>();
        ShiftLeft(o[512], s, (int16_t)3, (uint64_t)128, 1, {1, 1, 8, 8});
        ShiftRight(o[640], s, (int16_t)5, even, 1, {1, 1, 8, 8}, true);
#endif
    }

    // 910B counter mode: p1 repeats of p0 elements each, pattern 7 (all) and pattern 1 (even); rsvdCnt in aux
    __aicore__ inline void GatherMaskCounter()
    {
        uint64_t cnt = 0;
        GatherMask(D<float>(), A<float>(), (uint8_t)7, true, c_.p0, {1, (uint16_t)c_.p1, 8, 0}, cnt);
        auxGm_.SetValue(0, (int64_t)cnt);
        GatherMask(D<float>()[512], A<float>(), (uint8_t)1, true, c_.p0, {1, (uint16_t)c_.p1, 8, 0}, cnt);
        auxGm_.SetValue(1, (int64_t)cnt);
    }

    // Counter mode with the mask set outside the calls (isSetMask false): p0 floats spanning repeats, repeatTime
    // ignored.  out floats: ReduceRepeat<SUM> (a sum per repeat), WholeReduceMax (value, index pairs), from 128
    // BlockReduceSum (8 results a repeat), from 256 PairReduceSum (32 results a repeat).
    __aicore__ inline void ReduceCounter()
    {
        LocalTensor<float> d = D<float>(), a = A<float>();
        SetMaskCount();
        SetVectorMask<float, MaskMode::COUNTER>(0, c_.p0);
        ReduceRepeat<ReduceType::SUM, float, float, false>(d, a, MASK_PLACEHOLDER, 1, 1, 1, 8);
        WholeReduceMax<float, false>(d[64], a, MASK_PLACEHOLDER, 1, 1, 1, 8);
        SetVectorMask<float>(0, c_.p0);
        BlockReduceSum<float, false>(d[128], a, 1, MASK_PLACEHOLDER, 1, 1, 8);
        PairReduceSum<float, false>(d[256], a, 1, MASK_PLACEHOLDER, 1, 1, 8);
        SetMaskNorm();
        ResetMask();
    }

    // counter mode over an n-float source in a buffer of its own: only the p0 counted elements are read (one
    // repeat: 310P's total and 910B's per-repeat count agree); pattern 1, the even elements; rsvdCnt in aux
    __aicore__ inline void GatherMaskSmallSource()
    {
        LocalTensor<float> src = sBuf_.Get<float>();
        DataCopy(src, A<float>(), c_.n);
        PipeBarrier<PIPE_ALL>();
        uint64_t cnt = 0;
        GatherMask(D<float>(), src, (uint8_t)1, true, c_.p0, {1, 1, 8, 0}, cnt);  // LINE:gather-mask-small
        auxGm_.SetValue(0, (int64_t)cnt);
    }

    // a body chosen by __CCE_AICORE__, as CANN's own kernels choose theirs: out = 2x on 220, 3x on 200
    __aicore__ inline void AicoreGuard()
    {
#if __CCE_AICORE__ == 220
        Muls(D<float>(), A<float>(), 2.0f, c_.n);
#elif __CCE_AICORE__ == 200
        Muls(D<float>(), A<float>(), 3.0f, c_.n);
#endif
    }

    // What CANN compiles for the platform but refuses when it runs (ASCENDC_REPORT_NOT_SUPPORT in its dav_m200 /
    // dav_c220 implementation): each is UNSUPPORTED_API at its line, and has no effect.
    __aicore__ inline void RuntimeRefusals()
    {
        LocalTensor<float> d = D<float>(), a = A<float>();
#if defined(__DAV_C220_VEC__)
        Scatter(d, a, B<uint32_t>(), 0, 64);  // LINE:refused-scatter
        float value;
        GetReduceRepeatMaxMinSpr<float>(value);  // LINE:refused-maxmin-value
#else
        SetAtomicMax<float>();                     // LINE:refused-atomic-max
        SetAtomicMin<float>();                     // LINE:refused-atomic-min
        SetPadValue<float>(1.0f);                  // LINE:refused-pad-value
        CrossCoreSetFlag<0x0, PIPE_MTE3>(1);       // LINE:refused-cross-core
        float sum = GetReduceRepeatSumSpr<float>();  // LINE:refused-acc-val
        (void)sum;
        Copy(d, a, (uint64_t)64, 1, {1, 1, 8, 8});  // LINE:refused-copy
        ShiftLeft(D<int16_t>(), A<int16_t>(), (int16_t)1, 128);  // LINE:refused-shift
#endif
    }

    ApiCase c_;
    TPipe pipe_;
    TBuf<TPosition::VECCALC> aBuf_, bBuf_, dBuf_, tBuf_, mBuf_, sBuf_;
    GlobalTensor<uint8_t> xGm_, yGm_, outGm_;
    GlobalTensor<int64_t> auxGm_;
    GlobalTensor<int32_t> wsGm_;
};

extern "C" __global__ __aicore__ void api_kernel(GM_ADDR x, GM_ADDR y, GM_ADDR out, GM_ADDR aux, GM_ADDR ws,
                                                 ApiCase c)
{
    ApiCheck op(x, y, out, aux, ws, c);
    op.Process();
}
