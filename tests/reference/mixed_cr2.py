"""The alternative to the mixed model's pairwise intervals that issue 40 measured: clubSandwich's CR2.

A cluster-robust covariance of the contrasts (clustered by task) with its Satterthwaite df, as an lme4 user gets it
from ``clubSandwich::vcovCR(fit, type = "CR2")`` and ``linear_contrast(..., test = "Satterthwaite")``; checked
against those to ~1e-7 (lme4's optimiser tolerance) by ``tests/test_mixed.py`` on ``mixed_cr2_r.json``
(``mixed_cr2_r.R``). ``coverage_mixed.compare_cr2`` measures its coverage and width against the package's default;
no option of the package gives it (see that module).
"""

from __future__ import annotations

import numpy as np

from rlstats.methods.mixed._kernels import _pieces


def _inverse_root(b):
    """B^{-1/2} of a symmetric positive semi-definite B, on its range (clubSandwich's ``matrix_power(B, -1/2)``)."""
    values, vectors = np.linalg.eigh((b + b.T) / 2)
    keep = values > max(values.max(initial=0.0), 0.0) * 1e-12
    return (vectors[:, keep] / np.sqrt(values[keep])) @ vectors[:, keep].T


def cr2_t(m, fitted, contrasts):
    """Cluster-robust variance (CR2, clustered by task) and its Satterthwaite df of each row of ``contrasts``.

    Pustejovsky and Tipton (2018): with working covariance ``Phi = V`` (the fitted model's, sigma = 1), weights
    ``W = V^{-1}``, ``M = (X'WX)^{-1}`` and task clusters j, the adjustment ``A_j = C_j' (C_j (Phi - X M X')_jj
    C_j')^{-1/2} C_j`` (``Phi_jj = C_j' C_j``) makes ``sum_j (c'M X_j'W_j A_j e_j)^2`` unbiased for c'cov(beta)c
    under the working model, whatever the variances really are; the df match the first two moments of that sum
    under the working model (``nu = tr(G)^2 / ||G||^2``, ``G_ij = s_i' Phi s_j``, ``s_j = (I - H)_j' A_j W_j X_j M
    c``). Cells, not runs: V is the identity on the within-cell complement, where every s_j is zero, so the reduced
    problem gives the full data's numbers exactly (as clubSandwich's ``vcovCR(type = "CR2")`` and ``coef_test``
    on the lmer fit). Variances in the data's units; df unit-free.
    """
    pc = _pieces(m, fitted.theta)
    # the working covariance, dense: this reference runs on small data (the package never forms it)
    root = np.sqrt(m.cell_n)
    v = np.diag(pc.d) + fitted.theta[0] ** 2 * np.outer(root, root) * (m.cell_task[:, None] == m.cell_task[None, :])
    e = m.y - m.x @ pc.beta
    hat_rows = m.x @ pc.phi                               # X M: H = X M X' W
    xmc = pc.vx @ (pc.phi @ contrasts.T)                  # W X M c', (r, k)
    ih = np.eye(m.r) - hat_rows @ pc.vx.T                 # I - H
    k = contrasts.shape[0]
    variance = np.zeros(k)
    s = np.zeros((m.n_tasks, m.r, k))             # s_j for every task and contrast
    for j in range(m.n_tasks):
        idx = np.flatnonzero(m.cell_task == j)
        if idx.size == 0:
            continue
        chol = np.linalg.cholesky(v[np.ix_(idx, idx)]).T  # upper: Phi_jj = C'C
        inner = v[np.ix_(idx, idx)] - hat_rows[idx] @ m.x[idx].T
        a = chol.T @ _inverse_root(chol @ inner @ chol.T) @ chol
        g = a @ xmc[idx]                                  # (n_j, k)
        variance += (g.T @ e[idx]) ** 2
        s[j] = ih[idx].T @ g
    gram = np.einsum("iqk,jqk->kij", np.einsum("irk,rq->iqk", s, v), s)  # (k, T, T): s_i' Phi s_j
    with np.errstate(divide="ignore", invalid="ignore"):
        df = np.einsum("kii->k", gram) ** 2 / np.einsum("kij,kij->k", gram, gram)
    return variance * m.scale**2, df
