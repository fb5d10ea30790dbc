"""``read_pgm``, from the mutation audit: the limits of a binary PGM header (netpbm).

The netpbm format stores one byte per pixel when maxval is below 256 and two
(big-endian) from 256 on; maxval must lie in 1..65535 and both sides be positive. A
header outside these limits is not a PGM: ``read_pgm`` documents a ValueError for it.
"""

from __future__ import annotations

import numpy as np
import pytest

from robustpca.datasets import read_pgm


def test_maxval_256_is_two_bytes_a_pixel(tmp_path):
    """maxval 256 is the smallest that needs 16 bits: levels 0..256 read back exactly."""
    levels = np.array([[0, 256], [255, 1]], dtype=np.uint16)
    path = tmp_path / "a.pgm"
    path.write_bytes(b"P5\n2 2\n256\n" + levels.astype(">u2").tobytes())
    out = read_pgm(path)
    assert out.dtype == np.uint16
    np.testing.assert_array_equal(out, levels)


@pytest.mark.parametrize(
    "header", [b"P5\n2 2\n65536\n", b"P5\n0 2\n255\n", b"P5\n2 0\n255\n", b"P5\n2 2\n0\n"]
)
def test_headers_outside_the_format_are_refused(tmp_path, header):
    """maxval 65536 or 0 and a zero side are invalid headers, not an image."""
    path = tmp_path / "bad.pgm"
    path.write_bytes(header + bytes(16))
    with pytest.raises(ValueError, match="invalid PGM header"):
        read_pgm(path)
