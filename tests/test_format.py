"""R-style number formatting and the table renderers."""

import numpy as np
import pandas as pd
import pytest

from rlstats import format as fmt


@pytest.mark.parametrize("value, digits, expected", [
    # values printed by R 4.2.2's format(x, digits = d): tests/reference/r_format_and_friedman.R
    (5.333333333, 5, "5.3333"), (12.0, 5, "12"), (15.4930487975, 5, "15.493"), (2977.30712, 5, "2977.3"),
    (123456.7, 5, "123457"), (0.0001, 5, "1e-04"), (1.737935948866618e-10, 4, "1.738e-10"),
    (0.0014402963, 4, "0.00144"), (0.06948, 4, "0.06948"), (0.007383160505, 4, "0.007383"),
    (-0.55555, 5, "-0.55555"), (0.0, 5, "0"), (1e5, 5, "1e+05"), (2.5e-05, 4, "2.5e-05"),
])
def test_signif_matches_r_format(value, digits, expected):
    assert fmt.signif(value, digits) == expected


def test_pvalue_below_machine_epsilon_prints_as_r():
    assert fmt.pvalue_phrase(1e-30) == "p-value < 2.2e-16"
    assert fmt.pvalue_phrase(0.06948) == "p-value = 0.06948"
    assert fmt.format_pvalue(float("nan")) == "NA"


def test_tables_render_in_every_format():
    frame = pd.DataFrame({"agent": ["a_1", "b"], "mean_rank": [1.23456789, 2.0], "significant": [True, False]})
    text = fmt.table_text(frame)
    assert text.splitlines()[1].split() == ["a_1", "1.2346", "yes"]
    md = fmt.table_markdown(frame)
    assert md.splitlines()[1] == "| :--- | ---: | :--- |"
    latex = fmt.table_latex(frame, caption="Ranks & more")
    assert r"\toprule" in latex and r"a\_1 & 1.2346 & yes \\" in latex and r"Ranks \& more" in latex
    assert "<td>1.2346</td>" in fmt.table_html(frame)


def test_paper_tables_read_well():
    import pandas as pd

    from rlstats.format import table_latex

    frame = pd.DataFrame({"agent_1": ["a", "b"], "p_value": [0.0, 0.0312], "p_adjusted": [3e-20, 0.06],
                          "conf_low_mc_se": [0.01, 0.02], "estimate": [1.5, 2.0]})
    latex = table_latex(frame, caption="A test: statistic = 3.2, p < 0.05")
    assert "1st agent & p-value & adj. p-value & estimate" in latex  # readable headers, MC SE left out
    assert "$<$ 1e$-$16 & $<$ 1e$-$16" in latex and " 0 &" not in latex  # a minus in the exponent (audit s24)
    assert "p $<$ 0.05" in latex  # '<' in text would print as an inverted exclamation mark
    assert "mc" not in table_latex(frame).lower() and "MC SE" in table_latex(frame, mc_se=True)
    narrow = pd.DataFrame({f"c{i}": [1.0] for i in range(8)})  # 8 short columns fit a column: never shrunk
    assert r"\begin{table}[ht]" in table_latex(narrow) and "resizebox" not in table_latex(narrow)
    wide = pd.DataFrame({f"column_{i}": np.arange(12) + 0.123 for i in range(8)})  # too wide for a column
    assert r"\begin{table*}[t]" in table_latex(wide) and "resizebox" not in table_latex(wide)
    assert r"\begin{table}[ht]" in table_latex(wide, resize=True, environment="table")
    assert r"\resizebox{\ifdim\width>\linewidth\linewidth\else\width\fi}{!}{%" in table_latex(wide, resize=True)


def test_latex_names_columns_missing_in_every_row_together():
    # withheld bands (every row NaN) read "std. error: NaN; lower: NaN; ..." in the caption (audit s9 realdata)
    frame = pd.DataFrame({"agent": ["A", "B"], "estimate": [1.0, 2.0], "conf_low": [np.nan] * 2,
                          "conf_high": [np.nan] * 2, "step": [10, 10]})
    text = fmt.table_latex(frame, caption="Curves.", notes=["bands are withheld"])
    assert "In every row, step: 10; lower and upper: not given (see the notes)." in text
    assert "NaN" not in text
    assert "not given." in fmt.table_latex(frame, caption="Curves.")


def test_a_missing_number_is_a_blank_cell_in_every_table_format():
    # format_cell read every float through signif, so a NaN (a pair never compared, a withheld interval) printed
    # "NaN" beside the blank cells of its p-values; the blank branch below it was never reached
    assert [fmt.format_cell(v) for v in (np.nan, np.float32("nan"), None, 1.5, np.float64(2.0), 3, True)] == [
        "", "", "", "1.5", "2", "3", "yes"]
