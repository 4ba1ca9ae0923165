"""The run-time guard of the in-sandbox harness: a second layer that fails closed.

Standard library only, bound read-only at /judge/harness_guard.py beside the harness. The
first layer is the publishing check (the verifier's own code is reviewed before it runs);
this one stops the first step of code smuggled in through the *solution*, which cannot name
anything of the harness without the words the guard refuses. The verifier itself runs in
this process and could disarm it.

Every path the guard cannot analyse is a refusal: an exception inside the hook (a
RecursionError from a deeply nested expression, a MemoryError, a decoding error) becomes
``InjectionBlocked``, never a silent pass.
"""

import _thread
import ast
import codecs
import io
import os
import re
import sys
import tokenize
import unicodedata
from collections.abc import Callable

SITE = "/judge/site"
HARNESS_DIR = os.path.dirname(os.path.abspath(__file__)) + "/"


class InjectionBlocked(RuntimeError):
    pass


ImportCheck = Callable[[str], bool]
Hook = Callable[[str, tuple[object, ...]], None]


_state = {"armed": False}


def arm() -> None:
    _state["armed"] = True


def disarm() -> None:
    _state["armed"] = False


_STDLIB_PREFIX = os.path.dirname(os.__file__) + "/"
_FORBIDDEN_WORDS = re.compile(
    r"__|\b(?:eval|exec|compile|open|getattr|setattr|delattr|globals|locals|vars|breakpoint|"
    r"input|help|memoryview|import|exit|quit|sys|os|builtins|subprocess|ctypes|"
    r"gi_frame|gi_code|f_back|f_locals|f_globals|f_builtins|f_code|tb_frame|tb_next|cr_frame|"
    r"ag_frame|co_code|mro|subclasses|system|popen|spawn|settrace|setprofile|f_trace)\b"
)
_SAFE_IMPORT_LINE = re.compile(
    r"\s*(?:from\s+([\w.]+)\s+import\s+[\w\s,*]+|import\s+([\w.]+)(?:\s+as\s+\w+)?)\s*"
)
# Stdlib code generators whose compile() input is their own template, not the solution; and
# ast.parse, which only builds a tree (compiling a tree afterwards is refused below).
_CODEGEN_CALLERS = frozenset(
    _STDLIB_PREFIX + name
    for name in ("dataclasses.py", "collections/__init__.py", "typing.py", "enum.py", "ast.py")
)
# The allowed libraries generate code too (scipy.stats builds methods with exec, scipy's
# _bunch, sympy's monomials...): calls from their files are trusted, except from the modules
# that turn *text they are given* into code, whose input may be the solution.
_EVALUATOR_PARTS = (
    "/sympy/parsing/",
    "/sympy/core/sympify.py",
    "/sympy/utilities/lambdify.py",
    "/sympy/utilities/matchpy_connector.py",
    "/sympy/utilities/autowrap.py",
    "/sympy/plotting/",
    "/sympy/printing/",
    "/sympy/interactive/",
    "/sympy/testing/",
    "/numpy/f2py/",
    "/numpy/distutils/",
    "/numpy/testing/",
)


def _trusted_caller(caller: str) -> bool:
    if caller in _CODEGEN_CALLERS or caller.startswith("<frozen importlib"):
        return True
    return caller.startswith(SITE + "/") and not any(part in caller for part in _EVALUATOR_PARTS)


# Threads inside _caller_file: its own sys._getframe and f_code raise audit events, which the
# hook must let through instead of recursing.
_looking: set[int] = set()
_thread_id = _thread.get_ident


def _caller_file(depth: int) -> str:
    me = _thread_id()
    _looking.add(me)
    try:
        return sys._getframe(depth).f_code.co_filename
    except ValueError:
        return ""
    finally:
        _looking.discard(me)


_REAL_CODE = (_STDLIB_PREFIX, SITE + "/", HARNESS_DIR, "<frozen ")


def _compiled_at_run_time(caller: str) -> bool:
    """Code that is neither a file of ours, the stdlib's or a library's, nor the verifier:
    eval/exec'd text (sympify's ``<string>``, or any name such text gives itself)."""
    return not (caller.startswith(_REAL_CODE) or caller == "<verifier>")


def _runtime_code_on_stack(limit: int = 200) -> bool:
    me = _thread_id()
    _looking.add(me)  # f_code and sys._getframe raise audit events
    try:
        frame = sys._getframe(2)
        while frame is not None and limit > 0:
            if _compiled_at_run_time(frame.f_code.co_filename):
                return True
            frame, limit = frame.f_back, limit - 1  # type: ignore[assignment]
        return False
    finally:
        _looking.discard(me)


