"""The linear mixed model's numbers: REML fit, Satterthwaite and Kenward-Roger degrees of freedom, contrasts.

Model: ``y = X beta + Z_task u_task [+ Z_cell u_cell] + e`` with treatment-coded agents in ``X`` (the first agent is
the intercept, as R's ``contr.treatment``), independent normal random intercepts per task (and per agent x task
cell when cells hold several runs) and normal errors.  Every column of ``X`` and ``Z`` is constant within a cell,
so the model reduces exactly to the cell means: in the orthonormal basis ``sqrt(n_c) * 1_cell`` of the cell
indicators, the covariance is ``sigma^2 (I + sum_i theta_i^2 G_i)`` on that r-dimensional space (``G_i = z_i z_i'``,
``z_i`` the scaled indicator columns) and ``sigma^2 I`` on its (N - r)-dimensional complement, where the data
enter only through the within-cell sum of squares.  Every quantity below (REML criterion, its gradient, the
covariance of ``beta`` and its derivatives, pbkrtest's traces) is the full-data one computed in r dimensions, so
a fit of 15,600 runs in 156 cells costs as much as one of 156.  In r dimensions nothing is r x r: the covariance is
block diagonal by task with blocks "diagonal plus rank one", so its inverse, log determinant and the traces of the
derivatives are closed forms summed over tasks (``_Pieces``, ``_trace_product``), linear in the cells (issue 43).

Units: the scores less their median (``Model.center``) are divided by a power of two near their spread before
anything is computed (``Model.scale``), so the fit, the numerical derivatives and every df are those of data of
unit size around 0 whatever the score's units (1e-150 to 1e149 give the same theta, df, t and F; dividing by a
power of two is exact, so scaling the data by one changes no bit of them; a shift leaves rounding of the spread
alone); estimates, standard deviations and covariances are multiplied back
(:func:`fit`, :func:`random_effects`, the setups' ``vcov_adjusted``), df and test statistics need no conversion.

Arrays in, arrays out; no pandas; trusts its input.

References: Bates, Maechler, Bolker and Walker (2015), J. Stat. Softw. 67(1), Section 3 (the profiled REML
criterion); Kuznetsova, Brockhoff and Christensen (2017), J. Stat. Softw. 82(13), Section 3 (Satterthwaite's
df from the Hessian of the deviance in (theta, sigma) and the Jacobian of cov(beta)); Kenward and Roger (1997),
Biometrics 53(3), 983-997 (adjusted covariance, eqs. 2-4, and df, Section 4) as pbkrtest computes them
(Halekoh and Hojsgaard 2014); Satterthwaite (1946), Biometrics Bulletin 2(6), 110-114.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...statistics import studentized_range_isf, studentized_range_sf

#: lme4's threshold for a singular fit: a relative standard deviation (theta) below it
SINGULAR_TOL = 1e-4
#: below this largest deviation from the mean, the covariances in the score's units underflow (squares of 1e-154)
SMALLEST_SPREAD = 1e-150
#: lmerTest's tolerance on the eigenvalues of the deviance's Hessian (here of unit-size data)
HESSIAN_TOL = 1e-8


@dataclass(frozen=True, eq=False)
class Model:
    """The reduced problem: cell-level design, scaled by sqrt(cell size); cells sorted by task.

    The covariance's parts ``G_i`` are never formed: ``G_task`` is block diagonal by task (the block of task t is
    ``s_t s_t'``, ``s = sqrt(cell_n)`` on its cells) and ``G_cell = diag(cell_n)``, so every product with them is a
    per-task sum (:func:`_task_sum`) and memory stays linear in the cells.
    """

    x: np.ndarray            # (r, p) scaled fixed-effects design
    y: np.ndarray            # (r,) scaled cell means
    n_components: int        # random terms: 1 (task) or 2 (task, task:agent)
    n_tasks: int
    cell_n: np.ndarray       # (r,) runs per cell
    cell_agent: np.ndarray   # (r,)
    cell_task: np.ndarray    # (r,)
    row_cell: np.ndarray     # (N,) cell of each run
    rss_within: float        # sum of squares of runs about their cell means
    nobs: int
    scale: float             # the scores' unit: y and rss_within are in it (a power of two, see unit_scale)
    root: np.ndarray         # (r,) sqrt(cell_n)
    cell_key: np.ndarray     # (r,) task * p + agent: the cell's place in the (task, agent) grid
    center: float = 0.0      # the scores' median, subtracted before the scaling (data units; see model)

    @property
    def p(self):
        return self.x.shape[1]

    @property
    def r(self):
        return self.y.size


def unit_scale(y):
    """A power of two near the largest deviation of ``y`` from its mean (1 when there is none).

    Dividing by it is exact (no rounding, barring subnormal numbers), so data that differ by a power-of-two factor
    give bit-identical fits; no square is formed, so it neither overflows nor underflows.
    """
    spread = float(np.max(np.abs(y - np.mean(y)), initial=0.0))
    if not np.isfinite(spread) or spread == 0.0:
        return 1.0
    return float(np.ldexp(1.0, int(np.frexp(spread)[1])))


def model(y, agent, task, n_agents, n_tasks, interaction):
    """The reduced model of runs ``y`` with agent and task codes; ``interaction`` adds task x agent intercepts.

    ``y`` less its median is divided by :func:`unit_scale` first: every quantity of the fit is computed on data of
    unit size around 0, so that a shift of the scores leaves the fit's rounding that of their spread (scores + 1e6
    left ~9 ulps of 1e6 in the difference of two identical agents, above the tie tolerance: audit s20 ties20b); only
    the intercept (:func:`fit`) gets the median back.
    """
    y = np.asarray(y, dtype=float)
    scale, center = unit_scale(y), float(np.median(y)) if y.size else 0.0
    y = (y - center) / scale
    key = task * n_agents + agent
    cells, row_cell = np.unique(key, return_inverse=True)
    n = np.bincount(row_cell).astype(float)
    means = np.bincount(row_cell, weights=y) / n
    rss = float(np.sum((y - means[row_cell]) ** 2))
    cell_task, cell_agent = cells // n_agents, cells % n_agents
    root = np.sqrt(n)
    x = np.zeros((cells.size, n_agents))
    x[:, 0] = 1.0
    x[np.arange(cells.size), cell_agent] = 1.0  # agent 0 is the intercept (treatment coding)
    x *= root[:, None]
    return Model(x, root * means, 2 if interaction else 1, int(n_tasks), n, cell_agent, cell_task, row_cell, rss,
                 int(y.size), scale, root, cells, center)


def _task_sum(m, a):
    """Sums of ``a`` (r,) or (r, q) over each task's cells: (n_tasks,) or (n_tasks, q)."""
    if a.ndim == 1:
        return np.bincount(m.cell_task, weights=a, minlength=m.n_tasks)
    # one bincount over (task, column) bins: each bin adds its cells in the same order as a bincount per column
    q = a.shape[1]
    bins = (m.cell_task[:, None] * q + np.arange(q)).ravel()
    return np.bincount(bins, weights=a.ravel(), minlength=m.n_tasks * q).reshape(m.n_tasks, q)


