"""EmbeddingDenseGrad goldens (spec §2) against hand values, slow loop references and np.add.at; inputs (§7)."""

from __future__ import annotations

import numpy as np
import pytest

from workbench.ops.embedding_dense_grad import SPEC
from workbench.ops.embedding_dense_grad.golden import embedding_dense_grad, pytorch_rule
from workbench.planning import pipeline
from workbench.planning.case import Case

X3_IDX = np.array([0, 0, 0, 1, 2, 2, 3, 3, 3, 3, 5, 7, 7, 7, 9, 9], np.int32)


def case(shape, nw, **attrs) -> Case:
    return Case("embedding_dense_grad", ("float32",), shape, attrs={"num_weights": nw, **attrs})


def bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a).view(np.int32)


def loop_reference(grad, idx, nw, pad=-1, scale=False):
    """Independent seed rule: plain Python floats (IEEE double), sequential in input order."""
    d = grad.shape[-1]
    g, k = grad.reshape(-1, d).tolist(), idx.reshape(-1).tolist()
    pad = pad if 0 <= pad < nw else -1
    acc, cnt = [[0.0] * d for _ in range(nw)], [0] * nw
    for i, key in enumerate(k):
        if 0 <= key < nw and key != pad:
            cnt[key] += 1
            acc[key] = [a + b for a, b in zip(acc[key], g[i], strict=True)]
    if scale:
        acc = [[a * (1.0 / c) for a in row] if c >= 2 else row for row, c in zip(acc, cnt, strict=True)]
    with np.errstate(over="ignore"):
        return np.array(acc, np.float64).reshape(nw, d).astype(np.float32)


def loop_pytorch(grad, idx, nw, pad=-1, scale=False):
    """Independent PyTorch rule: float32 scalars, out[k] += g * fl32(1/count_k), sorted (stable) order."""
    d = grad.shape[-1]
    g, k = grad.reshape(-1, d), idx.reshape(-1)
    pad = pad if 0 <= pad < nw else -1
    out = np.zeros((nw, d), np.float32)
    cnt = np.bincount(k[(k >= 0) & (k < nw)], minlength=nw)
    for i in np.argsort(k, kind="stable"):
        key = int(k[i])
        if 0 <= key < nw and key != pad:
            r = np.float32(1.0 / cnt[key]) if scale else np.float32(1.0)
            out[key] = out[key] + g[i] * r
    return out


def spec_reference(grad, idx, nw, pad=-1, scale=False):
    """The spec's §2 np.add.at golden, verbatim (the vectorized one must equal it bit for bit)."""
    d = grad.shape[-1]
    g, k = grad.reshape(-1, d).astype(np.float64), idx.reshape(-1).astype(np.int64)
    pad = pad if 0 <= pad < nw else -1
    v = (k >= 0) & (k < nw) & (k != pad)
    out = np.zeros((nw, d), np.float64)
    np.add.at(out, k[v], g[v])
    if scale:
        cnt = np.bincount(k[v], minlength=nw)
        out *= np.where(cnt >= 2, 1.0 / np.maximum(cnt, 1), 1.0)[:, None]
    with np.errstate(over="ignore", invalid="ignore"):
        return out.astype(np.float32)


def test_x3_numbers():
    g = np.ones((16, 64), np.float32)
    g[11:14, 0] = [0.1, 0.1, 0.3]
    seed = embedding_dense_grad(g, X3_IDX, 10, 3, True)
    torch_rule = pytorch_rule(g, X3_IDX, 10, 3, True)
    assert bits(seed[7, 0]) == bits(np.float32(0.16666667))  # fl(0.5 * fl(1/3)), equal to the float64 golden
    assert bits(torch_rule[7, 0]) == bits(np.float32(0.16666669))  # + 1 ulp (scale per contribution, no FMA)
    assert np.float32(0.16666669) - np.float32(0.16666667) == np.float32(2**-26)
    counts = np.bincount(X3_IDX[X3_IDX != 3], minlength=10)
    assert counts.tolist() == [3, 1, 2, 0, 0, 1, 0, 3, 0, 2]
    assert seed[:, 1].tolist() == [1, 1, 1, 0, 0, 1, 0, 1, 0, 1]  # count-scaled rows of ones, zero rows
    assert not seed[[3, 4, 6, 8]].any() and bits(seed[[3, 4, 6, 8]]).max() == 0  # exactly +0.0
    unscaled = embedding_dense_grad(g, X3_IDX, 10, 3, False)
    assert unscaled[0, 1] == 3 and unscaled[7, 0] == np.float32(0.5) and unscaled[3].max() == 0


