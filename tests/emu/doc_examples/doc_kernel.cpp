// The call examples of CANN's Ascend C API pages, re-enacted on ascemu (tests/emu/test_emu_doc_examples.py).
//
// One entry runs one documented call, chosen by the DocCall passed as tiling: the host fills src0/src1/src2
// with the page's input data and dst with the page's initial dst (or a sentinel, so lanes the page marks
// "undefined" can be seen untouched).  The harness moves the bytes GM -> UB, makes the call exactly as the page
// writes it (parameters from DocCall), and moves dst back.  Only the dtypes a page uses are instantiated:
// CANN rejects other dtypes at compile time, and so may ascemu.
#include "kernel_operator.h"
using namespace AscendC;

// Keep in sync with DocCall in tests/emu/test_emu_doc_examples.py (ctypes, same field order).
struct DocCall {
    char api[24];
    char form[24];
    int32_t dtype;      // CODE_* below (not DT_*: kernel_operator.h defines those as macros, as CANN does)
    int32_t bytes[4];   // GM bytes of src0, src1, src2, dst (multiples of 32)
    uint64_t mask[2];   // mask[0] is the continuous-mode mask; both words are the bit-mode mask
    int32_t repeat;
    int32_t stride[6];  // repeat parameters in the order the page's brace list gives them
    int32_t count;
    int32_t mode;       // RoundMode / CMPMODE / SELMODE / a flag, per API
    double scalar;
};

enum : int32_t { CODE_HALF = 0, CODE_FLOAT, CODE_INT16, CODE_UINT16, CODE_INT32, CODE_UINT32 };

constexpr uint32_t kBufBytes = 32 * 1024;  // the largest example (ReduceSum, 8320 halves) fits with room

