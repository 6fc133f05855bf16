#!/usr/bin/env bash
# Install Lean 4 for LeanCoach's checker: elan, a pinned toolchain, the
# leanprover-community REPL at the matching tag (built with lake), and Mathlib
# only when LEANCOACH_MATHLIB=1 (with its prebuilt cache: `lake exe cache get`).
#
#   make lean                       # core Lean only (~1 GB)
#   LEANCOACH_MATHLIB=1 make lean   # plus Mathlib (~6 GB)
#
# Environment:
#   LEANCOACH_LEAN_HOME     where everything goes (default ~/.local/share/leancoach/lean)
#   LEANCOACH_LEAN_VERSION  toolchain and REPL/Mathlib tag (default below)
#   LEANCOACH_MATHLIB=1     also fetch Mathlib and its build cache
#   ELAN_HOME               elan's home (default ~/.elan; the Docker image uses /opt/elan,
#                           world-readable, because it runs as user leancoach)
#   LEANCOACH_INSTALL_PROBE_URL  the URL used to test network access (default GitHub)
#   LEANCOACH_PYTHON        the Python that runs the self-test (make passes the venv's)
#
# Writes $LEANCOACH_LEAN_HOME/repl.json, which tutor/lean/detect.py reads, as soon as the REPL
# answers (so the REPL works even if the verifier does not build), then builds the kernel
# verifier, adds it to the manifest, and ends with the self-test (python -m tutor.lean.selftest,
# also `make lean-check`), which writes $LEANCOACH_LEAN_HOME/selftest.json.
# Exit codes: 0 installed and every golden case as expected, 3 no network (nothing changed),
# 4 the REPL works but the kernel verifier did not build, 5 the self-test found a problem,
# 1 anything else.
set -euo pipefail

# v4.32.0: the newest stable release that leanprover-community/repl tags (its newer tags are
# v4.33.0-rc*); Mathlib tags every stable toolchain it moves to.
VERSION="${LEANCOACH_LEAN_VERSION:-v4.32.0}"
TOOLCHAIN="leanprover/lean4:${VERSION}"
DATA_HOME="${XDG_DATA_HOME:-$HOME/.local/share}"
LEAN_HOME="${LEANCOACH_LEAN_HOME:-$DATA_HOME/leancoach/lean}"
ELAN_HOME="${ELAN_HOME:-$HOME/.elan}"
PROBE_URL="${LEANCOACH_INSTALL_PROBE_URL:-https://github.com}"
REPL_URL="https://github.com/leanprover-community/repl"
MATHLIB_URL="https://github.com/leanprover-community/mathlib4"
ELAN_INIT_URL="https://raw.githubusercontent.com/leanprover/elan/master/elan-init.sh"
WANT_MATHLIB="${LEANCOACH_MATHLIB:-0}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# The self-test runs the product's own checker (tutor/lean needs Python >= 3.11 and nothing else).
PYTHON="${LEANCOACH_PYTHON:-python3}"
export ELAN_HOME

say() { printf 'install_lean: %s\n' "$*"; }
die() { printf 'install_lean: error: %s\n' "$*" >&2; exit 1; }

network_ok() {
  # A few seconds at most: a machine without GitHub access must not hang here.
  if command -v curl >/dev/null 2>&1; then
    curl --silent --head --location --output /dev/null --connect-timeout 4 --max-time 6 "$PROBE_URL"
  elif command -v python3 >/dev/null 2>&1; then
    timeout 8 python3 -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=5)' "$PROBE_URL" >/dev/null 2>&1
  else
    return 1
  fi
}

if ! network_ok; then
  cat >&2 <<EOF
