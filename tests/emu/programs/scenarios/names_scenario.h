// The scenario of cann_names.asc, chosen on the command line as CANN's multi-scenario samples do
// (`-DSCENARIO_NUM=2`); this folder reaches the program only through an include option (`-I`).
#pragma once
#include <cstdint>

#if !defined(SCENARIO_NUM)
#error "build cann_names.asc with -DSCENARIO_NUM=1 or -DSCENARIO_NUM=2"
#elif SCENARIO_NUM == 1
constexpr float SCENARIO_FILL = 1.5f;
constexpr uint32_t SCENARIO_SCALE = 2;
constexpr bool SCENARIO_BY_INIT = false;  // AscendC::Fill
#elif SCENARIO_NUM == 2
constexpr float SCENARIO_FILL = -0.25f;
constexpr uint32_t SCENARIO_SCALE = 3;
constexpr bool SCENARIO_BY_INIT = true;  // AscendC::InitGlobalMemory, Fill's earlier name
#else
#error "SCENARIO_NUM must be 1 or 2"
#endif
