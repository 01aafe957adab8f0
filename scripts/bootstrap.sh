# Sourced by the other scripts: makes sure Java, Maven and the project's venv are in place.
# The venv lives in the cache folder outside the checkout and is reused while pyproject.toml
# is unchanged, so only the first run downloads packages.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export BELIEFGRAPH_HOME="${BELIEFGRAPH_HOME:-$HOME/.cache/beliefgraph}"
VENV="${BELIEFGRAPH_VENV:-$BELIEFGRAPH_HOME/venv}"
PYTHON_BIN="${PYTHON:-python3}"

need_apt() {
  # Installs Debian packages when we are root and apt exists; otherwise says what is missing.
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "bootstrap: installing $* with apt-get" >&2
    apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
  else
    echo "bootstrap: please install $* (needed for the managed Neo4j)" >&2
    return 1
  fi
}

java_major() { "$1" -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n 1; }
has_java21() {
  # JAVA_HOME, the PATH, or a JDK where the system keeps them (the app looks in the same places).
  local java
  for java in "${JAVA_HOME:+$JAVA_HOME/bin/java}" "$(command -v java || true)" \
      /usr/lib/jvm/*/bin/java /Library/Java/JavaVirtualMachines/*/Contents/Home/bin/java \
      /opt/java/*/bin/java; do
    [ -n "$java" ] && [ -x "$java" ] || continue
    local major; major="$(java_major "$java")"
    [ -n "$major" ] && [ "$major" -ge 21 ] && return 0
  done
  return 1
}

if [ -z "${NEO4J_URI:-}" ]; then
  # The managed Neo4j 2026 needs Java 21+; try the distribution's packages when none is found.
  if ! has_java21; then
    need_apt openjdk-21-jre-headless || true
    has_java21 || { echo "bootstrap: install a JDK 21+ (e.g. Temurin 21 or 25) and set JAVA_HOME" >&2; exit 1; }
  fi
  command -v mvn >/dev/null || need_apt maven || exit 1
fi

mkdir -p "$BELIEFGRAPH_HOME"
if [ ! -x "$VENV/bin/python" ]; then
  echo "bootstrap: creating the venv in $VENV" >&2
  "$PYTHON_BIN" -m venv "$VENV"
fi
STAMP="$VENV/.beliefgraph-installed"
WANT="$(sha256sum "$ROOT/pyproject.toml" | cut -d' ' -f1) $ROOT"
if [ ! -f "$STAMP" ] || [ "$(cat "$STAMP")" != "$WANT" ]; then
  echo "bootstrap: installing beliefgraph and its dependencies (the first time takes a while)" >&2
  "$VENV/bin/python" -m pip install -q --upgrade pip >&2
  "$VENV/bin/python" -m pip install -q -e "$ROOT[test]" >&2
  echo "$WANT" > "$STAMP"
fi
export PATH="$VENV/bin:$PATH"
cd "$ROOT"
