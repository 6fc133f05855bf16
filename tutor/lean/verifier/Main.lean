/-
LeanCoach's kernel verifier: the only component allowed to say "proved" (docs/LEAN.md,
"The verification step"). Written for LeanCoach after reading lean4checker, SafeVerify,
comparator and lean4export; nothing here is copied from them. One program, two modes:

  leancoach-verify export PICKLE OUT.json      (or `export --stdin`: one `PICKLE<TAB>OUT` line)
    Reads an environment pickle that the Lean REPL wrote for `{"pickleTo": PICKLE, "env": n}`
    and writes that environment's own constants as plain JSON. The pickle was written by a
    process that elaborated a submission, so its bytes are untrusted: a crafted file can hurt
    only this short-lived process, which holds nothing and exits.

  leancoach-verify serve --imports Init,Mathlib
    Imports the trusted modules once, prints one `{"ready": true, ...}` line, then answers one
    JSON line per request line. A request names an export written by `export` (and, for a posed
    statement, the reference statement's export and the theorem's name as components). The
    answer comes from the kernel: every exported constant is rebuilt from the JSON, added with
    `Kernel.Environment.addDeclCore` on top of the imports, the theorem's type is compared with
    the reference's, and the axioms it depends on are collected from the kernel environment.
    It runs no submission code and reads nothing but JSON, so one process serves many checks.

Answer: {"id", "status": "confirmed" | "rejected" | "could_not_check", "step", "reason",
         "theorem", "type_matches", "axioms"}. "rejected" is only ever a definite finding about
the submission's own constants (the kernel refused one, or its statement is not the posed one);
anything else (a missing import, an unknown constant, an unsupported declaration, a resource
limit) is "could_not_check" with the step that failed.

Every Lean API used here is listed, with the upstream file that uses it the same way at the
pinned toolchain (v4.32.0), in docs/LEAN.md ("API conformance"); tests/tutor/lean/
test_verifier_source.py fails when this file names one that the table does not.
-/
import Lean

open Lean

namespace LeanCoachVerify

/-- Bumped when the export layout changes; `serve` refuses exports of another layout. -/
def exportFormat : String := "leancoach-export-1"

/-! ## Reading the REPL's pickle (export mode; untrusted bytes) -/

/-- What `{"pickleTo": PATH, "env": n}` writes (repl v4.32.0 REPL/Main.lean:259-264 calls
`CommandSnapshot.pickle`, REPL/Snapshots.lean:70-77): one `.olean`-format compacted region
made by `saveModuleData` (REPL/Util/Pickle.lean:21-22) holding the nested pair
`(env.header.imports, (env.constants.map₂, (<command state>, <command context>)))`. The
REPL reads it back with `readModuleData` and `unsafeCast` (REPL/Util/Pickle.lean:35-36);
nothing in the bytes needs the REPL's code, only the same toolchain build (the `.olean`
header names it). Only the first two parts are read here: the third pair holds the REPL's
own `CompactableCommandSnapshot` and Lean's `Command.Context`, so it is typed `NonScalar`
("a stand-in for an arbitrary boxed value ... only created using `unsafeCast`", lean4
`Init/Prelude.lean`) and never touched. `env.header.imports` lists `Init` first for every
input without `prelude` (lean4 `src/Lean/Elab/Import.lean`, `headerToImports`; the REPL
reads a new input's header with `processHeader`, REPL/Frontend.lean:48-49). -/
unsafe def readPickle (path : System.FilePath) :
    IO (Array Import × PHashMap Name ConstantInfo) := do
  let (data, _region) ← readModuleData path
  let parts : Array Import × PHashMap Name ConstantInfo × NonScalar := unsafeCast data
  return (parts.1, parts.2.1)

/-! ## Writing the export (names, levels and expressions are numbered rows; shared
subterms are written once) -/

structure ExportState where
  names : Std.HashMap Name Nat := ({} : Std.HashMap Name Nat).insert .anonymous 0
  nameRows : Array Json := #[Json.null]
  levels : Std.HashMap Level Nat := {}
  levelRows : Array Json := #[]
  exprs : Std.HashMap Expr Nat := {}
  exprRows : Array Json := #[]

abbrev ExportM := StateT ExportState (Except String)

def nameRow (i : Nat) (n : Name) (row : Json) : ExportM Nat :=
  modifyGet fun st =>
    (i, { st with names := st.names.insert n i, nameRows := st.nameRows.push row })

