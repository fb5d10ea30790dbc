#!/usr/bin/env bash
# Minimum versions (the SPEC 0 habit): a fresh virtual environment with exactly the lower
# bounds that pyproject.toml declares -- numpy, scipy, scikit-learn, the other run-time
# dependencies and the plot/dask/test extras (.ci/lower_bounds.py turns each ">=" into
# "==") -- then the test suite on the installed (not editable) package, less the tests
# on the face benchmarks (-m "not realdata"): those run the code paths of the synthetic
# tests again on real images, took 150 of the suite's 570 s, and the main suite runs
# them on the newest releases (CI as a whole must stay under 20 minutes on 2 cores).
#
# Environment: MINVERSIONS_VENV (default .venv-minversions). One pytest process: on 2 cores
# pytest-xdist -n 2 took 3x the CPU time of a plain run (424 s against 143 s wall).
set -euo pipefail
cd "$(dirname "$0")/.."

venv=${MINVERSIONS_VENV:-.venv-minversions}

rm -rf "$venv"
python3 -m venv "$venv"
# shellcheck disable=SC1091
. "$venv/bin/activate"
python -m pip install --quiet --upgrade pip

constraints="$venv/minimum-constraints.txt"
python .ci/lower_bounds.py plot dask test > "$constraints"
echo "+ pinned to the declared minimums:"
sed 's/^/    /' "$constraints"
python -m pip install --quiet -c "$constraints" ".[plot,dask,test]"
python .ci/lower_bounds.py --check plot dask test

echo "+ python -m pytest -q -m 'not realdata'"
python -m pytest -q -p no:cacheprovider -m "not realdata"