def _expand(m, per_task, a):
    """``per_task[cell_task]`` shaped to multiply ``a`` (r,) or (r, q)."""
    v = per_task[m.cell_task]
    return v if a.ndim == 1 else v[:, None]


def _g_apply(m, i, a):
    """``G_i a`` for component i (0: task, 1: task x agent), without forming G_i."""
    if i == 0:
        root = np.sqrt(m.cell_n)
        s = root if a.ndim == 1 else root[:, None]
        return s * _task_sum(m, s * a)[m.cell_task]
    return (m.cell_n if a.ndim == 1 else m.cell_n[:, None]) * a


def _g_quad(m, i, a, b):
    """``a' G_i b`` for vectors or (r, q) matrices."""
    if i == 0:
        root = np.sqrt(m.cell_n)
        sa = _task_sum(m, a * (root if a.ndim == 1 else root[:, None]))
        sb = _task_sum(m, b * (root if b.ndim == 1 else root[:, None]))
        return sa.T @ sb
    return a.T @ (b * (m.cell_n if b.ndim == 1 else m.cell_n[:, None]))


def _grid(m, f):
    """The cells' values ``f`` (r,) in the (task, agent) grid: (n_tasks, p), 0 where a task has no run of an agent."""
    grid = np.zeros(m.n_tasks * m.p)
    grid[m.cell_key] = f
    return grid.reshape(m.n_tasks, m.p)


def _symmetric(corner, edge, block):
    """The (p, p) matrix with [0, 0] = corner, [0, 1:] = [1:, 0] = edge and [1:, 1:] = block."""
    out = np.empty((edge.size + 1, edge.size + 1))
    out[0, 0], out[0, 1:], out[1:, 0], out[1:, 1:] = corner, edge, edge, block
    return out


