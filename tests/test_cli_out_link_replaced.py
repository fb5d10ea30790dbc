"""A fixed bug: replacing an ``--out`` that is a symbolic link left a hidden
``.<out>.old-<pid>`` link beside it.

``atomic_output_dir.__exit__`` (``src/robustpca/cli/_options.py``) renames the old
target to ``.<name>.old-<pid>`` and removes it with ``shutil.rmtree(old,
ignore_errors=True)``; ``rmtree`` refuses a symbolic link and ``ignore_errors`` hides
that, so every ``--overwrite`` run on a linked ``--out`` leaves one more hidden link in
the parent folder. The class's docstring says the link is the output ("symbolic links
kept: the link is the output") and that the old target is replaced; nothing of the old
output should remain beside the new one. (Removing ``old`` with ``os.unlink`` when it is
a link, ``shutil.rmtree`` otherwise, would fix it; the target folder must stay.)
"""

import os

import numpy as np
import pytest

from robustpca import cli


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symbolic links")
def test_overwriting_a_linked_out_leaves_nothing_beside_it(tmp_path, capsys):
    store = tmp_path / "store"
    store.mkdir()
    (store / "old-output.txt").write_text("an earlier run's file")
    src = tmp_path / "data.csv"
    rng = np.random.default_rng(0)
    np.savetxt(src, rng.normal(size=(30, 4)), delimiter=",", header="a,b,c,d", comments="")
    out = tmp_path / "out"
    try:
        out.symlink_to(store, target_is_directory=True)
    except OSError:
        pytest.skip("symbolic links cannot be made here")
    argv = ["fit", src, "--out", out, "--overwrite", "--method", "pca", "-k", "1"]
    assert cli.main([*argv, "--no-figures"]) == 0, capsys.readouterr().err
    assert (out / "summary.json").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data.csv", "out", "store"]
