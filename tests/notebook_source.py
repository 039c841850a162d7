"""Reading a chapter's code without running it: the functions its widgets call."""

from __future__ import annotations

import ast


def argument_defaults(definition: ast.FunctionDef) -> dict[str, ast.expr]:
    """Each argument of ``definition`` that has a default, mapped to the default's expression."""
    arguments = definition.args
    positional = arguments.posonlyargs + arguments.args
    with_default = positional[len(positional) - len(arguments.defaults):]
    defaults = dict(zip((a.arg for a in with_default), arguments.defaults, strict=True))
    defaults.update((a.arg, d) for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults,
                                               strict=True) if d is not None)
    return defaults


def argument_names(definition: ast.FunctionDef) -> set[str]:
    arguments = definition.args
    return {a.arg for a in arguments.posonlyargs + arguments.args + arguments.kwonlyargs}