@dataclass(frozen=True, eq=False)
class _Pieces:
    """What one covariance (sigma = 1) gives: V^{-1} in closed form, (X'V^{-1}X)^{-1}, beta, residual terms.

    V's block for task t is ``diag(d_t) + theta_task^2 s_t s_t'`` (``d = 1 + theta_cell^2 n``), whose inverse is
    ``diag(1/d_t) - c_t u_t u_t'`` with ``u = s / d`` and ``c_t = theta_task^2 / (1 + theta_task^2 s_t'u_t)``
    (Sherman-Morrison); it is applied, never formed. X's columns are ``s`` (the intercept) and ``s`` on one agent's
    cells, so ``V^{-1} X`` is known from the (tasks x agents) grid ``g = n / d`` alone: ``V^{-1} s = shrink_t u``
    and ``V^{-1} x_a = u e_a - c_t g_a u`` within task t. The deviance and its gradient touch only that grid and
    the cells' vectors (issue 43: the (cells x p) ``V^{-1} X`` of every evaluation made the cost superlinear in
    tasks once it left the caches); :attr:`vx` forms it for the one-off Kenward-Roger setup.
    """

    d: np.ndarray            # (r,)
    u: np.ndarray            # (r,)
    c: np.ndarray            # (n_tasks,)
    su: np.ndarray           # (n_tasks,) s_t'u_t
    shrink: np.ndarray       # (n_tasks,) 1 - c_t s_t'u_t = 1 / (1 + theta_task^2 s_t'u_t), without its cancellation
    g: np.ndarray            # (n_tasks, p) n / d of each task's agent-a cell, column 0 for agent 0
    phi: np.ndarray
    beta: np.ndarray
    ve: np.ndarray
    pwrss: float
    logdet_v: float
    logdet_xvx: float
    model: Model

    def solve(self, m, a):
        """``V^{-1} a`` for a (r,) vector or (r, q) matrix."""
        u = self.u if a.ndim == 1 else self.u[:, None]
        d = self.d if a.ndim == 1 else self.d[:, None]
        return a / d - _expand(m, self.c, a) * u * _task_sum(m, u * a)[m.cell_task]

    @property
    def vx(self):
        """``V^{-1} X`` (r, p), formed (for the one-off setups that need it whole)."""
        m = self.model
        out = -(self.c[m.cell_task] * self.u)[:, None] * self.g[m.cell_task]
        out[:, 0] = self.shrink[m.cell_task] * self.u
        rows = np.flatnonzero(m.cell_agent > 0)
        out[rows, m.cell_agent[rows]] += self.u[rows]
        return out

    def component(self, m, i):
        """``V^{-1} G_i`` (i = 0, 1; i = n_components: the identity) as ``diag(a) + x y'`` within each task: (a, x, y)."""
        if i == 0:
            # V^{-1} s = u - c u (s'u) = u / (1 + theta_task^2 s'u), times s'
            return np.zeros(m.r), self.u * (1.0 - self.c * self.su)[m.cell_task], np.sqrt(m.cell_n)
        weight = m.cell_n if i < m.n_components else np.ones(m.r)
        return weight / self.d, -self.c[m.cell_task] * self.u, self.u * weight


def _pieces(m, theta):
    d = 1.0 + (theta[1] ** 2 * m.cell_n if len(theta) > 1 else 0.0)
    d = np.broadcast_to(d, m.cell_n.shape).astype(float)
    u = m.root / d
    su = _task_sum(m, m.root * u)
    c = theta[0] ** 2 / (1.0 + theta[0] ** 2 * su)
    shrink = np.reciprocal(1.0 + theta[0] ** 2 * su)
    logdet_v = float(np.log(d).sum() + np.log1p(theta[0] ** 2 * su).sum())
    g = _grid(m, m.cell_n / d)
    ga = g[:, 1:]
    # X'V^{-1}X: s'V^{-1}s = shrink s'u, s'V^{-1}x_a = shrink g_a, x_a'V^{-1}x_b = [a = b] g_a - c g_a g_b
    xvx = _symmetric(float(np.sum(shrink * su)), shrink @ ga, np.diag(ga.sum(axis=0)) - (ga * c[:, None]).T @ ga)
    phi = np.linalg.inv(xvx)
    phi = (phi + phi.T) / 2
    uy = _grid(m, u * m.y)
    uy_task = uy.sum(axis=1)
    xvy = np.concatenate(([shrink @ uy_task], uy[:, 1:].sum(axis=0) - (c * uy_task) @ ga))
    beta = phi @ xvy
    shift = beta.copy()
    shift[0] = 0.0
    e = m.y - m.root * (beta[0] + shift[m.cell_agent])     # y - X beta
    partial = _Pieces(d, u, c, su, shrink, g, phi, beta, None, 0.0, logdet_v, 0.0, m)
    ve = partial.solve(m, e)
    return _Pieces(d, u, c, su, shrink, g, phi, beta, ve, float(e @ ve) + m.rss_within, logdet_v,
                   float(np.linalg.slogdet(xvx)[1]), m)


def _vx_g_vx(m, pc, i):
    """``X'V^{-1} G_i V^{-1} X`` (p, p) from the grid ``g``: O(tasks p^2) and no (cells x p) array."""
    ga, c, shrink = pc.g[:, 1:], pc.c, pc.shrink
    if i == 0:
        # s'V^{-1}X of task t is shrink_t (s_t'u_t, g_t1, ..., g_tp)
        w = shrink[:, None] * ga
        return _symmetric(float(np.sum((shrink * pc.su) ** 2)), (shrink**2 * pc.su) @ ga, w.T @ w)
    # with n u^2 = g^2 and k_t = sum over task t's cells of g^2: (V^{-1}s)' N (V^{-1}s) = shrink^2 k,
    # (V^{-1}s)' N (V^{-1}x_a) = shrink g_a (g_a - c k),
    # (V^{-1}x_a)' N (V^{-1}x_b) = [a = b] g_a^2 - c g_a g_b (g_a + g_b - c k)
    k = np.sum(pc.g**2, axis=1)
    ck = c * k
    sq = ga**2
    cross = (sq * c[:, None]).T @ ga
    block = np.diag(sq.sum(axis=0)) - cross - cross.T + (ga * (c * ck)[:, None]).T @ ga
    return _symmetric(float(np.sum(shrink**2 * k)), np.sum(shrink[:, None] * ga * (ga - ck[:, None]), axis=0), block)


