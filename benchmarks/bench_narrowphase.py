"""How long the narrow phase takes per pair (chapters 6–8).

10 000 pairs of boxes (half extents 0.2–0.6 m) in random poses within a 1 m square, so
that about nine pairs in ten overlap, go through ``physbook.collide_pairs`` in one call:
SAT, reference and incident faces, clipping, up to two contact points with depths and
feature ids per pair. For scale the same pairs, as prebuilt shapely polygons, go through
shapely's vectorised ``shapely.distance`` in the same run (a distance only, no manifold);
the table prints both in microseconds per pair and their ratio. Compile time is excluded
(a warm-up runs first); each figure is the median of several repeats.

Extra rows time circle–circle and box–circle pairs, and the per-pair Python entry point
``physbook.collide`` (which packs two shapes and calls the same kernel) for comparison.

Run:  python benchmarks/bench_narrowphase.py [--pairs 10000] [--repeats 15]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
import shapely

import physbook as pb
from physbook.geometry.shape_table import ShapeTable


def median_seconds(function, repeats: int) -> float:
    function()  # warm-up: compile and fill caches
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def random_scene(count: int, kinds: tuple[str, str], seed: int = 1):
    """``count`` pairs of shapes of the given kinds, each shape on its own body."""
    rng = np.random.default_rng(seed)
    table = ShapeTable(2 * count)
    for body in range(2 * count):
        if kinds[body % 2] == "box":
            table.append(pb.Polygon.box(*rng.uniform(0.2, 0.6, 2)), body)
        else:
            table.append(pb.Circle(rng.uniform(0.2, 0.6)), body)
    origins = rng.uniform(-0.5, 0.5, (2 * count, 2))
    angles = rng.uniform(-np.pi, np.pi, 2 * count)
    pairs = np.arange(2 * count, dtype=np.int64).reshape(count, 2)
    return table, origins, angles, pairs


def shapely_geometries(table, origins, angles) -> np.ndarray:
    geometries = []
    for row, body in enumerate(table.arrays.body):
        shape = table.shape(row)
        pose = pb.Transform(origins[body], angles[body])
        if isinstance(shape, pb.Polygon):
            geometries.append(shapely.Polygon(pose.to_world(shape.vertices)))
        else:
            geometries.append(shapely.Point(pose.to_world(shape.center)).buffer(shape.radius))
    return np.array(geometries, dtype=object)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    count = args.pairs

    rows = []
    for label, kinds in (("box-box", ("box", "box")), ("circle-circle", ("circle", "circle")),
                         ("box-circle", ("box", "circle"))):
        table, origins, angles, pairs = random_scene(count, kinds)
        seconds = median_seconds(lambda t=table, o=origins, a=angles, p=pairs:
                                 pb.collide_pairs(p, t, o, a), args.repeats)
        touching = float(np.mean(pb.collide_pairs(pairs, table, origins, angles)
                                 .point_counts > 0))
        geometries = shapely_geometries(table, origins, angles)
        first, second = geometries[0::2], geometries[1::2]
        shapely_seconds = median_seconds(lambda f=first, s=second: shapely.distance(f, s),
                                         args.repeats)
        rows.append((label, 1e6 * seconds / count, 1e6 * shapely_seconds / count, touching))

    table, origins, angles, pairs = random_scene(1000, ("box", "box"))
    poses = [pb.Transform(origins[b], angles[b]) for b in range(len(origins))]
    shapes = [table.shape(row) for row in range(table.count)]

    def one_by_one():
        for a, b in pairs:
            pb.collide(shapes[a], poses[a], shapes[b], poses[b])

    single = 1e6 * median_seconds(one_by_one, 3) / len(pairs)

    print(f"narrow phase, {count} pairs per call, median of {args.repeats} "
          f"(µs per pair; shapely.distance on the same pairs for scale)")
    print(f"{'pairs':<15}{'collide_pairs':>15}{'shapely.distance':>18}{'ratio':>8}"
          f"{'touching':>10}")
    for label, ours, theirs, touching in rows:
        print(f"{label:<15}{ours:>15.3f}{theirs:>18.3f}{ours / theirs:>8.2f}"
              f"{touching:>10.0%}")
    print(f"per-pair pb.collide (Python entry, box-box): {single:.1f} µs per pair")


if __name__ == "__main__":
    main()
