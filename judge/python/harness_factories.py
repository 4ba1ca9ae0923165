"""Part (b) of the run-time rule (``harness_guard``): the library code that may turn text it
generated itself into code, and how the guard finds it on the stack.

Standard library only, bound read-only at /judge/harness_factories.py beside the harness.

Library code is recognised by where its code object was read from (file *and* function), and
the stack is read outwards from the guard's caller only through code read from files
(``file_frames``): the first frame of code compiled at run time (the verifier's ``<verifier>``,
eval's ``<string>``, lambdify's ``<lambdifygenerated-1>``) ends the walk, because above it the
verifier, or text that became code, is running, and that is not a library's own work. No frame
is ever reached by counting.
"""

import ast
import builtins
import io
import keyword
import os
import re
import sys
import tokenize
import types
from collections.abc import Callable, Iterator

SITE = "/judge/site"
STDLIB = os.path.dirname(os.__file__) + "/"


def frames(frame: types.FrameType | None) -> Iterator[types.FrameType]:
    """``frame`` and every frame outwards of it."""
    while frame is not None:
        yield frame
        frame = frame.f_back


def compiled_at_run_time(code: types.CodeType) -> bool:
    """Code that text became while the process ran (``<string>`` of eval/exec, lambdify's
    ``<lambdifygenerated-1>``), the verifier's included: not a file's."""
    name = code.co_filename
    return name.startswith("<") and not name.startswith("<frozen ")


def file_frames(frame: types.FrameType | None) -> Iterator[types.FrameType]:
    """The frames from ``frame`` outwards until the first one whose code was compiled at run
    time (excluded): the one walk by which the guard asks what library code is doing."""
    for f in frames(frame):
        if compiled_at_run_time(f.f_code):
            return
        yield f


def site_relative(filename: str) -> str | None:
    """``filename`` relative to the allowed libraries' folder (/judge/site in the sandbox, the
    virtualenv's site-packages on the host), or None outside it."""
    for root in sys.path:
        if root.endswith(("site-packages", SITE)) and filename.startswith(root + "/"):
            return filename[len(root) + 1 :]
    return None


def genuine_import(frame: types.FrameType) -> bool:
    """The import system's own file loaders read the source, at a library path: not a loader
    of the verifier's (a SourceLoader subclass whose get_data returns the solution), nor one
    reached from code compiled at run time (a finder of the verifier's on ``sys.meta_path``)."""
    import importlib.machinery

    genuine = (importlib.machinery.SourceFileLoader, importlib.machinery.SourcelessFileLoader)
    for f in file_frames(frame):
        if f.f_code.co_name in ("get_code", "exec_module") and f.f_code.co_filename.startswith(
            "<frozen importlib"
        ):
            loader = f.f_locals.get("self")
            path = getattr(loader, "path", None)
            return (
                type(loader) in genuine
                and isinstance(path, str)
                and (path.startswith(STDLIB) or site_relative(path) is not None)
            )
    return False


def importing_a_library(frame: types.FrameType | None) -> bool:
    """A library module's body runs at ``frame`` (lazy imports: its own tables, no verdict
    data), loaded by the import system's own file loader."""
    for f in file_frames(frame):
        code = f.f_code
        if code.co_name == "exec_module" and code.co_filename.startswith("<frozen importlib"):
            return genuine_import(f)
    return False


# (file, function) of the library code that may compile text it generated itself. Measured
# over the honest-code sweep (docs/python-judge.md); nothing else in the libraries needs one.
FACTORIES: frozenset[tuple[str, str]] = frozenset(
    {
        (STDLIB + "dataclasses.py", "_create_fn"),
        (STDLIB + "collections/__init__.py", "namedtuple"),
        (STDLIB + "ast.py", "parse"),  # a tree only: the guard refuses to compile a tree
    }
)
_IMPORT_CALL = ("<frozen importlib._bootstrap>", "_call_with_frames_removed")
# Site-relative (the libraries live at /judge/site in the sandbox, in the venv on the host).
SITE_FACTORIES: frozenset[tuple[str, str]] = frozenset(
    {
        ("sympy/polys/monomials.py", "_build"),
        ("scipy/stats/_distn_infrastructure.py", "_attach_argparser_methods"),
    }
)
# The call sites of sympify whose text is a formula a library built from numbers and names.
NUMBER_FORMULA_CALLERS: frozenset[tuple[str, str]] = frozenset(
    {("sympy/simplify/simplify.py", "nsimplify_real")}
)


def is_factory(frame: types.FrameType) -> bool:
    """``frame`` (the compile's caller) is a listed factory, or importlib compiling a library
    module's source for its own file loader."""
    code = frame.f_code
    if (code.co_filename, code.co_name) in FACTORIES:
        return True
    if (code.co_filename, code.co_name) == _IMPORT_CALL:
        # source_to_code hands compile to this helper itself: its direct caller must be
        # source_to_code (the helper passes anything it is given to anything it is given).
        outer = frame.f_back
        return (
            outer is not None and outer.f_code.co_name == "source_to_code" and genuine_import(outer)
        )
    relative = site_relative(code.co_filename)
    return relative is not None and (relative, code.co_name) in SITE_FACTORIES