def source_text(source: object) -> str:
    """The text compile() will see. A ``# coding: utf-7`` payload hid every word from a UTF-8
    reading: bytes must be strict UTF-8 and declare no other coding, or they are refused."""
    if isinstance(source, str):
        return source
    if isinstance(source, bytes | bytearray | memoryview):
        data = bytes(source)
        try:
            encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        except Exception:  # noqa: BLE001 -- fail closed
            raise InjectionBlocked("compile of source the guard cannot decode") from None
        # eval()/exec() of a str hand the hook UTF-8 bytes and tell the compiler to ignore any
        # cookie in them; compile() of bytes obeys the cookie. The hook cannot tell the two
        # apart, so only one reading may exist: UTF-8, no other coding declared.
        if codecs.lookup(encoding).name not in ("utf-8", "utf-8-sig"):
            raise InjectionBlocked(f"compile of source declaring coding {encoding!r}")
        if data.startswith(codecs.BOM_UTF8):
            data = data[len(codecs.BOM_UTF8) :]
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            raise InjectionBlocked("compile of source that is not UTF-8") from None
    # An AST object: only the import system and our own safe parser produce those.
    raise InjectionBlocked("compile of an AST after the verifier was loaded")


def _check_source(source: object, import_allowed: ImportCheck) -> bool:
    """Refuse forbidden words; True if the source is only imports of allowed modules."""
    text = source_text(source)
    # The compiler NFKC-normalises identifiers: `x.\uff46_\uff42\uff41\uff43\uff4b` (fullwidth
    # letters) *is* `x.f_back`. Check what the compiler will see, not the raw text.
    text = unicodedata.normalize("NFKC", text)
    # Import-only snippets of allowed modules (lambdify's namespace set-up) are harmless.
    statements = [part for part in re.split(r"[;\n]", text) if part.strip()]
    matches = [_SAFE_IMPORT_LINE.fullmatch(part) for part in statements]
    if statements and all(
        match is not None and import_allowed(match.group(1) or match.group(2) or "")
        for match in matches
    ):
        return True
    found = _FORBIDDEN_WORDS.search(text)
    if found:
        raise InjectionBlocked(f"refused to compile code containing {found.group(0)!r}")
    return False


# Attribute reads that hand out frames or code objects (CPython raises "object.__getattr__"
# for these; f_back/f_locals/f_globals are not audited, so the way in is what we refuse).
_INTROSPECTION_ATTRS = frozenset(
    {"gi_frame", "cr_frame", "ag_frame", "tb_frame", "f_code", "gi_code", "cr_code", "ag_code"}
)
# Other ways to frames (and to every object, the harness's own included).
_STACK_EVENTS = frozenset(
    {
        "sys._getframe",
        "sys._current_frames",
        "gc.get_objects",
        "gc.get_referrers",
        "gc.get_referents",
    }
)
# A trace or profile function sees every frame, the harness's after verify returned too (it
# read the verdict's token). Nothing of the harness, the verifier or the libraries needs one.
_TRACE_EVENTS = frozenset({"sys.settrace", "sys.setprofile"})

# sympify/parse_expr turn solution text into an expression they eval. What their
# transformations produce for mathematics is names, numbers, strings, calls, operators,
# subscripts and containers; a payload needs more: attributes (`x._assumptions.update(zero=True)`
# makes the verifier's own `x` zero without a single refused word), keyword arguments, starred
# arguments, lambdas, walrus, comprehensions (generators hand out frames).
_MATH_PARSERS = ("/sympy/parsing/", "/sympy/core/sympify.py")
# Names that build classes. A class the solution shapes (bases, attributes, assumptions it
# inherits from a Dummy or from posify) can pass for an Add or a positive number. sympy's
# transformations emit `Function('f')` for an undefined `f(x)`: that exact form stays allowed.
_STRING_ONLY_FACTORIES = frozenset({"Function", "WildFunction"})
_CLASS_FACTORIES = frozenset(
    {
        "FunctionClass",
        "UndefinedFunction",
        "ManagedProperties",
        "BasicMeta",
        "type",
        "object",
        "super",
        "property",
        "classmethod",
        "staticmethod",
        *_STRING_ONLY_FACTORIES,
    }
)
_NOT_MATH = (
    ast.Attribute,
    ast.Dict,
    ast.keyword,
    ast.Starred,
    ast.Lambda,
    ast.NamedExpr,
    ast.GeneratorExp,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.Yield,
    ast.YieldFrom,
    ast.Await,
)


def _is_string_factory_call(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in _STRING_ONLY_FACTORIES
        and len(node.args) == 1
        and not node.keywords
        and isinstance(node.args[0], ast.Constant)
        and type(node.args[0].value) is str
    )


def _parse_either_way(text: str) -> ast.AST:
    """The tree compile() will build, in 'exec' or in 'eval' mode (the hook cannot tell)."""
    try:
        return ast.parse(text, mode="exec")
    except SyntaxError:
        return ast.parse(text, mode="eval")  # " x" is an expression, not a statement


