"""The look every page shares (static/css/site.css, which templates/base.html loads): links in
the site's colour in every page's content, numbers' headings over their numbers, tables apart."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def css_rules(name: str) -> dict[str, str]:
    """A stylesheet's top-level rules, selector: declarations (media queries left out)."""
    text = re.sub(r"/\*.*?\*/", "", (ROOT / "static/css" / name).read_text(), flags=re.S)
    text = re.sub(r"@media[^{]*\{(?:[^{}]*\{[^}]*\})*\s*\}", "", text)
    return {sel.strip(): body.strip() for sel, body in re.findall(r"([^{}]+)\{([^}]*)\}", text)}


def test_every_link_has_the_sites_colour_from_the_stylesheet_every_page_loads():
    site = css_rules("site.css")
    assert "--link: #1b5e9e" in site[":root"]
    assert site["a"] == "color: var(--link);"
    base = (ROOT / "templates/base.html").read_text()
    assert "{% static 'css/site.css' %}" in base
    # no page's stylesheet sets every link's colour otherwise
    for sheet in (ROOT / "static/css").glob("*.css"):
        for selector in css_rules(sheet.name):
            if "a" in (part.strip() for part in selector.split(",")):
                assert sheet.name == "site.css", sheet.name
    # every page extends the base, or is the 500 page that loads site.css itself
    for template in (ROOT / "templates").rglob("*.html"):
        text = template.read_text()
        if "<html" in text:
            assert "css/site.css" in text, template


def test_headings_of_numbers_stand_over_their_numbers():
    site = css_rules("site.css")
    assert site[".board .num"] == "text-align: right;"
    assert "margin-top" in site[".table-wrap + .table-wrap, .board + .board"]
    page = (ROOT / "templates/bots/playground_run.html").read_text()
    # ("your" to the run's starter, "its" to anyone else: bots/pages/playground.py)
    for heading in (
        "matches", "{{ yours }} {{ score_label }}", "{{ yours }} faults", "{{ yours }} seat",
        "theirs",
    ):  # fmt: skip
        assert f'<th scope="col" class="num">{heading}</th>' in page


def test_a_leaders_rating_keeps_to_its_own_row():
    """The home page's and the leaderboards page's leaders (issue 29, item 8): the rating is
    never floated (a float left its row and ran into the next row's rating and the links
    under the list), it goes whole under the name when both do not fit on a line (the row
    wraps: the rating's width is that of its one line), and only where it is wider than a
    line of its own (a phone with large text) it wraps at its spaces rather than stick out of
    the page; both pages draw the rows with one include."""
    site = css_rules("site.css")
    assert not any("float" in body for sel, body in site.items() if ".leaders" in sel)
    assert "white-space: nowrap" not in site[".leaders .rating"]
    assert "max-width: 100%" in site[".leaders .rating"]
    assert "display: flex" in site[".leader"] and "flex-wrap: wrap" in site[".leader"]
    for page in ("home.html", "games/leaderboards.html"):
        text = (ROOT / "templates" / page).read_text()
        assert '{% include "includes/leaders.html"' in text, page
        assert 'class="rating"' not in text, page


def test_the_header_s_focus_ring_shows_on_its_green():
    """The accent red ring is 1.2:1 on the header's green (WCAG 1.4.11 asks 3:1): white there."""
    site = css_rules("site.css")
    assert "--felt: #1f6f4a" in site[":root"] and "--accent: #c2412d" in site[":root"]
    assert (
        "outline: 3px solid var(--accent)"
        in site["a:focus-visible, button:focus-visible, pre[tabindex]:focus-visible"]
    )
    assert site[".top a:focus-visible, .top button:focus-visible"] == "outline-color: #fff;"
    assert '<header class="top">' in (ROOT / "templates/base.html").read_text()


def test_no_grid_column_asks_for_more_than_the_screen():
    """A phone of 390 px with large text (150%: 1rem is 24 px) is 16rem wide: a grid's
    column minimum in rem is min()-ed with the width it has, or the column sticks out of
    the page (the home page's games, the head to head, the upload form, a replay's seats)."""
    for sheet in sorted((ROOT / "static/css").glob("*.css")):
        text = re.sub(r"/\*.*?\*/", "", sheet.read_text(), flags=re.S)
        for first in re.findall(r"minmax\(\s*(min\([^()]*\)|[^,()]+?)\s*,", text):
            assert first == "0" or re.fullmatch(r"min\([^,]+,\s*100%\)", first), (
                sheet.name,
                first,
            )
    assert "minmax(min(18rem, 100%), 1fr)" in css_rules("site.css")[".games"]
    assert "minmax(min(16rem, 100%), 1fr)" in css_rules("pages.css")[".h2h"]


def test_a_review_stacked_on_a_phone_gives_up_its_columns_widths():
    """One decision a card (a phone): the "decision" cell's 18rem (432 px at 150% text) and
    a number's nowrap line would stick out of the page; the stacked cells give them up."""
    text = re.sub(r"/\*.*?\*/", "", (ROOT / "static/css/replay.css").read_text(), flags=re.S)
    assert "min-width: 18rem" in css_rules("replay.css")[".review__table td[data-said]"]
    narrow = text.split("@media (max-width: 40rem)")[1]
    rule = re.search(r"([^{}]*td\[data-said\][^{}]*)\{([^}]*)\}", narrow)
    assert rule is not None
    assert "min-width: 0" in rule.group(2) and "white-space: normal" in rule.group(2)
    assert ".review__table td.num" in rule.group(1)


def test_a_zone_s_label_on_the_felt_is_not_faded():
    """White on the felt's lighter centre (#2a8459) is 4.6:1; faded to .9 it was 4.1:1, under
    the 4.5:1 small text needs."""
    for sheet in ("replay.css", "table.css"):
        rules = css_rules(sheet)
        for selector in (".zone__label", ".zone__count", ".zone__empty"):
            assert "opacity" not in rules.get(selector, ""), (sheet, selector)
