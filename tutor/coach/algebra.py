"""Equalities that hold by commutativity and associativity of `+` and `*` alone.

`a * (b * c) = a * (c * b)` is not closed by `rfl` or `omega` (a product of variables), but it
is `rw [Nat.mul_comm b c]`, and any such equation is `ac_rfl` (core Lean's tactic for
associative-commutative operators). The coach names the single rewrite when one swap of a
node's operands makes the sides equal, else `ac_rfl`. Both sides are parsed into trees over
`+` and `*` with atoms for everything else; anything else (`-`, `/`, `^`, applications with
spaces inside) is left alone: no claim is made about it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tutor.coach.goals import Shape, split_target

_TOKEN = re.compile(r"\s*(\d+|[A-Za-z_][\w'₀-₉.]*|[()+*])")


@dataclass(frozen=True)
class Node:
    op: str  # "+", "*" or "" for an atom
    left: Node | None = None
    right: Node | None = None
    atom: str = ""

    def text(self, top: bool = True) -> str:
        if not self.op:
            return self.atom
        assert self.left is not None and self.right is not None
        inner = f"{self.left.text(False)} {self.op} {self.right.text(False)}"
        return inner if top else f"({inner})"


def parse(text: str) -> Node | None:
    tokens: list[str] = []
    position = 0
    text = text.strip()
    while position < len(text):
        match = _TOKEN.match(text, position)
        if not match:
            return None
        tokens.append(match.group(1))
        position = match.end()
    node, rest = _sum(tokens)
    return node if node is not None and not rest else None


def _sum(tokens: list[str]) -> tuple[Node | None, list[str]]:
    node, tokens = _product(tokens)
    while node is not None and tokens[:1] == ["+"]:
        right, tokens = _product(tokens[1:])
        node = Node("+", node, right) if right is not None else None
    return node, tokens


def _product(tokens: list[str]) -> tuple[Node | None, list[str]]:
    node, tokens = _atom(tokens)
    while node is not None and tokens[:1] == ["*"]:
        right, tokens = _atom(tokens[1:])
        node = Node("*", node, right) if right is not None else None
    return node, tokens


def _atom(tokens: list[str]) -> tuple[Node | None, list[str]]:
    if not tokens:
        return None, tokens
    if tokens[0] == "(":
        node, rest = _sum(tokens[1:])
        if node is None or rest[:1] != [")"]:
            return None, rest
        return node, rest[1:]
    if tokens[0] in "+*)":
        return None, tokens
    return Node("", atom=tokens[0]), tokens[1:]


def _canonical(node: Node) -> str:
    """The node with every run of one operator flattened and its operands sorted."""
    if not node.op:
        return node.atom
    operands = sorted(_canonical(part) for part in _flatten(node, node.op))
    return f"{node.op}({','.join(operands)})"


def _flatten(node: Node, op: str) -> list[Node]:
    if node.op != op:
        return [node]
    assert node.left is not None and node.right is not None
    return _flatten(node.left, op) + _flatten(node.right, op)


def _swaps(node: Node) -> list[tuple[Node, Node]]:
    """(the tree with one node's operands swapped, that node) for every operator node."""
    if not node.op:
        return []
    assert node.left is not None and node.right is not None
    out = [(Node(node.op, node.right, node.left), node)]
    out += [(Node(node.op, changed, node.right), at) for changed, at in _swaps(node.left)]
    out += [(Node(node.op, node.left, changed), at) for changed, at in _swaps(node.right)]
    return out


def ac_step(target: str, prefix: str = "Nat") -> str | None:
    """The step that closes an `=` goal true by commutativity/associativity alone, or None:
    `rw [Nat.mul_comm b c]` when one swap suffices, else `ac_rfl`."""
    split = split_target(target)
    if split.shape is not Shape.EQ:
        return None
    left, right = parse(split.left), parse(split.right)
    if left is None or right is None or left == right:
        return None
    if _canonical(left) != _canonical(right):
        return None
    for changed, at in _swaps(left):
        if changed == right:
            assert at.left is not None and at.right is not None
            lemma = "mul_comm" if at.op == "*" else "add_comm"
            return f"rw [{prefix}.{lemma} {_arg(at.left)} {_arg(at.right)}]"
    return "ac_rfl"


_APPLIED = re.compile(r"^(?P<head>[A-Za-z_][\w'₀-₉.]*)\s+\((?P<arg>.+)\)$")


def ac_step_inside(target: str, mathlib: bool) -> str | None:
    """`f (a + b) = f (b + a)`: the same function applied to arguments equal by commutativity
    and associativity; `rw` rewrites inside the application, so the step is the argument's."""
    split = split_target(target)
    if split.shape is not Shape.EQ:
        return None
    left, right = _APPLIED.match(split.left.strip()), _APPLIED.match(split.right.strip())
    if left is None or right is None or left.group("head") != right.group("head"):
        return None
    step = ac_step(f"{left.group('arg')} = {right.group('arg')}", "Nat")
    if step is None:
        return None
    # With Mathlib the general lemma, without its `Nat.` prefix, fits any commutative type.
    return step.replace("Nat.", "") if mathlib else step


def _arg(node: Node) -> str:
    return node.text(top=False)
