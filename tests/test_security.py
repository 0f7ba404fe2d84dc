"""Escape and exhaustion attempts against the command line and the files rlstats reads (issue 27).

Each attempt asserts that nothing ran (a payload would create the marker file ``pwned``), that nothing was
written outside the output path (a listing of the folder before and after), and that it ended within seconds of
CPU time (not wall-clock time, which a busy machine stretches: issue 42 item 4).
Attempts that hung or exhausted memory before the fixes run in one child process with a memory cap and a CPU-time
cap (:func:`guarded`), so that a regression fails its test instead of hanging the suite or the machine.
"""

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

import rlstats
from conftest import HANG_SECONDS
from rlstats.errors import RlstatsError
from test_bad_inputs import BATCH, CURVES_FORMULA, F, TINY, _cli, _edited, _listing, _one_run_logged_late, _write

MARKER = "pwned"
#: The most CPU time an attempt may use, in seconds (each uses well under 0.5 s); CPU seconds, because a loaded
#: machine stretches the wall-clock time of a quick refusal but not the work it does.
SECONDS = 5
#: The guarded child's CPU-time cap (RLIMIT_CPU), in seconds: its start (importing rlstats, about 3 s) and every
#: attempt's SECONDS fit well below it; an attempt stuck in C, where no signal handler runs, is killed by it.
CHILD_CPU_SECONDS = 120
#: The guarded child's wall-clock bound, in seconds: only a last resort against an attempt that waits without
#: computing (the CPU cap cannot see it). Generous on purpose: 2 cores shared by 8 test runs stretched the
#: child's start and attempts (about 10 s of wall time when alone) past the former 20 s.
CHILD_WALL_SECONDS = HANG_SECONDS


@pytest.fixture
def sandbox(tmp_path, monkeypatch):
    """A folder holding the runs, a batch and an AdaStop state, made the working folder (relative paths stay in)."""
    monkeypatch.chdir(tmp_path)
    TINY.to_csv(tmp_path / "runs.csv", index=False)
    BATCH.to_csv(tmp_path / "batch.csv", index=False)
    state = rlstats.AdaStop(["a", "b"], n=3, K=2, n_resamples=200, rng=0)
    state.update(BATCH)
    state.save(tmp_path / "state.json")
    for agent in ("dqn", "ppo"):
        _write(tmp_path / "logs" / agent / "hopper" / "seed_0" / "progress.csv", "step,eval/return\n0,1.0\n10,2.0\n")
    return tmp_path


def attempt(folder, argv, phrase, written=None):
    """Run ``rlstats ARGV`` in-process in ``folder`` (``{m}`` in ARGV is the marker's path) and check it: ended
    within :data:`SECONDS`, the marker absent, ``phrase`` on stderr; exit status 2 with nothing on stdout and no
    file changed, or, when ``written`` lists the files it may create, exit status 0 with exactly those new."""
    before = _listing(folder)
    start = time.process_time()
    done = _cli(*[str(a).replace("{m}", str(folder / MARKER)) for a in argv])
    assert time.process_time() - start < SECONDS, "the refusal took more than its CPU seconds"
    assert not (folder / MARKER).exists() and not Path(MARKER).exists(), "the payload ran"
    assert "Traceback" not in done.stderr and phrase in done.stderr, done.stderr
    after = _listing(folder)
    if written is None:
        assert done.returncode == 2 and done.stdout == "" and done.stderr.startswith("rlstats: error: "), done
        assert after == before
    else:
        assert done.returncode == 0, done.stderr
        assert set(before) <= set(after) and sorted(name for name, _ in set(after) - set(before)) == sorted(written)
    return done


# ----------------------------------------------------------------------------- code in subset= conditions