def _trace_v_g(m, pc, i):
    """tr(V^{-1} G_i), summed over the tasks' blocks."""
    if i == 0:
        return float(np.sum(pc.su * pc.shrink))
    return float(np.sum(m.cell_n * (1.0 / pc.d - pc.c[m.cell_task] * pc.u**2)))


def _traces(m, pieces, i):
    """tr(V^{-1} G) - tr(Phi X'V^{-1} G V^{-1} X) and e'V^{-1} G V^{-1} e: the derivative's parts for G_i."""
    return (_trace_v_g(m, pieces, i) - float(np.sum(pieces.phi * _vx_g_vx(m, pieces, i))),
            float(_g_quad(m, i, pieces.ve, pieces.ve)))


def profiled_deviance(m, phi):
    """lme4's REML criterion with sigma profiled out, at ``theta = sqrt(phi)``, and its gradient in phi, for the
    data in ``m.scale`` units (the criterion in the data's units adds ``(N - p) log(scale^2)``).

    The fit runs in ``phi = theta^2``: in theta the gradient vanishes at 0 whatever the data, so an optimiser
    that reaches the bound would stop there even when the optimum is inside.
    """
    phi = np.asarray(phi, dtype=float)
    pc = _pieces(m, np.sqrt(np.maximum(phi, 0.0)))
    df = m.nobs - m.p
    value = pc.logdet_v + pc.logdet_xvx + df * (1.0 + np.log(2.0 * np.pi * pc.pwrss / df))
    grad = np.empty(phi.size)
    for i in range(m.n_components):
        trace, quad = _traces(m, pc, i)
        grad[i] = trace - df * quad / pc.pwrss
    return value, grad


@dataclass(frozen=True, eq=False)
class Fit:
    """The REML estimates in the data's units, and the model's ``scale`` (a power of two) they were fitted in."""

    theta: np.ndarray      # relative standard deviations of the random effects (task, [task:agent])
    sigma: float           # residual standard deviation
    beta: np.ndarray
    vcov: np.ndarray       # cov(beta) at the estimates
    reml: float            # REML criterion (lme4's REMLcrit)
    converged: bool
    message: str
    gradient: np.ndarray   # of the profiled criterion in theta^2 at the estimates (projected on the bounds)
    scale: float = 1.0

    @property
    def sigma_unit(self) -> float:
        """Sigma in unit-size data: exact, the scale being a power of two."""
        return self.sigma / self.scale


def fit(m):
    """The REML fit: minimise the profiled criterion over theta >= 0 from theta = 1 (lme4's start)."""
    from scipy.optimize import minimize

    k = m.n_components
    res = minimize(lambda phi: profiled_deviance(m, phi), np.ones(k), jac=True, method="L-BFGS-B",
                   bounds=[(0.0, None)] * k, options={"ftol": 1e-15, "gtol": 1e-12, "maxiter": 2000})
    # Polish: Newton steps on the free coordinates (L-BFGS-B stops on its line search near the optimum).
    phi = _polish(m, np.maximum(res.x, 0.0))
    value, grad = profiled_deviance(m, phi)
    projected = np.where((phi <= 0) & (grad > 0), 0.0, grad)
    theta = np.sqrt(phi)
    pc = _pieces(m, theta)
    sigma = float(np.sqrt(pc.pwrss / (m.nobs - m.p)))
    # lme4 warns at a scaled gradient above 2e-3; here the gradient in theta^2, scaled by the criterion's size
    converged = bool(np.all(np.isfinite(phi)) and np.max(np.abs(projected) * np.maximum(phi, 1.0), initial=0.0) < 2e-3)
    # back to the data's units: sigma^2 scale^2 * Phi is formed as (sigma scale)^2 Phi, which stays finite where
    # scale^2 alone would not; the criterion's -2 log-likelihood gains (N - p) log(scale^2)
    reml = float(value) + 2.0 * (m.nobs - m.p) * np.log(m.scale)
    beta = pc.beta * m.scale
    beta[0] += m.center  # the intercept (the first agent's mean) of the scores, not of the scores less their median
    return Fit(theta, sigma * m.scale, beta, (sigma * m.scale) ** 2 * pc.phi, reml, converged,
               str(res.message), projected, m.scale)


#: the polish's gradient floor in units of eps x runs (see _polish)
_GRADIENT_ROUNDOFF = 16.0


