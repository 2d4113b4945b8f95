"""Total-variation smoothing: regions flatten, edges stay.

Our own implementation of Chambolle's dual projection algorithm for the Rudin-Osher-Fatemi
model (A. Chambolle, "An algorithm for total variation minimization and applications",
J. Math. Imaging and Vision 20, 2004), in the form scikit-image's ``denoise_tv_chambolle``
uses: the same step, weight and stopping rule, so the pictures it gives are those of that
function to rounding. It lives here because importing ``skimage.restoration`` imports
``scipy.stats`` (0.4-0.7 s), and every ``generate`` of a photo paid that at start-up.
"""

from __future__ import annotations

import numpy as np

#: Stop when an iteration changes the energy by less than this fraction of the first one.
TV_EPS = 2e-4
#: At most this many iterations per channel.
TV_MAX_ITER = 200


def tv_channel(f: np.ndarray, weight: float) -> np.ndarray:
    """ROF total-variation smoothing of one 2-D channel ``f``; a larger ``weight`` flattens
    more. The dual field ``p`` (one component per axis) is projected with step 1/4, the
    largest that converges in two dimensions."""
    f = np.asarray(f, dtype=np.float64)
    tau = 0.25
    p_rows = np.zeros_like(f)
    p_cols = np.zeros_like(f)
    grad_rows = np.zeros_like(f)
    grad_cols = np.zeros_like(f)
    u = f
    first = previous = 0.0
    for it in range(TV_MAX_ITER):
        if it:
            # minus the divergence of p, with backward differences
            d = -(p_rows + p_cols)
            d[1:, :] += p_rows[:-1, :]
            d[:, 1:] += p_cols[:, :-1]
            u = f + d
            energy = float((d * d).sum())
        else:
            u = f
            energy = 0.0
        grad_rows[:-1, :] = np.diff(u, axis=0)
        grad_cols[:, :-1] = np.diff(u, axis=1)
        norm = np.sqrt(grad_rows * grad_rows + grad_cols * grad_cols)
        energy += weight * float(norm.sum())
        scale = norm * (tau / weight) + 1.0
        p_rows = (p_rows - tau * grad_rows) / scale
        p_cols = (p_cols - tau * grad_cols) / scale
        energy /= f.size
        if it == 0:
            first = previous = energy
        elif abs(previous - energy) < TV_EPS * first:
            break
        else:
            previous = energy
    return u


def smooth_lab(lab: np.ndarray, weight: float) -> np.ndarray:
    """Total-variation smoothing of a Lab picture, each channel on its own (scaled to
    0..1 for ``weight``): regions flatten, edges stay."""
    scaled = np.asarray(lab, dtype=np.float64) / 100.0
    out = np.empty_like(scaled)
    for c in range(scaled.shape[-1]):
        out[..., c] = tv_channel(scaled[..., c], weight)
    return 100.0 * out
