"""Scoring pairs and ladders as Ray tasks, one task a reference/distorted pair
or a ladder (a reference and its renditions).

Each task asks for ``num_cpus`` CPUs and ``num_gpus`` of a GPU (a fraction
lets several tasks share one GPU). On a cluster without GPUs the tasks ask
for CPUs only and score on whatever Vulkan device the node has (Mesa's
lavapipe on a CPU-only machine). Results are :class:`vqscope.Result` objects, equal
to those of :func:`vqscope.score` on the same inputs. Inputs are paths that
every node can read (a shared file system or object-store mount).

    import ray, vqscope.ray
    ray.init()                                   # or ray.init(address="auto")
    results = vqscope.ray.score_pairs([("ref.y4m", "a.y4m"), ("ref.y4m", "b.y4m")])
"""

from __future__ import annotations

import os
from typing import Any, Iterable, Sequence

import ray

import vqscope

__all__ = ["score_ladders", "score_pairs", "submit_ladders"]

#: GPUs a task asks for by default: four tasks share a GPU.
DEFAULT_NUM_GPUS = 0.25


@ray.remote
def _score_ladder(reference: str, distorted: list[str], options: dict) -> list[vqscope.Result]:
    # Ray hides the other GPUs from CUDA with CUDA_VISIBLE_DEVICES, which
    # Vulkan does not read: on a node of several GPUs, pick the Vulkan device
    # whose index is the GPU id Ray assigned (see python/README.md), unless
    # the caller chose a device. GPU 0 is vqscope's default choice anyway
    # (the first discrete GPU).
    if "device" not in options and not os.environ.get("VQSCOPE_DEVICE"):
        ids = ray.get_gpu_ids()
        if ids and int(ids[0]) != 0:
            options = dict(options, device=str(ids[0]))
    return vqscope.score_many(reference, distorted, **options)


def _resources(num_gpus: float | None, num_cpus: float) -> dict:
    """A task's resources: its CPUs (reading and decoding) and, where the
    cluster has GPUs, a share of one."""
    if num_gpus is None:
        has_gpus = ray.cluster_resources().get("GPU", 0) > 0
        num_gpus = DEFAULT_NUM_GPUS if has_gpus else 0
    return {"num_gpus": num_gpus, "num_cpus": num_cpus}


def submit_ladders(ladders: Iterable[tuple[Any, Sequence[Any]]], *,
                   num_gpus: float | None = None, num_cpus: float = 1,
                   **options) -> list[ray.ObjectRef]:
    """Starts one task a ladder ``(reference, [distorted, …])``; returns their refs.

    ``num_gpus``: the GPU share each task asks for (default
    ``DEFAULT_NUM_GPUS`` when the cluster has GPUs, else 0: CPU-only tasks);
    ``num_cpus``: the CPUs it asks for (reading and decoding, and the
    scoring itself on a CPU-only node). ``options`` are
    :func:`vqscope.score`'s. Each ref resolves to a list of results, one a
    rendition.
    """
    task = _score_ladder.options(**_resources(num_gpus, num_cpus))
    return [task.remote(os.fspath(ref), [os.fspath(d) for d in dis], options)
            for ref, dis in ladders]


def score_ladders(ladders: Iterable[tuple[Any, Sequence[Any]]], **kwargs) -> list[list[vqscope.Result]]:
    """Scores ladders as Ray tasks; one list of results a ladder, in order."""
    return ray.get(submit_ladders(ladders, **kwargs))


def score_pairs(pairs: Iterable[tuple[Any, Any]], **kwargs) -> list[vqscope.Result]:
    """Scores ``(reference, distorted)`` pairs as Ray tasks, one a pair; results in order."""
    return [r for (r,) in score_ladders(((ref, [dis]) for ref, dis in pairs), **kwargs)]