def _polish(m, phi, steps=10):
    """Newton's method on the coordinates away from the bound, with a numerical Hessian of the gradient.

    A step is kept when the criterion falls, or when it rises by no more than its round-off while the gradient
    shrinks: next to the optimum the criterion is flat to ~1e-13, so its value alone cannot tell the last steps,
    which move theta by ~1e-7, from a step that overshoots (issue 39 item 7).

    It stops when the gradient is down to its own round-off: its terms are sums over the N runs, so below about
    ``16 eps N`` (1e-12 for small N) a Newton step is computed from noise (issue 43: at 10^6 runs the gradient
    stayed at 1e-11 to 1.5e-10 and five more steps of 18 evaluations each moved theta by ~1e-14, their number
    growing with N).
    """
    floor = max(1e-12, _GRADIENT_ROUNDOFF * np.finfo(float).eps * m.nobs)
    for _ in range(steps):
        value, grad = profiled_deviance(m, phi)
        free = ~((phi <= 0) & (grad >= 0))
        if not free.any() or np.max(np.abs(grad[free])) < floor:
            break

        def sub_gradient(x, free=free):
            full = phi.copy()
            full[free] = x
            return profiled_deviance(m, full)[1][free]

        hess = _jacobian(sub_gradient, phi[free])
        hess = (hess + hess.T) / 2
        if np.any(np.linalg.eigvalsh(hess) <= 0):
            break
        candidate = phi.copy()
        candidate[free] = np.maximum(phi[free] - np.linalg.solve(hess, grad[free]), 0.0)
        new_value, new_grad = profiled_deviance(m, candidate)
        roundoff = 1e3 * np.finfo(float).eps * max(abs(value), 1.0)
        smaller = np.max(np.abs(new_grad[free])) < np.max(np.abs(grad[free]))
        if not (new_value <= value or (new_value <= value + roundoff and smaller)):
            break
        phi = candidate
    return phi


def _jacobian(f, x, base_step=1e-3, levels=4, typical=None):
    """Jacobian of f at x by central differences with Richardson extrapolation (steps halved ``levels`` times).

    The step of coordinate j is ``base_step * typical[j]``; by default ``max(|x_j|, 0.1)``, right for the
    dimensionless theta; a coordinate with units (sigma) passes its own size, so the steps scale with it.
    """
    x = np.asarray(x, dtype=float)
    typical = np.maximum(np.abs(x), 1e-1) if typical is None else np.asarray(typical, dtype=float)
    columns = []
    for j in range(x.size):
        h = base_step * typical[j]
        table = []
        for level in range(levels):
            step = np.zeros_like(x)
            step[j] = h / 2**level
            table.append((np.asarray(f(x + step)) - np.asarray(f(x - step))) / (2 * step[j]))
        for order in range(1, levels):  # each pass removes the next even power of h
            factor = 4.0**order
            table = [(factor * table[i + 1] - table[i]) / (factor - 1) for i in range(len(table) - 1)]
        columns.append(table[0])
    return np.column_stack(columns)


# ---------------------------------------------------------------- Satterthwaite (lmerTest)

def deviance_score(m, varpar):
    """Gradient of the REML deviance in (theta, sigma), beta profiled (lmerTest's ``devfun_vp``)."""
    theta, sigma = np.asarray(varpar[:-1], dtype=float), float(varpar[-1])
    pc = _pieces(m, theta)
    out = np.empty(theta.size + 1)
    for i, t in enumerate(theta):
        trace, quad = _traces(m, pc, i)
        out[i] = 2.0 * t * (trace - quad / sigma**2)
    out[-1] = 2.0 * (m.nobs - m.p) / sigma - 2.0 * pc.pwrss / sigma**3
    return out


@dataclass(frozen=True, eq=False)
class Satterthwaite:
    """lmerTest's pieces, in the model's ``scale`` units (sigma, cov(beta) and its Jacobian); df need no others."""

    varpar: np.ndarray       # (theta, sigma / scale)
    vcov_varpar: np.ndarray  # 2 H^+ (H: Hessian of the deviance)
    jacobian: np.ndarray     # (n_varpar, p, p): d cov(beta) / d varpar
    hessian_eigenvalues: np.ndarray
    scale: float


def satterthwaite_setup(m, fitted):
    """The asymptotic covariance of (theta, sigma) and the derivatives of cov(beta), as lmerTest forms them.

    In unit-size data (``m.scale``), with sigma's difference step a fraction of sigma itself: the df do not
    depend on the score's units (issue 39: a fixed step of 1e-4 made them 3.5 instead of 15 at 1e-6 units).
    """
    sigma = fitted.sigma_unit
    varpar = np.append(fitted.theta, sigma)
    hess = _jacobian(lambda v: deviance_score(m, v), varpar,
                     typical=np.append(np.maximum(fitted.theta, 1e-1), sigma))
    hess = (hess + hess.T) / 2
    values, vectors = np.linalg.eigh(hess)
    # lmerTest's tolerance, applied in unit-size data (in the data's units sigma's entries scale as 1/unit^2)
    keep = values > HESSIAN_TOL
    vcov_varpar = 2.0 * (vectors[:, keep] / values[keep]) @ vectors[:, keep].T
    pc = _pieces(m, fitted.theta)
    jac = []
    for i, t in enumerate(fitted.theta):
        jac.append(sigma**2 * pc.phi @ (2.0 * t * _vx_g_vx(m, pc, i)) @ pc.phi)
    jac.append(2.0 * sigma * pc.phi)
    return Satterthwaite(varpar, vcov_varpar, np.array(jac), values, m.scale)


def satterthwaite_t(setup, vcov, contrasts):
    """Variance (in the data's units, with ``vcov`` in them) and Satterthwaite df of each row of ``contrasts``."""
    variance = np.einsum("kp,pq,kq->k", contrasts, vcov, contrasts)
    return variance, _satterthwaite_df(setup, vcov / setup.scale / setup.scale, contrasts)


