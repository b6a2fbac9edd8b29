#!/usr/bin/env bash
# Prints the python of a venv holding the pinned client packages (scripts/clients/requirements.txt): the
# openai and mcp packages and openapi-spec-validator, from PyPI. The venv is kept in ~/.cache/hopwise, one
# per version of the requirements, so a second run installs nothing.
set -euo pipefail
cd "$(dirname "$0")"
req=requirements.txt
sum=$(sha256sum "$req" | cut -c1-12)
venv="${XDG_CACHE_HOME:-$HOME/.cache}/hopwise/clients-venv-$sum"
if ! "$venv/bin/python" -c 'import openai, mcp, openapi_spec_validator' 2>/dev/null; then
  rm -rf "$venv"
  python3 -m venv "$venv" >&2 || { echo "python3 -m venv failed (Debian: apt-get install python3-venv)" >&2; exit 1; }
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$req" >&2
fi
echo "$venv/bin/python"
