"""Materials, the presets table and the pair mixing rules."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import physbook as pb

# Density and restitution of Gaul's materials table (density 0 for "static" stood for an
# immovable body; physbook expresses that with kind="static" instead).
SEED_TABLE = {
    "rock": (0.6, 0.1),
    "wood": (0.3, 0.2),
    "metal": (1.2, 0.05),
    "bouncy_ball": (0.3, 0.8),
    "super_ball": (0.3, 0.95),
    "pillow": (0.1, 0.2),
    "static": (None, 0.4),
}


def test_presets_follow_the_seed_table():
    assert set(pb.MATERIALS) == set(SEED_TABLE)
    for name, (density, restitution) in SEED_TABLE.items():
        material = pb.MATERIALS[name]
        if density is not None:
            assert material.density == density
        assert material.restitution == restitution
        assert 0.0 < material.friction <= 1.0  # dry sliding coefficients of real materials
        assert pb.Material.preset(name) is material
    # The bounciest ball is the super ball, the least bouncy material the metal.
    by_restitution = sorted(pb.MATERIALS, key=lambda name: pb.MATERIALS[name].restitution)
    assert by_restitution[0] == "metal" and by_restitution[-1] == "super_ball"


def test_preset_rejects_unknown_names():
    with pytest.raises(ValueError, match="name"):
        pb.Material.preset("cheese")
    with pytest.raises(TypeError, match="name"):
        pb.Material.preset(3)


def test_default_material():
    material = pb.Material()
    assert (material.density, material.restitution, material.friction) == (1.0, 0.0, 0.6)
    assert material == pb.DEFAULT_MATERIAL


@pytest.mark.parametrize(
    ("kwargs", "error", "name"),
    [
        ({"density": 0.0}, ValueError, "density"),
        ({"density": -1.0}, ValueError, "density"),
        ({"density": math.nan}, ValueError, "density"),
        ({"density": "heavy"}, TypeError, "density"),
        ({"restitution": -0.1}, ValueError, "restitution"),
        ({"restitution": 1.01}, ValueError, "restitution"),
        ({"restitution": math.inf}, ValueError, "restitution"),
        ({"friction": -0.5}, ValueError, "friction"),
        ({"friction": math.nan}, ValueError, "friction"),
        ({"friction": None}, TypeError, "friction"),
    ],
)
def test_material_rejects_bad_values(kwargs, error, name):
    with pytest.raises(error, match=name):
        pb.Material(**kwargs)


def test_material_is_immutable_and_stores_floats():
    material = pb.Material(2, 1, 0)
    assert isinstance(material.density, float) and material.restitution == 1.0
    with pytest.raises(dataclasses.FrozenInstanceError):
        material.density = 3.0


def test_mixing_rules_on_scalars():
    assert pb.mix_restitution(0.8, 0.2) == 0.2
    assert pb.mix_restitution(0.95, 0.95) == 0.95
    assert pb.mix_friction(0.4, 0.9) == pytest.approx(0.6)
    assert pb.mix_friction(0.0, 5.0) == 0.0
    assert isinstance(pb.mix_friction(0.5, 0.5), float)


coefficient = st.floats(0.0, 2.0)


@settings(max_examples=100)
@given(a=coefficient, b=coefficient)
def test_mixing_rules_are_symmetric_and_bounded(a, b):
    assert pb.mix_restitution(a, b) == pb.mix_restitution(b, a) == min(a, b)
    mixed = pb.mix_friction(a, b)
    assert mixed == pb.mix_friction(b, a)
    assert min(a, b) - 1e-12 <= mixed <= max(a, b) + 1e-12  # a geometric mean lies between
    assert mixed == pytest.approx(math.sqrt(a * b))
    assert pb.mix_friction(a, a) == pytest.approx(a)


def test_mixing_rules_vectorise_element_wise():
    rng = np.random.default_rng(0)
    a, b = rng.uniform(0, 1, 50), rng.uniform(0, 1, 50)
    np.testing.assert_array_equal(pb.mix_restitution(a, b),
                                  [min(x, y) for x, y in zip(a, b, strict=True)])
    np.testing.assert_allclose(pb.mix_friction(a, b),
                               [math.sqrt(x * y) for x, y in zip(a, b, strict=True)])
    # Broadcasting: one material against many.
    np.testing.assert_allclose(pb.mix_friction(0.25, b), np.sqrt(0.25 * b))


@pytest.mark.parametrize("bad", [-0.1, math.nan, math.inf, [0.5, -1.0]])
def test_mixing_rules_reject_bad_coefficients(bad):
    for mix in (pb.mix_friction, pb.mix_restitution):
        with pytest.raises(ValueError, match=r"^b must"):
            mix(0.5, bad)
        with pytest.raises(ValueError, match=r"^a must"):
            mix(bad, 0.5)
