"""An independent reference chain for rlstats.bayes's hierarchical model (issue 41 item 1): the same model written in
numpyro and fitted by NUTS, with the Student t sampled as it is (no scale mixture, no Gibbs step shared with
rlstats.methods.bayes._kernels).  Test-only: numpyro and jax are not requirements of the package.

    python tests/reference/bayes_reference.py     # prints the reference's summaries of the designs of tests/test_bayes.py

The data are the run-level differences of one pair, x[i, j] (task i, run j), divided as rlstats divides them by the
mean over tasks of their standard deviation; the priors are Corani et al. (2017)'s with baycomp's values.
"""

import numpy as np


def reference_draws(x, *, chains=4, warmup=2000, draws=5000, seed=0):
    """NUTS draws of delta0, sigma0, nu and delta (tasks) for differences ``x`` (tasks, runs), in x's units."""
    import jax
    import numpyro
    import numpyro.distributions as dist
    from numpyro.infer import MCMC, NUTS

    jax.config.update("jax_enable_x64", True)
    scale = np.mean(np.std(x, axis=1))
    z = x / scale
    q = z.shape[0]
    delta_high = float(np.max(np.abs(z)))
    sigma0_high = 1000 * float(np.std(z.mean(axis=1)))

    def model(z):
        delta0 = numpyro.sample("delta0", dist.Uniform(-delta_high, delta_high))
        sigma0 = numpyro.sample("sigma0", dist.Uniform(0.0, sigma0_high))
        alpha = numpyro.sample("alpha", dist.Uniform(1.0, 2.0))
        beta = numpyro.sample("beta", dist.Uniform(0.01, 0.1))
        m = numpyro.sample("m", dist.Gamma(alpha, beta))       # nu - 1, shape and rate
        with numpyro.plate("tasks", q):
            sigma = numpyro.sample("sigma", dist.Uniform(0.0, 1000.0))
            delta = numpyro.sample("delta", dist.StudentT(1.0 + m, delta0, sigma0))
            with numpyro.plate("runs", z.shape[1], dim=-2):
                numpyro.sample("z", dist.Normal(delta, sigma), obs=z.T)

    mcmc = MCMC(NUTS(model, target_accept_prob=0.95), num_warmup=warmup, num_samples=draws, num_chains=chains,
                chain_method="sequential", progress_bar=False)
    mcmc.run(jax.random.PRNGKey(seed), z)
    s = mcmc.get_samples(group_by_chain=True)
    return {"delta0": np.asarray(s["delta0"]) * scale, "sigma0": np.asarray(s["sigma0"]) * scale,
            "nu": 1.0 + np.asarray(s["m"]), "delta": np.asarray(s["delta"]) * scale}


if __name__ == "__main__":
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from rlstats.methods.bayes import _kernels

    rng = np.random.default_rng(0)
    x = rng.normal(0.2, 1.0, size=(6, 5)) + rng.standard_t(3, size=(6, 1)) * 0.3
    out = reference_draws(x)
    for name in ("delta0", "sigma0", "nu"):
        print(name, out[name].mean(), float(_kernels.diagnose(out[name])[0]), float(_kernels.ess_bulk(out[name])))