SUBSETS = [  # (what, condition, phrase)
    ("pandas' @ reaching os", "(@pd.io.common.os.system('touch {m}') == 0) | (seed >= 0)", "it does not parse"),
    ("__import__", "__import__('os').system('touch {m}') == 0", "it uses calls"),
    ("class hierarchy", "().__class__.__bases__[0].__subclasses__() == 1", "which a condition cannot"),
    ("attribute of a column", "seed.__class__.__init__.__globals__ == 1", "it uses attributes ('.__globals__')"),
    ("lambda", "(lambda: __import__('os').system('touch {m}'))() == 0", "it uses calls"),
    ("@ local", "@__builtins__ == 1", "it does not parse"),
    ("back-quoted code", "`__import__('os').system('touch {m}')` == 1", "which the data do not have"),
    ("import", "import os", "it does not parse"),
    ("f-string", "f'{__import__(\"os\").system(\"touch {m}\")}' == '0'", "it uses joinedstr expressions"),
    ("eval", "eval(\"__import__('os').system('touch {m}')\") == 0", "it uses calls"),
    ("open", "open('{m}', 'w') == 1", "it uses calls"),
    ("in an environment", "seed in __import__('os').environ", "'in' followed by anything but a list"),
]


@pytest.mark.parametrize("method", [None, "bootstrap"], ids=["default method", "bootstrap"])
@pytest.mark.parametrize("condition, phrase", [c[1:] for c in SUBSETS], ids=[c[0] for c in SUBSETS])
def test_subset_runs_no_code(sandbox, method, condition, phrase):
    argv = ["compare", "runs.csv", F, "-o", f"subset={condition}"] + (["--method", method] if method else [])
    attempt(sandbox, argv, phrase)


def test_allow_python_does_not_open_subset(sandbox):
    attempt(sandbox, ["compare", "runs.csv", F, "--allow-python", "-o",
                      "subset=(@pd.io.common.os.system('touch {m}') == 0) | (seed >= 0)"], "it does not parse")


# ----------------------------------------------------------------------------- code in formulas and option values

FORMULAS = [  # (what, formula, phrase)
    ("__import__", "__import__('os').system('touch {m}') ~ agent | task", "pass --allow-python"),
    ("class hierarchy", "().__class__.__bases__[0].__subclasses__() ~ agent | task", "pass --allow-python"),
    ("numpy's os", "np.os.system('touch {m}') ~ agent | task", "pass --allow-python"),
    ("open to write", "I(open('{m}', 'w')) ~ agent | task", "pass --allow-python"),
    ("open to read", "I(open('/etc/passwd')) ~ agent | task", "pass --allow-python"),
    ("lambda", "(lambda: __import__('os').system('touch {m}'))() ~ agent | task", "pass --allow-python"),
    ("walrus", "(x := score) ~ agent | task", "not namedexpr expressions"),
    ("comprehension", "[s for s in score] ~ agent | task", "not listcomp expressions"),
    ("attribute chain", "score.__class__.__mro__ ~ agent | task", "not attribute expressions"),
    ("getattr", "getattr(score, '__class__') ~ agent | task", "not calls of anything but"),
    ("exec", "exec('import os') ~ agent | task", "not calls of anything but"),
    ("a dunder name", "log(__import__) ~ agent | task", "not the name __import__"),
    ("back-quoted code", "`__import__('os').system('touch {m}')` ~ agent | task", "unknown name"),
]


@pytest.mark.parametrize("formula, phrase", [c[1:] for c in FORMULAS], ids=[c[0] for c in FORMULAS])
def test_a_formula_on_the_command_line_runs_no_code(sandbox, formula, phrase):
    attempt(sandbox, ["compare", "runs.csv", formula], phrase)


@pytest.mark.parametrize("extra, phrase", [([], "pass --allow-python"),
                                           (["-o", "eval_env=0"], "-o eval_env=... cannot be set as an option")],
                         ids=["as typed", "with -o eval_env=0"])
def test_a_pilot_formula_runs_no_code(sandbox, extra, phrase):
    attempt(sandbox, ["power", "skillings_mack", "--pilot", "runs.csv", "--formula",
                      "__import__('os').system('touch {m}') ~ agent | task", "--no-progress", *extra], phrase)


