"""The attack inputs of issue 10 and their variants, shared by the double's tests and the
real-Lean ones. Each proof is meant for HARD (a false theorem) and would give a forged
"proved" if any of it got through."""

from __future__ import annotations

import json

HARD = "theorem hard (n : Nat) : n + 1 = n := by"
EASY = "theorem easy (n : Nat) : n = n := by"


def lean_string(text: str) -> str:
    """text as a Lean string literal."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def forged_replies(env: int, name: str = "hard") -> str:
    """Two framed replies as the REPL would print them: the body's and `#print axioms`'s."""
    body = json.dumps({"env": env})
    axioms = json.dumps(
        {
            "messages": [
                {
                    "severity": "info",
                    "pos": {"line": 1, "column": 0},
                    "endPos": {"line": 1, "column": 13},
                    "data": f"'{name}' does not depend on any axioms",
                }
            ],
            "env": env + 1,
        }
    )
    return f"{body}\n\n{axioms}\n\n"


def eval_writing(
    payload: str, *, command: str = "#eval", target: str = '"/dev/stdout"', exit_after: bool = False
) -> str:
    """A top-level command that writes payload to the REPL's own stdout."""
    opener = (
        "let h ← IO.getStdout"
        if target == "IO.getStdout"
        else f"let h ← IO.FS.Handle.mk {target} .append"
    )
    tail = "\n  IO.Process.exit 0" if exit_after else ""
    return (
        f"{command} show IO Unit from do\n  {opener}\n  h.putStr {lean_string(payload)}\n"
        f"  h.flush{tail}"
    )


def char_literal_attack(env: int = 1, **options: object) -> str:
    """Issue 10's first input: `'"'` hid the rest from the old lexer."""
    return "  have c : Char := '\"'\n  sorry\n" + eval_writing(forged_replies(env), **options)  # type: ignore[arg-type]


# Proofs for HARD that the gate must refuse before Lean runs (name -> proof).
GATE_ATTACKS: dict[str, str] = {
    "char literal then #eval to /dev/stdout": char_literal_attack(),
    "char literal, /proc/self/fd/1": char_literal_attack(target='"/proc/self/fd/1"'),
    "char literal, IO.getStdout": char_literal_attack(target="IO.getStdout"),
    "#eval!": "  sorry\n" + eval_writing(forged_replies(1), command="#eval!"),
    "escaped quote char literal": "  have c : Char := '\\''\n  sorry\n" + eval_writing("x"),
    "raw string hides a quote": '  have s : String := r#"x"y"#\n  sorry\n#eval! 1',
    "raw string with quote inside": '  exact (r"\\" : String).length\n#eval 1',
    "«--» name": "  have «--» : True := trivial\n  sorry\n#eval! 1",
    "«» name with quote": '  have «a"b» : True := trivial\n  sorry\n#eval 1',
    "nested s! quotes": '  have s : String := s!"{ "}" ++ s!"{"\\""}" }"\n  sorry\n#eval 1',
    "by_elab inside s! interpolation": '  have s : String := s!"{by_elab pure default}"\n  sorry',
    "nested block comments": "  /- /- -/ still a comment -/ sorry\n#eval 1",
    "native_decide then namespace": (
        "  native_decide\nnamespace X\ntheorem hard : True := trivial"
    ),
    "run_tac": "  run_tac Lean.Elab.Tactic.evalTactic (← `(tactic| sorry))",
    "by_elab": "  exact by_elab pure default",
    "eval%": "  exact eval% (1 : Nat)",
    "simproc": "  sorry\nsimproc evil (_) := fun _ => pure .continue",
    "dsimproc_decl": "  sorry\ndsimproc_decl evil (_) := fun _ => pure .continue",
    "binder_predicate": '  sorry\nbinder_predicate x " > " y:term => `($x > $y)',
    "#guard": "  sorry\n#guard true",
    "omit": "  sorry\nomit n in\ntheorem x : True := trivial",
    "include": "  sorry\ninclude n",
    "open ... in #eval": "  sorry\nopen Lean in #eval! 1",
    "open ... in tactic": "  open Lean in simp",
    "elab definition": '  sorry\nelab "evil" : tactic => pure ()',
    "macro definition": '  sorry\nmacro "evil" : tactic => `(tactic| sorry)',
    "unsafe": "  exact unsafe (unsafeCast ())",
    "implemented_by": "  sorry\n@[implemented_by x] def y : Nat := 0",
    "extern": '  sorry\n@[extern "c"] opaque z : Nat',
    "initialize": "  sorry\ninitialize pure ()",
    "skipKernelTC": "  set_option debug.skipKernelTC true in simp",
    "unsafeIO": "  exact (unsafeIO (pure ())).toOption.get!",
    "IO.FS in a term": '  have := IO.FS.readFile "/etc/passwd"\n  sorry',
    "syntax quotation": "  exact (by exact `(1))",
    "too deeply nested comments": "  " + "/-" * 300 + " -/" * 300 + " sorry",
}
