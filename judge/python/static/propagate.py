"""How a value derived from the solution spreads through one statement (the taint analysis's
propagation rules): assignments, loops, ``with``, ``except``, ``match``, defaults, and stores
into holders (containers, the verifier's own instances, their aliases).

A pure fact computation: it adds names to the set of tainted names of the function being
analysed, and records the classes whose instances hold the solution; it reports nothing.
``taint.py`` drives it to a fixed point; ``checks.py`` reads the result.
"""

from __future__ import annotations

import ast

from judge.python.static.facts import TaintFacts
from judge.python.static.resolve import Function
from judge.python.static.rules import MUTATORS, is_sanitiser
from judge.python.static.scope import Scope, root_name


class Propagation:
    """The propagation rules, reading expression taint from the analysis."""

    def __init__(self, analysis: TaintFacts) -> None:
        self.a = analysis
        self.index = analysis.index

    def store(self, target: ast.AST, tainted: set[str]) -> None:
        """``target`` now holds a tainted value."""
        if isinstance(target, ast.Name):
            tainted.add(target.id)
        elif isinstance(target, ast.Tuple | ast.List):
            for element in target.elts:
                self.store(element, tainted)
        elif isinstance(target, ast.Starred):
            self.store(target.value, tainted)
        elif isinstance(target, ast.Attribute | ast.Subscript):
            # Only a holder the checks can follow takes the taint: one of the verifier's own
            # classes (the class is tainted), or a list/dict/set it built. Anything else (a
            # sympy matrix, a Poly) is refused by the checks, and must not become "tainted
            # builtin data" by the very store that is refused.
            scope = self.index.scope(target)
            self._store_into_path(
                root_name(target), scope, tainted, itself=isinstance(target.value, ast.Name)
            )

    def _store_into_path(
        self, root: ast.Name | None, scope: Scope, tainted: set[str], *, itself: bool
    ) -> None:
        """Something under ``root`` (``root.x``, ``root[k][j]``) now holds a tainted value;
        ``itself``: stored into root's own object (``root.append(x)``, ``root[k] = x``), not
        deeper (``root[k].append(x)``)."""
        if root is None:
            return
        if not isinstance(scope, ast.Module) and root.id in _defaults(scope):
            # def keep(text, memo={}): memo['t'] = text -- the default outlives the call: every
            # later call (with no tainted argument) reads the text back from it.
            self.a.closure_tainted.setdefault(id(scope), set()).add(root.id)
            self._store_into_default(scope, root.id, itself=itself)
        cls = self.a.resolver.receiver_class(root, scope)
        if cls is None and self.a.resolver.own_class(root.id) is not None:
            cls = self.a.resolver.own_class(root.id)
        if cls is not None:
            tainted.add(root.id)
            self.a.tainted_classes.update(c.name for c in self.a.resolver.subclasses(cls))
        elif self.a.plain.is_builtin_container(root, scope):
            # rows[-1].append(tok), values[k][0] = text: the whole structure holds it.
            tainted.add(root.id)
        # Whatever ``root`` may share its elements with holds it too: ``other = grid.copy()``,
        # ``for row, tok in zip(grid, parts)``, ``row = pick(grid)``. Not a flow followed but
        # a class closed: every name read (outside an index) where ``root`` was bound.
        # Only a list/dict/set the verifier built takes the taint: a library object must
        # stay foreign (tainting it would count it as the solution's data).
        tainted.update(
            name
            for name in self._alias_sources(root.id, scope, itself, set()) - {root.id}
            if self.a.plain.name_is_builtin_container(name, scope)
        )

    def _store_into_default(self, function: Function, name: str, *, itself: bool) -> None:
        """``def fill(text, grid=GRID): grid[0].append(text)``: the default is the object
        ``GRID`` names where ``fill`` is defined (``store=rows`` in a nested function: the
        enclosing function's ``rows``), so a store into it is a store into that name, in
        that scope: a module-level name, or a name of the enclosing function."""
        default = _defaults(function).get(name)
        outer = self.index.scope(function)  # where the defaults are evaluated
        if default is None:
            return
        names: set[str] = set()
        for source, source_itself in _sources(default, itself):
            names |= self._alias_sources(source, outer, source_itself, set())
        for alias in names:
            if not self.a.plain.name_is_builtin_container(alias, outer):
                continue  # only a list/dict/set the verifier built (a library object stays foreign)
            if isinstance(outer, ast.Module):
                self.a.global_tainted.add(alias)
            else:
                self.a.closure_tainted.setdefault(id(outer), set()).add(alias)

    def _alias_sources(self, name: str, scope: Scope, itself: bool, seen: set[str]) -> set[str]:
        """The names whose objects ``name`` may be (``itself``) or share elements with,
        transitively: what a store into ``name`` (or into its elements) changes too."""
        seen.add(name)
        for binding in self.index.lookup(name, scope) or []:
            if binding.kind in ("mutate", "inner", "aug") or binding.expr is None:
                continue
            # for row in grid: row is an element of grid, not grid itself.
            shared = itself and binding.kind != "iter"
            for source, source_itself in _sources(binding.expr, shared):
                if source in seen or source in self.index.aliases:
                    continue
                if source in self.index.functions or source in self.index.classes:
                    continue
                self._alias_sources(source, scope, source_itself, seen)
        return seen

    def propagate(self, node: ast.AST, tainted: set[str]) -> None:  # noqa: C901 -- per node kind
        if isinstance(node, ast.Assign):
            if self.a.is_tainted(node.value, tainted):
                for target in node.targets:
                    self.store(target, tainted)
            for target in node.targets:
                # pairs[text] = 1: the dict now holds the text as a key.
                if isinstance(target, ast.Subscript) and self.a.is_tainted(target.slice, tainted):
                    self.store(target, tainted)
        elif isinstance(node, ast.AugAssign):
            target = node.target
            if (
                self.a.is_tainted(node.value, tainted)
                or self.a.is_tainted(target, tainted)
                # counts[text] += 1: the dict now holds the text as a key, as with ``=``.
                or isinstance(target, ast.Subscript)
                and self.a.is_tainted(target.slice, tainted)
            ):
                self.store(target, tainted)
        elif isinstance(node, ast.AnnAssign | ast.NamedExpr):
            if node.value is not None and self.a.is_tainted(node.value, tainted):
                self.store(node.target, tainted)
        elif isinstance(node, ast.For | ast.AsyncFor | ast.comprehension):
            if self.a.is_tainted(node.iter, tainted):
                target = node.target
                if (
                    self._enumerates(node.iter)
                    and isinstance(target, ast.Tuple | ast.List)
                    and len(target.elts) == 2
                    and isinstance(target.elts[0], ast.Name)
                ):
                    # for i, tok in enumerate(parts): i is a count, only tok is the text.
                    target = ast.Tuple(elts=target.elts[1:], ctx=ast.Store())
                self.store(target, tainted)
        elif isinstance(node, ast.withitem):
            if node.optional_vars is not None and self.a.is_tainted(node.context_expr, tainted):
                self.store(node.optional_vars, tainted)
        elif isinstance(node, ast.ExceptHandler):
            if node.name:
                tainted.add(node.name)  # an exception's text may quote the solution
        elif isinstance(node, ast.Match):
            if self.a.is_tainted(node.subject, tainted):
                for child in ast.walk(node):
                    if isinstance(child, ast.MatchAs | ast.MatchStar) and child.name:
                        tainted.add(child.name)
                    elif isinstance(child, ast.MatchMapping) and child.rest:
                        tainted.add(child.rest)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            self.tainted_defaults(node, tainted)
        elif isinstance(node, ast.Call):
            self._propagate_call(node, tainted)

    def _enumerates(self, node: ast.AST) -> bool:
        """``enumerate(x)`` with one positional argument: its pairs start with a plain int."""
        return (
            isinstance(node, ast.Call)
            and self.index.trusted_name(node.func) == "enumerate"
            and len(node.args) == 1
            and not node.keywords
            and not isinstance(node.args[0], ast.Starred)
        )

    def tainted_defaults(self, function: Function, tainted: set[str]) -> None:
        arguments = function.args
        positional = [*arguments.posonlyargs, *arguments.args]
        pairs = list(
            zip(
                positional[len(positional) - len(arguments.defaults) :],
                arguments.defaults,
                strict=True,
            )
        )
        pairs += [
            (a, d)
            for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True)
            if d is not None
        ]
        for argument, default in pairs:
            if self.a.is_tainted(default, tainted):
                tainted.add(argument.arg)

    def _propagate_call(self, node: ast.Call, tainted: set[str]) -> None:
        func = node.func
        self._shared_with_own_instance(node, tainted)
        if isinstance(func, ast.Attribute) and func.attr in MUTATORS:
            # parts.append(solution): parts now holds it.
            arguments = [*node.args, *(k.value for k in node.keywords)]
            if any(self.a.is_tainted(argument, tainted) for argument in arguments):
                self._store_in(func.value, node, tainted)
        elif (
            self.index.trusted_name(func) == "setattr"
            and len(node.args) == 3
            and self.a.is_tainted(node.args[2], tainted)
        ):
            self._store_in(node.args[0], node, tainted)

    def _shared_with_own_instance(self, node: ast.Call, tainted: set[str]) -> None:
        """``Keeper(rows)`` or ``keeper.adopt(rows)`` where Keeper's instances hold the
        solution: the instance may keep ``rows`` and store the text into it later."""
        scope = self.index.scope(node)
        func = node.func
        cls = None
        if isinstance(func, ast.Name):
            cls = self.a.resolver.own_class(func.id)
        elif isinstance(func, ast.Attribute):
            cls = self.a.resolver.receiver_class(func.value, scope)
        if cls is None or cls.name not in self.a.tainted_classes:
            return
        for argument in [*node.args, *(keyword.value for keyword in node.keywords)]:
            root = root_name(argument)
            if root is not None and not self.a.is_tainted(root, tainted):
                self._store_into_path(root, scope, tainted, itself=argument is root)

    def _store_in(self, holder: ast.expr, at: ast.AST, tainted: set[str]) -> None:
        """``holder.append(x)``/``setattr(holder, n, x)`` with a tainted ``x``."""
        scope = self.index.scope(at)
        self._store_into_path(
            root_name(holder), scope, tainted, itself=isinstance(holder, ast.Name)
        )


