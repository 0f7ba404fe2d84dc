"""BibTeX for what a result used: the method's papers, the package, and the data source.

``rlstats.cite(res)`` (or ``res.cite()``) returns the entries as one string, ready for a ``.bib``
file; ``data="atari100k"`` adds the source of a dataset loaded with :func:`rlstats.datasets.load`.
"""

from __future__ import annotations

from typing import Any, Sequence

from ._version import __version__
from .errors import OptionError, shown
from .options import keywords_checked
from .methods import citations_of

ENTRIES = {
    "rlstats": """@software{rlstats,
  title = {rlstats: R-style formula statistics for reinforcement-learning evaluation},
  version = {%(version)s},
  year = {2026},
  note = {Python package}
}""",
    "friedman1937": """@article{friedman1937,
  author = {Friedman, Milton},
  title = {The use of ranks to avoid the assumption of normality implicit in the analysis of variance},
  journal = {Journal of the American Statistical Association},
  volume = {32}, number = {200}, pages = {675--701}, year = {1937}
}""",
    "skillings1981": """@article{skillings1981,
  author = {Skillings, John H. and Mack, Gregory A.},
  title = {On the use of a {Friedman}-type statistic in balanced and unbalanced block designs},
  journal = {Technometrics}, volume = {23}, number = {2}, pages = {171--177}, year = {1981}
}""",
    "mack1980": """@article{mack1980,
  author = {Mack, Gregory A. and Skillings, John H.},
  title = {A {Friedman}-type rank test for main effects in a two-factor {ANOVA}},
  journal = {Journal of the American Statistical Association},
  volume = {75}, number = {372}, pages = {947--951}, year = {1980}
}""",
    "casesa2024": """@phdthesis{casesa2024,
  author = {Casesa, R.},
  title = {Statistical Methods for Reinforcement Learning Policy Comparison},
  school = {Universit\\`a degli Studi di Brescia}, year = {2024}
}""",
    "quade1979": """@article{quade1979,
  author = {Quade, Dana},
  title = {Using weighted rankings in the analysis of complete blocks with additive block effects},
  journal = {Journal of the American Statistical Association},
  volume = {74}, number = {367}, pages = {680--683}, year = {1979}
}""",
    "conover1999": """@book{conover1999,
  author = {Conover, W. J.},
  title = {Practical Nonparametric Statistics},
  edition = {3}, publisher = {Wiley}, year = {1999}
}""",
    "eisinga2017": """@article{eisinga2017,
  author = {Eisinga, Rob and Heskes, Tom and Pelzer, Ben and Te Grotenhuis, Manfred},
  title = {Exact p-values for pairwise comparison of {Friedman} rank sums, with application to comparing classifiers},
  journal = {BMC Bioinformatics}, volume = {18}, pages = {68}, year = {2017}
}""",
    "demsar2006": """@article{demsar2006,
  author = {Dem{\\v{s}}ar, Janez},
  title = {Statistical comparisons of classifiers over multiple data sets},
  journal = {Journal of Machine Learning Research}, volume = {7}, pages = {1--30}, year = {2006}
}""",
    "kerby2014": """@article{kerby2014,
  author = {Kerby, Dave S.},
  title = {The simple difference formula: an approach to teaching nonparametric correlation},
  journal = {Comprehensive Psychology}, volume = {3}, pages = {11.IT.3.1}, year = {2014}
}""",
    "agarwal2021": """@inproceedings{agarwal2021,
  author = {Agarwal, Rishabh and Schwarzer, Max and Castro, Pablo Samuel and Courville, Aaron and Bellemare, Marc G.},
  title = {Deep reinforcement learning at the edge of the statistical precipice},
  booktitle = {Advances in Neural Information Processing Systems}, volume = {34}, year = {2021}
}""",
    "efron1987": """@article{efron1987,
  author = {Efron, Bradley},
  title = {Better bootstrap confidence intervals},
  journal = {Journal of the American Statistical Association},
  volume = {82}, number = {397}, pages = {171--185}, year = {1987}
}""",
    "hall1992": """@article{hall1992,
  author = {Hall, Peter},
  title = {On the removal of skewness by transformation},
  journal = {Journal of the Royal Statistical Society: Series B (Methodological)},
  volume = {54}, number = {1}, pages = {221--228}, year = {1992}
}""",
    "mathieu2023": """@article{mathieu2023,
  author = {Mathieu, Timoth{\\'e}e and Della Vecchia, Riccardo and Shilova, Alena and Medeiros Centa, Matheus
            and Kohler, Hector and Maillard, Odalric-Ambrym and Preux, Philippe},
  title = {{AdaStop}: adaptive statistical testing for sound comparisons of deep {RL} agents},
  journal = {arXiv preprint arXiv:2306.10882}, year = {2023}
}""",
    "jordan2020": """@inproceedings{jordan2020,
  author = {Jordan, Scott M. and Chandak, Yash and Cohen, Daniel and Zhang, Mengxue and Thomas, Philip S.},
  title = {Evaluating the performance of reinforcement learning algorithms},
  booktitle = {International Conference on Machine Learning}, year = {2020}
}""",
    "komiyama2018": """@misc{komiyama2018,
  author = {Komiyama, Junpei and Maehara, Takanori},
  title = {A simple way to deal with cherry-picking}, year = {2018}, note = {Preprint}
}""",
    "westfall1993": """@book{westfall1993,
  author = {Westfall, Peter H. and Young, S. Stanley},
  title = {Resampling-Based Multiple Testing}, publisher = {Wiley}, year = {1993}
}""",
    "montielolea2019": """@article{montielolea2019,
  author = {Montiel Olea, Jos{\\'e} Luis and Plagborg-M{\\o}ller, Mikkel},
  title = {Simultaneous confidence bands: theory, implementation, and an application to {SVARs}},
  journal = {Journal of Applied Econometrics}, volume = {34}, number = {1}, pages = {1--17}, year = {2019}
}""",
    "hesterberg2015": """@article{hesterberg2015,
  author = {Hesterberg, Tim C.},
  title = {What teachers should know about the bootstrap},
  journal = {The American Statistician}, volume = {69}, number = {4}, pages = {371--386}, year = {2015}
}""",
    "vargha2000": """@article{vargha2000,
  author = {Vargha, Andr{\\'a}s and Delaney, Harold D.},
  title = {A critique and improvement of the {CL} common language effect size statistics of {McGraw} and {Wong}},
  journal = {Journal of Educational and Behavioral Statistics}, volume = {25}, number = {2}, pages = {101--132},
  year = {2000}
}""",
    "brunner2000": """@article{brunner2000,
  author = {Brunner, Edgar and Munzel, Ullrich},
  title = {The nonparametric {Behrens-Fisher} problem: asymptotic theory and a small-sample approximation},
  journal = {Biometrical Journal}, volume = {42}, number = {1}, pages = {17--25}, year = {2000}
}""",
    "mogstad2024": """@article{mogstad2024,
  author = {Mogstad, Magne and Romano, Joseph P. and Shaikh, Azeem M. and Wilhelm, Daniel},
  title = {Inference for ranks with applications to mobility across neighbourhoods and academic achievement
           across countries},
  journal = {The Review of Economic Studies}, volume = {91}, number = {1}, pages = {476--518}, year = {2024}
}""",
    "neubert2007": """@article{neubert2007,
  author = {Neubert, Karin and Brunner, Edgar},
  title = {A studentized permutation test for the non-parametric {Behrens-Fisher} problem},
  journal = {Computational Statistics \\& Data Analysis}, volume = {51}, number = {10}, pages = {5192--5204},
  year = {2007}
}""",
    "steiger1997": """@incollection{steiger1997,
  author = {Steiger, James H. and Fouladi, Rachel T.},
  title = {Noncentrality interval estimation and the evaluation of statistical models},
  booktitle = {What If There Were No Significance Tests?}, editor = {Harlow, Lisa L. and Mulaik, Stanley A. and
               Steiger, James H.}, publisher = {Lawrence Erlbaum}, pages = {221--257}, year = {1997}
}""",
    "holm1979": """@article{holm1979,
  author = {Holm, Sture},
  title = {A simple sequentially rejective multiple test procedure},
  journal = {Scandinavian Journal of Statistics}, volume = {6}, number = {2}, pages = {65--70}, year = {1979}
}""",
    "castro2018": """@article{castro2018,
  author = {Castro, Pablo Samuel and Moitra, Subhodeep and Gelada, Carles and Kumar, Saurabh and Bellemare, Marc G.},
  title = {Dopamine: a research framework for deep reinforcement learning},
  journal = {arXiv preprint arXiv:1812.06110}, year = {2018}
}""",
    "colas2019": """@misc{colas2019,
  author = {Colas, C{\\'e}dric and Sigaud, Olivier and Oudeyer, Pierre-Yves},
  title = {A hitchhiker's guide to statistical comparisons of reinforcement learning algorithms},
  year = {2019}, note = {arXiv:1904.06979}
}""",
    "dodge2019": """@inproceedings{dodge2019,
  author = {Dodge, Jesse and Gururangan, Suchin and Card, Dallas and Schwartz, Roy and Smith, Noah A.},
  title = {Show your work: improved reporting of experimental results},
  booktitle = {Proceedings of EMNLP-IJCNLP}, pages = {2185--2194}, year = {2019}
}""",
    "patterson2024": """@article{patterson2024,
  author = {Patterson, Andrew and Neumann, Samuel and White, Martha and White, Adam},
  title = {Empirical design in reinforcement learning},
  journal = {Journal of Machine Learning Research}, volume = {25}, number = {318}, pages = {1--63}, year = {2024}
}""",
    "adkins2024": """@inproceedings{adkins2024,
  author = {Adkins, Jacob and Bowling, Michael and White, Adam},
  title = {A method for evaluating hyperparameter sensitivity in reinforcement learning},
  booktitle = {Advances in Neural Information Processing Systems}, year = {2024}
}""",
    "dierkes2024": """@inproceedings{dierkes2024,
  author = {Dierkes, Julian and Cramer, Emma and Hoos, Holger H. and Trimpe, Sebastian},
  title = {Combining automated optimisation of hyperparameters and reward shape},
  booktitle = {Reinforcement Learning Conference}, year = {2024}
}""",
    "fu2020": """@article{fu2020,
  author = {Fu, Justin and Kumar, Aviral and Nachum, Ofir and Tucker, George and Levine, Sergey},
  title = {{D4RL}: Datasets for Deep Data-Driven Reinforcement Learning},
  journal = {arXiv preprint arXiv:2004.07219}, year = {2020}
}""",
    "cobbe2020": """@inproceedings{cobbe2020,
  author = {Cobbe, Karl and Hesse, Christopher and Hilton, Jacob and Schulman, John},
  title = {Leveraging Procedural Generation to Benchmark Reinforcement Learning},
  booktitle = {International Conference on Machine Learning}, year = {2020}
}""",
    "bates2015": """@article{bates2015,
  author = {Bates, Douglas and M{\\"a}chler, Martin and Bolker, Ben and Walker, Steve},
  title = {Fitting linear mixed-effects models using {lme4}},
  journal = {Journal of Statistical Software}, volume = {67}, number = {1}, pages = {1--48}, year = {2015}
}""",
    "kuznetsova2017": """@article{kuznetsova2017,
  author = {Kuznetsova, Alexandra and Brockhoff, Per B. and Christensen, Rune H. B.},
  title = {{lmerTest} package: tests in linear mixed effects models},
  journal = {Journal of Statistical Software}, volume = {82}, number = {13}, pages = {1--26}, year = {2017}
}""",
    "kenward1997": """@article{kenward1997,
  author = {Kenward, Michael G. and Roger, James H.},
  title = {Small sample inference for fixed effects from restricted maximum likelihood},
  journal = {Biometrics}, volume = {53}, number = {3}, pages = {983--997}, year = {1997}
}""",
    "satterthwaite1946": """@article{satterthwaite1946,
  author = {Satterthwaite, F. E.},
  title = {An approximate distribution of estimates of variance components},
  journal = {Biometrics Bulletin}, volume = {2}, number = {6}, pages = {110--114}, year = {1946}
}""",
    # issue 41 item 2: equivalence tests
    "schuirmann1987": """@article{schuirmann1987,
  author = {Schuirmann, Donald J.},
  title = {A comparison of the two one-sided tests procedure and the power approach for assessing the equivalence
           of average bioavailability},
  journal = {Journal of Pharmacokinetics and Biopharmaceutics}, volume = {15}, number = {6}, pages = {657--680},
  year = {1987}
}""",
    "berger1982": """@article{berger1982,
  author = {Berger, Roger L.},
  title = {Multiparameter hypothesis testing and acceptance sampling},
  journal = {Technometrics}, volume = {24}, number = {4}, pages = {295--300}, year = {1982}
}""",
    # issue 41 item 1: rlstats.bayes
    "benavoli2014": """@inproceedings{benavoli2014,
  author = {Benavoli, Alessio and Corani, Giorgio and Mangili, Francesca and Zaffalon, Marco and Ruggeri, Fabrizio},
  title = {A {Bayesian} {Wilcoxon} signed-rank test based on the {Dirichlet} process},
  booktitle = {Proceedings of the 31st International Conference on Machine Learning}, series = {PMLR},
  volume = {32}, number = {2}, pages = {1026--1034}, year = {2014}
}""",
    "benavoli2017": """@article{benavoli2017,
  author = {Benavoli, Alessio and Corani, Giorgio and Dem{\\v{s}}ar, Janez and Zaffalon, Marco},
  title = {Time for a change: a tutorial for comparing multiple classifiers through {Bayesian} analysis},
  journal = {Journal of Machine Learning Research}, volume = {18}, number = {77}, pages = {1--36}, year = {2017}
}""",
    "corani2017": """@article{corani2017,
  author = {Corani, Giorgio and Benavoli, Alessio and Dem{\\v{s}}ar, Janez and Mangili, Francesca and Zaffalon, Marco},
  title = {Statistical comparison of classifiers through {Bayesian} hierarchical modelling},
  journal = {Machine Learning}, volume = {106}, pages = {1817--1837}, year = {2017}
}""",
    "vehtari2021": """@article{vehtari2021,
  author = {Vehtari, Aki and Gelman, Andrew and Simpson, Daniel and Carpenter, Bob and B{\"u}rkner, Paul-Christian},
  title = {Rank-normalization, folding, and localization: an improved {R-hat} for assessing the convergence of {MCMC}},
  journal = {Bayesian Analysis}, volume = {16}, number = {2}, pages = {667--718}, year = {2021}
}""",
}

