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
#
# Writes $LEANCOACH_LEAN_HOME/repl.json, which tutor/lean/detect.py reads.
# Exit codes: 0 installed, 3 no network (nothing changed), 1 anything else.
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

# 6. The independent kernel verifier (tutor/lean/verifier), built against the same toolchain.
VERIFIER_SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/tutor/lean/verifier"
VERIFIER_DIR="$LEAN_HOME/verifier"
say "building the kernel verifier"
rm -rf "$VERIFIER_DIR" && mkdir -p "$VERIFIER_DIR"
cp "$VERIFIER_SRC/Main.lean" "$VERIFIER_SRC/lakefile.toml" "$VERIFIER_DIR/"
printf '%s\n' "$TOOLCHAIN" > "$VERIFIER_DIR/lean-toolchain"
(cd "$VERIFIER_DIR" && "$LAKE" build) || die "the kernel verifier did not build (see above)"
VERIFIER_BIN="$VERIFIER_DIR/.lake/build/bin/leancoach-verify"
[ -x "$VERIFIER_BIN" ] || die "the verifier build produced no $VERIFIER_BIN"

# 7. The manifest the checker reads (written last, atomically: it means "installed").
LC_LAKE="$LAKE" LC_REPL_BIN="$REPL_BIN" LC_PROJECT="$PROJECT_DIR" LC_SRC="$LIBRARY_SRC" \
LC_VERIFIER="$VERIFIER_BIN" LC_TOOLCHAIN_DIR="$TOOLCHAIN_DIR" LC_HOME="$LEAN_HOME" LC_TOOLCHAIN="$TOOLCHAIN" LC_MATHLIB="$MATHLIB" \
python3 - "$LEAN_HOME/repl.json" <<'EOF'
import json, os, sys
env = os.environ
manifest = {
    "command": [env["LC_LAKE"], "env", env["LC_REPL_BIN"]],
    # The verification step (tutor/lean/kernel_check.py): `lean -o` and the verifier, both
    # run in the project so `lake env` gives them its LEAN_PATH.
    "compile_command": [env["LC_LAKE"], "env", "lean"],
    "verifier_command": [env["LC_LAKE"], "env", env["LC_VERIFIER"]],
    "cwd": env["LC_PROJECT"],
    "library_src": env["LC_SRC"],
    "sandbox_paths": [env["LC_TOOLCHAIN_DIR"], env["LC_HOME"]],
    "toolchain": env["LC_TOOLCHAIN"],
    "mathlib": env["LC_MATHLIB"] == "true",
}
path = sys.argv[1]
with open(path + ".tmp", "w") as handle:
    json.dump(manifest, handle, indent=2)
os.replace(path + ".tmp", path)
EOF
say "done: $LEAN_HOME/repl.json (toolchain $TOOLCHAIN, Mathlib: $MATHLIB)"
