// lib/matmul_intf.h — the include of CANN's Matmul high-level API (cann/asc-devkit include/adv_api/matmul/
// matmul_intf.h, installed as lib/matmul_intf.h).  Matmul runs on the cube unit, which ascemu does not model.  A
// vector kernel that includes the header (operator templates often do) compiles; any use of Matmul or
// REGIST_MATMUL_OBJ fails to compile and says why.  The descriptors a shared header may name are declared as CANN
// declares them (CubeFormat, LayoutMode, MatmulType; CFG_NORM / CFG_MDL as bare names), and `matmul::` is AscendC.
#pragma once
#include "kernel_operator.h"

#define ASCEMU_CUBE_REFUSED                                                                                        \
    "Matmul runs on the cube unit, which is outside the emulator: ascemu models the vector unit only, so a kernel " \
    "that includes lib/matmul_intf.h builds only while it does not use Matmul"

namespace AscendC {

enum class CubeFormat { ND = 0, NZ, ZN, ZZ, NN, ND_ALIGN, SCALAR, VECTOR, ROW_MAJOR = ND, COLUMN_MAJOR = 8 };
enum class LayoutMode { NONE = 0, BSNGD, SBNGD, BNGS1S2, NORMAL };

template <TPosition POSITION, CubeFormat FORMAT, typename TYPE, bool ISTRANS = false,
          LayoutMode LAYOUT = LayoutMode::NONE, bool IBSHARE = false, TPosition SRCPOS = TPosition::GM>
struct MatmulType {
    constexpr static TPosition pos = POSITION;
    constexpr static CubeFormat format = FORMAT;
    using T = TYPE;
    constexpr static bool isTrans = ISTRANS;
    constexpr static LayoutMode layout = LAYOUT;
    constexpr static bool ibShare = IBSHARE;
    constexpr static TPosition srcPos = SRCPOS;
};

struct MatmulConfig {};  // CANN's fields configure the cube pipeline: none apply here
inline constexpr MatmulConfig CFG_NORM{};
inline constexpr MatmulConfig CFG_MDL{};

template <class A_TYPE, class B_TYPE, class C_TYPE, class BIAS_TYPE = C_TYPE, const auto& MM_CFG = CFG_NORM,
          class MM_CB = void>
class Matmul {
    static_assert(ascemu::dependent_false_v<A_TYPE>, "AscendC::Matmul: " ASCEMU_CUBE_REFUSED);
};

}  // namespace AscendC

namespace matmul = AscendC;

#define REGIST_MATMUL_OBJ(...) static_assert(false, "REGIST_MATMUL_OBJ: " ASCEMU_CUBE_REFUSED)
#define REGIST_MATMUL_OBJ_STATIC(...) REGIST_MATMUL_OBJ(__VA_ARGS__)