def _check_math_expression(source: object) -> None:
    text = source_text(source)
    me = _thread_id()
    _looking.add(me)  # ast.parse raises a compile event of its own
    try:
        tree = _parse_either_way(text)
    except SyntaxError:
        raise  # compile() would refuse it the same way; the verifier sees a SyntaxError
    except Exception:  # noqa: BLE001 -- RecursionError, MemoryError...: cannot analyse, refuse
        raise InjectionBlocked("refused an expression the guard cannot analyse") from None
    finally:
        _looking.discard(me)
    if isinstance(tree, ast.Module) and not all(isinstance(s, ast.Expr) for s in tree.body):
        raise InjectionBlocked("refused statements in a mathematical expression")
    allowed_factories = {
        id(node.func)
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and _is_string_factory_call(node)
    }
    nodes = list(ast.walk(tree))
    for node in nodes:
        if isinstance(node, _NOT_MATH):
            raise InjectionBlocked(
                f"refused to evaluate {type(node).__name__} nodes in a mathematical expression"
            )
    for node in nodes:
        if isinstance(node, ast.Name) and node.id in _CLASS_FACTORIES:
            if id(node) not in allowed_factories:
                raise InjectionBlocked(f"refused to build classes with {node.id}")


# Unpickling builds arbitrary objects, whoever calls it (numpy.load too). Exact (module, name)
# pairs only: a dotted name (protocol 4) walks attributes from the module (`numpy.*` reached
# `sys._getframe` and `os.write` through one), and a module prefix admits every submodule.
PICKLE_ALLOWED: frozenset[tuple[str, str]] = frozenset(
    {
        ("numpy", "ndarray"),
        ("numpy", "dtype"),
        ("numpy.core.multiarray", "_reconstruct"),
        ("numpy.core.multiarray", "scalar"),
        ("numpy._core.multiarray", "_reconstruct"),
        ("numpy._core.multiarray", "scalar"),
    }
)


def _armed_event(event: str, args: tuple[object, ...], import_allowed: ImportCheck) -> None:
    if event == "compile":
        caller = _caller_file(3)
        if not _trusted_caller(caller):
            if _runtime_code_on_stack():
                # sympify's eval'd text calling lambdify/sympify with a string of its own: the
                # inner text escapes the checks made for the outer one.
                raise InjectionBlocked("code compiled at run time may not compile more code")
            only_imports = _check_source(args[0], import_allowed)
            if not only_imports and any(part in caller for part in _MATH_PARSERS):
                _check_math_expression(args[0])
    elif event in ("code.__new__", "ctypes.dlopen", "ctypes.dlsym", "ctypes.call_function"):
        if not _trusted_caller(_caller_file(3)):
            raise InjectionBlocked(f"{event} is not allowed in a verifier")
    elif event == "object.__getattr__":
        # Anywhere below run-time compiled code, not only in it: `inspect.stack()`,
        # `inspect.getargvalues(frame)` read frames from a real file on the payload's behalf.
        if args[1] in _INTROSPECTION_ATTRS and _runtime_code_on_stack():
            raise InjectionBlocked(f"run-time compiled code may not read .{args[1]}")
    elif event in _STACK_EVENTS:
        if _runtime_code_on_stack():
            raise InjectionBlocked(f"run-time compiled code may not call {event}")


def _always_event(event: str, args: tuple[object, ...]) -> None:
    """Refused whether or not the guard is armed (module level of the verifier included)."""
    if event in _TRACE_EVENTS:
        raise InjectionBlocked(f"{event} is not allowed in a verifier")
    if event == "marshal.loads" or event == "marshal.load":
        if not _caller_file(3).startswith("<frozen importlib"):
            raise InjectionBlocked("marshal.loads is not allowed in a verifier")
    elif event == "pickle.find_class":
        pair = (args[0], args[1])
        if not all(type(part) is str for part in pair) or pair not in PICKLE_ALLOWED:
            raise InjectionBlocked(f"unpickling {args[0]!s:.80}.{args[1]!s:.80} is not allowed")
    elif event == "os.system":
        raise InjectionBlocked("os.system is not allowed in a verifier")


def make_audit_hook(import_allowed: ImportCheck) -> Hook:
    """The audit hook: the import allowlist always, the injection guard while armed."""

    def _audit(event: str, args: tuple[object, ...]) -> None:
        if event == "import":
            name = args[0]
            if isinstance(name, str) and not import_allowed(name):
                # Exactly what a missing module raises: libraries that probe for optional
                # dependencies with `except ModuleNotFoundError` keep working.
                raise ModuleNotFoundError(
                    f"import of {name!r} is not allowed in a verifier", name=name
                )
            return
        if _looking and _thread_id() in _looking:
            return
        try:
            _always_event(event, args)
            if _state["armed"]:
                _armed_event(event, args, import_allowed)
        except InjectionBlocked:
            raise
        except SyntaxError:
            raise
        except BaseException:  # noqa: BLE001 -- the guard failed: refuse, never pass
            raise InjectionBlocked(f"the judge's guard could not check {event}") from None

    return _audit


def refuse_thread_tracing() -> None:
    """threading.settrace/setprofile store a function every new thread installs: refuse them
    (a thread started anyway calls sys.settrace, which the audit hook refuses)."""
    import threading

    def _refused(*args: object, **kwargs: object) -> None:
        raise InjectionBlocked("threading.settrace/setprofile are not allowed in a verifier")

    for name in ("settrace", "setprofile", "settrace_all_threads", "setprofile_all_threads"):
        if hasattr(threading, name):
            setattr(threading, name, _refused)
