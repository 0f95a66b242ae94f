"""vqscope.ray on a local two-CPU Ray (no GPU: CPU tasks on the node's
Vulkan device): the same results as the direct calls."""

from __future__ import annotations

import numpy as np
import pytest

ray = pytest.importorskip("ray")

import vqscope  # noqa: E402
import vqscope.ray  # noqa: E402


@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def test_pairs_and_ladders_equal_direct_calls(clips, local_ray):
    ref = clips.path("ref")
    renditions = [clips.path(n) for n in ("a", "b", "c")]
    pairs = vqscope.ray.score_pairs([(ref, d) for d in renditions], features=["psnr"])
    ladders = vqscope.ray.score_ladders([(ref, renditions[:2]), (clips.path("ref", 10),
                                         [clips.path("a", 10)])], features=["psnr"])
    direct = [vqscope.score(ref, d, features=["psnr"]) for d in renditions]
    for got, want in zip(pairs + ladders[0], direct + direct[:2]):
        assert isinstance(got, vqscope.Result)
        assert got.names == want.names
        assert np.array_equal(got.values, want.values)
        assert got.pooled_lines == want.pooled_lines
    ten = vqscope.score(clips.path("ref", 10), clips.path("a", 10), features=["psnr"])
    assert np.array_equal(ladders[1][0].values, ten.values)
