// Issue 11, the CANN-strict build (tests/realworld/test_rw_apis.py): calls that CANN's compiler rejects for 310P
// (dav-m200) or 910B (dav-c220).  Each function holds one, on the line tagged `// REFUSED:<name>`; the test
// compiles this file for each platform and expects an error at every line the platform refuses, whose message
// names the API and the platform.  -DONLY=<n> keeps function n alone (the BuildError check through emu.load).
#include "kernel_operator.h"
using namespace AscendC;

#ifndef ONLY
#define ONLY 0
#endif
#define CASE(n) (ONLY == 0 || ONLY == (n))

LocalTensor<half> h;
LocalTensor<float> f;
LocalTensor<uint8_t> u8;
LocalTensor<int32_t> i32;
LocalTensor<bfloat16_t> bf;
GlobalTensor<int32_t> g32;
GlobalTensor<half> gh;

#if CASE(1)
void add_of_bytes()
{
    Add(u8, u8, u8, 64);  // REFUSED:add-uint8
}
#endif
#if CASE(2)
void exp_of_int32()
{
    Exp(i32, i32, 64);  // REFUSED:exp-int32
}
#endif
#if CASE(3)
void adds_of_bytes()
{
    Adds(u8, u8, (uint8_t)1, 64);  // REFUSED:adds-uint8
}
#endif
#if CASE(4)
void duplicate_bf16()
{
    Duplicate(bf, bfloat16_t(1.0f), 16);  // REFUSED:duplicate-bf16
}
#endif
#if CASE(5)
void cast_without_implementation()
{
    Cast(h, bf, RoundMode::CAST_NONE, 16);  // REFUSED:cast-bf16-to-half
}
#endif
#if CASE(6)
void cast_float_to_bf16()
{
    Cast(bf, f, RoundMode::CAST_RINT, 16);  // REFUSED:cast-float-to-bf16
}
#endif
#if CASE(7)
void const_mask()
{
    const uint64_t mask[2] = {~0ull, ~0ull};
    Add(h, h, h, mask, 1, {1, 1, 1, 8, 8, 8});  // REFUSED:const-mask
}
#endif
#if CASE(8)
void count_form_with_is_set_mask()
{
    Exp<half, false>(h, h, 128);  // REFUSED:exp-is-set-mask
}
#endif
#if CASE(9)
void data_copy_pad_with_padding_mode()
{
    DataCopyPad<half, PaddingMode::Normal>(h, gh, DataCopyExtParams(1, 64, 0, 0, 0),  // REFUSED:pad-mode
                                           DataCopyPadExtParams<half>(false, 0, 0, (half)0));
}
#endif
#if CASE(10)
void dcci_with_destination()
{
    DataCacheCleanAndInvalid<int32_t, CacheLine::SINGLE_CACHE_LINE, DcciDst::CACHELINE_OUT>(g32);  // REFUSED:dcci-dst
}
#endif
#if CASE(11)
void subs_is_ascend950s()
{
    Subs(f, f, 1.0f, 64);  // REFUSED:subs
}
#endif
#if CASE(12)
void divs_is_ascend950s()
{
    Divs(f, f, 2.0f, 64);  // REFUSED:divs
}
#endif
#if CASE(13)
void copy_count_form()
{
    Copy(f, f, (uint32_t)64);  // REFUSED:copy-count
}
#endif
#if CASE(14)
void scalar_bf16_cast()
{
    bfloat16_t b = Cast(1.5f);  // REFUSED:scalar-bf16
    (void)b;
}
#endif
#if CASE(15)
void reduce_repeat_of_two_types()
{
    ReduceRepeat<ReduceType::SUM, float, half>(f, h, 64, 1, 1, 1, 8);  // REFUSED:reduce-repeat-types
}
#endif
#if CASE(16)
void cross_core_mode_4()
{
    CrossCoreSetFlag<4, PIPE_MTE3>(1);  // REFUSED:cross-core-mode
}
#endif
#if CASE(17)
void interleave_is_ascend950s()
{
    Interleave(f, f, f, f, 64);  // REFUSED:interleave
}
#endif
#if CASE(18)
void scalar_gm_atomic_is_ascend950s()
{
    AtomicAdd((__gm__ int32_t*)g32.GetPhyAddr(), 1);  // REFUSED:atomic-add
}
#endif

extern "C" __global__ __aicore__ void refused(GM_ADDR x) { (void)x; }