@pytest.mark.parametrize("option, phrase", [
    ("rng=__import__('os').system('touch {m}')", "-o rng=... cannot be set as an option; give it with --seed"),
    ("n_resamples=__import__('os').system('touch {m}')", "n_resamples must be a whole number"),
    ("pvalue=exec('import os')", "-o \"pvalue=exec('import os')\" is not one of the allowed values"),
    ("n_resamples=" + "[" * 100_000, "n_resamples must be a whole number"),
    ("n_resamples=" + "9" * 5000, "n_resamples must be a whole number"),
    ("n_resamples=10000000000000", "n_resamples=10000000000000 is more than 10,000,000 resamples, the most rlstats takes"),
    ("n_resamples=9**9**9**9", "n_resamples must be a whole number, got '9**9**9**9'"),
], ids=["rng as code", "a count as code", "a choice as code", "a value nested 100,000 deep", "a 5,000-digit count",
        "10**13 resamples", "a power tower"])
def test_an_option_value_is_a_literal_never_code(sandbox, option, phrase):
    attempt(sandbox, ["compare", "runs.csv", F, "-o", option], phrase)


@pytest.mark.parametrize("formula, phrase", [
    ("I(score + 1<<10**9) ~ agent | task", "not lshift expressions"),
    ("I(score * 9.0**9.0**9.0) ~ agent | task", "failed with OverflowError"),
    ("score ** 1e308 ~ agent | task", "non-finite values"),
    ("score ~ agent | task" + " " * 96_000, "the formula is 96,020 characters long"),
    ("+".join(["score"] * 2400) + " ~ agent | task", "more than the 5,000 a formula may have"),
    ("-" * 150 + "score ~ agent | task", "the response nests more than 100 levels deep"),
], ids=["a shift by 10**9", "a float power tower", "a power beyond float", "96,000 characters", "2,400 terms",
        "150 nested signs"])
def test_a_formula_cannot_ask_for_a_huge_computation(sandbox, formula, phrase):
    attempt(sandbox, ["compare", "runs.csv", formula], phrase)


@pytest.mark.parametrize("condition, phrase", [
    ("not " * 60 + "seed == 1", "it nests more than 50 levels deep"),
    ("(" * 300 + "seed == 1" + ")" * 300, "it does not parse"),
    (" | ".join(["seed == 1"] * 200), "more than the 2,000 a condition may have"),
    ("seed in [" + ",".join(["1"] * 1001) + "]", "more than the 2,000 a condition may have"),
    ("seed == 'a' * 10**9", "it uses arithmetic"),
], ids=["60 nots", "300 parentheses", "200 alternatives", "a list of 1,001", "a string of 10**9"])
def test_a_condition_cannot_ask_for_a_huge_computation(sandbox, condition, phrase):
    attempt(sandbox, ["compare", "runs.csv", F, "-o", f"subset={condition}"], phrase)


# ----------------------------------------------------------------------------- files: nothing overwritten


def test_read_logs_refuses_to_write_over_one_of_its_inputs(sandbox):
    target = sandbox / "logs" / "ppo" / "hopper" / "seed_0" / "progress.csv"
    content = target.read_bytes()
    attempt(sandbox, ["read-logs", "logs", "-o", target, "--no-progress"], "is one of the files read")
    assert target.read_bytes() == content


@pytest.mark.parametrize("argv, phrase", [
    (["compare", "runs.csv", F, "--plot", "link.png"], "is the input"),
    (["adastop", "plot", "state.json", "link.png"], "is the input"),
    (["power", "skillings_mack", "--pilot", "runs.csv", "--formula", F, "--plot", "link.png", "--no-progress"],
     "is the input"),
], ids=["compare --plot", "adastop plot", "power --plot"])
def test_an_output_that_is_a_symlink_to_the_input_is_refused(sandbox, argv, phrase):
    source = "state.json" if argv[0] == "adastop" else "runs.csv"
    (sandbox / "link.png").symlink_to(sandbox / source)
    content = (sandbox / source).read_bytes()
    attempt(sandbox, argv, phrase)
    assert (sandbox / source).read_bytes() == content


