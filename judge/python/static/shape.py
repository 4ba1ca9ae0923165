"""The verifier's shape: a top-level ``verify(solution, rng)``, allowed imports, a docstring."""

from __future__ import annotations

import ast

from judge.python.imports import (
    ALLOWED_THIRD_PARTY,
    verifier_import_allowed,
    verifier_module_public,
)


def import_errors(tree: ast.Module) -> tuple[list[str], list[str]]:
    """(modules imported, errors) for every import statement anywhere in the module."""
    modules: list[str] = []
    errors: list[str] = []
    allowed = ", ".join(sorted(ALLOWED_THIRD_PARTY))
    for node in ast.walk(tree):
        names: list[str] = []
        if not isinstance(node, ast.Import | ast.ImportFrom):
            continue
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            if node.level:
                errors.append(
                    f"line {node.lineno}: relative imports are not allowed; "
                    "instead, import by absolute "
                    "name (a verifier is one file)"
                )
                continue
            names = [node.module or ""]
        for name in names:
            modules.append(name)
            if not verifier_import_allowed(name):
                errors.append(
                    f"line {node.lineno}: import of {name!r} is not allowed in a verifier; "
                    f"instead, use the computation modules of the standard library (math, "
                    f"fractions, itertools, re, json...: see the verifier guide) and {allowed}"
                )
            elif not verifier_module_public(name):
                errors.append(
                    f"line {node.lineno}: import of {name!r} is not allowed in a verifier: a "
                    "verifier imports a library's public modules only (no part of the name "
                    "starts with '_'); instead, import the public module that exports the "
                    "function (sympy, scipy.stats, numpy.linalg...)"
                )
    return modules, errors


def dynamic_import_errors(tree: ast.Module) -> list[str]:
    """Refuse every dynamic import (``__import__``, ``importlib``'s or sympy's
    ``import_module``), literal or not: a dotted path in a string escapes the checks that an
    ``import`` statement and an attribute path get (``"sympy.parsing.sympy_parser"``), and
    the module comes back as a value the store and by-name rules cannot type."""
    errors: list[str] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = (
            func.id
            if isinstance(func, ast.Name)
            else func.attr
            if isinstance(func, ast.Attribute)
            else ""
        )
        if name in {"__import__", "import_module"}:
            errors.append(
                f"line {node.lineno}: dynamic import ({name}): the checks cannot follow a "
                "module chosen by a string; instead, import the module at the top of the file"
            )
    return errors


def verify_errors(tree: ast.Module) -> tuple[ast.FunctionDef | None, list[str]]:
    errors: list[str] = []
    verify: ast.FunctionDef | None = None
    bindings = 0
    for node in tree.body:
        if isinstance(node, ast.AsyncFunctionDef) and node.name == "verify":
            errors.append("verify must be a plain function, not async; instead, define it with def")
        if isinstance(node, ast.FunctionDef) and node.name == "verify":
            verify = node
    for child in ast.walk(tree):
        if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bindings += child.name == "verify" and child in tree.body
        elif isinstance(child, ast.Name) and isinstance(child.ctx, ast.Store | ast.Del):
            bindings += child.id == "verify"
        elif isinstance(child, ast.alias):
            bindings += (child.asname or child.name) == "verify"
        elif isinstance(child, ast.Global):
            bindings += "verify" in child.names
    if verify is None:
        errors.append(
            "the module defines no top-level function verify(solution, rng); "
            "instead, add "
            "def verify(solution, rng): returning True or False"
        )
        return None, errors
    if bindings != 1:
        errors.append(
            f"line {verify.lineno}: verify is defined or assigned more than once: the checks "
            "must know which function runs; instead, define verify once"
        )
    if verify.decorator_list:
        errors.append(
            f"line {verify.lineno}: verify may not be decorated (the checks and the harness "
            "must know which function runs); instead, remove the decorator and call the "
            "decorated helper from inside verify"
        )
    args = verify.args
    positional = [*args.posonlyargs, *args.args]
    required_after = len(positional) - len(args.defaults)
    if len(positional) < 2 and args.vararg is None:
        errors.append("verify must take two positional parameters: verify(solution, rng)")
    elif required_after > 2:
        errors.append(
            "verify must take exactly two required positional parameters; instead, give "
            "the others defaults"
        )
    if any(default is None for default in args.kw_defaults):
        errors.append(
            "verify has keyword-only parameters without defaults; instead, give them defaults"
        )
    return verify, errors
