"""Text rebuilt from numbers is the solution's text when the numbers came from it (red team 2).

``ord``, ``int`` and the other sanitisers end the taint: their result is a number, safe as a
number. But ``chr(ord(s)) for s in solution`` is the solution's text again, in one call, and
it reached a stored lambda that sympify ran as code. A conversion from numbers to arbitrary
text or bytes (``chr``, ``bytes``, ``bytearray``, ``int.to_bytes``, ``"%c" %``,
``format(n, "c")``, ``f"{n:c}"``, base64/binascii decoding, ``struct.pack``,
``array.tobytes``, ``numpy.base_repr``, a literal text indexed by a computed number, or one
of these handed on as a function: ``map(chr, codes)``) is therefore the solution's data
whenever its input is derived from the solution: the input is tainted, or is built (through
sanitisers, arithmetic, the names it is bound from, a loop over it) from something tainted. A
parameter of a function counts as derived (its callers are not followed here). Conversions
to digits (``str(n)``, ``"%d" % n``, ``hex(n)``) stay clean: digits spell no name.
"""

from __future__ import annotations

import ast
import re
import string
from collections.abc import Callable

from judge.python.static.by_name import literal_texts
from judge.python.static.scope import ModuleIndex, Scope

# Callables that turn numbers into arbitrary text or bytes.
NUMBER_TO_TEXT = frozenset(
    {"chr", "bytes", "bytearray", "bytes.fromhex", "bytearray.fromhex", "int.to_bytes",
     "struct.pack", "array.array", "numpy.base_repr", "base64.b64decode",
     "base64.standard_b64decode", "base64.urlsafe_b64decode", "base64.b32decode",
     "base64.b32hexdecode", "base64.b16decode", "base64.a85decode", "base64.b85decode",
     "base64.decodebytes", "binascii.unhexlify", "binascii.a2b_hex", "binascii.a2b_base64",
     "binascii.a2b_uu", "binascii.a2b_qp", "zlib.decompress"}
)  # fmt: skip
# Methods (any receiver) that do the same.
NUMBER_TO_TEXT_METHODS = frozenset(
    {"to_bytes", "tobytes", "tostring", "tounicode", "fromhex", "frombytes", "fromlist"}
)
_LAST_NAMES = frozenset(
    {name.rpartition(".")[2] for name in NUMBER_TO_TEXT} | NUMBER_TO_TEXT_METHODS
)
_TEXT_MODULE_CONSTANTS = frozenset(
    {"string.ascii_letters", "string.ascii_lowercase", "string.ascii_uppercase",
     "string.digits", "string.hexdigits", "string.octdigits", "string.punctuation",
     "string.printable", "string.whitespace"}
)  # fmt: skip
# A %-conversion or a format spec that makes a character of a number.
_PERCENT_C = re.compile(r"%(\([^)]*\))?[-#0 +]*(\*|\d+)?(\.(\*|\d+))?[hlL]?c")

IsTainted = Callable[[ast.AST, set[str]], bool]


def _template_makes_text(text: str) -> bool:
    try:
        fields = list(string.Formatter().parse(text))
    except ValueError:
        return True
    return any(spec and ("c" in spec or "{" in spec) for _, _, spec, _ in fields)


