/-
LeanCoach's independent verifier. It runs no code from the submission: it reads the
constants out of the submission's .olean, replays them through the kernel on top of the
trusted imports (the header's modules, from the read-only toolchain/Mathlib), and compares
the posed theorem with the reference statement's .olean. Written after studying the
approach of lean4checker and SafeVerify (not copied). See docs/LEAN.md.

  leancoach-verify --olean Sub.olean --imports Mathlib,Foo --out result.json
                   [--theorem Name] [--reference Ref.olean]      (nonce on stdin)

It writes exactly one JSON object to --out:
  {"nonce", "status": "confirmed" | "rejected" | "error", "reason", "theorem",
   "type_matches", "axioms"}
NOT COMPILED in LeanCoach's development environment (no Lean there); `make lean` builds it
against the pinned toolchain. API names used: readModuleData, importModules,
Lean.Environment.replay (Lean.Replay), Kernel.Environment.find?.
-/
import Lean
import Lean.Replay

open Lean

namespace LeanCoachVerify

structure Args where
  olean : System.FilePath := ""
  reference : Option System.FilePath := none
  theoremName : Option Name := none
  imports : Array Name := #[]
  out : System.FilePath := ""

def parseArgs : List String → Args → Except String Args
  | [], a => .ok a
  | "--olean" :: v :: rest, a => parseArgs rest { a with olean := v }
  | "--reference" :: v :: rest, a => parseArgs rest { a with reference := some v }
  | "--theorem" :: v :: rest, a => parseArgs rest { a with theoremName := some v.toName }
  | "--imports" :: v :: rest, a =>
    parseArgs rest { a with imports := ((v.splitOn ",").filter (· ≠ "")).toArray.map String.toName }
  | "--out" :: v :: rest, a => parseArgs rest { a with out := v }
  | w :: _, _ => .error s!"unknown argument {w}"

/-- A definite finding about the submission (as opposed to an infrastructure failure). -/
structure Rejected where
  reason : String

def constantsOf (mod : ModuleData) : Std.HashMap Name ConstantInfo := Id.run do
  let mut found : Std.HashMap Name ConstantInfo := {}
  for name in mod.constNames, info in mod.constants do
    found := found.insert name info
  return found

def kindOf : ConstantInfo → String
  | .axiomInfo _ => "axiom"
  | .defnInfo _ => "def"
  | .thmInfo _ => "theorem"
  | .opaqueInfo _ => "opaque"
  | .quotInfo _ => "quot"
  | .inductInfo _ => "inductive"
  | .ctorInfo _ => "constructor"
  | .recInfo _ => "recursor"

/-- Axioms reachable from `c` in the replayed kernel environment. A constant that is not
there (skipped by replay as unsafe/partial, or never defined) counts as an axiom named
`unverified:<name>`, so it can never pass the allowed list. -/
partial def collectAxioms (env : Kernel.Environment) (c : Name) :
    StateM (NameSet × Array String) Unit := do
  if (← get).1.contains c then return
  modify fun (seen, found) => (seen.insert c, found)
  match env.find? c with
  | none => modify fun (seen, found) => (seen, found.push s!"unverified:{c}")
  | some (.axiomInfo _) => modify fun (seen, found) => (seen, found.push c.toString)
  | some info =>
    for d in info.getUsedConstantsAsSet do
      collectAxioms env d
    if let .inductInfo v := info then
      for ctor in v.ctors do
        collectAxioms env ctor

/-- The statement must mean the same in both files: the theorem's type and level
parameters, and every constant new in the reference file that the type mentions
(transitively, e.g. `hard.match_1`), must be identical in the submission. -/
partial def sameStatement (ref sub : Std.HashMap Name ConstantInfo) :
    List Name → NameSet → Except String Unit
  | [], _ => .ok ()
  | n :: rest, seen =>
    if seen.contains n then sameStatement ref sub rest seen else
    match ref[n]? with
    | none => sameStatement ref sub rest (seen.insert n)  -- imported: trusted, shared
    | some r =>
      match sub[n]? with
      | none => .error s!"{n} is missing from the submission"
      | some s =>
        if kindOf r != kindOf s || r.levelParams != s.levelParams || r.type != s.type then
          .error s!"{n} differs from the posed statement"
        else if (r matches .defnInfo _) && r.value? != s.value? then
          .error s!"the definition {n} differs from the posed one"
        else
          let next := (r.getUsedConstantsAsSet.toList)
          sameStatement ref sub (next ++ rest) (seen.insert n)

def judge (a : Args) : IO (Except Rejected Json) := do
  initSearchPath (← findSysroot)
  let (mod, _) ← readModuleData a.olean
  let imported := (mod.imports.map (·.module)).filter (· != `Init)
  if imported != a.imports.filter (· != `Init) then
    return .error ⟨s!"the file imports {imported}, not the posed header {a.imports}"⟩
  let env ← importModules (a.imports.map fun m => { module := m }) {} (trustLevel := 0)
  let newConstants := constantsOf mod
  let kenv ← try
      Lean.Environment.replay newConstants env.toKernelEnv
    catch e => return .error ⟨s!"(kernel) {e}"⟩
  let roots : Array Name := match a.theoremName with
    | some n => #[n]
    | none => newConstants.toArray.map (·.1)
  let mut typeMatches : Json := Json.null
  if let some n := a.theoremName then
    match kenv.find? n with
    | some (.thmInfo _) => pure ()
    | some other => return .error ⟨s!"{n} is a {kindOf other}, not a theorem"⟩
    | none => return .error ⟨s!"no kernel-checked theorem named {n}"⟩
    if let some refPath := a.reference then
      let (refMod, _) ← readModuleData refPath
      let refConsts := constantsOf refMod
      let some r := refConsts[n]? | return .error ⟨s!"the reference declares no {n}"⟩
      let some s := newConstants[n]? | return .error ⟨s!"the submission declares no {n}"⟩
      let ok := r.levelParams == s.levelParams && r.type == s.type &&
        (sameStatement refConsts newConstants r.type.getUsedConstants.toList {} |>.isOk)
      typeMatches := toJson ok
  let ((), (_, axioms)) := (roots.forM (collectAxioms kenv)).run ({}, #[])
  return .ok <| Json.mkObj [
    ("status", "confirmed"), ("reason", ""),
    ("theorem", toJson (a.theoremName.map (·.toString))),
    ("type_matches", typeMatches),
    ("axioms", toJson axioms)]

end LeanCoachVerify

open LeanCoachVerify in
def main (argv : List String) : IO UInt32 := do
  let nonce := (← (← IO.getStdin).getLine).trim
  match parseArgs argv {} with
  | .error e => IO.eprintln e; return 2
  | .ok a =>
    let result ← try
        match ← judge a with
        | .ok j => pure j
        | .error r => pure <| Json.mkObj [("status", "rejected"), ("reason", r.reason)]
      catch e => pure <| Json.mkObj [("status", "error"), ("reason", toString e)]
    let withNonce := result.setObjVal! "nonce" nonce
    IO.FS.writeFile a.out withNonce.compress
    return 0