@pytest.mark.parametrize("pad", [0, 50, 99, 100, -5, -1])
def test_g12_padding(pad):
    c = case((2048, 64), 100, padding_idx=pad)
    x = pipeline.make_inputs(c, 3, "uniform")
    x["sort_indices"][1020:1030] = 50  # padding inside a run that straddles cores 3 and 4
    out = pipeline.golden(c, x)["out"]
    none = embedding_dense_grad(x["grad"], x["sort_indices"], 100)
    if pad in (100, -5, -1):  # >= num_weights or negative: no padding (DECISION-EDG-2)
        assert np.array_equal(bits(out), bits(none))
    else:
        assert bits(out[pad]).max() == 0 and bits(out[pad]).min() == 0
        keep = np.arange(100) != pad
        assert np.array_equal(bits(out[keep]), bits(none[keep]))


def test_out_of_range_skipped():
    rng = np.random.default_rng(0)
    g = rng.normal(0, 5, (40, 9)).astype(np.float32)
    k = np.sort(rng.integers(-4, 14, 40)).astype(np.int32)
    ok = (k >= 0) & (k < 10)
    assert not ok.all()
    assert np.array_equal(embedding_dense_grad(g, k, 10), embedding_dense_grad(g[ok], k[ok], 10))
    assert np.array_equal(pytorch_rule(g, k, 10, -1, True), pytorch_rule(g[ok], k[ok], 10, -1, True))


def test_nan_inf_propagate():
    c = case((4096, 512), 1000)
    x = pipeline.make_inputs(c, 0, "edges")
    out = pipeline.golden(c, x)["out"]
    k = int(x["sort_indices"][2048])
    assert np.isnan(out[k, 0]) and out[k, 1] == np.inf and out[k, 2] == -np.inf
    g = np.zeros((3, 8), np.float32)
    g[0, 0], g[2, 0] = np.inf, -np.inf
    assert np.isnan(embedding_dense_grad(g, np.array([1, 1, 1]), 2)[1, 0])
    assert np.array_equal(np.isnan(out), np.isnan(spec_reference(x["grad"], x["sort_indices"], 1000)))


def test_g14_power_of_two_counts():
    counts = np.resize([1, 2, 4, 8], 512)
    k = np.repeat(np.arange(512), counts).astype(np.int32)
    rng = np.random.default_rng(14)
    dyadic = (rng.integers(-(2**12), 2**12, (k.size, 128)) / 64).astype(np.float32)  # fp32 sums are exact
    assert np.array_equal(
        bits(embedding_dense_grad(dyadic, k, 512, -1, True)), bits(pytorch_rule(dyadic, k, 512, -1, True))
    )
    g = rng.normal(30, 20, (k.size, 128)).astype(np.float32)
    for rule in (embedding_dense_grad, pytorch_rule):  # a power-of-two scale is exact: it commutes with rounding
        scaled, plain = rule(g, k, 512, -1, True), rule(g, k, 512, -1, False)
        assert np.array_equal(bits(scaled), bits(plain * (np.float32(1) / counts.astype(np.float32))[:, None]))
    few = counts <= 2  # one rounding for <= 2 terms: the fp32 and float64 sums agree bit for bit
    assert np.array_equal(
        bits(embedding_dense_grad(g, k, 512, -1, True)[few]), bits(pytorch_rule(g, k, 512, -1, True)[few])
    )


def test_g15_unique_scale_is_noop():
    c = case((4096, 128), 4096, scale_grad_by_freq=True)
    x = pipeline.make_inputs(c, 0, "unique")
    assert np.array_equal(
        bits(pipeline.golden(c, x)["out"]), bits(pipeline.golden(c.replace(attrs={"num_weights": 4096}), x)["out"])
    )