# What sympy's MonomialOps generates (mul, pow, mulpow, ldiv, div, lcm, gcd): unpacking,
# arithmetic, comparisons and returns of its own variables; no call, attribute or import.
_MONOMIAL_NODES = (
    ast.Module, ast.FunctionDef, ast.arguments, ast.arg, ast.Assign, ast.Tuple, ast.Name,
    ast.Load, ast.Store, ast.Return, ast.BinOp, ast.Add, ast.Sub, ast.Mult, ast.If,
    ast.Compare, ast.Lt, ast.GtE, ast.LtE, ast.IfExp, ast.Constant,
)  # fmt: skip


def _monomial_code(text: str) -> bool:
    tree = ast.parse(text)
    for node in ast.walk(tree):
        if type(node) not in _MONOMIAL_NODES:
            return False
        if isinstance(node, ast.Constant) and not (node.value is None or type(node.value) is int):
            return False
        if isinstance(node, ast.Name) and re.fullmatch(r"[abr][0-9]+|A|B|k", node.id) is None:
            return False
        if isinstance(node, ast.FunctionDef) and (
            node.decorator_list or node.returns or not node.name.startswith("monomial_")
        ):
            return False
        if isinstance(node, ast.arguments) and (node.defaults or node.kw_defaults):
            return False
        if isinstance(node, ast.arg) and node.annotation is not None:
            return False
    return True


# scipy.stats' parse_arg_template (_distn_infrastructure.py), with the two locscale pairs of
# rv_continuous and rv_discrete/rv_sample: the text must be exactly this for its shapes.
_SCIPY_ARGPARSER = """
def _parse_args(self, %(shape_arg_str)s %(locscale_in)s):
    return (%(shape_arg_str)s), %(locscale_out)s

def _parse_args_rvs(self, %(shape_arg_str)s %(locscale_in)s, size=None):
    return self._argcheck_rvs(%(shape_arg_str)s %(locscale_out)s, size=size)

def _parse_args_stats(self, %(shape_arg_str)s %(locscale_in)s, moments='mv'):
    return (%(shape_arg_str)s), %(locscale_out)s, moments
"""
_SCIPY_LOCSCALE = (("loc=0, scale=1", "loc, scale", 2), ("loc=0", "loc, 1", 1))


def _scipy_argparser_code(text: str) -> bool:
    tree = ast.parse(text)
    first = tree.body[0] if tree.body else None
    if not isinstance(first, ast.FunctionDef):
        return False
    names = [arg.arg for arg in first.args.args]
    for locscale_in, locscale_out, count in _SCIPY_LOCSCALE:
        shapes = names[1:-count]
        if not all(re.fullmatch(r"[_a-zA-Z][_a-zA-Z0-9]*", n) for n in shapes):
            return False
        shape_arg_str = ", ".join(shapes) + ", " if shapes else ""
        expected = _SCIPY_ARGPARSER % {
            "shape_arg_str": shape_arg_str,
            "locscale_in": locscale_in,
            "locscale_out": locscale_out,
        }
        if ast.dump(ast.parse(expected)) == ast.dump(tree):
            return True
    return False


# Site factories whose code text is checked against what the library itself generates.
_FACTORY_TEXT: dict[tuple[str, str], Callable[[str], bool]] = {
    ("sympy/polys/monomials.py", "_build"): _monomial_code,
    ("scipy/stats/_distn_infrastructure.py", "_attach_argparser_methods"): _scipy_argparser_code,
}


def factory_text_check(frame: types.FrameType) -> Callable[[str], bool] | None:
    """The check that the text a factory compiles is what its library generates, or None for
    a factory whose text is built from names only (dataclasses, namedtuple, importlib)."""
    relative = site_relative(frame.f_code.co_filename)
    return _FACTORY_TEXT.get((relative, frame.f_code.co_name)) if relative else None


def plain_name(name: object) -> bool:
    """An identifier that names nothing built in: what sympy prints verbatim into code."""
    return (
        type(name) is str
        and re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", name) is not None
        and "__" not in name
        and not keyword.iskeyword(name)
        and not hasattr(builtins, name)
    )


_FORMULA_OPERATORS = frozenset({"+", "-", "*", "/", "**", "(", ")"})
# The names of mpmath.identify's formulas: its functions (sqrt, log, exp) and the str() of
# sympy's own real constants, which nsimplify passes as its constants' names. Any other name
# is refused: a constant's str() is its own code (``_sympystr``), and a call of any other
# name (``prime(100000)``) runs whatever sympify resolves it to.
_FORMULA_NAMES = frozenset(
    {"sqrt", "log", "exp", "pi", "E", "EulerGamma", "Catalan", "GoldenRatio",
     "TribonacciConstant"}
)  # fmt: skip


def numbers_and_names(text: str) -> bool:
    """Numbers, arithmetic and the names of ``_FORMULA_NAMES`` only (``mpmath.identify``'s
    formulas)."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return False
    for token in tokens:
        if token.type in (tokenize.NUMBER, tokenize.NEWLINE, tokenize.NL, tokenize.ENDMARKER):
            continue
        if token.type == tokenize.OP and token.string in _FORMULA_OPERATORS:
            continue
        if token.type == tokenize.NAME and token.string in _FORMULA_NAMES:
            continue
        return False
    return True