partial def exportName (n : Name) : ExportM Nat := do
  if let some i := (← get).names[n]? then
    return i
  let row ← match n with
    | .anonymous => pure Json.null
    | .str p s => do
      let i ← exportName p
      pure (Json.arr #[toJson i, Json.str s])
    | .num p k => do
      let i ← exportName p
      pure (Json.arr #[toJson i, toJson k])
  nameRow (← get).nameRows.size n row

partial def exportLevel (l : Level) : ExportM Nat := do
  if let some i := (← get).levels[l]? then
    return i
  let row ← match l with
    | .zero => pure (Json.arr #[Json.str "z"])
    | .succ a => do
      let i ← exportLevel a
      pure (Json.arr #[Json.str "s", toJson i])
    | .max a b => do
      let i ← exportLevel a
      let j ← exportLevel b
      pure (Json.arr #[Json.str "m", toJson i, toJson j])
    | .imax a b => do
      let i ← exportLevel a
      let j ← exportLevel b
      pure (Json.arr #[Json.str "i", toJson i, toJson j])
    | .param n => do
      let i ← exportName n
      pure (Json.arr #[Json.str "p", toJson i])
    | .mvar _ => throw "a universe metavariable in a declaration"
  modifyGet fun st =>
    let i := st.levelRows.size
    (i, { st with levels := st.levels.insert l i, levelRows := st.levelRows.push row })

def binderCode : BinderInfo → Nat
  | .default => 0
  | .implicit => 1
  | .strictImplicit => 2
  | .instImplicit => 3

def expressionRow (i : Nat) (e : Expr) (row : Json) : ExportM Nat :=
  modifyGet fun st =>
    (i, { st with exprs := st.exprs.insert e i, exprRows := st.exprRows.push row })

/-- Metadata (`mdata`) is dropped and a `let`'s non-dependency flag is not written: neither
matters to the kernel, and both sides of a comparison are read the same way. Subterms are
shared through `BEq Expr`, which is alpha-equivalence ignoring binder annotations (lean4
`src/Lean/Expr.lean`, `Expr.eqv`), so two subterms that differ only in binder names or
binder kinds share the first one's row: the kernel ignores both, and the statement
comparison below uses that same equality. -/
partial def exportExpr (e : Expr) : ExportM Nat := do
  if let some i := (← get).exprs[e]? then
    return i
  if let .mdata _ inner := e then
    let i ← exportExpr inner
    modify fun st => { st with exprs := st.exprs.insert e i }
    return i
  let row ← match e with
    | .bvar k => pure (Json.arr #[Json.str "v", toJson k])
    | .sort l => do
      let i ← exportLevel l
      pure (Json.arr #[Json.str "s", toJson i])
    | .const n ls => do
      let i ← exportName n
      let us ← ls.toArray.mapM exportLevel
      pure (Json.arr #[Json.str "c", toJson i, toJson us])
    | .app f a => do
      let i ← exportExpr f
      let j ← exportExpr a
      pure (Json.arr #[Json.str "a", toJson i, toJson j])
    | .lam n t b bi => do
      let k ← exportName n
      let i ← exportExpr t
      let j ← exportExpr b
      pure (Json.arr #[Json.str "l", toJson k, toJson i, toJson j, toJson (binderCode bi)])
    | .forallE n t b bi => do
      let k ← exportName n
      let i ← exportExpr t
      let j ← exportExpr b
      pure (Json.arr #[Json.str "f", toJson k, toJson i, toJson j, toJson (binderCode bi)])
    | .letE n t v b _ => do
      let k ← exportName n
      let i ← exportExpr t
      let j ← exportExpr v
      let m ← exportExpr b
      pure (Json.arr #[Json.str "z", toJson k, toJson i, toJson j, toJson m])
    | .lit (.natVal k) => pure (Json.arr #[Json.str "n", Json.str (toString k)])
    | .lit (.strVal s) => pure (Json.arr #[Json.str "t", Json.str s])
    | .proj s k b => do
      let i ← exportName s
      let j ← exportExpr b
      pure (Json.arr #[Json.str "j", toJson i, toJson k, toJson j])
    | .mdata .. => throw "metadata reached the exporter"  -- handled above
    | .fvar _ => throw "a free variable in a declaration"
    | .mvar _ => throw "a metavariable in a declaration"
  expressionRow (← get).exprRows.size e row

def hintsJson : ReducibilityHints → Json
  | .opaque => Json.arr #[Json.str "o"]
  | .abbrev => Json.arr #[Json.str "a"]
  | .regular h => Json.arr #[Json.str "r", toJson h.toNat]

def safetyJson : DefinitionSafety → Json
  | .unsafe => Json.str "unsafe"
  | .safe => Json.str "safe"
  | .partial => Json.str "partial"

def exportNames (ns : List Name) : ExportM Json := do
  let indices ← ns.toArray.mapM exportName
  return toJson indices

def exportConstant (c : ConstantInfo) : ExportM Json := do
  let name ← exportName c.name
  let levelParams ← exportNames c.levelParams
  let type ← exportExpr c.type
  let common : List (String × Json) :=
    [("n", toJson name), ("u", levelParams), ("t", toJson type)]
  match c with
  | .defnInfo v => do
    let value ← exportExpr v.value
    let all ← exportNames v.all
    return Json.mkObj (common ++ [("k", Json.str "def"), ("v", toJson value),
      ("h", hintsJson v.hints), ("s", safetyJson v.safety), ("all", all)])
  | .thmInfo v => do
    let value ← exportExpr v.value
    let all ← exportNames v.all
    return Json.mkObj (common ++ [("k", Json.str "thm"), ("v", toJson value), ("all", all)])
  | .opaqueInfo v => do
    let value ← exportExpr v.value
    let all ← exportNames v.all
    return Json.mkObj (common ++ [("k", Json.str "opaque"), ("v", toJson value),
      ("unsafe", toJson v.isUnsafe), ("all", all)])
  | .axiomInfo v =>
    return Json.mkObj (common ++ [("k", Json.str "axiom"), ("unsafe", toJson v.isUnsafe)])
  | .quotInfo _ => return Json.mkObj (common ++ [("k", Json.str "quot")])
  | .inductInfo _ => return Json.mkObj (common ++ [("k", Json.str "inductive")])
  | .ctorInfo _ => return Json.mkObj (common ++ [("k", Json.str "constructor")])
  | .recInfo _ => return Json.mkObj (common ++ [("k", Json.str "recursor")])

unsafe def runExport (pickle out : System.FilePath) : IO UInt32 := do
  let (imports, constants) ← readPickle pickle
  let consts := constants.toList.map (·.2)
  let action : ExportM (Array Json × Array Json) := do
    let importRows ← imports.mapM fun i => exportName i.module
    let rows ← consts.toArray.mapM exportConstant
    return (importRows.map toJson, rows)
  match StateT.run action {} with
  | .error e =>
    IO.eprintln s!"leancoach-verify export: {e}"
    return 1
  | .ok ((importRows, constantRows), st) =>
    let doc := Json.mkObj [
      ("format", Json.str exportFormat),
      ("imports", Json.arr importRows),
      ("names", Json.arr st.nameRows),
      ("levels", Json.arr st.levelRows),
      ("exprs", Json.arr st.exprRows),
      ("constants", Json.arr constantRows)]
    IO.FS.writeFile out doc.compress
    return 0

/-! ## Reading an export (serve mode): every object is rebuilt here from plain data, so
nothing the exporting process held can reach the kernel except through these constructors -/

abbrev ParseM := Except String

def field (row : Array Json) (k : Nat) (what : String) : ParseM Json :=
  match row[k]? with
  | some j => pure j
  | none => throw s!"{what}: a row is too short"

def natField (row : Array Json) (k : Nat) (what : String) : ParseM Nat := do
  match (fromJson? (← field row k what) : Except String Nat) with
  | .ok n => pure n
  | .error _ => throw s!"{what}: expected a natural number"

def strField (row : Array Json) (k : Nat) (what : String) : ParseM String := do
  match ← field row k what with
  | .str s => pure s
  | _ => throw s!"{what}: expected text"

def rowOf (j : Json) (what : String) : ParseM (Array Json) :=
  match j with
  | .arr a => pure a
  | _ => throw s!"{what}: expected a list"

/-- Row `i` may refer only to rows before it, so what is built is finite and acyclic. -/
def earlier {α : Type} (table : Array α) (i : Nat) (what : String) : ParseM α :=
  match table[i]? with
  | some a => pure a
  | none => throw s!"{what}: refers to row {i}, which is not defined before it"

def parseNames (rows : Array Json) : ParseM (Array Name) := do
  let mut names : Array Name := #[]
  for row in rows do
    if names.isEmpty then
      unless (row matches .null) do throw "names: the first row must be the anonymous name"
      names := names.push .anonymous
      continue
    let r ← rowOf row "a name"
    let pre ← earlier names (← natField r 0 "a name") "a name"
    match ← field r 1 "a name" with
    | .str s => names := names.push (.str pre s)
    | _ => names := names.push (.num pre (← natField r 1 "a name"))
  return names

def parseLevels (names : Array Name) (rows : Array Json) : ParseM (Array Level) := do
  let mut levels : Array Level := #[]
  for row in rows do
    let r ← rowOf row "a level"
    let level ← match ← strField r 0 "a level" with
      | "z" => pure Level.zero
      | "s" => do pure (Level.succ (← earlier levels (← natField r 1 "a level") "a level"))
      | "m" => do
        let a ← earlier levels (← natField r 1 "a level") "a level"
        let b ← earlier levels (← natField r 2 "a level") "a level"
        pure (Level.max a b)
      | "i" => do
        let a ← earlier levels (← natField r 1 "a level") "a level"
        let b ← earlier levels (← natField r 2 "a level") "a level"
        pure (Level.imax a b)
      | "p" => do pure (Level.param (← earlier names (← natField r 1 "a level") "a level"))
      | tag => throw s!"a level: unknown tag {tag}"
    levels := levels.push level
  return levels

def binderOf (code : Nat) : ParseM BinderInfo :=
  match code with
  | 0 => pure .default
  | 1 => pure .implicit
  | 2 => pure .strictImplicit
  | 3 => pure .instImplicit
  | _ => throw "an expression: unknown binder kind"

def parseExprs (names : Array Name) (levels : Array Level) (rows : Array Json) :
    ParseM (Array Expr) := do
  let mut exprs : Array Expr := #[]
  for row in rows do
    let r ← rowOf row "an expression"
    let w := "an expression"
    let e ← match ← strField r 0 w with
      | "v" => do pure (Expr.bvar (← natField r 1 w))
      | "s" => do pure (Expr.sort (← earlier levels (← natField r 1 w) w))
      | "c" => do
        let n ← earlier names (← natField r 1 w) w
        let us ← (← rowOf (← field r 2 w) w).mapM fun j => do
          match (fromJson? j : Except String Nat) with
          | .ok i => earlier levels i w
          | .error _ => throw s!"{w}: a universe list holds something else"
        pure (Expr.const n us.toList)
      | "a" => do
        let f ← earlier exprs (← natField r 1 w) w
        let a ← earlier exprs (← natField r 2 w) w
        pure (Expr.app f a)
      | "l" => do
        let n ← earlier names (← natField r 1 w) w
        let t ← earlier exprs (← natField r 2 w) w
        let b ← earlier exprs (← natField r 3 w) w
        pure (Expr.lam n t b (← binderOf (← natField r 4 w)))
      | "f" => do
        let n ← earlier names (← natField r 1 w) w
        let t ← earlier exprs (← natField r 2 w) w
        let b ← earlier exprs (← natField r 3 w) w
        pure (Expr.forallE n t b (← binderOf (← natField r 4 w)))
      | "z" => do
        let n ← earlier names (← natField r 1 w) w
        let t ← earlier exprs (← natField r 2 w) w
        let v ← earlier exprs (← natField r 3 w) w
        let b ← earlier exprs (← natField r 4 w) w
        pure (Expr.letE n t v b false)
      | "n" => do
        -- A decimal string parsed here: a Nat literal that was malformed in the pickle
        -- (SafeVerify's "prints negative" case) cannot survive this.
        match String.toNat? (← strField r 1 w) with
        | some k => pure (Expr.lit (.natVal k))
        | none => throw s!"{w}: a number literal that is not a natural number"
      | "t" => do pure (Expr.lit (.strVal (← strField r 1 w)))
      | "j" => do
        let s ← earlier names (← natField r 1 w) w
        let b ← earlier exprs (← natField r 3 w) w
        pure (Expr.proj s (← natField r 2 w) b)
      | tag => throw s!"{w}: unknown tag {tag}"
    exprs := exprs.push e
  return exprs

/-- What `serve` knows of one exported environment. -/
structure Exported where
  imports : Array Name
  constants : Std.HashMap Name ConstantInfo := {}
  /-- Constants of a kind this verifier does not replay, with that kind. -/
  unsupported : Array (Name × String) := #[]
  order : Array Name := #[]

def objField (doc : Json) (key : String) : ParseM Json :=
  match doc.getObjVal? key with
  | .ok j => pure j
  | .error _ => throw s!"the export has no {key}"

def boolOf (o : Json) (key : String) (fallback : Bool) : ParseM Bool :=
  match o.getObjVal? key with
  | .ok (.bool b) => pure b
  | .ok _ => throw s!"a constant's {key} is not true/false"
  | .error _ => pure fallback

def hintsOf (j : Json) : ParseM ReducibilityHints := do
  let r ← rowOf j "a definition's hints"
  match ← strField r 0 "a definition's hints" with
  | "o" => pure .opaque
  | "a" => pure .abbrev
  | "r" => pure (.regular (← natField r 1 "a definition's hints").toUInt32)
  | tag => throw s!"a definition's hints: unknown tag {tag}"

def safetyOf (j : Json) : ParseM DefinitionSafety :=
  match j with
  | .str "safe" => pure .safe
  | .str "unsafe" => pure .unsafe
  | .str "partial" => pure .partial
  | _ => throw "a definition's safety is unknown"

def parseExport (text : String) : ParseM Exported := do
  let doc ← Json.parse text
  match ← objField doc "format" with
  | .str f => unless f == exportFormat do throw s!"export format {f}, expected {exportFormat}"
  | _ => throw "the export names no format"
  let names ← parseNames (← rowOf (← objField doc "names") "names")
  let levels ← parseLevels names (← rowOf (← objField doc "levels") "levels")
  let exprs ← parseExprs names levels (← rowOf (← objField doc "exprs") "exprs")
  let nameAt : Json → String → ParseM Name := fun j w =>
    match (fromJson? j : Except String Nat) with
    | .ok i => earlier names i w
    | .error _ => throw s!"{w}: expected a name's row"
  let exprAt : Json → String → ParseM Expr := fun o key =>
    match o.getObjVal? key with
    | .ok j =>
      match (fromJson? j : Except String Nat) with
      | .ok i => earlier exprs i s!"a constant's {key}"
      | .error _ => throw s!"a constant's {key} is not a row number"
    | .error _ => throw s!"a constant has no {key}"
  let namesAt : Json → String → ParseM (List Name) := fun o key =>
    match o.getObjVal? key with
    | .ok (.arr a) => a.toList.mapM fun j => nameAt j s!"a constant's {key}"
    | .ok _ => throw s!"a constant's {key} is not a list"
    | .error _ => throw s!"a constant has no {key}"
  let imports ← (← rowOf (← objField doc "imports") "imports").mapM (nameAt · "an import")
  let mut out : Exported := { imports }
  for o in (← rowOf (← objField doc "constants") "constants") do
    let name ← nameAt (← objField o "n") "a constant's name"
    if out.constants.contains name || out.unsupported.any (·.1 == name) then
      throw s!"{name} is exported twice"
    let levelParams ← namesAt o "u"
    let type ← exprAt o "t"
    let info? : Option ConstantInfo ← match ← objField o "k" with
      | .str "def" => do
        let value ← exprAt o "v"
        let hints ← hintsOf (← objField o "h")
        let safety ← safetyOf (← objField o "s")
        let all ← namesAt o "all"
        pure (some (.defnInfo { name, levelParams, type, value, hints, safety, all }))
      | .str "thm" => do
        let value ← exprAt o "v"
        let all ← namesAt o "all"
        pure (some (.thmInfo { name, levelParams, type, value, all }))
      | .str "opaque" => do
        let value ← exprAt o "v"
        let isUnsafe ← boolOf o "unsafe" false
        let all ← namesAt o "all"
        pure (some (.opaqueInfo { name, levelParams, type, value, all, isUnsafe }))
      | .str "axiom" => do
        let isUnsafe ← boolOf o "unsafe" false
        pure (some (.axiomInfo { name, levelParams, type, isUnsafe }))
      | .str _ => pure none
      | _ => throw s!"{name} has no kind"
    match info? with
    | some info =>
      out := { out with constants := out.constants.insert name info, order := out.order.push name }
    | none =>
      let kind ← match ← objField o "k" with
        | .str k => pure k
        | _ => pure "?"
      out := { out with unsupported := out.unsupported.push (name, kind) }
  return out

/-! ## Judging (serve mode) -/

structure Verdict where
  status : String
  step : String
  reason : String
  theoremName : Option Name := none
  typeMatches : Option Bool := none
  axioms : Array String := #[]

def couldNotCheck (step reason : String) : Verdict :=
  { status := "could_not_check", step, reason }

def rejected (step reason : String) : Verdict := { status := "rejected", step, reason }

def componentsOf : Name → List String
  | .anonymous => []
  | .str p s => componentsOf p ++ [s]
  | .num p k => componentsOf p ++ [toString k]

def Verdict.render (v : Verdict) (id : String) : Json :=
  Json.mkObj [
    ("id", Json.str id),
    ("status", Json.str v.status),
    ("step", Json.str v.step),
    ("reason", Json.str v.reason),
    ("theorem", match v.theoremName with
      | some n => toJson (componentsOf n)
      | none => Json.null),
    ("type_matches", match v.typeMatches with
      | some b => Json.bool b
      | none => Json.null),
    ("axioms", toJson v.axioms)]

/-- One verifier process: the trusted environment, imported once, and the axioms of each
imported constant a submission has used so far (the imported environment never changes). -/
structure Server where
  imports : Array Name
  base : Kernel.Environment
  importedAxioms : IO.Ref (Std.HashMap Name (Array String))

abbrev JudgeM := ExceptT Verdict IO

def orStop {α : Type} (step what : String) (r : ParseM α) : JudgeM α :=
  match r with
  | .ok a => pure a
  | .error e => throwThe Verdict (couldNotCheck step s!"{what}: {e}")

/-- SafeVerify refuses a file that does not import Init (a prelude file could declare its own
`Nat`). Here the server's own imports hold Init (checked at start); an export must import
exactly the same modules, Init aside, or its constants were elaborated against something else. -/
def checkImports (srv : Server) (ex : Exported) (what : String) : JudgeM Unit := do
  let theirs := if ex.imports.contains `Init then ex.imports else ex.imports.push `Init
  unless theirs.all srv.imports.contains && srv.imports.all theirs.contains do
    throwThe Verdict (couldNotCheck "imports"
      s!"{what} was elaborated with the imports {theirs}, the verifier holds {srv.imports}")

def isSkipped (c : ConstantInfo) : Bool := c.isUnsafe || c.isPartial

abbrev OrderState := NameSet × NameSet × Array Name × Std.HashMap Name Name

/-- Replay order: a constant after every new constant it uses. A constant that uses a skipped
one (unsafe or partial, which the kernel does not check; `_unsafe_rec` shims are such) is not
replayed and is remembered with the skipped constant it depends on. -/
partial def visit (ex : Exported) (n : Name) : StateT OrderState (Except String) Unit := do
  let (done, active, _, _) ← get
  if done.contains n then return
  if active.contains n then throw s!"{n} depends on itself"
  let some info := ex.constants[n]? | return
  modify fun (d, a, o, b) => (d, a.insert n, o, b)
  let mut blockedBy : Option Name := none
  for d in info.getUsedConstantsAsSet do
    if let some dep := ex.constants[d]? then
      if isSkipped dep then
        blockedBy := blockedBy <|> some d
      else
        visit ex d
        let (_, _, _, blocked) ← get
        if let some why := blocked[d]? then
          blockedBy := blockedBy <|> some why
  modify fun (d, a, o, b) =>
    match blockedBy with
    | some why => (d.insert n, a.erase n, o, b.insert n why)
    | none => (d.insert n, a.erase n, o.push n, b)

/-- The kernel reduces `Lean.reduceBool c` / `Lean.reduceNat c` by running `c`'s compiled
code (lean4 `src/kernel/type_checker.cpp`, `reduce_native`). This process compiles nothing
and runs no submission code, so a constant that mentions them, or the axioms whose types hold
them, is not sent to the kernel. `native_decide` no longer produces them: since lean4#12217
(v4.29) it asserts its result with an auxiliary axiom `<declaration>._native.native_decide.ax_…`,
which replays like any axiom and then fails the axiom check; only a hand-written proof meets
this. (One that reaches `reduceBool` only through an imported lemma's type is left to the
kernel, which cannot evaluate a new constant here: no code was compiled for it.) Name
literals with one backtick: the build does not depend on these deprecated names existing. -/
def nativeReductions : List Name :=
  [`Lean.reduceBool, `Lean.reduceNat, `Lean.ofReduceBool, `Lean.ofReduceNat]

def declarationOf (info : ConstantInfo) : Option Declaration :=
  match info with
  | .defnInfo v => if v.all.length ≤ 1 then some (.defnDecl v) else none
  | .thmInfo v => if v.all.length ≤ 1 then some (.thmDecl v) else none
  | .opaqueInfo v => if v.all.length ≤ 1 then some (.opaqueDecl v) else none
  | .axiomInfo v => some (.axiomDecl v)
  | _ => none

def kernelVerdict (n : Name) (ex : Kernel.Exception) : IO Verdict := do
  let text ← (ex.toMessageData {}).toString
  return match ex with
  | .unknownConstant .. | .alreadyDeclared .. =>
    couldNotCheck "replay" s!"replaying {n} needs a constant the verifier's environment does not have as the REPL's did: {text}"
  | .deterministicTimeout | .excessiveMemory | .deepRecursion | .interrupted =>
    couldNotCheck "replay" s!"the kernel ran out of resources on {n}: {text}"
  | _ => rejected "replay" s!"the kernel rejected {n}: {text}"

/-- Adds every replayable new constant to the kernel environment; returns the environment and
the constants left out because they use an unsafe or partial one. -/
def replayExport (srv : Server) (ex : Exported) :
    JudgeM (Kernel.Environment × Std.HashMap Name Name) := do
  if let some (n, kind) := ex.unsupported[0]? then
    throwThe Verdict (couldNotCheck "replay"
      s!"{n} is a {kind}; the verifier replays theorems, definitions, opaque constants and axioms only")
  for n in ex.order do
    if (srv.base.find? n).isSome then
      throwThe Verdict (couldNotCheck "replay" s!"{n} is already declared by the imports")
  let start : OrderState := ({}, {}, #[], {})
  let walk : StateT OrderState (Except String) Unit := do
    for n in ex.order do
      if let some info := ex.constants[n]? then
        unless isSkipped info do visit ex n
  let (_, _, order, blocked) ← orStop "replay" "ordering the constants" ((StateT.run walk start).map (·.2))
  let mut kenv := srv.base
  for n in order do
    let some info := ex.constants[n]? | continue
    let used := info.getUsedConstantsAsSet
    if let some native := nativeReductions.find? used.contains then
      throwThe Verdict (couldNotCheck "replay"
        s!"{n} uses {native}: the kernel would run compiled code to check it, and the verifier runs none")
    let some decl := declarationOf info
      | throwThe Verdict (couldNotCheck "replay" s!"{n} belongs to a mutual block, which is not replayed")
    match kenv.addDeclCore 0 decl (cancelTk? := none) with
    | .ok k => kenv := k
    | .error e => throwThe Verdict (← kernelVerdict n e)
  return (kenv, blocked)

/-- Axioms reachable from `c` in `kenv`; a constant missing there counts as `unverified:c`,
which is never an allowed axiom. -/
partial def closure (kenv : Kernel.Environment) (c : Name) :
    StateM (NameSet × Array String) Unit := do
  if (← get).1.contains c then return
  modify fun (seen, found) => (seen.insert c, found)
  match kenv.find? c with
  | none => modify fun (seen, found) => (seen, found.push s!"unverified:{c}")
  | some (.axiomInfo _) => modify fun (seen, found) => (seen, found.push c.toString)
  | some info =>
    for d in info.getUsedConstantsAsSet do
      closure kenv d
    if let .inductInfo v := info then
      for ctor in v.ctors do
        closure kenv ctor

def importedAxioms (srv : Server) (c : Name) : IO (Array String) := do
  if let some found := (← srv.importedAxioms.get)[c]? then
    return found
  let (_, (_, found)) := Id.run (StateT.run (closure srv.base c) ({}, #[]))
  srv.importedAxioms.modify (·.insert c found)
  return found

/-- Axioms of new constants, walking new constants in the replayed environment and taking
imported ones from the server's cache. -/
partial def submissionAxioms (srv : Server) (kenv : Kernel.Environment) (ex : Exported)
    (c : Name) : StateT (NameSet × Array String) IO Unit := do
  if (← get).1.contains c then return
  modify fun (seen, found) => (seen.insert c, found)
  if ex.constants.contains c then
    match kenv.find? c with
    | none => modify fun (seen, found) => (seen, found.push s!"unverified:{c}")
    | some (.axiomInfo _) => modify fun (seen, found) => (seen, found.push c.toString)
    | some info =>
      for d in info.getUsedConstantsAsSet do
        submissionAxioms srv kenv ex d
  else
    let found ← importedAxioms srv c
    modify fun (seen, acc) => (seen, acc ++ found)

def kindName : ConstantInfo → String
  | .defnInfo _ => "def"
  | .thmInfo _ => "theorem"
  | .opaqueInfo _ => "opaque"
  | .axiomInfo _ => "axiom"
  | .quotInfo _ => "quot"
  | .inductInfo _ => "inductive"
  | .ctorInfo _ => "constructor"
  | .recInfo _ => "recursor"

/-- The statement means the same in both: the theorem's type and universe parameters, and
every constant new in the reference that the type mentions (transitively, e.g. a `match_1`),
identical in the submission. Returns why not. -/
partial def sameStatement (ref sub : Exported) (pending : List Name) (seen : NameSet) :
    Option String :=
  match pending with
  | [] => none
  | n :: rest =>
    if seen.contains n then sameStatement ref sub rest seen else
    match ref.constants[n]? with
    | none => sameStatement ref sub rest (seen.insert n)
    | some r =>
      match sub.constants[n]? with
      | none => some s!"{n} is missing from the submission"
      | some s =>
        if kindName r != kindName s || r.levelParams != s.levelParams || r.type != s.type then
          some s!"{n} differs from the posed one"
        else if kindName r == "def" && r.value? != s.value? then
          some s!"the definition {n} differs from the posed one"
        else
          let used := r.type.getUsedConstants.toList ++
            ((r.value?.map (·.getUsedConstants.toList)).getD [])
          sameStatement ref sub (used ++ rest) (seen.insert n)

def nameOf (parts : Array Json) : ParseM Name := do
  let mut n := Name.anonymous
  for p in parts do
    match p with
    | .str s => n := .str n s
    | _ => throw "a name component that is not text"
  if n.isAnonymous then throw "an empty name"
  return n

def judge (srv : Server) (req : Json) : JudgeM Verdict := do
  let subPath ← match req.getObjValAs? String "submission" with
    | .ok p => pure p
    | .error _ => throwThe Verdict (couldNotCheck "request" "the request names no submission export")
  let sub ← orStop "export" "the submission's export" (parseExport (← IO.FS.readFile ⟨subPath⟩))
  checkImports srv sub "the submission"
  let theoremName? ← match req.getObjVal? "theorem" with
    | .ok (.arr parts) => some <$> orStop "request" "the theorem's name" (nameOf parts)
    | _ => pure none
  let reference? ← match req.getObjValAs? String "reference" with
    | .ok p => do
      let r ← orStop "export" "the reference's export" (parseExport (← IO.FS.readFile ⟨p⟩))
      checkImports srv r "the reference"
      pure (some r)
    | .error _ => pure none
  let (kenv, blocked) ← replayExport srv sub
  let roots ← match theoremName? with
    | some n => do
      unless sub.constants.contains n do
        throwThe Verdict (couldNotCheck "statement" s!"the submission declares no {n}")
      if let some why := blocked[n]? then
        throwThe Verdict (couldNotCheck "replay"
          s!"{n} depends on {why}, which is unsafe or partial and not checked by the kernel")
      match kenv.find? n with
      | some (.thmInfo _) => pure [n]
      | some other => throwThe Verdict (couldNotCheck "statement" s!"{n} is a {kindName other}, not a theorem")
      | none => throwThe Verdict (couldNotCheck "replay" s!"{n} was not replayed")
    | none => do
      if let some (n, why) := blocked.toList.head? then
        throwThe Verdict (couldNotCheck "replay"
          s!"{n} depends on {why}, which is unsafe or partial and not checked by the kernel")
      pure (sub.order.toList.filter fun n => (sub.constants[n]?.map isSkipped) == some false)
  let mut typeMatches : Option Bool := none
  if let (some n, some ref) := (theoremName?, reference?) then
    match ref.constants[n]?, sub.constants[n]? with
    | some (.thmInfo r), some (.thmInfo s) =>
      if r.levelParams != s.levelParams || r.type != s.type then
        throwThe Verdict { rejected "statement" s!"the proved statement of {n} is not the posed one" with
          theoremName := some n, typeMatches := some false }
      match sameStatement ref sub r.type.getUsedConstants.toList {} with
      | some why =>
        throwThe Verdict { rejected "statement" why with theoremName := some n, typeMatches := some false }
      | none => typeMatches := some true
    | none, _ => throwThe Verdict (couldNotCheck "statement" s!"the reference declares no theorem {n}")
    | _, _ => throwThe Verdict (couldNotCheck "statement" s!"{n} is not a theorem in both files")
  let mut state : NameSet × Array String := ({}, #[])
  for r in roots do
    let ((), s) ← StateT.run (submissionAxioms srv kenv sub r) state
    state := s
  return { status := "confirmed", step := "axioms", reason := "kernel-checked",
           theoremName := theoremName?, typeMatches, axioms := state.2 }

def answer (srv : Server) (line : String) : IO Json := do
  match Json.parse line with
  | .error e => return (couldNotCheck "request" s!"the request is not JSON: {e}").render ""
  | .ok req =>
    let id := match req.getObjValAs? String "id" with
      | .ok s => s
      | .error _ => ""
    try
      match ← ExceptT.run (judge srv req) with
      | .ok v => return v.render id
      | .error v => return v.render id
    catch e =>
      return (couldNotCheck "verifier" (toString e)).render id

partial def serveLoop (srv : Server) (stdin stdout : IO.FS.Stream) : IO Unit := do
  let line ← stdin.getLine
  if line.isEmpty then return  -- end of input: the checker closed the pipe
  let request := line.trimAscii.toString
  unless request.isEmpty do
    stdout.putStrLn (← answer srv request).compress
    stdout.flush
  serveLoop srv stdin stdout

def serve (imports : Array Name) : IO UInt32 := do
  unless imports.contains `Init do
    IO.eprintln "leancoach-verify serve: the imports must include Init (a prelude environment could redefine Nat)"
    return 2
  initSearchPath (← findSysroot)
  -- `level` keeps its default, `.private`: every imported constant with its value, as a
  -- file without `module` sees them (lean4 `src/Lean/Environment.lean`, `importModules`).
  -- Extensions are not initialized (`loadExts := false`): type checking reads none of them
  -- (native reduction would read the compiled code's, and is refused before the kernel).
  let env ← importModules (imports.map fun m => ({ module := m } : Import)) {} 0
  let cache ← IO.mkRef ({} : Std.HashMap Name (Array String))
  let srv : Server := { imports, base := env.toKernelEnv, importedAxioms := cache }
  let stdout ← IO.getStdout
  stdout.putStrLn (Json.mkObj [("ready", Json.bool true),
    ("imports", toJson (imports.map toString))]).compress
  stdout.flush
  serveLoop srv (← IO.getStdin) stdout
  return 0

end LeanCoachVerify

open LeanCoachVerify in
unsafe def main (args : List String) : IO UInt32 := do
  match args with
  | ["export", pickle, out] => runExport ⟨pickle⟩ ⟨out⟩
  | ["export", "--stdin"] =>
    -- Started ahead of the check that needs it (its start is off the critical path); it
    -- reads one `PICKLE<TAB>OUT` line and serves that one pickle only, then exits.
    let line ← (← IO.getStdin).getLine
    match line.trimAscii.toString.splitOn "\t" with
    | [pickle, out] => runExport ⟨pickle⟩ ⟨out⟩
    | _ =>
      IO.eprintln "leancoach-verify export --stdin: expected one line PICKLE<TAB>OUT.json"
      return 2
  | ["serve", "--imports", modules] =>
    serve ((modules.splitOn ",").filter (· ≠ "") |>.toArray.map String.toName)
  | _ =>
    IO.eprintln "usage: leancoach-verify export PICKLE OUT.json | export --stdin | serve --imports Init,Mod,..."
    return 2
