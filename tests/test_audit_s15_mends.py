"""Session 15's small mends noted by session 14: the command line's AdaStop advice in its own spelling, read-logs'
words for one file, curves' notes when every band is withheld, rlstats.concat of polars and pyarrow frames, and
the record of a caller's numpy Generator."""

import io

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.errors import LogReadError


def run_cli(*argv):
    from rlstats.cli import main

    out = io.StringIO()
    return main(list(argv), out=out), out.getvalue()


# --------------------------------------------------------------------------- 1. AdaStop's advice on the command line

def test_power_command_gives_adastop_advice_in_its_own_spelling(capsys):
    """``rlstats power adastop --seeds 3`` said "pass K= (interims) or n= (runs per interim) to AdaStop, e.g.
    adastop={'K': 2}": a Python dict the command line cannot take as written, and K=2 does not divide 3 seeds
    either."""
    status, _ = run_cli("power", "adastop", "--effect", "0.5", "--seeds", "3", "--n-sim", "4", "--seed", "0",
                        "--no-progress")
    error = capsys.readouterr().err
    assert status == 2
    assert "adastop={" not in error and "K=2" not in error, error
    assert "-o K= (interims) or -o n= (runs per interim)" in error and "e.g. -o K=3" in error, error
    status, _ = run_cli("power", "adastop", "--effect", "0.5", "--seeds", "6", "--n-sim", "4", "-o", "n=3",
                        "-o", "K=2", "--no-progress")
    error = capsys.readouterr().err
    assert status == 2 and "give AdaStop either -o n= (runs per interim) or -o K= (interims)" in error, error


def test_power_gives_adastop_advice_in_python():
    """The same advice from Python said "e.g. adastop={'K': 2}" for 3 seeds, which K=2 does not divide; it now names a
    K that does."""
    from rlstats.errors import OptionError

    with pytest.raises(OptionError, match=r"pass K= \(interims\) or n= \(runs per interim\).*e\.g\. K=3"):
        rlstats.power("adastop", effect=0.5, seeds=[3], n_sim=4, rng=0, progress=False)


@pytest.mark.parametrize("flags, said", [
    (["--K", "0"], "error: --K must be at least 1, got 0"),
    (["--seed", "-1"], "error: --seed must be a non-negative int, got -1"),
    (["--reference", "zz"], "error: --reference zz is not an agent; the agents are: 'a', 'b'"),
    (["--K", "100000"], "error: --K 100000 is more than 1,000 interims"),
])
def test_adastop_update_errors_name_its_flags(tmp_path, capsys, flags, said):
    """``rlstats adastop update`` printed "K must be at least 1", "rng must be a non-negative int",
    "reference='zz' is not an agent" and "K=100000 is more than 1,000 interims": the Python keywords of options
    the command sets with --K, --seed and --reference."""
    batch = tmp_path / "b.csv"
    batch.write_text("agent,score\na,1\na,2\nb,3\nb,4\n")
    status, _ = run_cli("adastop", "update", str(tmp_path / "s.json"), str(batch), *flags)
    error = capsys.readouterr().err
    assert status == 2 and said in error, error


def test_command_words_spell_a_keyword_named_without_a_value():
    """A hint naming a keyword without a value ("pass n= a divisor", "K= (interims)") was left in Python's spelling;
    upper-case keywords (AdaStop's K) were never rewritten. Names the command does not set stay as they are."""
    from rlstats.cli._shared import in_command_words

    assert (in_command_words("pass n= a divisor, or K= (interims); ax= is left, and K=3 too", {"K": "--K"}, {"n"})
            == "pass -o n= a divisor, or --K (interims); ax= is left, and --K 3 too")
    assert in_command_words("K must be at least 1", {"K": "--K"}, ()) == "--K must be at least 1"


# --------------------------------------------------------------------------- 2. read-logs of one file

@pytest.fixture
def one_csv(tmp_path):
    folder = tmp_path / "logs"
    folder.mkdir()
    (folder / "run.csv").write_text("step,score\n0,1\n10,2\n20,3\n")
    (folder / "empty.csv").write_text("step,score\n")
    return folder


