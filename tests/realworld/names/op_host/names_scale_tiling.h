// Issue 21, an msOpGen-style op_host tiling header (tests/realworld/test_rw_names.py): the tiling class is declared
// inside `namespace optiling` and registered for the op; the kernel never includes this file and names the class
// unqualified, as CANN's operator build lets it (the build re-declares the class at global scope).
#ifndef NAMES_SCALE_TILING_H
#define NAMES_SCALE_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(NamesScaleTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, tileNum);
TILING_DATA_FIELD_DEF(float, scale);
TILING_DATA_FIELD_DEF(float, bias);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(NamesScale, NamesScaleTilingData)
}  // namespace optiling
#endif  // NAMES_SCALE_TILING_H
