"""A test double for the kernel verifier `leancoach-verify` (tutor/lean/verifier/Main.lean).
Tests only.

A real subprocess speaking the verifier's two command lines, as tutor/lean/kernel_check.py
runs them:

- `fake_lean.py export PICKLE OUT.json` (or `export --stdin`, reading one line
  `PICKLE<TAB>OUT.json`): reads a pickle that fake_repl.py wrote for `{"pickleTo": ...}`
  and writes the export {"fake_export": 1, "imports", "decls"}. An unreadable pickle: exit
  1 with the reason on stderr, no export.
- `fake_lean.py serve --imports Init,Mathlib`: prints one `{"ready": true, ...}` line, then
  answers one JSON line per request line {"id", "submission", "reference", "theorem"} with
  {"id", "status": "confirmed" | "rejected" | "could_not_check", "step", "reason",
  "theorem", "type_matches", "axioms"}.

The rules of the real verifier that it enforces (each also a rule of real Lean):
- the imports must include Init, or it refuses to start (exit 2): lean_rules.INIT;
- `Mathlib` among the imports reserves the address space a Mathlib import maps; under a
  smaller RLIMIT_AS it dies "INTERNAL PANIC: out of memory": lean_rules.reserve_import_memory;
- an export imports exactly the server's modules (Init added), or "could_not_check"
  (step "imports");
- only theorems, definitions, opaque constants and axioms are replayed; any other kind is
  "could_not_check" (step "replay");
- unsafe constants (the `_unsafe_rec` shims of recursive and partial definitions) are not
  replayed, and a theorem that uses one cannot be checked ("could_not_check"); they are
  never counted as the file's own roots (so a file with a recursive definition is fine);
- the posed theorem is looked up by its name's components, must be a theorem, and its type
  must be the reference's ("rejected", step "statement", when not);
- a constant whose text mentions `Lean.reduceBool`, `Lean.reduceNat`, `Lean.ofReduceBool`
  or `Lean.ofReduceNat` is not sent to the kernel, which would run compiled code for it:
  "could_not_check" (step "replay"): lean_rules.NATIVE_REDUCTIONS;
- axioms are recomputed from the declarations' text, never taken from the pickle: sorryAx
  for `sorry`, `NAME._native.native_decide.ax_1_K` for `native_decide`
  (lean_rules.native_decide_axiom; the pickle also carries it as an axiom), the classical
  three for
  `classical`/`by_contra`/`Classical`, a user `axiom` it mentions, and those of the file's
  own declarations it uses.

Markers in a declaration's text: `-- fake: verifier-crash` (exit 134 while answering),
`-- fake: verifier-hang`, `-- fake: verifier-garbage` (a line that is not JSON),
`-- fake: kernel-rejects` ("rejected", step "replay", as when the kernel refuses a
constant), `-- fake: verifier-axiom NAME` (NAME among the axioms), `-- fake: export-crash`
(the export step exits 134 without writing), `-- fake: export-garbage` (it writes text
that is not JSON).
"""

from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path
from typing import Any

try:  # run as a script: its own folder is on sys.path
    import lean_rules
except ImportError:  # imported by a test as tests.fakes.fake_lean
    from tests.fakes import lean_rules

ALLOWED_KINDS = {"thm", "def", "opaque", "axiom"}


