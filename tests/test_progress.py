"""rlstats.progress: a bar only where someone sees it (a terminal, a notebook with ipywidgets), never a warning."""

import io
import sys
import types
import warnings

import pytest

from rlstats.progress import bar_class, progress_bar


class Terminal(io.StringIO):
    def isatty(self):
        return True


def drawn(monkeypatch, stream, enabled=True):
    """What a bar of three steps writes to ``stream`` (as sys.stderr), with every warning an error."""
    monkeypatch.setattr(sys, "stderr", stream)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with progress_bar(3, enabled, "reading logs") as advance:
            for _ in range(3):
                advance(1)
    return stream.getvalue()


def test_a_terminal_gets_tqdms_text_bar_and_progress_false_nothing(monkeypatch):
    assert "reading logs:   0%" in drawn(monkeypatch, Terminal())
    assert drawn(monkeypatch, Terminal(), enabled=False) == ""


def test_no_terminal_no_bar(monkeypatch):
    assert drawn(monkeypatch, io.StringIO()) == ""  # a pipe, a log file, CI
    monkeypatch.setattr(sys, "stderr", None)  # pythonw: no stream at all
    assert bar_class() is None


def test_a_notebook_without_ipywidgets_gets_no_bar_and_no_warning(monkeypatch):
    from tqdm import notebook

    monkeypatch.setitem(sys.modules, "ipykernel.zmqshell", types.ModuleType("ipykernel.zmqshell"))
    monkeypatch.setattr(notebook, "IProgress", None)  # what tqdm.notebook sets when ipywidgets is missing
    assert bar_class() is None
    assert drawn(monkeypatch, Terminal()) == ""  # even where the kernel's stderr would claim a terminal


def test_a_notebook_with_ipywidgets_gets_tqdms_widget(monkeypatch):
    from tqdm import notebook

    monkeypatch.setitem(sys.modules, "ipykernel.zmqshell", types.ModuleType("ipykernel.zmqshell"))
    monkeypatch.setattr(notebook, "IProgress", object)
    assert bar_class() is notebook.tqdm
    monkeypatch.setenv("QT_API", "pyqt5")  # the Qt console shows no widgets
    assert bar_class() is None


def test_read_logs_draws_on_a_terminal_only_and_never_on_stdout(monkeypatch, capsys, tmp_path):
    tensorboardX = pytest.importorskip("tensorboardX")
    import rlstats

    for seed in (1, 2):
        with tensorboardX.SummaryWriter(str(tmp_path / "a" / "t" / str(seed))) as writer:
            writer.add_scalar("eval/return", 1.0, 0)
    monkeypatch.setattr(sys, "stderr", Terminal())
    rlstats.read_logs(tmp_path, "{agent}/{task}/{seed}", progress=True)
    assert "reading logs" in sys.stderr.getvalue()
    assert capsys.readouterr().out == ""