install_lean: cannot reach $PROBE_URL, so Lean 4 cannot be installed here.
  elan downloads toolchains from GitHub, and the Lean REPL (and Mathlib) come from GitHub.
  LeanCoach still runs: the Lean checker is reported as unavailable and checks fail with
  that reason. Run \`make lean\` again on a machine with network access, or point
  LEAN_REPL_CMD at an existing Lean REPL (see docs/LEAN.md).
EOF
  exit 3
fi

command -v git >/dev/null 2>&1 || die "git is needed to fetch the Lean REPL (apt-get install git)"

# 1. elan (the Lean toolchain manager).
if command -v elan >/dev/null 2>&1; then
  ELAN="$(command -v elan)"
elif [ -x "$ELAN_HOME/bin/elan" ]; then
  ELAN="$ELAN_HOME/bin/elan"
else
  say "installing elan into $ELAN_HOME"
  tmp_init="$(mktemp)"
  trap 'rm -f "$tmp_init"' EXIT
  curl --proto '=https' --tlsv1.2 -sSf --max-time 120 -o "$tmp_init" "$ELAN_INIT_URL" \
    || die "could not download elan-init.sh"
  sh "$tmp_init" -y --default-toolchain none --no-modify-path
  ELAN="$ELAN_HOME/bin/elan"
fi

# 2. The pinned toolchain.
say "installing toolchain $TOOLCHAIN"
"$ELAN" toolchain install "$TOOLCHAIN"
TOOLCHAIN_DIR="$("$ELAN" run "$TOOLCHAIN" lean --print-prefix 2>/dev/null || true)"
if [ -z "$TOOLCHAIN_DIR" ] || [ ! -x "$TOOLCHAIN_DIR/bin/lake" ]; then
  # elan keeps toolchains under ELAN_HOME/toolchains with '/' -> '--' and ':' -> '---'.
  TOOLCHAIN_DIR="$ELAN_HOME/toolchains/$(printf '%s' "$TOOLCHAIN" | sed 's#/#--#; s#:#---#')"
fi
LAKE="$TOOLCHAIN_DIR/bin/lake"
[ -x "$LAKE" ] || die "lake not found in $TOOLCHAIN_DIR"
export PATH="$TOOLCHAIN_DIR/bin:$PATH"

mkdir -p "$LEAN_HOME"

# 3. The REPL at the tag matching the toolchain.
REPL_DIR="$LEAN_HOME/repl"
if [ ! -d "$REPL_DIR/.git" ]; then
  say "fetching the Lean REPL ($VERSION)"
  git clone --quiet --depth 1 --branch "$VERSION" "$REPL_URL" "$REPL_DIR" \
    || die "no REPL tag $VERSION at $REPL_URL; set LEANCOACH_LEAN_VERSION to a tag it has"
fi
printf '%s\n' "$TOOLCHAIN" > "$REPL_DIR/lean-toolchain"
say "building the REPL with lake"
(cd "$REPL_DIR" && "$LAKE" build)
REPL_BIN="$REPL_DIR/.lake/build/bin/repl"
[ -x "$REPL_BIN" ] || die "the REPL build produced no $REPL_BIN"

# 4. Mathlib, only if asked.
PROJECT_DIR="$REPL_DIR"
LIBRARY_SRC="$TOOLCHAIN_DIR/src/lean"
MATHLIB=false
if [ "$WANT_MATHLIB" = "1" ]; then
  MATHLIB_DIR="$LEAN_HOME/mathlib4"
  if [ ! -d "$MATHLIB_DIR/.git" ]; then
    say "fetching Mathlib ($VERSION)"
    git clone --quiet --depth 1 --branch "$VERSION" "$MATHLIB_URL" "$MATHLIB_DIR" \
      || die "no Mathlib tag $VERSION; set LEANCOACH_LEAN_VERSION to a tag both repositories have"
  fi
  say "downloading Mathlib's build cache (several GB)"
  (cd "$MATHLIB_DIR" && "$LAKE" exe cache get)
  PROJECT_DIR="$MATHLIB_DIR"
  LIBRARY_SRC="$MATHLIB_DIR/Mathlib"
  MATHLIB=true
fi

# 5. Smoke test: the REPL must answer one command.
say "checking that the REPL answers"
reply="$(cd "$PROJECT_DIR" && printf '{"cmd": "theorem leancoach_smoke : 1 + 1 = 2 := rfl"}\n\n' \
  | timeout 300 "$LAKE" env "$REPL_BIN")" || die "the REPL did not start: $reply"
case "$reply" in
  *'"env"'*) ;;
  *) die "unexpected REPL reply: $reply" ;;
esac

# 6. The manifest the checker reads, written now (atomically) so the REPL works even if the
# verifier below does not build: checks then say "could not confirm" with the reason.
write_manifest() {
  LC_LAKE="$LAKE" LC_REPL_BIN="$REPL_BIN" LC_PROJECT="$PROJECT_DIR" LC_SRC="$LIBRARY_SRC" \
  LC_TOOLCHAIN_DIR="$TOOLCHAIN_DIR" LC_HOME="$LEAN_HOME" LC_TOOLCHAIN="$TOOLCHAIN" \
  LC_MATHLIB="$MATHLIB" LC_VERIFIER="${1:-}" LC_VERIFIER_ERROR="${2:-}" LC_LEAN_PATH="${3:-}" \
  "$PYTHON" - "$LEAN_HOME/repl.json" <<'EOF'
import json, os, sys
env = os.environ
manifest = {
    "command": [env["LC_LAKE"], "env", env["LC_REPL_BIN"]],
    "cwd": env["LC_PROJECT"],
    "library_src": env["LC_SRC"],
    "sandbox_paths": [env["LC_TOOLCHAIN_DIR"], env["LC_HOME"]],
    "toolchain": env["LC_TOOLCHAIN"],
    "mathlib": env["LC_MATHLIB"] == "true",
}
if env["LC_VERIFIER"]:
    # The kernel verifier (tutor/lean/kernel_check.py) runs without `lake env`: it gets the
    # project's LEAN_PATH and the toolchain as LEAN_SYSROOT, read once here.
    manifest["verifier_command"] = [env["LC_VERIFIER"]]
    manifest["verifier_env"] = {
        "LEAN_PATH": env["LC_LEAN_PATH"],
        "LEAN_SYSROOT": env["LC_TOOLCHAIN_DIR"],
    }
if env["LC_VERIFIER_ERROR"]:
    manifest["verifier_error"] = env["LC_VERIFIER_ERROR"]
path = sys.argv[1]
with open(path + ".tmp", "w") as handle:
    json.dump(manifest, handle, indent=2)
os.replace(path + ".tmp", path)
EOF
}
write_manifest "" "the kernel verifier is being built"
say "REPL ready: $LEAN_HOME/repl.json"

# 7. The independent kernel verifier (tutor/lean/verifier), built against the same toolchain.
VERIFIER_SRC="$ROOT/tutor/lean/verifier"
VERIFIER_DIR="$LEAN_HOME/verifier"
VERIFIER_BIN="$VERIFIER_DIR/.lake/build/bin/leancoach-verify"
say "building the kernel verifier"
rm -rf "$VERIFIER_DIR" && mkdir -p "$VERIFIER_DIR"
cp "$VERIFIER_SRC/Main.lean" "$VERIFIER_SRC/lakefile.toml" "$VERIFIER_DIR/"
printf '%s\n' "$TOOLCHAIN" > "$VERIFIER_DIR/lean-toolchain"
VERIFIED=0
if build_log="$(cd "$VERIFIER_DIR" && "$LAKE" build 2>&1)" && [ -x "$VERIFIER_BIN" ]; then
  PROJECT_LEAN_PATH="$(cd "$PROJECT_DIR" && "$LAKE" env printenv LEAN_PATH)" \
    || die "could not read the project's LEAN_PATH (cd $PROJECT_DIR && lake env printenv LEAN_PATH)"
  write_manifest "$VERIFIER_BIN" "" "$PROJECT_LEAN_PATH"
  VERIFIED=1
  say "kernel verifier ready: $VERIFIER_BIN"
else
  printf '%s\n' "$build_log" | tail -n 40 >&2
  write_manifest "" "the kernel verifier did not build with $TOOLCHAIN (cd $VERIFIER_DIR && lake build): $(printf '%s' "$build_log" | tail -n 3 | tr '\n' ' ')"
  printf 'install_lean: the kernel verifier did not build (see above). The REPL works, but no\n' >&2
  printf '  check can say "proved" until it does: checks say "could not confirm", with the reason.\n' >&2
fi

# 8. The self-test: golden cases through the exact path the app uses (also `make lean-check`).
say "self-test (golden cases through the app's own checker)"
SELFTEST=0
(cd "$ROOT" && "$PYTHON" -m tutor.lean.selftest) || SELFTEST=$?
say "done: $LEAN_HOME/repl.json (toolchain $TOOLCHAIN, Mathlib: $MATHLIB)"
if [ "$VERIFIED" != 1 ]; then
  exit 4
fi
if [ "$SELFTEST" != 0 ]; then
  say "the self-test found problems (lines marked FAIL above); rerun it with \`make lean-check\`"
  exit 5
fi
