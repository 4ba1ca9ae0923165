"""Where a value derived from the solution may go: the reviewed lists, and nothing else.

Each check names the line, the operation and what to use instead. See ``rules.py`` for the
lists, ``taint.py`` for how taint is computed.
"""

from __future__ import annotations

import ast

from judge.python.static.facts import Context, TaintFacts
from judge.python.static.findings import Findings
from judge.python.static.mixed import MixedContainers
from judge.python.static.operators import OPERATORS, OperatorChecks
from judge.python.static.rules import (
    BUILTIN_METHODS,
    CALLABLE_ARGUMENTS,
    CLASS_OF,
    EXCEPTION_CLASSES,
    LIBRARY_PARSERS,
    MUTATORS,
    PATTERN_METHODS,
    PROPAGATORS,
    SAFE_CALLABLE_VALUES,
    SHORT_ADVICE,
    is_sanitiser,
)
from judge.python.static.scope import Scope, all_params_of, describe, root_name

# Methods of a tainted/plain receiver whose arguments after the first are only stored.
_FIRST_ARGUMENT_ONLY = frozenset({"get", "pop", "setdefault"})
# Builtins that only print one object: str(error) mixes nothing into it.
_TEXT_OF = frozenset({"str", "repr", "ascii"})


class Checker:
    """The checks of one pass over the facts, writing to ``findings``."""

    def __init__(self, analysis: TaintFacts, findings: Findings) -> None:
        self.a = analysis
        self.index = analysis.index
        self.findings = findings
        self.mixed = MixedContainers(analysis, findings)
        self.operators = OperatorChecks(analysis, self.mixed, findings)

    # --- helpers ---
    def ok_operand(self, node: ast.AST, tainted: set[str]) -> bool:
        return not self.mixed.foreign(node, tainted)  # derived from the solution, or plain

    # --- entry points ---
    def check_context(self, context: Context) -> None:
        """Check every node of one analysed context, given its settled tainted names."""
        tainted = set(context.tainted)
        for node in context.nodes:
            self.check(node, tainted)

    def check(self, node: ast.AST, tainted: set[str]) -> None:
        self.mixed.check(node, tainted)
        if isinstance(node, ast.Call):
            self.check_call(node, tainted)
        elif isinstance(node, ast.BinOp):
            symbol = OPERATORS[type(node.op)]
            self.operators.check_operands(node, node.left, node.right, symbol, tainted)
        elif isinstance(node, ast.AugAssign):
            symbol = OPERATORS[type(node.op)] + "="
            if (
                isinstance(node.target, ast.Attribute | ast.Subscript)
                and self.a.is_tainted(node.value, tainted)
                and self.flag_unrooted(node.target.value, node)
            ):
                return
            if self.a.is_tainted(node.value, tainted) and not self.a.plain.plain_before_augmented(
                node.target, self.index.scope(node)
            ):
                # The target's own taint may come from this very statement: judge what it held.
                self.findings.flag(
                    node,
                    f"operator {symbol}",
                    f"the solution is added with `{symbol}` to {describe(node.target)}, an "
                    f"object the checks cannot type; {SHORT_ADVICE}",
                )
            else:
                self.operators.check_operands(node, node.target, node.value, symbol, tainted)
        elif isinstance(node, ast.Compare):
            self.operators.check_compare(node, tainted)
        elif isinstance(node, ast.Subscript):
            self.operators.check_subscript(node, tainted)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if node.value is not None and self.a.is_tainted(node.value, tainted):
                for target in targets:
                    self.check_store(target, node, tainted)
        elif isinstance(node, ast.FormattedValue):
            spec = node.format_spec
            if spec is not None and self.a.is_tainted(spec, tainted):
                if not self.ok_operand(node.value, tainted):
                    self.findings.flag(
                        node,
                        "format spec",
                        f"the solution is the format spec of {describe(node.value)}, "
                        f"whose __format__ the checks cannot follow; {SHORT_ADVICE}",
                    )

    def check_store(self, target: ast.AST, at: ast.AST, tainted: set[str]) -> None:
        if isinstance(target, ast.Tuple | ast.List):
            for element in target.elts:
                self.check_store(element, at, tainted)
            return
        if not isinstance(target, ast.Attribute | ast.Subscript):
            return
        if self.flag_unrooted(target.value, at):
            return
        holder = target.value
        root = root_name(target)
        scope = self.index.scope(target)
        if root is not None and (
            self.a.resolver.receiver_class(root, scope) is not None
            or self.a.resolver.own_class(root.id) is not None
        ):
            return  # an own class: it is now tainted, its methods analysed with it
        if isinstance(target, ast.Subscript) and (
            self.a.is_tainted(holder, tainted) or self.a.plain.is_builtin_container(holder, scope)
        ):
            return
        self.findings.flag(
            at,
            "store",
            f"the solution is stored into {describe(target)}, an object the checks cannot "
            "follow (a library object may convert it with sympify); instead, keep it in a local "
            "variable, a list or a dict",
        )

    def flag_unrooted(self, holder: ast.AST, at: ast.AST) -> bool:
        """Refuse storing the solution into a holder not reached from a name through
        ``[...]``/``.attr`` (``table.setdefault(k, []).append(text)``, ``next(it).append``,
        ``(r := []).append``): what holds it then is not known by any name the checks
        follow. A rule at the store itself, not a flow to follow."""
        if root_name(holder) is not None:
            return False
        self.findings.flag(
            at,
            "store",
            f"the solution is stored into {describe(holder)}, which is not a variable "
            "(or an element of one) that the checks can follow; instead, name the list or "
            "dict first (rows = table.setdefault(k, []); rows.append(text))",
        )
        return True

    # --- calls ---
    def check_call(self, node: ast.Call, tainted: set[str]) -> None:  # noqa: C901 -- the allowlist
        a = self.a
        func = node.func
        tainted_args = [x for x in node.args if a.is_tainted(x, tainted)]
        tainted_keywords = [k for k in node.keywords if a.is_tainted(k.value, tainted)]
        receiver_tainted = isinstance(func, ast.Attribute) and a.is_tainted(func.value, tainted)
        own_class = isinstance(func, ast.Name) and a.resolver.own_class(func.id) is not None
        if not isinstance(func, ast.Attribute) and not own_class and a.is_tainted(func, tainted):
            self.findings.flag(
                node,
                "call",
                f"{describe(func)} is derived from the solution and is called; instead, "
                "choose the function from a dict of your own keyed by the text",
            )
            return
        if not tainted_args and not tainted_keywords and not receiver_tainted:
            return
        name = self.index.trusted_name(func)
        shown = self.index.qualified(func) or (
            func.attr if isinstance(func, ast.Attribute) else "call"
        )
        functions = a.resolver.functions(func)
        if functions is not None or (
            isinstance(func, ast.Name) and a.resolver.own_class(func.id) is not None
        ):
            return  # the verifier's own code: followed by the facts (calls.py), its nodes checked
        for keyword in tainted_keywords:
            if keyword.arg is None:
                self.findings.flag(
                    node, shown, f"** unpacking of the solution into {shown}(): {SHORT_ADVICE}"
                )
                return
        if is_sanitiser(name) or name in EXCEPTION_CLASSES or self.index.numeric_array(node):
            return  # numbers or a bool come out; an exception only stores its arguments
        if name == CLASS_OF and len(node.args) == 1 and not node.keywords:
            return  # runs no code of its argument; the class is tainted as the argument is
        if name in LIBRARY_PARSERS:
            if (
                any(isinstance(x, ast.Starred) for x in node.args)
                or tainted_keywords
                or any(a.is_tainted(x, tainted) for x in node.args[1:])
            ):
                self.findings.flag(
                    node,
                    shown,
                    f"only the text (first argument) of {shown}() may come from "
                    "the solution: symbols and functions must be the verifier's own; instead, "
                    "pass a dict of your own symbols",
                )
            return
        if name in PROPAGATORS:
            self.check_propagator(node, name, tainted)
            return
        self.follow_passed_functions(node)
        if isinstance(func, ast.Attribute):
            self.check_method(node, func, shown, tainted, receiver_tainted)
            return
        self.findings.flag(
            node,
            shown,
            f"the solution reaches {shown}(), which is not a listed pure operation; {SHORT_ADVICE}",
        )

    def follow_passed_functions(self, node: ast.Call) -> None:
        """Thread(target=helper, args=(solution,)): helper may be called with the solution."""
        for argument in [*node.args, *(k.value for k in node.keywords)]:
            if isinstance(argument, ast.Lambda):
                self.a.analyse(argument, frozenset(all_params_of(argument)))
            for function in self.a.resolver.functions(argument) or []:
                self.a.analyse(function, frozenset(all_params_of(function)))

    def check_method(
        self,
        node: ast.Call,
        func: ast.Attribute,
        shown: str,
        tainted: set[str],
        receiver_tainted: bool,
    ) -> None:
        a = self.a
        attr = func.attr
        scope = self.index.scope(node)
        stored = [*node.args, *(keyword.value for keyword in node.keywords)]
        if (
            attr in MUTATORS
            and any(a.is_tainted(argument, tainted) for argument in stored)
            and self.flag_unrooted(func.value, node)
        ):
            return
        if receiver_tainted:
            own = [
                method
                for cls_name in sorted(a.tainted_classes)
                for cls in self.index.classes.get(cls_name, [])
                for method in a.resolver.method(cls, attr)
            ]
            if own:
                for method in own:
                    a.analyse(method, frozenset(all_params_of(method)))
                return
            if attr in BUILTIN_METHODS and not self.mixed.foreign(func.value, tainted):
                self.check_method_arguments(node, attr, tainted)
                return
            self.findings.flag(
                node,
                shown,
                f".{attr}() of a value derived from the solution is not a listed "
                f"str/list/dict/re method; {SHORT_ADVICE}",
            )
            return
        if a.resolver.receiver_class(func.value, scope) is not None:
            cls = a.resolver.receiver_class(func.value, scope)
            assert cls is not None  # noqa: S101 -- just checked
            if a.resolver.method(cls, attr):
                return  # an own method: followed by the facts (calls.py), its nodes checked
        elif attr in BUILTIN_METHODS and (
            a.plain.is_plain(func.value, scope)
            or (attr in MUTATORS and a.plain.is_builtin_container(func.value, scope))
        ):
            self.check_method_arguments(node, attr, tainted)
            return
        elif attr in PATTERN_METHODS and self.is_pattern(func.value, scope):
            self.check_method_arguments(node, attr, tainted)
            return
        if self.index.is_module(func.value) or self.index.trusted_name(func) is not None:
            self.findings.flag(
                node,
                shown,
                f"the solution reaches {shown}(), which is not a listed pure operation; "
                f"{SHORT_ADVICE}",
            )
            return
        self.findings.flag(
            node,
            shown,
            f"the solution reaches .{attr}() of {describe(func.value)}, "
            f"which the checks cannot type (sympy methods sympify their arguments); {SHORT_ADVICE}",
        )

    def is_pattern(self, node: ast.AST, scope: Scope) -> bool:
        """A compiled regular expression: re.compile(...) or a name bound only to one."""
        if isinstance(node, ast.Call):
            return self.index.trusted_name(node.func) == "re.compile"
        if not isinstance(node, ast.Name):
            return False
        bindings = self.index.lookup(node.id, scope)
        return bool(bindings) and all(
            b.kind == "value" and b.expr is not None and self.is_pattern(b.expr, scope)
            for b in bindings or []
        )

    def check_method_arguments(self, node: ast.Call, attr: str, tainted: set[str]) -> None:
        if attr in MUTATORS:
            return  # stored, not called
        arguments: list[ast.AST] = list(node.args)
        if attr in _FIRST_ARGUMENT_ONLY:
            arguments = arguments[:1]
        for keyword in node.keywords:
            if attr == "sort" and keyword.arg == "key":
                self.check_callable(node, keyword.value, "sort", tainted)
            else:
                arguments.append(keyword.value)
        for argument in arguments:
            value = argument.value if isinstance(argument, ast.Starred) else argument
            if not self.ok_operand(value, tainted):
                self.findings.flag(
                    node,
                    attr,
                    f".{attr}() mixes the solution with {describe(value)}, which is not "
                    f"plain data; {SHORT_ADVICE}",
                )

    def check_plain_arguments(
        self, node: ast.Call, shown: str, tainted: set[str], skip: tuple[int, ...]
    ) -> None:
        if shown in _TEXT_OF and len(node.args) == 1 and not node.keywords:
            return  # str(error): the text of one object, nothing is mixed into it
        for position, argument in enumerate(node.args):
            value = argument.value if isinstance(argument, ast.Starred) else argument
            if position not in skip and not self.ok_operand(value, tainted):
                self.findings.flag(
                    node,
                    shown,
                    f"{shown}() mixes the solution with "
                    f"{describe(value)}, which is not plain data; {SHORT_ADVICE}",
                )
                return

    def check_propagator(self, node: ast.Call, name: str, tainted: set[str]) -> None:
        positions, keywords = CALLABLE_ARGUMENTS.get(name, ((), ()))
        for position in positions:
            if position < len(node.args):
                self.check_callable(node, node.args[position], name, tainted)
        self.check_plain_arguments(node, name, tainted, skip=positions)
        for keyword in node.keywords:
            if keyword.arg in keywords:
                self.check_callable(node, keyword.value, name, tainted)
            elif not self.ok_operand(keyword.value, tainted):
                self.findings.flag(
                    node,
                    name,
                    f"{name}() is given {keyword.arg}="
                    f"{describe(keyword.value)} with the solution; {SHORT_ADVICE}",
                )

    def check_callable(
        self, node: ast.Call, function: ast.AST, name: str, tainted: set[str]
    ) -> None:
        """A function that ``name`` will call with the solution's data."""
        a = self.a
        if isinstance(function, ast.Lambda):
            a.analyse(function, frozenset(all_params_of(function)))
            return
        own = a.resolver.functions(function)
        if own is not None:
            for target in own:
                a.analyse(target, frozenset(all_params_of(target)))
            return
        trusted = self.index.trusted_name(function)
        if trusted in SAFE_CALLABLE_VALUES:
            return
        if trusted is not None and trusted.partition(".")[0] in {"str", "bytes"}:
            if trusted.partition(".")[2] in BUILTIN_METHODS:
                return
        if a.plain.is_plain(function, self.index.scope(function)):
            return  # re.sub's replacement text
        if (
            isinstance(function, ast.Attribute)
            and function.attr in BUILTIN_METHODS
            and function.attr not in MUTATORS
            and a.plain.is_builtin_container(function.value, self.index.scope(function))
            and not self.mixed.holds_foreign(function.value, tainted)
        ):
            # max(counts, key=counts.get): a lookup in a dict the verifier built, whose values
            # (compared with each other) are data.
            return
        self.findings.flag(
            node,
            name,
            f"{name}() would call {describe(function)} with the solution; "
            "instead, pass a lambda or a function of the verifier (analysed), or a listed builtin",
        )