def test_read_logs_output_that_is_a_symlink_to_a_log_is_refused(sandbox):
    target = sandbox / "logs" / "dqn" / "hopper" / "seed_0" / "progress.csv"
    content = target.read_bytes()
    (sandbox / "link.csv").symlink_to(target)
    attempt(sandbox, ["read-logs", "logs", "-o", "link.csv", "--no-progress"], "is one of the files read")
    assert target.read_bytes() == content


def test_a_relative_path_that_climbs_stays_where_it_points(sandbox, monkeypatch):
    (sandbox / "a" / "b").mkdir(parents=True)
    monkeypatch.chdir(sandbox / "a" / "b")  # ../../ is the sandbox: the figure lands there and nowhere else
    attempt(sandbox, ["compare", "../../runs.csv", F, "--plot", "../../cd.png", "-o", "pvalue=asymptotic"],
            "figure written to ../../cd.png", written=["cd.png"])


@pytest.mark.parametrize("argv, phrase", [
    (["demo", "--out", "runs.csv"], "is a file, not a folder"),
    (["demo", "--out", "/proc/self/rlstats-demo"], "cannot write under /proc"),
    (["compare", "runs.csv", F, "--plot", "/proc/self/x.png"], "cannot write under /proc"),
    (["compare", "runs.csv", F, "--plot", "/sys/x.png"], "cannot write under /sys"),
    (["read-logs", "logs", "-o", "/dev/x.csv", "--no-progress"], "cannot write under /dev"),
    (["adastop", "update", "/proc/self/state.json", "batch.csv"], "cannot write under /proc"),
], ids=["demo over a file", "demo under /proc", "a figure under /proc", "a figure under /sys", "logs under /dev",
        "a state under /proc"])
def test_system_folders_are_never_written(sandbox, argv, phrase):
    attempt(sandbox, argv, phrase)


def test_a_state_without_its_digests_is_refused(sandbox):
    state = json.loads((sandbox / "state.json").read_text())
    del state["digests"]
    state["batches"][0]["a"] = [9.0, 9.0, 9.0]  # the edit the digests would have caught
    (sandbox / "state.json").write_text(json.dumps(state))
    attempt(sandbox, ["adastop", "status", "state.json"], "the AdaStop state state.json has no \"digests\"")
    attempt(sandbox, ["adastop", "update", "state.json", "batch.csv"], "the AdaStop state state.json has no \"digests\"")


# ----------------------------------------------------------------------------- exhaustion: in a guarded child process


def _tower(folder):
    return _cli("compare", folder / "runs.csv", "I(score + 9**9**9**9) ~ agent | task")


def _adjacent_fields(folder):
    return rlstats.read_logs(folder / "names40", "".join("{f%d}" % i for i in range(10)), progress=False)


def _six_fields_on_200_characters(folder):
    return rlstats.read_logs(folder / "names200", "{agent}_{task}_{seed}_{a}_{b}_{c}x", progress=False)


def _align_late(folder):
    return rlstats.align_steps(_one_run_logged_late(), CURVES_FORMULA, step="step")


def _curves_late(folder):
    return rlstats.curves(_one_run_logged_late(), CURVES_FORMULA, step="step", n_resamples=200)


def _from_state(**edits):
    return lambda folder: rlstats.AdaStop.from_state(_edited(**edits))


def _status_of_a_state_with_K_1e9(folder):
    (folder / "hugeK.json").write_text(json.dumps(_edited(options__K=10**9)))
    return _cli("adastop", "status", folder / "hugeK.json")