def _satterthwaite_df(setup, unit_vcov, contrasts):
    """The df of each row of ``contrasts``, from cov(beta) in unit-size data (``unit_vcov``)."""
    unit = np.einsum("kp,pq,kq->k", contrasts, unit_vcov, contrasts)
    grad = np.einsum("kp,jpq,kq->kj", contrasts, setup.jacobian, contrasts)
    denom = np.einsum("kj,jl,kl->k", grad, setup.vcov_varpar, grad)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(denom > 0, 2.0 * unit**2 / denom, np.inf)


def satterthwaite_f(setup, vcov, beta, contrasts):
    """lmerTest's F test of ``contrasts @ beta = 0``: (F, numerator df, denominator df)."""
    vcov, beta = vcov / setup.scale / setup.scale, beta / setup.scale  # F is unit-free: from unit-size numbers
    vl = contrasts @ vcov @ contrasts.T
    values, vectors = np.linalg.eigh((vl + vl.T) / 2)
    order = np.argsort(values)[::-1]
    values, vectors = values[order], vectors[:, order]
    keep = values > max(np.sqrt(np.finfo(float).eps) * values[0], 0.0)
    q = int(keep.sum())
    rotated = (vectors.T @ contrasts)[:q]
    statistic = float(np.sum((rotated @ beta) ** 2 / values[:q]) / q)
    return statistic, q, _fstat_ddf(_satterthwaite_df(setup, vcov, rotated))


def agent_hypothesis(m, order=None):
    """lmerTest's contrast rows for the agent term (its type I = type III with one factor): the agent rows of
    the transposed Doolittle factor of X'X (X'X = L U, L unit lower triangular), entries below 1e-6 set to 0.

    The F they give is the same in any basis, but lmerTest's Satterthwaite denominator df is not: it rotates these
    rows by the eigenvectors of L cov(beta) L', so it moves with the order of the factor's levels (the reference
    level and the Doolittle factor). ``order`` (the agents' codes in their names' sorted order, ``Design.agent_places``
    argsorted) fixes that order whatever the data's, so that a Categorical's category order does not change the
    test (audit s25 real25b: 9.6942 to 9.7603 df over the 24 orders of one real design): the rows are those of the
    model with the agents so ordered, mapped onto this model's coefficients (the same contrasts of the agents' means).
    """
    n_agents = m.x.shape[1]
    order = np.arange(n_agents) if order is None else np.asarray(order, dtype=np.intp)
    place = np.empty(n_agents, dtype=np.intp)
    place[order] = np.arange(n_agents)
    # the design in that order: the intercept is the first agent's mean (treatment coding), as model() builds it
    x = np.zeros_like(m.x)
    x[:, 0] = 1.0
    x[np.arange(x.shape[0]), place[m.cell_agent]] = 1.0
    x *= m.root[:, None]
    chol = np.linalg.cholesky(x.T @ x)
    factor = (chol / np.diag(chol)).T          # L' with unit diagonal: X'X = L D L'
    factor[np.abs(factor) < 1e-6] = 0.0
    # this model's coefficients give the agents' means mu = M beta (mu_0 = beta_0, mu_k = beta_0 + beta_k); the
    # ordered model's are C mu (the first's mean, then each other's difference from it): rows act on beta as L C M
    means = np.eye(n_agents)
    means[1:, 0] = 1.0
    ordered = np.zeros((n_agents, n_agents))
    ordered[:, order[0]] = -1.0
    ordered[0, order[0]] = 1.0
    ordered[np.arange(1, n_agents), order[1:]] = 1.0
    return factor[1:] @ ordered @ means


def orthonormal_hypothesis(n_agents):
    """Contrast rows of the agent term that treat every agent alike (audit s33 mixed33): an orthonormal basis of the
    contrasts of the agents' means (vectors summing to 0), mapped onto the coefficients (mu = M beta, as in
    :func:`agent_hypothesis`).

    The F is the same in any basis. lmerTest's Satterthwaite denominator df is not: it takes the principal axes of
    L cov(beta) L' for its rows L, and those move with the reference level in an unbalanced design (6.44 to 8.08 df
    over the orders of one Atari 100k design). With orthonormal rows in the means' coordinates any two bases differ
    by an orthogonal Q, under which L cov L' -> Q L cov L' Q' has the same eigenvalues and the rotated contrasts are
    unchanged, so the df is one number whatever the basis; and renaming agents permutes the means, an orthogonal map
    of the contrasts onto themselves, so the df does not depend on the names either. The axes are those of the
    covariance of the centred means, H cov(mu) H (H = I - J/k). Where the design is balanced that covariance is
    a multiple of H on the contrasts, every contrast has lmerTest's df, and the two agree.
    """
    centred = np.eye(n_agents) - 1.0 / n_agents
    basis = np.linalg.svd(centred)[0][:, :n_agents - 1]   # orthonormal columns spanning the contrasts
    means = np.eye(n_agents)
    means[1:, 0] = 1.0
    return basis.T @ means


def _fstat_ddf(nu):
    """lmerTest's denominator df of an F from the per-direction t df (Kuznetsova et al. 2017, eq. 8)."""
    if nu.size == 1:
        return float(nu[0])
    if np.all(np.abs(np.diff(nu)) < 1e-8):
        return float(nu.mean())
    if np.any(nu <= 2):
        return 2.0
    e = np.sum(nu / (nu - 2.0))
    return float(2.0 * e / (e - nu.size))


