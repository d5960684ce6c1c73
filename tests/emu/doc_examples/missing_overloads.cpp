// Documented call forms of CANN's API pages (docs/doc-examples.md), checked to compile against ascemu; the
// examples whose printed data the data files of this folder re-run are not repeated here.
//
// tests/emu/test_emu_doc_examples.py compiles this file once per platform a probe names (syntax only, 910B by
// default) and attributes g++'s errors to the `// PROBE:<name>` function they fall in: each must compile.  A probe
// tagged `LACKS` is a form ascemu does not provide yet, held as a strict xfail until it does.  The calls are
// written as the pages write them; the tensors are placeholders (nothing here runs).
#include "kernel_operator.h"
using namespace AscendC;

LocalTensor<half> h0, h1, h2;
LocalTensor<float> f0, f1, f2;
LocalTensor<int16_t> s0, s1;
LocalTensor<uint8_t> u8;
LocalTensor<uint32_t> offsets;

void probe_shiftleft_mask_continuous() {  // PROBE:ShiftLeft.mask_continuous
    uint64_t mask = 128;
    int16_t scalar = 2;
    ShiftLeft(s0, s1, scalar, mask, 4, {1, 1, 8, 8});
}
void probe_shiftleft_mask_bits() {  // PROBE:ShiftLeft.mask_bits
    uint64_t mask[2] = {UINT64_MAX, UINT64_MAX};
    int16_t scalar = 2;
    ShiftLeft(s0, s1, scalar, mask, 4, {1, 1, 8, 8});
}
void probe_shiftright_mask_continuous() {  // PROBE:ShiftRight.mask_continuous
    uint64_t mask = 128;
    int16_t scalar = 2;
    ShiftRight(s0, s1, scalar, mask, 4, {1, 1, 8, 8}, false);
}
void probe_shiftright_mask_bits() {  // PROBE:ShiftRight.mask_bits
    uint64_t mask[2] = {UINT64_MAX, UINT64_MAX};
    int16_t scalar = 2;
    ShiftRight(s0, s1, scalar, mask, 4, {1, 1, 8, 8}, false);
}
void probe_createvecindex_mask_continuous() {  // PROBE:CreateVecIndex.mask_continuous
    uint64_t mask = 128;
    CreateVecIndex(s0, (int16_t)0, mask, 1, 1, 8);
}
void probe_createvecindex_mask_bits() {  // PROBE:CreateVecIndex.mask_bits
    uint64_t mask[2] = {UINT64_MAX, UINT64_MAX};
    CreateVecIndex(s0, (int16_t)0, mask, 1, 1, 8);
}
void probe_compare_mask_bits() {  // PROBE:Compare.mask_bits
    uint64_t masks[2] = {858993459, 0};
    Compare(u8, f0, f1, CMPMODE::LE, masks, 1, {1, 1, 1, 1, 8, 8});
}
void probe_compare_mask_continuous() {  // PROBE:Compare.mask_continuous
    uint64_t mask = 28;
    Compare(u8, f0, f1, CMPMODE::LE, mask, 1, {1, 1, 1, 1, 8, 8});
}
void probe_compare_operator() {  // PROBE:Compare.operator
    u8 = f0 < f1;
}
void probe_compares_mask_continuous() {  // PROBE:Compares.mask_continuous
    uint64_t mask = 256 / sizeof(float);
    UnaryRepeatParams repeatParams = {1, 1, 8, 8};
    Compares(u8, f0, 1.0f, CMPMODE::LT, mask, 4, repeatParams);
}
void probe_compares_mask_bits() {  // PROBE:Compares.mask_bits
    uint64_t mask[2] = {UINT64_MAX, 0};
    UnaryRepeatParams repeatParams = {1, 1, 8, 8};
    Compares(u8, f0, 1.0f, CMPMODE::LT, mask, 4, repeatParams);
}
void probe_gather_mask_bits() {  // PROBE:Gather.mask_bits
    uint64_t mask[2] = {0xFFFFFFFFFFFFFFFF, 0xFFFFFFFFFFFFFFFF};
    Gather(h0, h1, offsets, (uint32_t)0, mask, 4, 8);
}
void probe_add_operator() {  // PROBE:Add.operator
    h0 = h1 + h2;
}
void probe_sub_operator() {  // PROBE:Sub.operator
    h0 = h1 - h2;
}
void probe_mul_operator() {  // PROBE:Mul.operator
    h0 = h1 * h2;
}
void probe_div_operator() {  // PROBE:Div.operator
    h0 = h1 / h2;
}
