"""Materials, the presets table and the pair mixing rules."""

from __future__ import annotations

import dataclasses
import gc
import math
import struct
import weakref

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import physbook as pb
from physbook.dynamics.materials import pair_friction, pair_restitution

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


# --- mixing at each contact -----------------------------------------------------------------

PRESETS = list(pb.MATERIALS.values())

#: Coefficients at the edges of the float range: zeros (of both signs), subnormals, values
#: whose products underflow or overflow, the largest float.
EXTREMES = [0.0, -0.0, 5e-324, 1e-320, 2.2250738585072014e-308, 1e-300, 1e-170, 1e-154,
            0.3, 0.6, 1.0, 2.0, 1e154, 1e170, 1e300, 1.7976931348623157e308]


def bits(value) -> bytes:
    """The bit pattern of a float64 (tells 0.0 from -0.0, unlike ==)."""
    return struct.pack("<d", float(value))


@pytest.mark.parametrize("a", EXTREMES)
def test_pair_mixers_give_the_bits_of_the_mixing_rules_at_the_edges_of_the_float_range(a):
    for b in EXTREMES:
        assert bits(pair_friction(a, b)) == bits(pb.mix_friction(a, b)), (a, b)
        if a <= 1.0 and b <= 1.0:
            assert bits(pair_restitution(a, b)) == bits(pb.mix_restitution(a, b)), (a, b)


@settings(max_examples=300)
@given(a=st.floats(0.0, allow_infinity=False) | st.sampled_from(EXTREMES),
       b=st.floats(0.0, allow_infinity=False) | st.sampled_from(EXTREMES),
       e=st.floats(0.0, 1.0), f=st.floats(0.0, 1.0))
def test_pair_mixers_give_the_bits_of_the_mixing_rules(a, b, e, f):
    assert bits(pair_friction(a, b)) == bits(pb.mix_friction(a, b))
    assert bits(pair_restitution(e, f)) == bits(pb.mix_restitution(e, f))


def materials_on_a_floor(compiled: bool) -> pb.World:
    """A static floor and a row of boxes and balls on it, each of its own material, with
    coefficients from ordinary to the edges of the float range."""
    world = pb.World()
    world.compiled = compiled
    world.add_body(pb.Polygon.box(10.0, 0.5), position=(0.0, -0.5), kind="static",
                   material=pb.Material(restitution=0.4, friction=1e-170))
    frictions = [0.6, 1e300, 1e-300, 0.0, 5e-324, 1e170, 0.9, 2.0]
    for k, friction in enumerate(frictions):
        material = pb.Material(density=0.5 + 0.1 * k, restitution=k / (len(frictions) - 1),
                               friction=friction)
        world.add_body(pb.Polygon.box(0.5, 0.5), position=(k - 3.5, 0.5), material=material)
        world.add_body(pb.Circle(0.3), position=(k - 3.0, 1.2),
                       material=PRESETS[k % len(PRESETS)])
    return world


@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "staged"])
def test_contacts_get_the_mixing_rules_of_their_two_bodies_values_bit_for_bit(compiled):
    world = materials_on_a_floor(compiled)
    for _ in range(3):
        world.step(1 / 60)
    contacts = world.contacts
    assert len(contacts) >= 16, "every box should touch the floor and two balls"
    for (a, b), restitution, friction in zip(contacts.bodies, contacts.restitutions,
                                             contacts.frictions, strict=True):
        material_a, material_b = world.bodies[a].material, world.bodies[b].material
        assert bits(restitution) == bits(pb.mix_restitution(material_a.restitution,
                                                            material_b.restitution))
        assert bits(friction) == bits(pb.mix_friction(material_a.friction, material_b.friction))


def array_bytes(root) -> int:
    """Bytes of every numpy array reachable from ``root`` through containers and physbook
    objects, each buffer counted once (a view counts as the array it views)."""
    seen, buffers, stack = set(), {}, [root]
    while stack:
        item = stack.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, np.ndarray):
            while isinstance(item.base, np.ndarray):
                item = item.base
            buffers[id(item)] = item.nbytes
        elif isinstance(item, dict | list | tuple | set | frozenset) or \
                type(item).__module__.startswith("physbook"):
            stack.extend(gc.get_referents(item))
    return sum(buffers.values())


def boxes_in_a_grid(materials) -> pb.World:
    world = pb.World()
    box = pb.Polygon.box(0.4, 0.4)
    for k, material in enumerate(materials):
        world.add_body(box, position=(float(k % 50), float(k // 50)), material=material)
    return world


def test_a_world_holds_nothing_per_pair_of_materials():
    # Debris with random densities: 2 500 bodies, each of a material of its own.
    count = 2500
    rng = np.random.default_rng(6)
    own = [pb.Material(density=float(d)) for d in rng.uniform(0.5, 2.0, count)]
    assert len(set(own)) == count
    shared = boxes_in_a_grid([pb.DEFAULT_MATERIAL] * count)
    distinct = boxes_in_a_grid(own)
    # The world's arrays are the same whether its bodies share one material or each has
    # its own: nothing grows with the number of distinct materials, let alone their pairs
    # (a table of mixed pairs would hold 2 × 2 500² floats, 100 MB).
    assert array_bytes(distinct) == array_bytes(shared) < count**2 * 8
    assert [body.material for body in distinct.bodies] == own


def test_removed_bodies_release_their_materials():
    world = boxes_in_a_grid([pb.DEFAULT_MATERIAL] * 10)
    own = [pb.Material(density=1.0 + k / 100) for k in range(100)]
    references = [weakref.ref(material) for material in own]
    bodies = [world.add_body(pb.Circle(0.3), position=(float(k), 20.0), material=material)
              for k, material in enumerate(own)]
    world.step(1 / 60)
    for body in bodies:
        world.remove_body(body)
    del own, bodies, body
    gc.collect()
    assert [reference() for reference in references] == [None] * 100
    assert len(world.bodies) == 10
