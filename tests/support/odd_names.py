"""Players' names as people type them: any printable Unicode, and names rich would read as markup."""

from __future__ import annotations

from hypothesis import strategies as st

from voice_earl.names import is_printable_name

# Each of these once crashed the table screen or `history`, or was shown changed: "[/]" closes nothing, "[dad]"
# was an empty name, "Jo [the host]" was "Jo", "[blink red]Ben" blinked, ":smile:" became a face.
MARKUP_NAMES = ("[/]", "Ann [/]", "[/b]", "[dad]", "Jo [the host]", "[blink red]Ben", ":smile:", "[link=x]Cy", "\\[Di]")

# Short enough for every place a name is shown whole (the players' column is 14 cells wide).
printable_names = (
    st.text(
        alphabet=st.characters(codec="utf-8", exclude_categories=["Cs", "Cc", "Cf", "Co", "Cn", "Zl", "Zp"]),
        min_size=1,
        max_size=6,
    )
    .map(str.strip)
    .filter(is_printable_name)
)
names = st.one_of(st.sampled_from(MARKUP_NAMES), printable_names)
tables = st.lists(names, min_size=3, max_size=3, unique_by=str.casefold).map(tuple)
