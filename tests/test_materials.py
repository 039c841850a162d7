"""Materials, the presets table and the pair mixing rules."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import physbook as pb
from physbook.dynamics.materials import MaterialTable

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


def test_presets_are_read_only():
    with pytest.raises(TypeError):
        pb.MATERIALS["wood"] = "x"
    with pytest.raises(TypeError):
        del pb.MATERIALS["wood"]
    assert pb.Material.preset("wood") == pb.Material(0.3, 0.2, 0.4)


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
        ({"density": 10**400}, ValueError, "density"),
        ({"density": -math.inf}, ValueError, "density"),
        ({"restitution": 1j}, TypeError, "restitution"),
        ({"friction": -1e-320}, ValueError, "friction"),
        ({"friction": True}, TypeError, "friction"),
        ({"density": np.array([1.0, 2.0])}, TypeError, "density"),
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


def test_mixing_never_overflows_or_underflows_a_mean_that_fits():
    # a·b leaves the float range in each of these; the geometric mean, between a and b, fits.
    for a, b, mean in [(1e300, 1e300, 1e300), (1e-300, 1e-300, 1e-300), (1e300, 1e-300, 1.0),
                       (1.7e308, 1.7e308, 1.7e308), (4e-320, 1e-320, 2e-320)]:
        assert pb.mix_friction(a, b) == pytest.approx(mean, rel=1e-15 if mean > 1e-300 else 1e-3)
    np.testing.assert_allclose(pb.mix_friction([1e200, 0.25], [1e200, 1.0]), [1e200, 0.5],
                               rtol=1e-15)


def test_mixing_is_the_plain_square_root_wherever_the_product_is_a_float():
    rng = np.random.default_rng(3)
    a, b = 10.0 ** rng.uniform(-150, 150, 10_000), 10.0 ** rng.uniform(-150, 150, 10_000)
    np.testing.assert_array_equal(pb.mix_friction(a, b), np.sqrt(a * b))


@pytest.mark.parametrize("a", [0.3, 0.5, 0.7, 2.0, 1e-100, 1e100, 1e-300, 1.7e308, 5e-324])
def test_equal_frictions_mix_to_themselves_exactly(a):
    assert pb.mix_friction(a, a) == a


def test_mixing_names_arrays_that_do_not_broadcast():
    for mix in (pb.mix_friction, pb.mix_restitution):
        with pytest.raises(ValueError, match=r"a and b .* broadcast.*\(3,\) and \(2,\)"):
            mix([0.1, 0.2, 0.3], [0.1, 0.2])
        with pytest.raises(ValueError, match="^a must be finite"):
            mix(10**400, 0.5)


# --- the material table of a world ---------------------------------------------------------

PRESETS = list(pb.MATERIALS.values())


def test_material_table_mixes_every_pair_with_the_mixing_rules():
    table = MaterialTable()
    rows = [table.row(material) for material in PRESETS]
    assert rows == list(range(len(PRESETS))) and len(table) == len(PRESETS)
    assert table.restitution.shape == table.friction.shape == (len(PRESETS),) * 2
    for i, a in enumerate(PRESETS):
        assert table[i] is a
        for j, b in enumerate(PRESETS):
            assert table.restitution[i, j] == pb.mix_restitution(a.restitution, b.restitution)
            assert table.friction[i, j] == pb.mix_friction(a.friction, b.friction)


def test_a_repeated_material_gets_its_old_row_and_changes_nothing():
    table = MaterialTable()
    for material in PRESETS:
        table.row(material)
    restitution, friction = table.restitution.copy(), table.friction.copy()
    wood = pb.MATERIALS["wood"]
    assert table.row(wood) == PRESETS.index(wood)
    # Materials are values: an equal one is the same material.
    assert table.row(pb.Material(wood.density, wood.restitution, wood.friction)) == \
        PRESETS.index(wood)
    assert len(table) == len(PRESETS)
    np.testing.assert_array_equal(table.restitution, restitution)
    np.testing.assert_array_equal(table.friction, friction)
    with pytest.raises(TypeError, match="material"):
        table.row("wood")


def test_material_table_rows_are_checked():
    table = MaterialTable()
    table.row(pb.DEFAULT_MATERIAL)
    assert table[0] is pb.DEFAULT_MATERIAL
    with pytest.raises(IndexError, match="row must be below 1"):
        table[1]
    with pytest.raises(ValueError, match="row must be at least 0"):
        table[-1]
    with pytest.raises(TypeError, match="row must be an integer"):
        table["wood"]


def test_contact_rows_get_the_mixed_values_of_their_bodies_materials():
    world = pb.World()
    world.add_body(pb.Polygon.box(10.0, 0.5), position=(0.0, -0.5), kind="static",
                   material=pb.MATERIALS["static"])
    # A row of touching boxes, one of each preset, and a ball on each pair of neighbours.
    for k, material in enumerate(PRESETS):
        world.add_body(pb.Polygon.box(0.5, 0.5), position=(k - 3.0, 0.5), material=material)
        world.add_body(pb.Circle(0.3), position=(k - 2.5, 1.2),
                       material=PRESETS[(3 * k + 1) % len(PRESETS)])
    for _ in range(3):
        world.step(1 / 60)
    contacts = world.contacts
    seen = set()
    for (a, b), restitution, friction in zip(contacts.bodies, contacts.restitutions,
                                             contacts.frictions, strict=True):
        material_a, material_b = world.bodies[a].material, world.bodies[b].material
        assert restitution == pb.mix_restitution(material_a.restitution,
                                                 material_b.restitution)
        assert friction == pb.mix_friction(material_a.friction, material_b.friction)
        seen.add(frozenset((material_a, material_b)))
    assert len(seen) >= 10, "the scene should touch many different pairs of materials"