# ---------------------------------------------------------------- Kenward-Roger (pbkrtest)

@dataclass(frozen=True, eq=False)
class KenwardRoger:
    """pbkrtest's pieces in the model's ``scale`` units, except ``vcov_adjusted``, in the data's."""

    vcov: np.ndarray        # Phi, the unadjusted cov(beta)
    vcov_adjusted: np.ndarray
    p_list: np.ndarray      # (n_gamma, p, p): P_i = -X'S^{-1} G_i S^{-1} X
    w: np.ndarray           # 2 x inverse expected information of the variance components
    scale: float


def _trace_product(m, first, second):
    """tr(A B) for A, B block diagonal by task, each block ``diag(a) + x y'`` (as :meth:`_Pieces.component`)."""
    a1, x1, y1 = first
    a2, x2, y2 = second
    cross = _task_sum(m, y1 * x2) * _task_sum(m, y2 * x1)
    return float(np.sum(a1 * a2) + np.sum(a1 * x2 * y2) + np.sum(a2 * x1 * y1) + np.sum(cross))


def kenward_roger_setup(m, fitted):
    """pbkrtest's adjusted covariance of beta (``vcovAdj``) for components (task, [task:agent], residual).

    Formed in unit-size data (``m.scale``), where sigma^4 neither underflows nor overflows; the adjusted
    covariance is multiplied back into the data's units.
    """
    sigma2 = fitted.sigma_unit**2
    pc = _pieces(m, fitted.theta)
    n = m.n_components + 1                        # the residual's G is the identity
    # Sigma^{-1} = V^{-1} / sigma2 and the G_i are applied per task, never formed (r x r)
    tt = pc.vx / sigma2                           # Sigma^{-1} X
    oo = [_g_apply(m, i, tt) if i < m.n_components else tt for i in range(n)]
    pp = np.array([-(o.T @ tt) for o in oo])
    pp = (pp + np.transpose(pp, (0, 2, 1))) / 2
    soo = [pc.solve(m, o) / sigma2 for o in oo]
    qq = [[oo[i].T @ soo[j] for j in range(n)] for i in range(n)]
    forms = [pc.component(m, i) for i in range(n)]
    phi = sigma2 * pc.phi
    ie2 = np.empty((n, n))
    for i in range(n):
        for j in range(n):
            trace = _trace_product(m, forms[i], forms[j]) / sigma2**2
            if i == j == n - 1:  # the identity's part on the complement of the cells' space
                trace += (m.nobs - m.r) / sigma2**2
            ie2[i, j] = trace - 2.0 * float(np.sum(phi * qq[i][j])) + float(np.trace(phi @ pp[i] @ phi @ pp[j]))
    ie2 = (ie2 + ie2.T) / 2
    if np.min(np.abs(np.linalg.eigvalsh(ie2))) > 1e-10:
        w = 2.0 * np.linalg.inv(ie2)
    else:
        w = 2.0 * np.linalg.pinv(ie2)
    u = np.zeros_like(phi)
    for i in range(n):
        for j in range(n):
            u += w[i, j] * (qq[i][j] - pp[i] @ phi @ pp[j])
    adjusted = phi + 2.0 * phi @ u @ phi
    adjusted = (adjusted + adjusted.T) / 2
    return KenwardRoger(phi, m.scale * adjusted * m.scale, pp, w, m.scale)


def _kr_a(setup, contrasts):
    """A1 and A2 of Kenward and Roger (1997) for the hypothesis ``contrasts @ beta = 0``."""
    phi = setup.vcov
    theta = contrasts.T @ np.linalg.solve(contrasts @ phi @ contrasts.T, contrasts)
    u = [theta @ phi @ p @ phi for p in setup.p_list]
    traces = np.array([np.trace(a) for a in u])
    a1 = float(traces @ setup.w @ traces)
    a2 = float(sum(setup.w[i, j] * np.sum(u[i] * u[j].T) for i in range(len(u)) for j in range(len(u))))
    return a1, a2


def _kr_ddf(a1, a2, q):
    """pbkrtest's denominator df and F scaling from A1, A2 and the number of constraints q."""
    b = (a1 + 6.0 * a2) / (2.0 * q)
    g = ((q + 1.0) * a1 - (q + 4.0) * a2) / ((q + 2.0) * a2)
    denom = 3.0 * q + 2.0 * (1.0 - g)
    c1, c2, c3 = g / denom, (q - g) / denom, (q + 2.0 - g) / denom
    v0 = 1.0 + c1 * b
    v0 = 0.0 if abs(v0) < 1e-10 else v0
    v1, v2 = 1.0 - c2 * b, 1.0 - c3 * b
    x = 1.0 - a2 / q
    # IEEE division as R's: with every variance component at 0, v2 can be exactly 0, so rho = inf and ddf = 4
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = 1.0 if abs(x) < 1e-14 and abs(v1) < 1e-14 else np.float64(x) / v1
        rho = ratio**2 * v0 / np.float64(v2) / q
        ddf = float(4.0 + (q + 2.0) / (q * rho - 1.0))
    scaling = 1.0 if abs(ddf - 2.0) < 0.01 else ddf * (1.0 - a2 / q) / (ddf - 2.0)
    return ddf, scaling


