"""A test double for `lean -o` and for the kernel verifier (tutor/lean/verifier). Tests only.

A real subprocess speaking the two command lines tutor/lean/kernel_check.py uses:

- compile: `fake_lean.py -o OUT.olean FILE.lean` writes OUT.olean as JSON
  {"fake_olean": 1, "source": <the file>} (real Lean writes the environment; here the
  "environment" is the source, re-read by the verifier mode like a kernel replay would);
  `-- fake: compile-fail` in the file: exit 1 and write nothing.
  `-- fake: forge-result` in the file: act like hostile code run during elaboration: a
  detached process (its own session, so killing the compile's group misses it) keeps
  writing a "confirmed" result.json into every folder it can find next to its own for 3 s.
- verify: `fake_lean.py --olean SUB --imports A,B --out FILE [--theorem NAME]
  [--reference REF]`, the nonce on stdin; writes one JSON result to FILE, like the real
  verifier: {"nonce", "status": "confirmed"|"rejected"|"error", "reason", "theorem",
  "type_matches", "axioms"}.
  A theorem's type is the text between its name and `:=`, whitespace-normalised, at its
  fully qualified name (`namespace X` applies). Axioms: sorryAx when its text holds `sorry`,
  Lean.ofReduceBool for `native_decide`, the three classical
  axioms when it mentions classical/by_contra/Classical (as fake_repl.py), and any `axiom NAME` of the file it mentions.
  Markers in the submission: `-- fake: verifier-crash` (exit 134, no result),
  `-- fake: verifier-hang`, `-- fake: verifier-garbage` (a result that is not JSON),
  `-- fake: kernel-rejects` ("rejected", as when a replayed declaration fails to
  type-check), `-- fake: verifier-axiom NAME` (NAME is among the axioms).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sys
import time
from pathlib import Path

_DECL = re.compile(
    r"^\s*(?:@\[[^\]]*\]\s*)?(?:private\s+|protected\s+)?(theorem|lemma|def|axiom)\s+(\S+)", re.M
)


def compile_file(out: str, source_path: str) -> int:
    source = Path(source_path).read_text(encoding="utf-8")
    if "-- fake: compile-fail" in source:
        print(f"{source_path}:1:0: error: unsolved goals", file=sys.stderr)
        return 1
    if "-- fake: forge-result" in source:
        _forge(Path(out).parent.parent)
    Path(out).write_text(json.dumps({"fake_olean": 1, "source": source}), encoding="utf-8")
    return 0


def _forge(job: Path) -> None:
    if os.fork() != 0:
        return
    os.setsid()
    if os.fork() != 0:
        os._exit(0)
    forged = json.dumps({"status": "confirmed", "type_matches": True, "axioms": []})
    end = time.monotonic() + 3
    while time.monotonic() < end:
        for folder in job.glob("*"):
            with contextlib.suppress(OSError):
                (folder / "result.json").write_text(forged)
        time.sleep(0.01)
    os._exit(0)


def declarations(source: str) -> dict[str, tuple[str, str, str]]:
    """Fully qualified name -> (kind, type text, whole declaration text)."""
    found: dict[str, tuple[str, str, str]] = {}
    namespaces: list[str] = []
    lines = source.split("\n")
    starts = []
    for index, line in enumerate(lines):
        words = line.split()
        if words[:1] == ["namespace"] and len(words) > 1:
            namespaces.append(words[1])
        elif words[:1] == ["end"] and namespaces:
            namespaces.pop()
        match = _DECL.match(line)
        if match:
            starts.append((index, match.group(1), ".".join([*namespaces, match.group(2)])))
    for position, (index, kind, name) in enumerate(starts):
        stop = starts[position + 1][0] if position + 1 < len(starts) else len(lines)
        text = "\n".join(lines[index:stop])
        head = text.split(":=", 1)[0]
        type_text = " ".join(head.split()[2:])
        found[name] = (kind, type_text, text)
    return found


def axioms_of(text: str, user_axioms: list[str]) -> list[str]:
    found = set()
    body = "\n".join(line.split("--")[0] for line in text.split("\n"))
    if re.search(r"\bsorry\b", body):
        found.add("sorryAx")
    if re.search(r"\b(classical|by_contra|Classical)\b", body):
        found.update({"propext", "Classical.choice", "Quot.sound"})
    if "native_decide" in body:
        found.add("Lean.ofReduceBool")
    for name in user_axioms:
        if re.search(rf"\b{re.escape(name.rsplit('.', 1)[-1])}\b", body):
            found.add(name)
    for marker in re.findall(r"-- fake: verifier-axiom (\S+)", text):
        found.add(marker)
    return sorted(found)


def verify(args: list[str]) -> int:
    options: dict[str, str] = {}
    for index in range(0, len(args) - 1, 2):
        options[args[index].lstrip("-")] = args[index + 1]
    nonce = sys.stdin.read().strip()
    source = json.loads(Path(options["olean"]).read_text(encoding="utf-8"))["source"]
    if "-- fake: verifier-crash" in source:
        print("INTERNAL PANIC: fake crash", file=sys.stderr)
        return 134
    if "-- fake: verifier-hang" in source:
        time.sleep(3600)
    out = Path(options["out"])
    if "-- fake: verifier-garbage" in source:
        out.write_text("this is not json")
        return 0
    result = _judge(source, options)
    result["nonce"] = nonce
    out.write_text(json.dumps(result), encoding="utf-8")
    return 0


def _judge(source: str, options: dict[str, str]) -> dict[str, object]:
    if "-- fake: kernel-rejects" in source:
        return {"status": "rejected", "reason": "(kernel) declaration type mismatch"}
    decls = declarations(source)
    user_axioms = [name for name, (kind, _, _) in decls.items() if kind == "axiom"]
    theorem = options.get("theorem")
    if theorem is None:
        axioms: set[str] = set()
        for kind, _, text in decls.values():
            if kind != "axiom":
                axioms.update(axioms_of(text, user_axioms))
        axioms.update(user_axioms)
        return {"status": "confirmed", "reason": "", "axioms": sorted(axioms)}
    entry = decls.get(theorem)
    if entry is None or entry[0] not in ("theorem", "lemma"):
        return {"status": "rejected", "reason": f"no theorem named {theorem}"}
    matches = None
    if "reference" in options:
        reference = json.loads(Path(options["reference"]).read_text(encoding="utf-8"))["source"]
        wanted = declarations(reference).get(theorem)
        matches = wanted is not None and wanted[1] == entry[1]
    return {
        "status": "confirmed",
        "reason": "",
        "theorem": theorem,
        "type_matches": matches,
        "axioms": axioms_of(entry[2], user_axioms),
    }


def main(argv: list[str]) -> int:
    if argv[:1] == ["-o"] and len(argv) == 3:
        return compile_file(argv[1], argv[2])
    return verify(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