def test_g18_sparse_rows_exactly_zero():
    c = case((64, 64), 100000)
    x = pipeline.make_inputs(c, 0, "uniform")
    out = pipeline.golden(c, x)["out"]
    assert (bits(out) == 0).all(axis=1).sum() >= 99936


def test_g22_non_contiguous_grad():
    base = np.random.default_rng(2).normal(0, 1, (512, 128)).astype(np.float32)
    k = np.sort(np.random.default_rng(3).integers(0, 50, 512 * 3))[::3].astype(np.int32)
    a = embedding_dense_grad(base[:, ::2], k, 50)
    assert np.array_equal(a, embedding_dense_grad(np.ascontiguousarray(base[:, ::2]), k.copy(), 50))


@pytest.mark.parametrize("seed", range(12))
def test_against_loop_references(seed):
    rng = np.random.default_rng(seed)
    n, d, nw = int(rng.integers(1, 120)), int(rng.choice([1, 3, 8, 13])), int(rng.integers(1, 30))
    g = rng.normal(rng.uniform(-100, 100), rng.uniform(1, 25), (n, d)).astype(np.float32)
    g[rng.random((n, d)) < 0.05] = -0.0
    k = rng.integers(-2, nw + 2, n) if seed % 3 else np.sort(rng.integers(0, nw, n))
    if seed % 4 == 0:
        k[: n // 2 + 1] = k[0]  # a long run (> 32 rows when n is large)
    pad, scale = int(rng.integers(-2, nw + 1)), bool(seed % 2)
    assert np.array_equal(bits(embedding_dense_grad(g, k, nw, pad, scale)), bits(loop_reference(g, k, nw, pad, scale)))
    assert np.array_equal(bits(pytorch_rule(g, k, nw, pad, scale)), bits(loop_pytorch(g, k, nw, pad, scale)))


@pytest.mark.parametrize("dist", ["default", "same", "zipf", "unsorted", "unique"])
@pytest.mark.parametrize("scale", [False, True])
def test_threaded_paths_equal_spec_reference(dist, scale):
    c = case((4096, 256), 3000, scale_grad_by_freq=scale, padding_idx=7)
    x = pipeline.make_inputs(c, 1, dist)
    out = pipeline.golden(c, x)["out"]
    assert np.array_equal(bits(out), bits(spec_reference(x["grad"], x["sort_indices"], 3000, 7, scale)))


# -- inputs --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dist", SPEC.distributions)
def test_inputs(dist):
    c = case((3, 700, 24), 5000, padding_idx=11)
    x = pipeline.make_inputs(c, 5, dist)
    assert x["grad"].dtype == np.float32 and x["grad"].shape == (3, 700, 24)
    assert x["sort_indices"].dtype == np.int32 and x["sort_indices"].shape == (3, 700)
    assert np.array_equal(x["sort_indices"], pipeline.make_inputs(c, 5, dist)["sort_indices"])
    SPEC.check_data(c, x)
    k = x["sort_indices"].reshape(-1)
    assert bool(np.all(k[1:] >= k[:-1])) == (dist != "unsorted")
    if dist == "default":
        b = pipeline.plan(c).cores[1].start
        assert k[b - 1] == k[b] and (k == 11).any() and np.unique(k).size <= 5000 // 4
    if dist == "same":
        assert np.unique(k).size == 1
    if dist == "unique":
        assert np.unique(k).size == k.size
    if dist == "edges":
        assert np.isnan(x["grad"]).any() and np.isinf(x["grad"]).any()
    if dist not in ("normal", "edges"):
        assert -130 < float(x["grad"].mean()) < 130 and 0.5 < float(x["grad"].std()) < 30


@pytest.mark.parametrize("scale", [False, True])
def test_every_index_on_the_padding_row_leaves_out_zero(scale: bool) -> None:
    # found by the fuzz test: N = 1 row whose index is padding_idx, so no segment is summed at all
    c = case((1, 1), 1, padding_idx=0, scale_grad_by_freq=scale)
    inputs = {"grad": np.array([[3.5]], np.float32), "sort_indices": np.array([0], np.int32)}
    out = pipeline.golden(c, inputs)["out"]
    assert out.shape == (1, 1) and not out.any()