def kenward_roger_t(setup, contrasts):
    """Adjusted variance and Kenward-Roger df of each row of ``contrasts`` (k, p)."""
    variance = np.einsum("kp,pq,kq->k", contrasts, setup.vcov_adjusted, contrasts)
    # one row c: Theta = c c' / (c'Phi c) is rank one, so each U_i = Theta Phi P_i Phi is too, tr(U_i U_j) =
    # tr(U_i) tr(U_j) and A2 = A1 = t'Wt with t_i = c'Phi P_i Phi c / c'Phi c: O(p^2) a row, not _kr_a's O(p^3)
    # (the agents' pairs are ~agents^2 rows)
    phi = setup.vcov
    inner = np.array([phi @ p @ phi for p in setup.p_list])
    t = np.einsum("kp,ipq,kq->ki", contrasts, inner, contrasts) / np.einsum("kp,pq,kq->k", contrasts, phi,
                                                                              contrasts)[:, None]
    a = np.einsum("ki,ij,kj->k", t, setup.w, t)
    df = np.array([_kr_ddf(float(x), float(x), 1)[0] for x in a])
    return variance, df


def kenward_roger_f(setup, beta, contrasts):
    """pbkrtest's scaled F test of ``contrasts @ beta = 0``: (F, numerator df, denominator df)."""
    q = int(np.linalg.matrix_rank(contrasts))
    ddf, scaling = _kr_ddf(*_kr_a(setup, contrasts), q)
    lb = contrasts @ beta / setup.scale  # the Wald statistic is unit-free: computed on unit-size numbers
    adjusted = setup.vcov_adjusted / setup.scale / setup.scale
    wald = float(lb @ np.linalg.solve(contrasts @ adjusted @ contrasts.T, lb))
    return scaling * wald / q, q, ddf


# ---------------------------------------------------------------- what the result shows

def random_effects(m, fitted):
    """Conditional modes (BLUPs) of the task intercepts and, with the interaction, of the cell intercepts."""
    pc = _pieces(m, fitted.theta)
    task = fitted.theta[0] ** 2 * _task_sum(m, np.sqrt(m.cell_n) * pc.ve)
    cell = fitted.theta[1] ** 2 * np.sqrt(m.cell_n) * pc.ve if m.n_components > 1 else np.zeros(m.r)
    return task * m.scale, cell * m.scale


def fitted_values(m, fitted, agent, task):
    """Fitted values (fixed part plus predicted random intercepts) of each run."""
    u_task, u_cell = random_effects(m, fitted)
    fixed = fitted.beta[0] + np.where(agent > 0, fitted.beta[np.maximum(agent, 0)], 0.0)
    return fixed + u_task[task] + u_cell[m.row_cell]


def agent_contrasts(n_agents):
    """Rows of the agents' marginal means ([1, e_a]) and of every pair i < j (mean_i - mean_j), with the pairs."""
    means = np.zeros((n_agents, n_agents))
    means[:, 0] = 1.0
    means[np.arange(1, n_agents), np.arange(1, n_agents)] = 1.0
    first, second = np.triu_indices(n_agents, k=1)
    return means, means[first] - means[second], first, second


#: pairs per studentized-range integral call (about 50 MB of temporaries each)
_TUKEY_BLOCK = 256


def tukey_pvalues(t, df, n_means):
    """Tukey's single-step p-values, ``P(Q > sqrt(2) |t|)`` for the studentized range of ``n_means`` with df."""
    from scipy.special import stdtr  # Student's t tail as scipy's t.sf computes it, with a lighter import

    if n_means == 2:  # the range of two means is one |t|: the exact two-sided t p-value
        return 2.0 * stdtr(df, -np.abs(t))
    q, df = np.broadcast_arrays(np.sqrt(2.0) * np.abs(t), np.asarray(df, dtype=float))
    shape, q, df = q.shape, q.ravel(), df.ravel()
    # in blocks of pairs: the integral holds (pairs x nodes x nodes) temporaries, 1.9 GB at 100 agents' 4,950 pairs
    blocks = [studentized_range_sf(q[i:i + _TUKEY_BLOCK], n_means, df[i:i + _TUKEY_BLOCK])
              for i in range(0, q.size, _TUKEY_BLOCK)]
    return np.concatenate(blocks).reshape(shape) if blocks else np.empty(shape)


def tukey_quantiles(confidence_level, df, n_means):
    """Half-width multipliers of Tukey's simultaneous intervals: q(level; n_means, df) / sqrt(2)."""
    from scipy.special import stdtrit

    if n_means == 2:
        return stdtrit(df, 0.5 + confidence_level / 2)
    distinct, where = np.unique(np.asarray(df, dtype=float), return_inverse=True)  # balanced: one df for all
    return studentized_range_isf(1.0 - confidence_level, n_means, distinct)[where.ravel()] / np.sqrt(2.0)
