#!/usr/bin/env bash
# Static analysis of the contracts with Slither, through forge (crytic-compile's Foundry platform).
# Slither needs web3<8, so it lives in its own venv (.venv-slither), created on first use.
# Fails (non-zero exit) on any finding of low impact or above that is not suppressed in the source
# with a `slither-disable-next-line` comment explained in contracts/SECURITY.md.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
venv="$root/.venv-slither"
if [ ! -x "$venv/bin/slither" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet "slither-analyzer==0.11.6" "crytic-compile==0.4.2"
fi
export PATH="$root/node_modules/.bin:$PATH"   # forge, for crytic-compile
cd "$here"
"$venv/bin/slither" . --filter-paths "lib/|node_modules|test/" --fail-low "$@"
