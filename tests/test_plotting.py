

def test_text_broken_to_a_figure_keeps_a_short_parenthesis_whole():
    import textwrap

    from rlstats.plotting import unbroken_parentheses

    line = "Mean ranks among each task's agents (1 = best) and (a longer aside that may break)"
    kept = unbroken_parentheses(line)
    assert kept.replace("\xa0", " ") == line and "(1\xa0=\xa0best)" in kept and "(a longer aside" in kept
    for width in range(12, 60):
        broken = textwrap.fill(kept, width, break_long_words=False).replace("\xa0", " ").split("\n")
        assert any("(1 = best)" in part for part in broken), (width, broken)
