"""How a frame was made: sentences carried in ``DataFrame.attrs`` into every result's notes.

Functions that return a changed frame (normalising, summarising runs, reading logs)
append a sentence here; :func:`rlstats.design.build` copies them into the notes that
results print, so a number in a paper can always say what was done to the data.
"""

#: Key of ``DataFrame.attrs`` with sentences about how the frame was made (e.g. by
#: ``rlstats.summarize_runs``); ``build`` copies them into the notes every result prints.
NOTES_ATTR = "rlstats_notes"


def add_note(frame, note, source=None):
    """Set ``frame``'s notes to those of ``source`` (default: its own) followed by ``note``; returns ``frame``."""
    prior = (frame if source is None else source).attrs.get(NOTES_ATTR, ())
    frame.attrs[NOTES_ATTR] = tuple(prior) + (note,)
    return frame
