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
    for heading in ("matches", "your {{ score_label }}", "your faults", "your seat", "theirs"):
        assert f'<th scope="col" class="num">{heading}</th>' in page


def test_a_leaders_rating_keeps_to_its_own_row():
    """The home page's and the leaderboards page's leaders (issue 29, item 8): the rating is
    never floated (a float left its row and ran into the next row's rating and the links
    under the list), it is kept whole, and both pages draw the rows with one include."""
    site = css_rules("site.css")
    assert not any("float" in body for sel, body in site.items() if ".leaders" in sel)
    assert "white-space: nowrap" in site[".leaders .rating"]
    assert "display: flex" in site[".leader"] and "flex-wrap: wrap" in site[".leader"]
    for page in ("home.html", "games/leaderboards.html"):
        text = (ROOT / "templates" / page).read_text()
        assert '{% include "includes/leaders.html"' in text, page
        assert 'class="rating"' not in text, page
