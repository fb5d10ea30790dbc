#!/usr/bin/env bash
# Minimum versions (the SPEC 0 habit): a fresh virtual environment with exactly the lower
# bounds that pyproject.toml declares -- numpy, scipy, scikit-learn, the other run-time
# dependencies and the plot/dask/test extras (.ci/lower_bounds.py turns each ">=" into
# "==") -- then the test suite on the installed (not editable) package, less two groups
# that the main suite runs on the newest releases (CI as a whole must stay under 20
# minutes on 2 cores):
#   realdata  the face-benchmark and video tests: the synthetic tests' code paths again, on
#             real images;
#   slow      tests over a second that repeat at scale, or in a subprocess, a path that
#             quicker tests cover (the marker's text in pyproject.toml). Tests whose subject
#             is a dependency's behaviour (check_estimator, doctests, the distributed fault
#             tests, video decoding, BLAS threads) are never marked and run here.
#
# Environment: MINVERSIONS_VENV (default .venv-minversions). .ci/run starts this script in
# the background beside the main suite (one BLAS thread here, as in its workers), so the
# package is built from a copy of the tree (setuptools builds in the tree it is given, and
# the main install and the docs build in this one meanwhile) and pytest gets its own
# --basetemp.
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
tree="$venv/source"
mkdir -p "$tree"
cp -r pyproject.toml README.md LICENSE src "$tree/"
python -m pip install --quiet -c "$constraints" "$tree[plot,dask,test]"
python .ci/lower_bounds.py --check plot dask test

export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
# hypothesis' "minversions" profile (tests/conftest.py): the derandomized examples of the
# main suite's "ci" profile, a fifth as many
export ROBUSTPCA_HYPOTHESIS_PROFILE=minversions
echo "+ python -m pytest -q -m 'not realdata and not slow'"
python -m pytest -q -p no:cacheprovider -m "not realdata and not slow" --basetemp="$venv/pytest-tmp"
