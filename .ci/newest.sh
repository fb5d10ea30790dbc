#!/usr/bin/env bash
# The newest Python found on the machine (3.13 or later) with the newest releases it gets:
# a fresh virtual environment, the package installed (not editable) with the test extra,
# and the tests of what a new Python changes first: the docstrings assembled from shared
# pieces (the test_docstring* files) and the checks that read the sources with ast
# (test_architecture.py, test_docs.py), and that the installed package ships its type
# hints (test_typed.py). The main lane runs on the machine's python3
# (3.11), which sees neither what Python 3.13 changed (it strips the indentation of
# docstrings when it compiles them) nor the NumPy and SciPy releases that need a newer
# Python (NumPy 2.5 needs 3.12). NEWEST_TESTS=tests runs the whole suite there; the
# selection (seconds of tests) keeps CI under 20 minutes on a slow 2-core machine.
#
# Where no such Python is found (a fresh machine may hold only one), it says so and
# passes: the run's log shows which Python ran, or that none did.
#
# Environment: NEWEST_VENV (default .venv-newest). .ci/run starts it in the background
# lane, after minversions, on the same terms (a copy of the tree, its own --basetemp).
set -euo pipefail
cd "$(dirname "$0")/.."

venv=${NEWEST_VENV:-.venv-newest}

# The first interpreter of 3.13 or later: on the PATH, else among pyenv's versions.
is_newest() { "$1" -c 'import sys; sys.exit(sys.version_info < (3, 13))' 2>/dev/null; }
find_newest() {
  local candidate
  for candidate in python3.15 python3.14 python3.13; do
    if command -v "$candidate" >/dev/null 2>&1 && is_newest "$candidate"; then
      command -v "$candidate"
      return 0
    fi
  done
  # pyenv's versions, whether or not pyenv itself is on the PATH
  local root="${PYENV_ROOT:-$HOME/.pyenv}"
  if command -v pyenv >/dev/null 2>&1; then
    root=$(pyenv root)
  fi
  for candidate in $(ls -d "$root"/versions/3.*/bin/python3 2>/dev/null | sort -V -r); do
    if is_newest "$candidate"; then
      echo "$candidate"
      return 0
    fi
  done
  return 1
}

if ! python=$(find_newest); then
  echo "+ no Python 3.13 or later on this machine: the newest-Python lane did not run"
  exit 0
fi
echo "+ $python: $("$python" --version)"
rm -rf "$venv"
"$python" -m venv "$venv"
# shellcheck disable=SC1091
. "$venv/bin/activate"
python -m pip install --quiet --upgrade pip
tree="$venv/source"
mkdir -p "$tree"
cp -r pyproject.toml README.md LICENSE src "$tree/"
python -m pip install --quiet "$tree[test]"
python -m pip list 2>/dev/null | grep -iE '^(numpy|scipy|scikit-learn|dask|matplotlib|pandas) '

export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
workers=$(python -c 'import os; print(len(os.sched_getaffinity(0)))')
read -r -a tests <<<"${NEWEST_TESTS:-tests/test_docstring*.py tests/test_architecture.py tests/test_docs.py tests/test_typed.py}"
echo "+ python -m pytest -q -n $workers --dist loadfile ${tests[*]}"
# shellcheck disable=SC2068  # the globs of the selection expand here
python -m pytest -q -p no:cacheprovider -n "$workers" --dist loadfile \
  --basetemp="$venv/pytest-tmp" ${tests[@]}