def export(pickle_path: str, out_path: str) -> int:
    try:
        pickle = json.loads(Path(pickle_path).read_text(encoding="utf-8"))
        decls = pickle["decls"]
        imports = pickle["imports"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        print(f"leancoach-verify export: unreadable pickle: {exc}", file=sys.stderr)
        return 1
    texts = "\n".join(str(d.get("text", "")) for d in decls)
    if "-- fake: export-crash" in texts:
        print("INTERNAL PANIC: fake export crash", file=sys.stderr)
        return 134
    out = Path(out_path)
    if "-- fake: export-garbage" in texts:
        out.write_text("this is not json")
        return 0
    out.write_text(json.dumps({"fake_export": 1, "imports": imports, "decls": decls}))
    return 0


def serve(imports: list[str]) -> int:
    if lean_rules.INIT not in imports:
        print(
            "leancoach-verify serve: the imports must include Init (a prelude environment "
            "could redefine Nat)",
            file=sys.stderr,
        )
        return 2
    lean_rules.reserve_import_memory(imports)
    print(json.dumps({"ready": True, "imports": imports}), flush=True)
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
        except ValueError:
            print(json.dumps(_answer("", "could_not_check", "request", "not JSON")), flush=True)
            continue
        reply = _judge(request, imports)
        if reply is None:
            continue
        print(json.dumps(reply), flush=True)
    return 0


def _answer(request_id: str, status: str, step: str, reason: str, **extra: Any) -> dict[str, Any]:
    return {
        "id": request_id,
        "status": status,
        "step": step,
        "reason": reason,
        "theorem": extra.get("theorem"),
        "type_matches": extra.get("type_matches"),
        "axioms": extra.get("axioms", []),
    }


def _load(path: str) -> dict[str, Any]:
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if data.get("fake_export") != 1:
        raise ValueError("not an export")
    return data


def _judge(request: dict[str, Any], imports: list[str]) -> dict[str, Any] | None:
    rid = str(request.get("id", ""))
    try:
        sub = _load(request["submission"])
        ref = _load(request["reference"]) if request.get("reference") else None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return _answer(rid, "could_not_check", "export", f"unreadable export: {exc}")
    texts = "\n".join(str(d.get("text", "")) for d in sub["decls"])
    if "-- fake: verifier-crash" in texts:
        print("INTERNAL PANIC: fake verifier crash", file=sys.stderr, flush=True)
        sys.exit(134)
    if "-- fake: verifier-hang" in texts:
        time.sleep(3600)
    if "-- fake: verifier-garbage" in texts:
        print("uncaught exception: this is not JSON", flush=True)
        return None
    for what, data in (("the submission", sub), ("the reference", ref)):
        if data is None:
            continue
        theirs = set(data["imports"]) | {lean_rules.INIT}
        if theirs != set(imports):
            return _answer(
                rid,
                "could_not_check",
                "imports",
                f"{what} was elaborated with the imports {sorted(theirs)}, the verifier holds "
                f"{sorted(imports)}",
            )
    decls = {d["name"]: d for d in sub["decls"]}
    for decl in decls.values():
        if decl["kind"] not in ALLOWED_KINDS:
            return _answer(rid, "could_not_check", "replay", f"{decl['name']} is a {decl['kind']}")
    skipped = {name for name, d in decls.items() if d.get("unsafe") or d.get("partial")}
    for decl in decls.values():
        native = next((n for n in lean_rules.NATIVE_REDUCTIONS if _mentions(_value(decl), n)), None)
        if decl["name"] not in skipped and native is not None:
            return _answer(
                rid,
                "could_not_check",
                "replay",
                f"{decl['name']} uses {native}: the kernel would run compiled code to check it, "
                "and the verifier runs none",
            )
    for decl in decls.values():
        if decl["name"] not in skipped and "-- fake: kernel-rejects" in decl.get("text", ""):
            return _answer(
                rid,
                "rejected",
                "replay",
                f"the kernel rejected {decl['name']}: (kernel) declaration type mismatch",
            )
    theorem = request.get("theorem")
    if theorem is not None:
        # Looked up by components, as the real one builds a `Name` from them.
        name = ".".join(theorem)
        decl = next(
            (d for d in decls.values() if d.get("parts", d["name"].split(".")) == theorem), None
        )
        if decl is None:
            return _answer(
                rid, "could_not_check", "statement", f"the submission declares no {name}"
            )
        name = decl["name"]
        blocked = _uses(decl, decls, skipped)
        if blocked:
            return _answer(rid, "could_not_check", "replay", f"{name} depends on {blocked}")
        if decl["kind"] != "thm":
            return _answer(rid, "could_not_check", "statement", f"{name} is not a theorem")
        matches = None
        if ref is not None:
            wanted = next(
                (d for d in ref["decls"] if d.get("parts", d["name"].split(".")) == theorem), None
            )
            if wanted is None:
                return _answer(rid, "could_not_check", "statement", f"no reference for {name}")
            matches = _norm(wanted["type"]) == _norm(decl["type"])
            if not matches:
                return _answer(
                    rid,
                    "rejected",
                    "statement",
                    f"the proved statement of {name} is not the posed one",
                    theorem=list(theorem),
                    type_matches=False,
                )
        roots = [name]
    else:
        matches = None
        roots = [n for n in decls if n not in skipped]
        for root in roots:
            blocked = _uses(decls[root], decls, skipped)
            if blocked:
                return _answer(rid, "could_not_check", "replay", f"{root} depends on {blocked}")
    axioms: set[str] = set()
    for root in roots:
        axioms |= _axioms(root, decls, set())
    return _answer(
        rid,
        "confirmed",
        "axioms",
        "kernel-checked",
        theorem=list(theorem) if theorem is not None else None,
        type_matches=matches,
        axioms=sorted(axioms),
    )


def _norm(text: str) -> str:
    return " ".join(text.split())


def _value(decl: dict[str, Any]) -> str:
    code = "\n".join(line.split("--", 1)[0] for line in str(decl.get("text", "")).split("\n"))
    return code.split(":=", 1)[1] if ":=" in code else ""


def _mentions(text: str, name: str) -> bool:
    return re.search(rf"(?<![\w.]){re.escape(name)}(?![\w.'])", text) is not None


def _uses(decl: dict[str, Any], decls: dict[str, Any], skipped: set[str]) -> str | None:
    value = _value(decl)
    for other in skipped:
        if other != decl["name"] and _mentions(value, other):
            return other
    return None


def _axioms(name: str, decls: dict[str, Any], seen: set[str]) -> set[str]:
    if name in seen:
        return set()
    seen.add(name)
    decl = decls[name]
    if decl["kind"] == "axiom":
        return {name}
    text = str(decl.get("text", ""))
    value = _value(decl)
    found: set[str] = set()
    if re.search(r"\bsorry\b", value):
        found.add("sorryAx")
    for use in range(1, len(re.findall(r"\bnative_decide\b", value)) + 1):
        found.add(lean_rules.native_decide_axiom(name, use))
    if re.search(r"\b(classical|by_contra|Classical)\b", value):
        found |= {"propext", "Classical.choice", "Quot.sound"}
    for marker in re.findall(r"-- fake: verifier-axiom (\S+)", text):
        found.add(marker)
    for other in decls:
        if other != name and other not in seen and _mentions(value, other):
            found |= _axioms(other, decls, seen)
    return found


def main(argv: list[str]) -> int:
    if len(argv) == 3 and argv[0] == "export":
        return export(argv[1], argv[2])
    if argv == ["export", "--stdin"]:
        parts = sys.stdin.readline().rstrip("\n").split("\t")
        if len(parts) != 2:
            print("expected one line PICKLE<TAB>OUT.json", file=sys.stderr)
            return 2
        return export(parts[0], parts[1])
    if len(argv) == 3 and argv[:2] == ["serve", "--imports"]:
        return serve([m for m in argv[2].split(",") if m])
    print("usage: fake_lean.py export PICKLE OUT.json | serve --imports Init,...", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