def _power_10_9_seeds(folder):
    return rlstats.power("skillings_mack", effect=0.5, seeds=[10**9], n_sim=4, progress=False)


def _sample_size_10_9(folder):
    return rlstats.sample_size("skillings_mack", 0.8, effect=1.0, max_seeds=10**9, n_sim=4, progress=False)


def _nested_json_log(folder):
    return rlstats.read_logs(folder / "nested", None, progress=False)


def _simulate_10_9(folder):
    return rlstats.datasets.simulate(seeds=10**9)


def _held_lock(folder):
    from rlstats.methods.adastop import state_lock

    with state_lock(folder / "locked.json"):  # another holder, through another open file description
        return _cli("adastop", "update", folder / "locked.json", folder / "batch.csv", "--lock-timeout", "0.5")


def _n_resamples_of_a_permutation_test(folder):
    return rlstats.permutation(TINY[TINY["task"] == "task_01"], "score ~ agent", n_resamples=10**13)


#: name -> (attempt on the prepared folder, what it must end as: an error class or an exit status 2, a phrase)
GUARDED = {
    "integer power tower": (_tower, 2, "failed with OverflowError"),
    "10 adjacent pattern fields on a 40-character name": (_adjacent_fields, "OptionError",
                                                          "puts {f1} right after {f0}"),
    "6 pattern fields on a 200-character name": (_six_fields_on_200_characters, "LogReadError",
                                                 "does not match the pattern"),  # its one file (msg32: singular)
    "align_steps with a run logged at step 1e9": (_align_late, "DesignError", "more than the 100,000 a grid"),
    "curves with a run logged at step 1e9": (_curves_late, "DesignError", "more than the 100,000 a grid"),
    "AdaStop state with n_resamples 1e12": (_from_state(options__n_resamples=10**12), "DesignError",
                                            "n_resamples=1000000000000 is more than"),
    "AdaStop state with K 1e9": (_from_state(options__K=10**9), "DesignError", "K=1000000000 is more than"),
    "AdaStop state with n 1e9": (_from_state(options__n=10**9), "DesignError", "n=1000000000 is more than"),
    "adastop status of a state with K 1e9": (_status_of_a_state_with_K_1e9, 2, "K=1000000000 is more than"),
    "power with 1e9 seeds": (_power_10_9_seeds, "OptionError", "seeds=1000000000 is more than"),
    "sample_size up to 1e9 seeds": (_sample_size_10_9, "OptionError", "max_seeds=1000000000 is more than"),
    "JSON-lines log nested 100,000 deep": (_nested_json_log, "LogReadError", "nests JSON 100,000 levels deep"),
    "simulate 1e9 seeds": (_simulate_10_9, "OptionError", "1,000,000,000 seeds"),
    "state lock held by another": (_held_lock, 2, "was not released within 0.5 s"),
    "permutation test with 1e13 resamples": (_n_resamples_of_a_permutation_test, "OptionError", "n_resamples="),
}


class _TooLong(Exception):
    pass


def _alarm(signum, frame):
    import signal

    if signum == signal.SIGPROF:
        raise _TooLong(f"still running after {SECONDS} s of CPU time")
    raise _TooLong(f"still waiting after {CHILD_WALL_SECONDS} s (wall clock) without using its CPU seconds")


