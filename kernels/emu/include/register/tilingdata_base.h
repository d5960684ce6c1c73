// register/tilingdata_base.h — the include of an op_host tiling header (BEGIN_TILING_DATA_DEF, TILING_DATA_FIELD_DEF,
// END_TILING_DATA_DEF, REGISTER_TILING_DATA_CLASS).  In ascemu the macros declare the plain struct CANN's build
// generates for the kernel side (no host setters); they come with kernel_operator.h.
#pragma once

#include "kernel_operator.h"