#: Results that are no back end's, and the papers of their method (a back end declares its own citations in
#: its folder's ``_backend.py``; :data:`rlstats.methods.CITATIONS` collects them).
OTHER_RESULTS = {"PowerResult": ()}

#: Dataset name (rlstats.datasets.load) -> the papers its scores come from.
DATA_ENTRIES = {
    "atari100k": ("agarwal2021",),
    "atari100k_reference": ("agarwal2021",),
    "atari_reference": ("agarwal2021",),
    "dopamine_atari": ("castro2018",),
    "spinningup_halfcheetah": ("colas2019",),
    "halfcheetah_sac_td3": ("colas2019",),
    "mujoco_adastop": ("mathieu2023",),
    "hpo_landscapes": ("dierkes2024",),
    "hpo_optimisation": ("dierkes2024",),
    "d4rl_reference": ("fu2020",),
    "procgen_easy_reference": ("cobbe2020",),
    "procgen_hard_reference": ("cobbe2020",),
}


@keywords_checked  # a keyword it does not take: an OptionError naming it, not Python's TypeError
def cite(result: Any = None, *, data: str | Sequence[str] | None = None) -> str:
    """BibTeX entries for a result's method, the package and (``data=``) a dataset.

    Parameters
    ----------
    result : Result, optional
        Any rlstats result; its method's papers come first. With None, only the package (and data).
    data : str or sequence of str, optional
        Names of datasets the analysis used, as given to :func:`rlstats.datasets.load`.

    Returns
    -------
    str
        The entries, separated by blank lines.

    See Also
    --------
    rlstats.compare : Results whose method this cites.

    Examples
    --------
    >>> import rlstats
    >>> print(rlstats.cite(data="atari100k").splitlines()[0])
    @inproceedings{agarwal2021,
    """
    keys: list[str] = []
    if result is not None:
        name = type(result).__name__
        method_keys = OTHER_RESULTS[name] if name in OTHER_RESULTS else citations_of(result)
        if method_keys is None:
            raise OptionError(f"no citation is known for {name}; cite the package: rlstats.cite()")
        keys += method_keys
    if data is not None and not isinstance(data, (str, list, tuple)):
        raise OptionError(f"data= names datasets, e.g. data='atari100k' or data=['atari100k'], got "
                          f"{type(data).__name__}: {shown(data)}")
    names = [data] if isinstance(data, str) else list(data or ())
    unknown = [n for n in names if not isinstance(n, str) or n not in DATA_ENTRIES]
    if unknown:
        raise OptionError(f"data={unknown[0]!r} is not a dataset rlstats knows; known: {', '.join(sorted(DATA_ENTRIES))}")
    for n in names:
        keys += DATA_ENTRIES[n]
    keys.append("rlstats")
    seen = list(dict.fromkeys(keys))
    return "\n\n".join(ENTRIES[k] % {"version": __version__} if k == "rlstats" else ENTRIES[k] for k in seen) + "\n"