namespace doc {

inline bool is(const char* a, const char* b) {
    while (*a && *a == *b) ++a, ++b;
    return *a == *b;
}

struct Tensors {
    LocalTensor<uint8_t> src0, src1, src2, dst, tmp;
    GlobalTensor<uint64_t> auxGm;  // scalar results of a call (GatherMask's rsvdCnt)
};

template <class T>
LocalTensor<T> as(const LocalTensor<uint8_t>& t) {
    return t.ReinterpretCast<T>();
}

template <class T>
constexpr int32_t dtype_code_v = std::is_same_v<T, half>       ? CODE_HALF
                                 : std::is_same_v<T, float>    ? CODE_FLOAT
                                 : std::is_same_v<T, int16_t>  ? CODE_INT16
                                 : std::is_same_v<T, uint16_t> ? CODE_UINT16
                                 : std::is_same_v<T, int32_t>  ? CODE_INT32
                                                               : CODE_UINT32;

// Calls f(T{}) for the DocCall dtype when it is one of Ts; false when the page uses no such dtype here.
template <class... Ts, class F>
bool with_dtype(int32_t code, F&& f) {
    bool done = false;
    auto one = [&](auto tag) {
        if (!done && dtype_code_v<decltype(tag)> == code) {
            f(tag);
            done = true;
        }
    };
    (one(Ts{}), ...);
    return done;
}

inline BinaryRepeatParams binary_params(const DocCall& c) {
    return BinaryRepeatParams(c.stride[0], c.stride[1], c.stride[2], c.stride[3], c.stride[4], c.stride[5]);
}
inline UnaryRepeatParams unary_params(const DocCall& c) {
    return UnaryRepeatParams(c.stride[0], c.stride[1], c.stride[2], c.stride[3]);
}

// ------------------------------------------------------------------ Add/Sub/Mul/Div/Max/Min/And/Or
// The three call forms every binary page shows: mask continuous, mask bit-wise, first `count` elements.
#define DOC_BINARY(API, ...)                                                                              \
    if (is(c.api, #API))                                                                                  \
        return with_dtype<__VA_ARGS__>(c.dtype, [&](auto tag) {                                           \
            using T = decltype(tag);                                                                      \
            if (is(c.form, "mask_continuous"))                                                            \
                API(as<T>(t.dst), as<T>(t.src0), as<T>(t.src1), c.mask[0], c.repeat, binary_params(c));   \
            else if (is(c.form, "mask_bits")) {                                                           \
                uint64_t mask[2] = {c.mask[0], c.mask[1]};                                                \
                API(as<T>(t.dst), as<T>(t.src0), as<T>(t.src1), mask, c.repeat, binary_params(c));        \
            } else                                                                                        \
                API(as<T>(t.dst), as<T>(t.src0), as<T>(t.src1), c.count);                                 \
        });

inline bool binary(const DocCall& c, Tensors& t) {
    DOC_BINARY(Add, half, int16_t)
    DOC_BINARY(Sub, half, int16_t)
    DOC_BINARY(Mul, half, int16_t)
    DOC_BINARY(Div, half)
    DOC_BINARY(Max, half, int16_t)
    DOC_BINARY(Min, half, int16_t)
    DOC_BINARY(And, int16_t)
    DOC_BINARY(Or, int16_t)
    return false;
}
#undef DOC_BINARY

// ------------------------------------------------------------------ Abs/Exp/Ln/Sqrt/Reciprocal/Rsqrt/Relu/Not
#define DOC_UNARY(API, ...)                                                                         \
    if (is(c.api, #API))                                                                            \
        return with_dtype<__VA_ARGS__>(c.dtype, [&](auto tag) {                                     \
            using T = decltype(tag);                                                                \
            if (is(c.form, "mask_continuous"))                                                      \
                API(as<T>(t.dst), as<T>(t.src0), c.mask[0], c.repeat, unary_params(c));             \
            else if (is(c.form, "mask_bits")) {                                                     \
                uint64_t mask[2] = {c.mask[0], c.mask[1]};                                          \
                API(as<T>(t.dst), as<T>(t.src0), mask, c.repeat, unary_params(c));                  \
            } else                                                                                  \
                API(as<T>(t.dst), as<T>(t.src0), c.count);                                          \
        });

inline bool unary(const DocCall& c, Tensors& t) {
    DOC_UNARY(Abs, half)
    DOC_UNARY(Exp, half)
    DOC_UNARY(Ln, half, float)  // the page's call is half, its printed data float (docs/doc-examples.md)
    DOC_UNARY(Sqrt, half)
    DOC_UNARY(Reciprocal, half)
    DOC_UNARY(Rsqrt, half)
    DOC_UNARY(Relu, half)
    DOC_UNARY(Not, int16_t)
    return false;
}
#undef DOC_UNARY

// ------------------------------------------------------------------ Adds/Muls/Maxs/Mins (+ ShiftLeft/Right)
#define DOC_SCALAR(API, ...)                                                                          \
    if (is(c.api, #API))                                                                              \
        return with_dtype<__VA_ARGS__>(c.dtype, [&](auto tag) {                                       \
            using T = decltype(tag);                                                                  \
            T scalar = static_cast<T>(c.scalar);                                                      \
            if (is(c.form, "mask_continuous"))                                                        \
                API(as<T>(t.dst), as<T>(t.src0), scalar, c.mask[0], c.repeat, unary_params(c));       \
            else if (is(c.form, "mask_bits")) {                                                       \
                uint64_t mask[2] = {c.mask[0], c.mask[1]};                                            \
                API(as<T>(t.dst), as<T>(t.src0), scalar, mask, c.repeat, unary_params(c));            \
            } else                                                                                    \
                API(as<T>(t.dst), as<T>(t.src0), scalar, c.count);                                    \
        });

inline bool scalar(const DocCall& c, Tensors& t) {
    DOC_SCALAR(Adds, int16_t)
    DOC_SCALAR(Muls, int16_t)
    DOC_SCALAR(Maxs, int16_t)
    DOC_SCALAR(Mins, int16_t)
#if defined(__DAV_C220_VEC__)  // the pages list ShiftLeft/ShiftRight for Atlas A2, not for the 310P AI Core
    // ascemu has only the count form of the shifts (docs/doc-examples.md)
    if (is(c.api, "ShiftLeft") && is(c.form, "count")) {
        ShiftLeft(as<int16_t>(t.dst), as<int16_t>(t.src0), static_cast<int16_t>(c.scalar), c.count);
        return true;
    }
    if (is(c.api, "ShiftRight") && is(c.form, "count")) {
        ShiftRight(as<int16_t>(t.dst), as<int16_t>(t.src0), static_cast<int16_t>(c.scalar), c.count);
        return true;
    }
#endif
    return false;
}
#undef DOC_SCALAR

// ------------------------------------------------------------------ Duplicate / Brcb / CreateVecIndex
inline bool fill(const DocCall& c, Tensors& t) {
    if (is(c.api, "Duplicate")) {
        half value = static_cast<half>(static_cast<float>(c.scalar));
        LocalTensor<half> dst = as<half>(t.dst);
        if (is(c.form, "mask_continuous"))
            Duplicate(dst, value, c.mask[0], c.repeat, c.stride[0], c.stride[1]);
        else if (is(c.form, "mask_bits")) {
            uint64_t mask[2] = {c.mask[0], c.mask[1]};
            Duplicate(dst, value, mask, c.repeat, c.stride[0], c.stride[1]);
        } else
            Duplicate<half>(dst, value, c.count);
        return true;
    }
    if (is(c.api, "Brcb")) {
        Brcb(as<half>(t.dst), as<half>(t.src0), c.repeat, {static_cast<uint16_t>(c.stride[0]),
                                                            static_cast<uint16_t>(c.stride[1])});
        return true;
    }
    if (is(c.api, "CreateVecIndex")) {  // ascemu has only the count form
        CreateVecIndex(as<int16_t>(t.dst), (int16_t)0, c.count);
        return true;
    }
    return false;
}

// ------------------------------------------------------------------ Cast (half -> int32_t)
inline bool cast(const DocCall& c, Tensors& t) {
    if (!is(c.api, "Cast")) return false;
    RoundMode mode = static_cast<RoundMode>(c.mode);
    LocalTensor<int32_t> dst = as<int32_t>(t.dst);
    LocalTensor<half> src = as<half>(t.src0);
    if (is(c.form, "mask_continuous"))
        Cast(dst, src, mode, c.mask[0], c.repeat, unary_params(c));
    else if (is(c.form, "mask_bits")) {
        uint64_t mask[2] = {c.mask[0], c.mask[1]};
        Cast(dst, src, mode, mask, c.repeat, unary_params(c));
    } else
        Cast(dst, src, mode, c.count);
    return true;
}

// ------------------------------------------------------------------ Compare / Compares / Select (float)
inline bool compare_select(const DocCall& c, Tensors& t) {
    if (is(c.api, "Compare")) {
        if (is(c.form, "result_in_cmpmask")) {  // the result stays in CMPMASK; the page prints the register
            Compare(as<float>(t.src0), as<float>(t.src1), static_cast<CMPMODE>(c.mode), c.mask[0], binary_params(c));
            GetCmpMask(t.dst);
        } else if (is(c.form, "result_in_cmpmask_bits")) {
            uint64_t mask[2] = {c.mask[0], c.mask[1]};
            Compare(as<float>(t.src0), as<float>(t.src1), static_cast<CMPMODE>(c.mode), mask, binary_params(c));
            GetCmpMask(t.dst);
        } else
            Compare(t.dst, as<float>(t.src0), as<float>(t.src1), static_cast<CMPMODE>(c.mode), c.count);
        return true;
    }
    if (is(c.api, "Compares")) {
        // the page's scalar is element 0 of its src1 tensor
        float src1Scalar = as<float>(t.src1).GetValue(0);
        Compares(t.dst, as<float>(t.src0), src1Scalar, static_cast<CMPMODE>(c.mode), c.count);
        return true;
    }
    if (is(c.api, "Select")) {
        SELMODE mode = static_cast<SELMODE>(c.mode);
        if (is(c.form, "mask_continuous"))
            Select(as<float>(t.dst), t.src2, as<float>(t.src0), as<float>(t.src1), mode, c.mask[0], c.repeat,
                   binary_params(c));
        else if (is(c.form, "mask_bits")) {
            uint64_t mask[2] = {c.mask[0], c.mask[1]};
            Select(as<float>(t.dst), t.src2, as<float>(t.src0), as<float>(t.src1), mode, mask, c.repeat,
                   binary_params(c));
        } else if (mode == SELMODE::VSEL_TENSOR_SCALAR_MODE)
            Select(as<float>(t.dst), t.src2, as<float>(t.src0), static_cast<float>(c.scalar), mode, c.count);
        else
            Select(as<float>(t.dst), t.src2, as<float>(t.src0), as<float>(t.src1), mode, c.count);
        return true;
    }
    return false;
}

// ------------------------------------------------------------------ Gather (half) / GatherMask
inline bool gather(const DocCall& c, Tensors& t) {
    if (is(c.api, "Gather")) {
        LocalTensor<half> dst = as<half>(t.dst), src = as<half>(t.src0);
        if (is(c.form, "mask_continuous"))
            Gather(dst, src, as<uint32_t>(t.src1), (uint32_t)0, c.mask[0], c.repeat, c.stride[0]);
        else
            Gather(dst, src, as<uint32_t>(t.src1), (uint32_t)0, (uint32_t)c.count);
        return true;
    }
    if (is(c.api, "GatherMask"))
        return with_dtype<uint16_t, uint32_t>(c.dtype, [&](auto tag) {
            using T = decltype(tag);
            // the 2026-07 page gathers in place (dst is src0); the 2026-05 one into a separate dst
            uint64_t rsvdCnt = 0;
            LocalTensor<T> src0 = as<T>(t.src0);
            LocalTensor<T> dst = is(c.form, "in_place") ? src0 : as<T>(t.dst);
            GatherMask(dst, src0, static_cast<uint8_t>(c.mode), false, (uint32_t)c.mask[0],
                       {static_cast<uint8_t>(c.stride[0]), static_cast<uint16_t>(c.stride[1]),
                        static_cast<uint16_t>(c.stride[2]), static_cast<uint8_t>(c.stride[3])},
                       rsvdCnt);
            if (is(c.form, "in_place")) {
                PipeBarrier<PIPE_ALL>();
                DataCopy(t.dst, t.src0, (uint32_t)c.bytes[3]);
            }
            t.auxGm.SetValue(0, rsvdCnt);
        });
    return false;
}

// ------------------------------------------------------------------ ReduceSum / ReduceMax / WholeReduce* (half)
inline bool reduce(const DocCall& c, Tensors& t) {
    LocalTensor<half> dst = as<half>(t.dst), src = as<half>(t.src0), tmp = as<half>(t.tmp);
    bool calIndex = c.mode != 0;
    if (is(c.api, "ReduceSum")) {
        if (is(c.form, "mask_continuous"))
            ReduceSum<half>(dst, src, tmp, (int32_t)c.mask[0], c.repeat, c.stride[0]);
        else if (is(c.form, "mask_bits")) {
            uint64_t mask[2] = {c.mask[0], c.mask[1]};
            ReduceSum<half>(dst, src, tmp, mask, c.repeat, c.stride[0]);
        } else
            ReduceSum<half>(dst, src, tmp, c.count);
        return true;
    }
    if (is(c.api, "ReduceMax")) {
        if (is(c.form, "mask_continuous"))
            ReduceMax<half>(dst, src, tmp, (int32_t)c.mask[0], c.repeat, c.stride[0], calIndex);
        else if (is(c.form, "mask_bits")) {
            uint64_t mask[2] = {c.mask[0], c.mask[1]};
            ReduceMax<half>(dst, src, tmp, mask, c.repeat, c.stride[0], calIndex);
        } else
            ReduceMax<half>(dst, src, tmp, c.count, calIndex);
        return true;
    }
    if (is(c.api, "WholeReduceSum")) {
        WholeReduceSum<half>(dst, src, (int32_t)c.mask[0], c.repeat, c.stride[0], c.stride[1], c.stride[2]);
        return true;
    }
    if (is(c.api, "WholeReduceMax")) {
        if (is(c.form, "mask_bits")) {
            uint64_t mask[2] = {c.mask[0], c.mask[1]};
            WholeReduceMax<half>(dst, src, mask, c.repeat, c.stride[0], c.stride[1], c.stride[2]);
        } else
            WholeReduceMax<half>(dst, src, (int32_t)c.mask[0], c.repeat, c.stride[0], c.stride[1], c.stride[2]);
        return true;
    }
    return false;
}

// ------------------------------------------------------------------ DataCopy / DataCopyPad (half)
// These calls move data themselves: some leave dst in UB for the harness to copy out, some write GM directly.
enum class Moved { Nothing, DstInUb, DstInGm };

inline Moved copy(const DocCall& c, Tensors& t, GlobalTensor<half> src0Gm, GlobalTensor<half> dstGm) {
    if (is(c.api, "DataCopy")) {
        LocalTensor<half> local = as<half>(t.dst);
        if (is(c.form, "gm_to_ub_count")) {
            DataCopy(local, src0Gm, c.count);
        } else if (is(c.form, "gm_to_ub_params")) {
            DataCopyParams p;
            p.blockCount = c.stride[0], p.blockLen = c.stride[1], p.srcGap = c.stride[2], p.dstGap = c.stride[3];
            DataCopy(local, src0Gm, p);
        } else if (is(c.form, "ub_to_ub_count")) {
            DataCopy(local, as<half>(t.src0), c.count);
        } else if (is(c.form, "ub_to_gm_count")) {
            DataCopy(dstGm, as<half>(t.src0), c.count);
            return Moved::DstInGm;
        } else if (is(c.form, "ub_to_gm_params")) {
            DataCopyParams p;
            p.blockCount = c.stride[0], p.blockLen = c.stride[1], p.srcGap = c.stride[2], p.dstGap = c.stride[3];
            DataCopy(dstGm, as<half>(t.src0), p);
            return Moved::DstInGm;
        }
        return Moved::DstInUb;
    }
#if defined(__DAV_C220_VEC__)  // the page lists DataCopyPad for Atlas A2, not for the 310P AI Core
    if (is(c.api, "DataCopyPad")) {
        // GM -> UB with right padding, Adds 0 as the page's compute step, UB -> GM of the unpadded length
        LocalTensor<half> in = as<half>(t.src1), out = as<half>(t.dst);
        DataCopyExtParams copyParams{1, (uint32_t)(c.count * sizeof(half)), 0, 0, 0};
        DataCopyPadExtParams<half> padParams{true, 0, static_cast<uint8_t>(c.stride[0]), 0};
        DataCopyPad(in, src0Gm, copyParams, padParams);
        PipeBarrier<PIPE_ALL>();
        Adds(out, in, static_cast<half>(0), c.count);
        PipeBarrier<PIPE_ALL>();
        DataCopyPad(dstGm, out, copyParams);
        return Moved::DstInGm;
    }
#endif
    return Moved::Nothing;
}

// ------------------------------------------------------------------ LocalTensor / GlobalTensor members
inline bool tensors(const DocCall& c, Tensors& t, GM_ADDR src0) {
    if (is(c.api, "LocalTensor")) {
        if (is(c.form, "operator[]"))  // the page's Add on views 16 elements in
            return with_dtype<half, int16_t>(c.dtype, [&](auto tag) {
                using T = decltype(tag);
                LocalTensor<T> outputLocal = as<T>(t.dst), inputLocal = as<T>(t.src0), inputLocal2 = as<T>(t.src1);
                Add(outputLocal[16], inputLocal[16], inputLocal2[16], c.count);
            });
        if (is(c.form, "operator()")) {
            LocalTensor<int32_t> inputLocal = as<int32_t>(t.dst);
            DataCopy(inputLocal, as<int32_t>(t.src0), (uint32_t)(c.bytes[0] / sizeof(int32_t)));
            PipeBarrier<PIPE_ALL>();
            inputLocal(2) = 200;
            int32_t x = inputLocal(2);
            t.auxGm.SetValue(0, (uint64_t)x);
            return true;
        }
        if (is(c.form, "ReinterpretCast")) {
            LocalTensor<int32_t> inputLocal = as<int32_t>(t.tmp);
            for (int32_t i = 0; i < 16; ++i) inputLocal.SetValue(i, i);
            LocalTensor<int16_t> interpreTensor = inputLocal.ReinterpretCast<int16_t>();
            LocalTensor<int16_t> out = as<int16_t>(t.dst);
            for (int32_t i = 0; i < 32; ++i) out.SetValue(i, interpreTensor.GetValue(i));
            return true;
        }
    }
    if (is(c.api, "GlobalTensor")) {
        if (is(c.form, "operator[]")) {
            GlobalTensor<int32_t> aGlobal;
            aGlobal.SetGlobalBuffer((__gm__ int32_t*)src0, 100);
            auto gmA = aGlobal[4];
            LocalTensor<int32_t> out = as<int32_t>(t.dst);
            for (int32_t i = 0; i < 96; ++i) out.SetValue(i, gmA.GetValue(i));
            return true;
        }
        if (is(c.form, "GetValue")) {
            GlobalTensor<uint32_t> tiling_global;
            tiling_global.SetGlobalBuffer(reinterpret_cast<__gm__ uint32_t*>(src0), 16);
            const uint16_t C1 = (uint16_t)tiling_global.GetValue(0);
            const uint16_t H = (uint16_t)tiling_global(1);
            LocalTensor<uint16_t> out = as<uint16_t>(t.dst);
            out.SetValue(0, C1);
            out.SetValue(1, H);
            return true;
        }
    }
    return false;
}

// ------------------------------------------------------------- SetAtomicMax / SetAtomicMin (half, one input a core)
// Writes dst in GM itself.  The pages' cores copy their own input, meet at SyncAll, then copy out atomically.
inline bool atomic(const DocCall& c, Tensors& t, GM_ADDR src0, GM_ADDR dst) {
#if defined(__DAV_C220_VEC__)  // the pages list Atlas A2, not the 310P AI Core
    if (!is(c.api, "SetAtomicMax") && !is(c.api, "SetAtomicMin")) return false;
    GlobalTensor<half> srcGlobal, dstGlobal;
    srcGlobal.SetGlobalBuffer((__gm__ half*)src0 + GetBlockIdx() * c.count, c.count);
    dstGlobal.SetGlobalBuffer((__gm__ half*)dst, c.count);
    LocalTensor<half> srcLocal = as<half>(t.src1);
    DisableDmaAtomic();
    DataCopy(srcLocal, srcGlobal, c.count);
    SyncAll();
    PipeBarrier<PIPE_ALL>();
    if (is(c.api, "SetAtomicMax"))
        SetAtomicMax<half>();
    else
        SetAtomicMin<half>();
    DataCopy(dstGlobal, srcLocal, c.count);
    DisableDmaAtomic();
    return true;
#else
    (void)c, (void)t, (void)src0, (void)dst;
    return false;
#endif
}

}  // namespace doc

extern "C" __global__ __aicore__ void doc_example(GM_ADDR src0, GM_ADDR src1, GM_ADDR src2, GM_ADDR dst, GM_ADDR aux,
                                                  DocCall call) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf[5];
    for (auto& b : buf) pipe.InitBuffer(b, kBufBytes);
    doc::Tensors t{buf[0].Get<uint8_t>(), buf[1].Get<uint8_t>(), buf[2].Get<uint8_t>(), buf[3].Get<uint8_t>(),
                   buf[4].Get<uint8_t>(), {}};
    GlobalTensor<uint8_t> gm[4];
    GM_ADDR addr[4] = {src0, src1, src2, dst};
    LocalTensor<uint8_t> local[4] = {t.src0, t.src1, t.src2, t.dst};
    for (int i = 0; i < 4; ++i) {
        gm[i].SetGlobalBuffer((__gm__ uint8_t*)addr[i], call.bytes[i]);
        if (call.bytes[i] > 0) DataCopy(local[i], gm[i], (uint32_t)call.bytes[i]);
    }
    t.auxGm.SetGlobalBuffer((__gm__ uint64_t*)aux, 4);
    GlobalTensor<half> src0Half, dstHalf;
    src0Half.SetGlobalBuffer((__gm__ half*)src0, call.bytes[0] / sizeof(half));
    dstHalf.SetGlobalBuffer((__gm__ half*)dst, call.bytes[3] / sizeof(half));
    PipeBarrier<PIPE_ALL>();

    if (doc::atomic(call, t, src0, dst)) return;
    doc::Moved moved = doc::copy(call, t, src0Half, dstHalf);
    if (moved == doc::Moved::DstInGm) return;
    bool known = moved == doc::Moved::DstInUb || doc::binary(call, t) || doc::unary(call, t) ||
                 doc::scalar(call, t) || doc::fill(call, t) || doc::cast(call, t) || doc::compare_select(call, t) ||
                 doc::gather(call, t) || doc::reduce(call, t) || doc::tensors(call, t, src0);
    if (!known) {
        printf("doc_example: no documented call %s/%s for dtype %d on this platform\n", call.api, call.form,
               call.dtype);
        trap();
    }
    PipeBarrier<PIPE_ALL>();
    DataCopy(gm[3], t.dst, (uint32_t)call.bytes[3]);
}
