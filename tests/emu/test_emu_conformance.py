"""ascemu conformance tests (spec ascendc-emulator.md §9).

One C++ kernel (tests/emu/conf_kernel.cpp) holds all cases; the launch tiling_key selects one.  The kernel is
built once per platform per session (-O1, cached by source digest; the `conf_bins` fixture of conftest.py) and
every launch runs in a subprocess.
Test names carry the §9 case number.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from emu_helpers import (
    EXIT_CLEAN,
    EXIT_DEADLOCK,
    EXIT_ERRORS,
    EXIT_FATAL,
    KERNEL_CONF,
    conf_tiling,
    f16,
    f32,
    marker_line,
    run,
)

KERNEL = KERNEL_CONF
P310, P910B = "ascend310p", "ascend910b"
BOTH = [P310, P910B]
R, F, C, A, Z = range(5)  # kModes order: RINT FLOOR CEIL ROUND TRUNC


@pytest.fixture
def go(conf_bins, tmp_path):
    def _go(platform, key, **kw):
        return run(conf_bins[platform], tmp_path, platform=platform, tiling_key=key, tag=f"k{key}", **kw)

    return _go


def line(tag):
    return marker_line(KERNEL, tag)


def kinds_at(r, kind):
    return sorted(d["line"] for d in r.of(kind))


def h(vals):
    return [int(np.float16(v).view(np.uint16)) for v in vals]


# --------------------------------------------------------------------------------------------- Cast (§4.3-§4.5)
@pytest.mark.parametrize("platform", BOTH)
def test_01_02_cast_f16_s32_doc_modes_and_none_rejected(go, platform):
    r = go(platform, 1)
    o = r.i32()
    expect = {
        R: [1, 2, 2, 2, 2, 3],
        F: [1, 1, 1, 2, 2, 2],
        C: [2, 2, 2, 3, 3, 3],
        A: [1, 2, 2, 2, 3, 3],
        Z: [1, 1, 1, 2, 2, 2],
    }
    for m, e in expect.items():
        assert o[6 * m : 6 * m + 6].tolist() == e, m
    assert o[30:36].tolist() == [-7] * 6  # CAST_NONE: dst unchanged
    assert len(r.of("UNSUPPORTED_CAST_MODE")) == 1 and r.rc == EXIT_ERRORS


@pytest.mark.parametrize("platform", BOTH)
def test_03_cast_f32_s32_2p22_half(go, platform):
    o = go(platform, 3).i32()
    assert o[0:5].tolist() == [2**22, 2**22, 2**22 + 1, 2**22 + 1, 2**22]
    if platform == P910B:
        assert o[5:10].tolist() == [32767] * 5  # float->int16 saturates in every mode
    else:
        assert o[5:10].tolist() == [-7] * 5


@pytest.mark.parametrize("platform", BOTH)
def test_04_cast_f32_f16_modes(go, platform):
    r = go(platform, 4)
    o = r.i32()[:7].tolist()  # R F C A Z ODD NONE
    lo, hi, sentinel = 0x3800, 0x3801, 0x7777
    if platform == P910B:
        assert o == [lo, lo, hi, hi, lo, hi, lo] and r.rc == EXIT_CLEAN
    else:
        assert o == [sentinel] * 5 + [hi, lo]
        assert len(r.of("UNSUPPORTED_CAST_MODE")) == 5


@pytest.mark.parametrize("platform", BOTH)
def test_05_cast_odd_sticky(go, platform):
    # 1.0 exact, 1+2^-11 (half ulp), 1+2^-12 (quarter ulp), 1+2^-10 exact odd, 1+2^-9 exact even
    assert go(platform, 5).i32()[:5].tolist() == [0x3C00, 0x3C01, 0x3C01, 0x3C01, 0x3C02]


@pytest.mark.parametrize("platform", BOTH)
def test_06_cast_f32_f32_integral(go, platform):
    r = go(platform, 6)
    o = f32(r.i32()[:5]).tolist()
    if platform == P910B:
        assert o == [0.0, 0.0, 1.0, 1.0, 0.0]
    else:
        assert o == [-7.0] * 5 and len(r.of("UNSUPPORTED_CAST_PAIR")) == 5


@pytest.mark.parametrize("platform", BOTH)
def test_07_cast_f16_s32_neg1p5(go, platform):
    assert go(platform, 7).i32()[:5].tolist() == [-2, -2, -1, -2, -1]


@pytest.mark.parametrize("platform", BOTH)
def test_08_09_10_cast_f16_to_small_ints(go, platform):
    r = go(platform, 8)
    o = r.i32()
    if platform == P310:
        assert o[0:5].tolist() == [128, -7, -7, -7, -7]  # half->int16: R only
        assert o[5:11].tolist() == [-7, 127, 127, 127, 127, 127]  # half->int8: no R; saturates
        assert o[11:17].tolist() == [77, 1, 2, 2, 1, 2]  # half->uint8 1.75: no R
    else:
        assert o[0:5].tolist() == [128, 127, 128, 128, 127]
        assert o[5:11].tolist() == [127] * 6
        assert o[11:17].tolist() == [2, 1, 2, 2, 1, 2]
    assert o[17] == 0 and r.of("CAST_NEGATIVE_TO_UNSIGNED")


@pytest.mark.parametrize("platform", BOTH)
def test_11_12_13_cast_int_sources(go, platform):
    o = go(platform, 11).i32()
    f16s = f16(o[0:6]).tolist()
    f32s = f32(o[6:12]).tolist()
    if platform == P910B:
        assert f16s == [4096, 4096, 4100, 4100, 4096, 4096]
        assert f32s == [2**25 + 4, 2**25, 2**25 + 4, 2**25 + 4, 2**25, 2**25 + 4]
    else:
        assert o[0:5].tolist() == [0x7777] * 5 and f16s[5] == 4096  # P310: NONE only
        assert f32s[:5] == [-7.0] * 5 and f32s[5] == 2**25 + 4
    assert o[12:14].tolist() == [32767, -32768]


@pytest.mark.parametrize("platform", BOTH)
def test_14_cast_s32_f16_deqscale(go, platform):
    r = go(platform, 14)
    o = r.i32()
    assert f16(o[0:2]).tolist() == [1.0, 256.0]
    assert o[2] == 1  # scale 1.0: [1..256] identity
    assert f16(o[3:6]).tolist() == [0.5, 5.0, 128.0]  # scale 0.5 halves
    assert len(r.of("DEQSCALE_UNSET")) == 1


def test_15_cast_unsupported_pairs_p310(go):
    r = go(P310, 15)
    assert kinds_at(r, "UNSUPPORTED_CAST_PAIR") == [line("15a"), line("15b"), line("15c"), line("15d")]
    r9 = go(P910B, 15)
    assert not r9.of("UNSUPPORTED_CAST_PAIR")


@pytest.mark.parametrize("platform", BOTH)
def test_16_bf16(go, platform):
    r = go(platform, 16)
    o = r.i32()
    if platform == P310:
        assert r.of("UNSUPPORTED_DTYPE") and o[0:5].tolist() == [0x7777] * 5
    else:
        hi, lo = 0x3F01, 0x3F00  # 0.5+2^-8, 0.5
        assert o[0:5].tolist() == [hi, lo, hi, hi, lo]
        assert o[5:10].tolist() == [64, 64, 65, 65, 64]
        assert r.rc == EXIT_CLEAN


@pytest.mark.parametrize("platform", BOTH)
def test_17_18_overflow_modes(go, platform):
    o = go(platform, 17).i32()
    if platform == P310:
        assert o[0:4].tolist() == [0x7BFF, 0xFBFF, 0, 0x7BFF]  # {65504, -65504, 0, 65504}
        assert o[6] == 0x7BFF  # half Add 60000+60000 saturates
    else:
        assert o[0:2].tolist() == [0x7C00, 0xFC00] and np.isnan(f16(o[2]))
        assert o[3] == 0x7C00 and o[6] == 0x7C00
    assert o[4] == 0 and o[5] == 2**31 - 1  # float->int32: NaN -> 0, 3e9 -> INT32_MAX


@pytest.mark.parametrize("platform", BOTH)
def test_19_cast_repeat_geometry(go, platform):
    r = go(platform, 19)
    assert r.i32()[0] == 1  # mask form {mask 64, repeat 8, (1,1,8,4)} == count form
    vec = r.report["trace"]["cores"][0]["vec"]
    cnt = [v for v in vec if v["api"] == "Cast" and v["count"] == 512]
    assert cnt and cnt[0]["repeats"] == 8 and cnt[0]["src"] == "half" and cnt[0]["dst"] == "int32"


# --------------------------------------------------------------------------------------------- DataCopy (§5.3)
@pytest.mark.parametrize("platform", BOTH)
def test_20_datacopy_round_down(go, platform):
    data = np.arange(512, dtype=np.float16)
    r = go(platform, 20, in_bytes=data.tobytes())
    o = r.i32()
    assert f16(o[0]) == 63 and o[1] == 0xFFFF and o[2] == 0xFFFF  # tail is poison
    d = r.of("DATACOPY_ROUNDED")
    assert d and d[0]["details"]["requested"] == 150 and d[0]["details"]["moved"] == 128
    assert r.report["trace"]["cores"][0]["mte2"]["bytes"] == 128


@pytest.mark.parametrize("platform", BOTH)
def test_21_datacopy_params_doc(go, platform):
    data = np.arange(256, dtype=np.int32)
    o = go(platform, 21, in_bytes=data.tobytes()).i32()
    # blockCount 2, blockLen 8 (256 B), dstGap 1: block 1 lands at UB byte 288 (element 72)
    assert o.tolist()[:5] == [0, 63, -1, 64, 127]


@pytest.mark.parametrize("platform", BOTH)
def test_22_datacopypad_platform(go, platform):
    data = bytes(range(256))
    r = go(platform, 22, in_bytes=data)
    o = r.i32()[:15].reshape(3, 5)
    if platform == P310:
        assert len(r.of("UNSUPPORTED_API")) == 2 and (o == 0x11).all()
    else:
        for row in range(3):  # 37-B rows at a 64-B UB pitch, 3 right-pad bytes of 0xAB, rest untouched
            assert o[row].tolist() == [37 * row, 37 * row + 36, 0xAB, 0xAB, 0x11]
        assert r.ws[:74] == data[:74]  # UB->GM packs the 37-B rows back


@pytest.mark.parametrize("platform", BOTH)
def test_23_gm_oob_and_slack(go, platform):
    r = go(platform, 23, in_bytes=bytes(96))  # the 128-B read ends in the 32 B aclrtMalloc adds past ALIGN_UP(96, 32)
    assert kinds_at(r, "GM_SLACK_ACCESS") == [line("23slack")]
    assert kinds_at(r, "GM_OOB") == [line("23oob")]
    assert r.i32()[1] == -1  # past the allocation: poison


# --------------------------------------------------------------------------------------------- UB (§5.2)
@pytest.mark.parametrize("platform", BOTH)
def test_24_ub_capacity(go, platform):
    r = go(platform, 24)
    assert r.i32()[0] == 64  # len 33 occupies 64 B
    assert kinds_at(r, "UB_OVERFLOW") == [line("24")]


@pytest.mark.parametrize("platform", BOTH)
def test_25_ub_buffer_limit(go, platform):
    assert kinds_at(go(platform, 25), "UB_TOO_MANY_BUFFERS") == [line("25")]


def test_26_ub_scratch_conflict_p910b(go):
    assert kinds_at(go(P910B, 26), "UB_SCRATCH_CONFLICT") == [line("26")]
    assert not go(P310, 26).of("UB_SCRATCH_CONFLICT")


@pytest.mark.parametrize("platform", BOTH)
def test_27_ub_misaligned(go, platform):
    r = go(platform, 27)
    assert set(kinds_at(r, "UB_MISALIGNED")) == {line("27")}
    assert {d["details"]["operand"] for d in r.of("UB_MISALIGNED")} == {"dst", "src0", "src1"}


@pytest.mark.parametrize("platform", BOTH)
def test_28_ub_uninit_read(go, platform):
    r = go(platform, 28)
    assert kinds_at(r, "UB_UNINIT_READ") == [line("28")]
    v = f32(r.i32()[0])
    # Exp(poison NaN) = NaN; the P310 saturation mode turns a NaN result into +0 (§4.2)
    assert (v == 0.0) if platform == P310 else np.isnan(v)


@pytest.mark.parametrize("platform", BOTH)
def test_29_que_protocol(go, platform):
    r = go(platform, 29)
    assert kinds_at(r, "QUE_DEQUE_EMPTY") == [line("29deque")]
    assert kinds_at(r, "QUE_DEPTH_EXCEEDED") == [line("29depth")]
    assert kinds_at(r, "QUE_DOUBLE_FREE") == [line("29double")]
    assert line("29uaf") in kinds_at(r, "UB_USE_AFTER_FREE")
    fatal = r.of("QUE_ALLOC_EXHAUSTED")
    assert [d["line"] for d in fatal] == [line("29alloc")] and fatal[0]["severity"] == "fatal"
    assert r.rc == EXIT_FATAL


# --------------------------------------------------------------------------------------------- reductions (§4.7)
@pytest.mark.parametrize("platform", BOTH)
def test_30_reducesum_fp16_saturation_doc(go, platform):
    assert go(platform, 30).i32()[0] == 0x7858  # 35584


@pytest.mark.parametrize("platform", BOTH)
def test_31_reducesum_order(go, platform):
    o = f32(go(platform, 31).i32()[:2]).tolist()
    assert o[0] == (0.0 if platform == P310 else 1.0)  # count form: method 1 vs method 2
    assert o[1] == 0.0  # mask form: method 1 on both


@pytest.mark.parametrize("platform", BOTH)
def test_32_reducesum_tmp_size(go, platform):
    r = go(platform, 32)
    assert f16(r.i32()[0]) == 8320
    if platform == P310:
        assert kinds_at(r, "REDUCE_TMP_TOO_SMALL") == [line("32")]
    else:  # method 2: the doc allows any tmp size
        assert not r.of("REDUCE_TMP_TOO_SMALL")


@pytest.mark.parametrize("platform", BOTH)
def test_33_reducemax_first_index(go, platform):
    o = go(platform, 33).i32()
    assert f16(o[0]) == 7 and o[1] == 1 and o[2] == 5


@pytest.mark.parametrize("platform", BOTH)
def test_34_reducemax_index_bits(go, platform):
    r = go(platform, 34)
    o = r.i32()
    assert o[0] == 0x0072
    assert abs(f32(o[1]) - 6.8e-06) < 1e-7
    assert kinds_at(r, "REDUCE_INDEX_OVERFLOW") == [line("34")]


@pytest.mark.parametrize("platform", BOTH)
def test_35_reducemax_tmp_doc_size(go, platform):
    r = go(platform, 35)  # 8320 halves with index: 176 elements
    assert kinds_at(r, "REDUCE_TMP_TOO_SMALL") == [line("35")]


@pytest.mark.parametrize("platform", BOTH)
def test_36_wholereduce_sum_max(go, platform):
    r = go(platform, 36)
    o = r.i32()
    assert f16(o[0:4]).tolist() == [128, 256, 384, 512]
    assert f16(o[4]) == 3 and o[5] == 0x0034
    assert not r.of("UNSUPPORTED_API")
    if platform == P310:  # the device runs ORDER_ONLY_VALUE as ORDER_INDEX_VALUE: CANN checks the order in debug only
        assert kinds_at(r, "PARAM_RANGE") == [line("36")] and r.of("PARAM_RANGE")[0]["severity"] == "warning"
    else:
        assert not r.of("PARAM_RANGE")


@pytest.mark.parametrize("platform", BOTH)
def test_50_wholereduce_mask_extent(go, platform):
    # WholeReduceSum/Max (and mask-form ReduceMax) size the source from the highest enabled lane (§4.1, §4.7):
    # rows narrower than a repeat are not a UB_TENSOR_OVERRUN; a mask that really reaches past the buffer is.
    r = go(platform, 50)
    o = r.i32()
    assert f32(o[0:4]).tolist() == [45, 55, 65, 75]
    assert f32(o[4:12:2]).tolist() == [9, 10, 11, 12] and o[5:12:2].tolist() == [9] * 4
    assert f32(o[12]) == 12
    assert kinds_at(r, "UB_TENSOR_OVERRUN") == [line("50overrun")]


@pytest.mark.parametrize("platform", BOTH)
def test_37_exp_ln_div_rounding(go, platform):
    n = 16384
    x = np.random.default_rng(37).uniform(-20, 20, n).astype(np.float32)
    r = go(platform, 37, in_bytes=x.tobytes(), out_size=3 * n * 4, tiling=conf_tiling(n))
    y = np.frombuffer(r.out, dtype=np.float32)
    xd = x.astype(np.float64)
    ref_exp = np.exp(xd).astype(np.float32)
    ref_ln = np.log(np.abs(xd)).astype(np.float32)
    ref_div = (xd / np.roll(xd, -8192)).astype(np.float32)
    assert np.array_equal(y[:n], ref_exp)
    assert np.array_equal(y[n : 2 * n], ref_ln)
    assert np.array_equal(y[2 * n :], ref_div)


@pytest.mark.parametrize("platform", BOTH)
def test_38_api_platform_matrix(go, platform):
    r = go(platform, 38)
    if platform == P310:
        assert kinds_at(r, "UNSUPPORTED_API") == [line("38shift"), line("38pad")]
        assert r.i32()[0] == 3
    else:
        assert not r.of("UNSUPPORTED_API") and r.i32()[0] == 6
    assert kinds_at(r, "UNSUPPORTED_DTYPE") == [line("38and")]


# --------------------------------------------------------------------------------------------- atomics (§4.8)
@pytest.mark.parametrize("platform", BOTH)
def test_39_atomic_add_multicore(go, platform):
    r = go(platform, 39, block_dim=8)
    assert np.frombuffer(r.ws[:32], np.float32).tolist() == [8.0] * 8
    cores = r.report["trace"]["cores"]
    assert sum(c["atomic"]["bytes"] for c in cores) == 256
    assert r.rc == EXIT_CLEAN


@pytest.mark.parametrize("platform", BOTH)
def test_40_atomic_types(go, platform):
    r = go(platform, 40)
    if platform == P310:
        assert kinds_at(r, "UNSUPPORTED_ATOMIC_TYPE") == [line("40type")]
    else:
        assert not r.of("UNSUPPORTED_ATOMIC_TYPE")
    assert kinds_at(r, "ATOMIC_TYPE_MISMATCH") == [line("40mismatch")]
    assert kinds_at(r, "ATOMIC_LEFT_ENABLED") == [line("40left")]


# --------------------------------------------------------------------------------------------- multi-core (§6)
@pytest.mark.parametrize("platform", BOTH)
def test_41_gm_write_race(go, platform):
    r = go(platform, 41, block_dim=2)
    races = r.of("GM_WRITE_RACE")
    assert [d["line"] for d in races] == [line("41")] and races[0]["details"]["other_core"] == 0
    clean = go(platform, 41, block_dim=2, tiling=conf_tiling(0, 1))
    assert not clean.of("GM_WRITE_RACE") and clean.rc == EXIT_CLEAN


@pytest.mark.parametrize("platform", BOTH)
@pytest.mark.parametrize("mode", ["serial", "interleave:3", "parallel"])
def test_42_soft_sync_flags(go, platform, mode):
    r = go(platform, 42, block_dim=8, mode=mode)
    assert r.rc == EXIT_CLEAN, r.diags
    assert r.i32()[512:520].tolist() == [20, 30, 40, 50, 60, 70, 80, 10]
    assert not (r.kinds() & {"GM_WRITE_RACE", "GM_RW_RACE", "DEADLOCK"})


@pytest.mark.parametrize("platform", BOTH)
def test_42b_dcache_stale_poll(go, platform):
    # §5.1 / §9 case 42, second half: a GetValue poll without DataCacheCleanAndInvalid hits a stale DCache line.
    r = go(platform, 51, block_dim=2)
    stale = r.of("DCACHE_STALE_READ")
    assert [(d["core"], d["line"]) for d in stale] == [(0, line("42stale"))] and r.rc == EXIT_ERRORS
    assert stale[0]["details"]["cached_bits"] == 0 and stale[0]["details"]["gm_bits"] == 1
    assert r.i32()[:2].tolist() == [1, 101]  # core 0 saw 0 before the poll, core 1 saw core 0's flag
    clean = go(platform, 51, block_dim=2, tiling=conf_tiling(0, 1))
    assert not clean.of("DCACHE_STALE_READ") and clean.rc == EXIT_CLEAN
    assert sum(c["scalar"]["dcci"] for c in clean.report["trace"]["cores"]) >= 4
    assert all(c["scalar"]["dcache_miss_lines"] >= 2 for c in clean.report["trace"]["cores"])


@pytest.mark.parametrize("platform", BOTH)
def test_43_syncall_soft_and_hard(go, platform):
    soft = go(platform, 43, block_dim=4)
    assert soft.rc == EXIT_CLEAN and soft.i32()[16:20].tolist() == [406] * 4
    hard = go(platform, 43, block_dim=4, tiling=conf_tiling(0, 1))
    assert hard.i32()[16:20].tolist() == [406] * 4
    if platform == P310:
        assert set(kinds_at(hard, "UNSUPPORTED_API")) == {line("43hard")}
    else:
        assert not hard.of("UNSUPPORTED_API")
    dirty = go(platform, 43, block_dim=4, ws_fill=1)  # workspace not zeroed
    assert dirty.of("SYNC_WORKSPACE")


@pytest.mark.parametrize("platform", BOTH)
def test_44_deadlock_and_blockdim(go, platform):
    r = go(platform, 44, block_dim=2, timeout_s=20)
    assert r.rc == EXIT_DEADLOCK
    dl = r.of("DEADLOCK")
    assert dl and dl[0]["line"] == line("44")
    assert {c["state"] for c in dl[0]["details"]["cores"]} == {"wait"}
    assert r.report["wall_time_s"] < 5
    if platform == P310:
        b = go(platform, 44, block_dim=16, tiling=conf_tiling(0, 1))
        assert set(kinds_at(b, "SYNC_BLOCKDIM_EXCEEDS_CORES")) == {line("44blockdim")}


@pytest.mark.parametrize("platform", BOTH)
def test_45_determinism(go, platform):
    runs = [go(platform, 42, block_dim=8) for _ in range(2)] + [go(platform, 39, block_dim=8) for _ in range(2)]

    def strip(rep):
        rep = dict(rep)
        rep.pop("wall_time_s")
        for d in rep["diagnostics"]:
            d.pop("details", None)
        return json.dumps(rep, sort_keys=True)

    assert runs[0].out == runs[1].out and strip(runs[0].report) == strip(runs[1].report)
    assert runs[2].ws == runs[3].ws and strip(runs[2].report) == strip(runs[3].report)
    for seed in (1, 2):  # interleave seeds: integer-valued atomics are order-independent
        assert go(platform, 39, block_dim=8, mode=f"interleave:{seed}").ws[:32] == runs[2].ws[:32]


@pytest.mark.parametrize("platform", BOTH)
def test_46_sync_misuse(go, platform):
    r = go(platform, 46)
    assert kinds_at(r, "PIPE_S_BARRIER") == [line("46pipes")]
    assert kinds_at(r, "PARAM_RANGE") == [line("46range")]
    assert kinds_at(r, "EVENT_WAIT_WITHOUT_SET") == [line("46wait")]
    assert r.rc == EXIT_FATAL


@pytest.mark.parametrize("platform", BOTH)
def test_48_sysvars_debug(go, platform):
    r = go(platform, 48, block_dim=4, ws_size=64)
    o = r.i32()
    assert o[0:4].tolist() == [0, 1, 2, 3]
    assert o[32] == (2 << 20 if platform == P310 else 16 << 20)
    assert o[33] == 4 and o[34] == (262144 if platform == P310 else 196608)
    assert [p["text"] for p in r.report["printf"]] == [f"hello from core {i} of 4\n" for i in range(4)]


def test_49_trace_cast_kernel(go):
    n = 8 * 2048
    x = (np.arange(n) % 1000).astype(np.float16)
    r = go(P310, 49, block_dim=8, in_bytes=x.tobytes(), out_size=n * 4)
    assert np.array_equal(np.frombuffer(r.out, np.float32), x.astype(np.float32))
    cores = r.report["trace"]["cores"]
    assert sum(c["mte2"]["bytes"] for c in cores) == 2 * n
    assert sum(c["mte3"]["bytes"] for c in cores) == 4 * n
    assert sum(v["repeats"] for c in cores for v in c["vec"] if v["api"] == "Cast") == n // 64
    assert r.rc == EXIT_CLEAN and not r.report["output_unwritten"]["1"]
    # idiomatic TQue CopyIn/Compute/CopyOut: the queue flags (MTE2_V, V_MTE3) order every access (§5.5)
    assert not (r.kinds() & {"PIPE_HAZARD", "MTE_OVERLAP_NO_BARRIER"})
