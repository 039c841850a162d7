"""The order of a step, written once: both drivers of World.step call the kernels of
physbook.stages.STEP_STAGES in its order.

The drivers are read from their source with ``ast``: the compiled step
(physbook.compiled_step.compiled_step) and the staged pipeline (StepDriver.run_staged of
physbook.step_driver, with the methods it hands stages to, StepDriver.find_pairs and
StepDriver.finish, read in place of their calls). The oracle is the tuple STEP_STAGES; a
driver with two of its statements swapped must fail the same check.
"""

from __future__ import annotations

import ast
import copy
import inspect
import textwrap

import pytest

from physbook import compiled_step as compiled_module
from physbook import step_driver as driver_module
from physbook.stages import STEP_STAGES

#: The methods of StepDriver the staged pipeline hands stages to, read where they are called.
STAGED_PARTS = ("find_pairs", "finish")


def _function(source_of) -> ast.FunctionDef:
    tree = ast.parse(textwrap.dedent(inspect.getsource(source_of)))
    return tree.body[0]


def _calls_in_order(node: ast.AST):
    """The calls in ``node``, depth first in the order of its fields: statements as they
    follow each other (not by line number, so that a reordered tree reads reordered)."""
    if isinstance(node, ast.Call):
        yield node
    for child in ast.iter_child_nodes(node):
        yield from _calls_in_order(child)


def _called(function: ast.FunctionDef, parts: dict[str, ast.FunctionDef]) -> list[str]:
    """The names of the functions and methods ``function`` calls, in the order of its
    statements (a call before its arguments); a call of ``self.<name>`` for a name in
    ``parts`` stands for the calls of that method."""
    names = []
    for call in _calls_in_order(function):
        target = call.func
        name = target.id if isinstance(target, ast.Name) else getattr(target, "attr", None)
        if (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                and target.value.id == "self" and name in parts):
            names.extend(_called(parts[name], {}))
        elif name is not None:
            names.append(name)
    return names


def stage_order(names: list[str]) -> list[str]:
    """The stages that the calls ``names`` run, in order, each named once; raises
    ``AssertionError`` when a kernel is called after a later stage's."""
    kernels = {kernel for stage in STEP_STAGES for kernel in stage.kernels}
    at, order = 0, []
    for name in names:
        if name not in kernels:
            continue
        later = [k for k in range(at, len(STEP_STAGES)) if name in STEP_STAGES[k].kernels]
        assert later, f"{name} is called after the stage {STEP_STAGES[at].name}"
        at = later[0]
        if not order or order[-1] != STEP_STAGES[at].name:
            order.append(STEP_STAGES[at].name)
    return order


def _compiled_driver() -> ast.FunctionDef:
    return _function(compiled_module.compiled_step.py_func
                     if hasattr(compiled_module.compiled_step, "py_func")
                     else compiled_module.compiled_step)


def _staged_parts() -> dict[str, ast.FunctionDef]:
    return {name: _function(getattr(driver_module.StepDriver, name)) for name in STAGED_PARTS}


def test_both_drivers_run_every_stage_in_the_order_of_step_stages():
    names = [stage.name for stage in STEP_STAGES]
    assert stage_order(_called(_compiled_driver(), {})) == names
    staged = _function(driver_module.StepDriver.run_staged)
    assert stage_order(_called(staged, _staged_parts())) == names


def test_each_kernel_is_one_function_both_drivers_import():
    # A kernel named in STEP_STAGES is the same object in both drivers' modules, so that
    # both call the same code (the solver's step is the world's own object's method).
    for stage in STEP_STAGES:
        shared = [kernel for kernel in stage.kernels if kernel not in ("solver_step", "step")]
        for kernel in shared:
            assert getattr(compiled_module, kernel, None) is not None, kernel
            assert getattr(compiled_module, kernel) is getattr(driver_module, kernel), kernel


def _swapped(function: ast.FunctionDef, first: str, second: str) -> ast.FunctionDef:
    """``function`` with the two statements of its body that call ``first`` and
    ``second`` swapped."""
    planted = copy.deepcopy(function)
    body = planted.body
    where = [next(k for k, statement in enumerate(body)
                  if name in _called(ast.Module([statement], []), {}))
             for name in (first, second)]
    body[where[0]], body[where[1]] = body[where[1]], body[where[0]]
    return planted


@pytest.mark.parametrize(("first", "second"), [("solver_step", "clear_forces"),
                                               ("wake_touched", "update_islands"),
                                               ("step_margins", "boxes_and_filters")])
def test_a_planted_reordering_of_the_compiled_driver_fails(first, second):
    planted = _swapped(_compiled_driver(), first, second)
    with pytest.raises(AssertionError, match="is called after the stage"):
        stage_order(_called(planted, {}))


def test_a_planted_reordering_of_the_staged_driver_fails():
    planted = _swapped(_function(driver_module.StepDriver.run_staged), "wake_before_step",
                       "step_margins")
    with pytest.raises(AssertionError, match="is called after the stage"):
        stage_order(_called(planted, _staged_parts()))


def test_a_driver_that_skips_a_stage_fails():
    planted = copy.deepcopy(_function(driver_module.StepDriver.run_staged))
    planted.body = [statement for statement in planted.body
                    if "contact_events_into" not in _called(ast.Module([statement], []), {})]
    order = stage_order(_called(planted, _staged_parts()))
    assert order != [stage.name for stage in STEP_STAGES]
    assert "events" not in order


# --- what the compiled step receives is read by name -----------------------------------


def positional_reads(function: ast.FunctionDef) -> list[str]:
    """Where ``function`` reads one of its parameters by position: unpacks it into a tuple
    of names (``a, b = parameter``) or indexes it with a number (``parameter[0]``)."""
    parameters = {argument.arg for argument in function.args.args}
    found = []
    for node in ast.walk(function):
        if (isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Tuple)
                and isinstance(node.value, ast.Name) and node.value.id in parameters):
            found.append(f"{node.value.id} unpacked at line {node.lineno}")
        if (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name)
                and node.value.id in parameters and isinstance(node.slice, ast.Constant)):
            found.append(f"{node.value.id}[{node.slice.value}] at line {node.lineno}")
    return found


def test_the_compiled_step_reads_its_records_by_name():
    # Its parameters are named records (StepArgs, TreeStage, SensorSource, Springs ...): a
    # field added to one cannot shift what another field is read as.
    assert positional_reads(_compiled_driver()) == []
    driver = _function(compiled_module.step_from_state.py_func
                       if hasattr(compiled_module.step_from_state, "py_func")
                       else compiled_module.step_from_state)
    assert positional_reads(driver) == []


def test_a_planted_positional_read_is_found():
    planted = ast.parse(textwrap.dedent('''
        def stage(tree, springs, dt):
            nodes, state = tree
            return springs[2] * dt
    ''')).body[0]
    assert positional_reads(planted) == ["tree unpacked at line 3", "springs[2] at line 4"]