def _defaults(function: Function) -> dict[str, ast.expr]:
    """The parameters of ``function`` that have a default value, with it."""
    arguments = function.args
    positional = [*arguments.posonlyargs, *arguments.args]
    found = dict(
        zip(
            (argument.arg for argument in positional[len(positional) - len(arguments.defaults) :]),
            arguments.defaults,
            strict=True,
        )
    )
    found.update(
        (argument.arg, default)
        for argument, default in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True)
        if default is not None
    )
    return found


# Calls that build a new container (or a number): storing into their result changes none
# of their arguments (the elements are shared: an element stored into is still followed).
_NEW_CONTAINER_CALLS = frozenset(
    {"list", "tuple", "set", "frozenset", "dict", "sorted", "reversed", "zip", "map", "filter",
     "enumerate", "str", "repr", "len", "sum", "min", "max", "range"}
)  # fmt: skip
_NEW_VALUES = (
    ast.List, ast.Tuple, ast.Set, ast.Dict, ast.ListComp, ast.SetComp, ast.DictComp,
    ast.GeneratorExp, ast.BinOp, ast.JoinedStr, ast.Constant, ast.Lambda,
)  # fmt: skip


def _sources(expr: ast.AST, itself: bool) -> list[tuple[str, bool]]:
    """The names whose objects a value bound to ``expr`` may share, each with whether only the
    object itself is shared (``itself``: a store into the value changes that name's object;
    else an element of it: ``row = grid[0]``, ``rows = table.setdefault(k, [])``).

    With ``itself`` false (a store deep inside the value), every name read counts but an
    index (``grid[i]`` shares nothing with ``i``) and what a sanitiser reads; with it true, a
    new container (a display, ``list(...)``, ``x.copy()``, ``a + b``) shares nothing."""
    if not itself:
        return [(name, False) for name in _read_names(expr)]
    found: list[tuple[str, bool]] = []
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Name):
            found.append((node.id, True))
        elif isinstance(node, _NEW_VALUES):
            continue
        elif isinstance(node, ast.Subscript | ast.Attribute):
            found.extend(_sources(node.value, False))
        elif isinstance(node, ast.Call):
            name = node.func.id if isinstance(node.func, ast.Name) else None
            if name in _NEW_CONTAINER_CALLS or is_sanitiser(name):
                continue
            if isinstance(node.func, ast.Attribute) and node.func.attr == "copy":
                continue
            found.extend(_sources(node, False))  # an own helper, .get(), .setdefault()...
        elif isinstance(node, ast.Compare):
            found.extend(_sources(node, False))  # an own __eq__ may return part of an operand
        else:
            stack.extend(ast.iter_child_nodes(node))
    return found


def _read_names(expr: ast.AST) -> set[str]:
    """The names ``expr`` reads that its value may share objects with: not an index
    (``grid[i]`` shares nothing with ``i``), nor what a sanitiser reads."""
    found: set[str] = set()
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Name):
            found.add(node.id)
        elif isinstance(node, ast.Subscript):
            stack.append(node.value)
        elif isinstance(node, ast.Call):
            if isinstance(node.func, ast.Name) and is_sanitiser(node.func.id):
                continue
            if isinstance(node.func, ast.Attribute):
                stack.append(node.func.value)
            stack.extend(node.args)
            stack.extend(keyword.value for keyword in node.keywords)
        elif isinstance(node, ast.Constant | ast.Lambda):
            continue
        else:
            stack.extend(ast.iter_child_nodes(node))
    return found