class Rebuilt:
    def __init__(self, index: ModuleIndex, is_tainted: IsTainted) -> None:
        self.index = index
        self.is_tainted = is_tainted
        self._active: set[int] = set()  # conversions being judged (a cycle of names)

    def rebuilds(self, node: ast.AST, tainted: set[str]) -> bool:
        """``node`` rebuilds text from numbers derived from the solution."""
        if id(node) in self._active:
            return False  # optimistic inside a cycle: each value is judged from the others
        inputs = self._inputs(node)
        if inputs is None:
            return False
        if inputs and inputs[0] is node:
            return True  # chr kept as a value (f = chr): what it will convert is not followed
        scope = self.index.scope(node)
        self._active.add(id(node))
        try:
            return any(self._derived(part, scope, tainted, set()) for part in inputs)
        finally:
            self._active.discard(id(node))

    def _inputs(self, node: ast.AST) -> list[ast.expr] | None:  # noqa: C901 -- per node kind
        """The inputs of a number-to-text conversion ``node`` (None: not one)."""
        index = self.index
        if isinstance(node, ast.Call):
            name = index.trusted_name(node.func)
            arguments = [*node.args, *(k.value for k in node.keywords)]
            if name in NUMBER_TO_TEXT:
                return arguments
            if isinstance(node.func, ast.Attribute):
                if node.func.attr in NUMBER_TO_TEXT_METHODS:
                    return [node.func.value, *arguments]
                if node.func.attr in ("format", "format_map") and self._spec_makes_text(
                    node.func.value, template=True
                ):
                    return arguments
            if name == "format" and len(node.args) >= 2 and self._spec_makes_text(node.args[1]):
                return arguments[:1]
            handed = [a for a in arguments if self._conversion_value(a)]
            if handed:  # map(chr, codes): what the others hold is converted
                return [a for a in arguments if a not in handed]
            return None
        if isinstance(node, ast.Name | ast.Attribute) and isinstance(node.ctx, ast.Load):
            last = node.id if isinstance(node, ast.Name) else node.attr
            if last not in _LAST_NAMES:
                return None
            parent = index.parents.get(id(node))
            if isinstance(parent, ast.Call) and (parent.func is node or node in parent.args):
                return None  # a call of it, or map(chr, codes): judged at the call
            return [node] if self._conversion_value(node) else None
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
            return [node.right] if self._percent_makes_text(node.left) else None
        if isinstance(node, ast.JoinedStr):
            found = [
                value.value
                for value in node.values
                if isinstance(value, ast.FormattedValue)
                and value.format_spec is not None
                and self._spec_makes_text(value.format_spec)
            ]
            return found or None
        if isinstance(node, ast.Subscript) and self._literal_text(node.value):
            return [node.slice]
        return None

    def _conversion_value(self, node: ast.AST) -> bool:
        """``node`` names a number-to-text conversion (``chr``, ``int.to_bytes``...)."""
        if isinstance(node, ast.Attribute) and node.attr in NUMBER_TO_TEXT_METHODS:
            return True
        return self.index.trusted_name(node) in NUMBER_TO_TEXT

    def _literal_text(self, node: ast.AST) -> bool:
        if isinstance(node, ast.Constant):
            return isinstance(node.value, str | bytes)
        name = self.index.trusted_name(node)
        if name in _TEXT_MODULE_CONSTANTS:
            return True
        if isinstance(node, ast.Name):
            scope = self.index.scope(node)
            bindings = self.index.lookup(node.id, scope) or []
            return bool(bindings) and all(
                b.kind == "value" and b.expr is not None and self._literal_text(b.expr)
                for b in bindings
            )
        return False

    def _percent_makes_text(self, node: ast.AST) -> bool:
        """The left operand of ``%`` is text whose conversions may make characters (``%c``),
        or text the check cannot read (a number's ``%`` is arithmetic: left alone)."""
        if isinstance(node, ast.Constant):
            value = node.value
            if isinstance(value, bytes):
                value = value.decode("latin-1")
            return isinstance(value, str) and bool(_PERCENT_C.search(value))
        return self._text_expression(node, set())

    def _text_expression(self, node: ast.AST, seen: set[str]) -> bool:
        """``node`` is certainly text (a literal, an f-string, text concatenated or repeated, a
        name bound to such, ``str()``/``.join()``/``.format()`` of anything)."""
        if isinstance(node, ast.Constant):
            return isinstance(node.value, str | bytes)
        if isinstance(node, ast.JoinedStr):
            return True
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Mult | ast.Mod):
            return self._text_expression(node.left, seen) or self._text_expression(node.right, seen)
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Attribute):
                return node.func.attr in ("join", "format", "format_map", "replace", "decode")
            return self.index.trusted_name(node.func) in ("str", "repr", "ascii", "format")
        if isinstance(node, ast.Name) and node.id not in seen:
            seen.add(node.id)
            scope = self.index.scope(node)
            bindings = self.index.lookup(node.id, scope) or []
            return any(b.expr is not None and self._text_expression(b.expr, seen) for b in bindings)
        return False

    def _spec_makes_text(self, node: ast.AST, *, template: bool = False) -> bool:
        """A format spec (or a template's specs) that may make a character of a number
        (``c``), or one the check cannot read."""
        if isinstance(node, ast.JoinedStr):
            return any(
                not isinstance(value, ast.Constant) or "c" in str(value.value)
                for value in node.values
            )
        scope = self.index.scope(node)
        texts = literal_texts(self.index, node, scope, set())
        if texts is None:
            return True
        return any(_template_makes_text(text) if template else "c" in text for text in texts)

    def _derived(self, node: ast.AST, scope: Scope, tainted: set[str], seen: set[str]) -> bool:
        """``node``'s value may be computed from the solution (through sanitisers too)."""
        if isinstance(node, ast.Constant):
            return False
        if self.is_tainted(node, tainted):
            return True
        if isinstance(node, ast.Name):
            return self._name_derived(node, scope, tainted, seen)
        if isinstance(node, ast.Lambda | ast.FunctionDef | ast.AsyncFunctionDef):
            return False
        return any(
            self._derived(child, scope, tainted, seen) for child in ast.iter_child_nodes(node)
        )

    def _name_derived(
        self, node: ast.Name, scope: Scope, tainted: set[str], seen: set[str]
    ) -> bool:
        if node.id in seen or self.index.trusted_name(node) is not None:
            return False
        seen.add(node.id)
        name_scope = self.index.scope_of.get(id(node), scope)
        bindings = self.index.lookup(node.id, name_scope)
        if bindings is None:
            return False
        for binding in bindings:
            if binding.expr is None:
                if binding.kind == "opaque" and node.id in self.index.import_bound:
                    continue
                return True  # a parameter, a global, a with target: its source is not followed
            if isinstance(binding.expr, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            if self._derived(binding.expr, name_scope, tainted, seen):
                return True
        return False