def _run_guarded(folder, names):
    """In the child: run each attempt, printing one JSON line per attempt as soon as it ends.

    An attempt that uses more than :data:`SECONDS` of CPU time (the profiling timer, which counts the process's
    CPU time, not the wall clock) is interrupted where Python can interrupt it; one stuck in C (an integer power
    folded at compile time) is ended by the child's CPU-time cap (:data:`CHILD_CPU_SECONDS`) instead.
    """
    import signal

    signal.signal(signal.SIGPROF, _alarm)
    signal.signal(signal.SIGALRM, _alarm)
    for name in names:
        start = time.process_time()
        signal.setitimer(signal.ITIMER_PROF, SECONDS)
        signal.alarm(CHILD_WALL_SECONDS)
        try:
            value = GUARDED[name][0](folder)
            outcome = {"status": value.returncode, "message": value.stderr} if hasattr(value, "returncode") else \
                {"status": "returned", "message": repr(value)[:300]}
        except RlstatsError as exc:
            outcome = {"status": type(exc).__name__, "message": str(exc)}
        except BaseException as exc:  # noqa: BLE001 - whatever it was, the parent reports it
            outcome = {"status": f"not an rlstats error: {type(exc).__name__}", "message": str(exc)[:300]}
        finally:
            signal.setitimer(signal.ITIMER_PROF, 0)
            signal.alarm(0)
        print(json.dumps({"name": name, "seconds": time.process_time() - start, **outcome}), flush=True)


def _limit_memory_and_cpu():
    import resource

    cap = 4 << 30  # 4 GiB of address space: what these attempts asked for before the fixes is far more
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    # SIGXCPU (which ends the process) at the soft limit, SIGKILL at the hard one
    resource.setrlimit(resource.RLIMIT_CPU, (CHILD_CPU_SECONDS, CHILD_CPU_SECONDS + 10))


@pytest.fixture(scope="module")
def guarded(tmp_path_factory):
    """Every GUARDED attempt, run once in a child process with a memory cap and a CPU-time cap.

    Returns (folder, listing before, {name: outcome}, the child's stderr); an attempt that hung, or came after
    one that hung, or was killed, has no outcome.
    """
    folder = tmp_path_factory.mktemp("guarded")
    BATCH.to_csv(folder / "batch.csv", index=False)
    TINY.to_csv(folder / "runs.csv", index=False)
    _write(folder / "names40" / ("a" * 40) / "progress.csv", "step,eval/return\n0,1.0\n1,2.0\n")
    _write(folder / "names200" / "_".join(["b"] * 100) / "progress.csv", "step,eval/return\n0,1.0\n1,2.0\n")
    _write(folder / "nested" / "log.jsonl", '{"a": ' * 100_000 + "1" + "}" * 100_000 + "\n")
    before = _listing(folder)
    script = (f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); from pathlib import Path; "
              f"import test_security; test_security._run_guarded(Path({str(folder)!r}), {list(GUARDED)!r})")
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, cwd=folder, preexec_fn=_limit_memory_and_cpu)
    try:
        out, err = child.communicate(timeout=CHILD_WALL_SECONDS)
    except subprocess.TimeoutExpired:
        child.kill()
        out, err = child.communicate()
        err += f"\n(killed after {CHILD_WALL_SECONDS} s of wall-clock time)"
    if child.returncode < 0:  # -SIGXCPU: the CPU-time cap; -SIGKILL: the hard CPU cap, the memory cap or us
        err += f"\n(the child ended by signal {-child.returncode}; CPU cap {CHILD_CPU_SECONDS} s, memory cap 4 GiB)"
    outcomes = {}
    for line in out.splitlines():
        if line.startswith("{"):
            record = json.loads(line)
            outcomes[record.pop("name")] = record
    return folder, before, outcomes, err


@pytest.mark.parametrize("name", GUARDED)
def test_an_exhaustion_attempt_ends_at_once_with_a_clear_error(guarded, name):
    folder, before, outcomes, err = guarded
    assert name in outcomes, f"the attempt (or one before it) hung, or was killed: {err[-2000:]}"
    outcome, (_, status, phrase) = outcomes[name], GUARDED[name]
    assert outcome["status"] == status and phrase in outcome["message"], outcome
    assert outcome["seconds"] < SECONDS, f"{outcome['seconds']:.2f} CPU seconds"
    assert not (folder / MARKER).exists()
    allowed = {"hugeK.json", "locked.json.lock"}  # what the attempts themselves write
    assert [entry for entry in _listing(folder) if entry[0] not in allowed] == before