def test_read_logs_of_one_file_speaks_of_the_file(one_csv, capsys):
    """Given one file, read_logs said "1 of 1 CSV files under <its folder> could not be used", "none of the 1 CSV
    files under <the file> matches the pattern" and, in frame.attrs['read_log'], "1 CSV files under <its folder>":
    no folder was read, one file was. The command's summary said "3 rows of 1 runs"."""
    empty, run = one_csv / "empty.csv", one_csv / "run.csv"
    with pytest.raises(LogReadError) as caught:
        rlstats.read_logs(empty, progress=False)
    assert str(caught.value).startswith(f"the CSV file {empty} could not be used (no run could be read)"), caught.value
    with pytest.raises(LogReadError) as caught:
        rlstats.read_logs(run, "{agent}/{task}/seed_{seed}", progress=False)
    assert str(caught.value).startswith(f"the CSV file {run} does not match the pattern "
                                        "'{agent}/{task}/seed_{seed}'"), caught.value
    frame = rlstats.read_logs(run, progress=False)
    assert str(frame.attrs["read_log"]) == f"read_logs: the CSV file {run}, 0 with problems", frame.attrs["read_log"]
    status, _ = run_cli("read-logs", str(empty), "-o", str(one_csv.parent / "out.csv"), "--no-progress")
    error = capsys.readouterr().err
    assert status == 2 and f"the CSV file {empty} could not be used" in error and "files under" not in error, error
    status, text = run_cli("read-logs", str(run), "-o", str(one_csv.parent / "out.csv"), "--no-progress")
    assert status == 0 and text.startswith(f"3 rows of 1 run written to {one_csv.parent / 'out.csv'}\n"), text


# --------------------------------------------------------------------------- 3. curves with every band withheld

def test_curves_notes_only_what_is_shown_when_every_band_is_withheld():
    """With 2 runs per task every band is withheld, yet the printed result noted that bootstrap deviations were
    widened by sqrt(n/(n - 1)), that the bands use t quantiles at df = 1, and how each band is the hull of two:
    sentences about bands not shown. The note saying why they are withheld stays."""
    data = rlstats.datasets.simulate_curves(agents=2, tasks=3, seeds=2, steps=6, effect=0.3, rng=1)
    result = rlstats.curves(data, "score ~ agent | task/seed", step="step", rng=0, n_resamples=200,
                            normalize=False, progress=False)
    assert np.isnan(result.pointwise).all() and np.isnan(result.simultaneous).all()
    text = " ".join(result.notes)
    assert "withheld" in text
    for shown in ("widened by sqrt", "t quantiles", "hull of a studentised", "coverage of the"):
        assert shown not in text, (shown, result.notes)


# --------------------------------------------------------------------------- 4. concat of polars and pyarrow frames

@pytest.mark.parametrize("library", ["polars", "pyarrow"])
def test_concat_takes_polars_and_pyarrow_frames(library):
    """rlstats.concat refused a polars DataFrame or pyarrow Table ("convert it first"), while every other function
    taking a pandas frame takes them. Now the stacked frame is the one pandas input gives, with the conversion in its
    notes."""
    pytest.importorskip(library)
    a = rlstats.datasets.simulate(agents=2, tasks=2, seeds=2, rng=0)
    b = rlstats.datasets.simulate(agents=2, tasks=2, seeds=2, rng=1)
    a["agent"], b["agent"] = a["agent"].astype(str), "new " + b["agent"].astype(str)
    a["task"], b["task"] = a["task"].astype(str), b["task"].astype(str)
    if library == "polars":
        import polars as pl

        other = pl.from_pandas(b)
    else:
        import pyarrow as pa

        other = pa.Table.from_pandas(b, preserve_index=False)
    expected = rlstats.concat([a, b], ignore_index=True)
    both = rlstats.concat([a, other], ignore_index=True)
    pd.testing.assert_frame_equal(both, expected)
    notes = both.attrs.get("rlstats_notes", [])
    assert any(f"converted from a {library}" in n and "(8 rows)" in n for n in notes), notes


# --------------------------------------------------------------------------- 5. the record of a caller's Generator

def test_a_generator_is_recorded_by_the_seed_it_drew():
    """rng=np.random.default_rng(0) was recorded as seed 'Generator': the run could not be repeated from its
    record. The run's streams are a pure function of one number the Generator draws, so that number is the record:
    rng=record gives the same numbers, and the caller's Generator still advances (one draw)."""
    data = rlstats.datasets.simulate(agents=2, tasks=2, seeds=4, rng=0)
    generator = np.random.default_rng(0)
    first = rlstats.bootstrap(data, "score ~ agent | task/seed", n_resamples=50, rng=generator, progress=False)
    drawn = np.random.default_rng(0).integers(2**63)
    assert first.seed == int(drawn) and isinstance(first.seed, int)
    assert generator.integers(2**63) == np.random.default_rng(0).integers(2**63, size=2)[1]  # advanced by one draw
    again = rlstats.bootstrap(data, "score ~ agent | task/seed", n_resamples=50, rng=first.seed, progress=False)
    np.testing.assert_array_equal(first.bootstrap_distribution, again.bootstrap_distribution)
    assert again.seed == first.seed
