"""What a browser would submit from a rendered admin change form: every field's value as shown.

Inputs submit their ``value`` (checkboxes and radios only when checked), textareas their text, and a
select its ``selected`` option, or its first option when none is selected, which is what a browser does
(and how a select that matches no option silently turns into its first choice).
"""

from __future__ import annotations

from html.parser import HTMLParser

_NOT_SUBMITTED = {"submit", "button", "image", "reset", "file"}


class _FormParser(HTMLParser):
    def __init__(self, form_id: str) -> None:
        super().__init__(convert_charrefs=True)
        self.form_id = form_id
        self.inside = False
        self.fields: list[tuple[str, str]] = []
        self.selected: dict[str, bool] = {}
        self._select: str | None = None
        self._select_first: str | None = None
        self._select_chosen: str | None = None
        self._textarea: str | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "form" and a.get("id") == self.form_id:
            self.inside = True
        if not self.inside or "disabled" in a:
            return
        name = a.get("name")
        if tag == "input" and name:
            kind = a.get("type", "text").lower()
            if kind in _NOT_SUBMITTED:
                return
            if kind in ("checkbox", "radio"):
                if "checked" in a:
                    self.fields.append((name, a.get("value", "on")))
                return
            self.fields.append((name, a.get("value", "")))
        elif tag == "select" and name:
            self._select, self._select_first, self._select_chosen = name, None, None
        elif tag == "option" and self._select is not None:
            value = a.get("value", "")
            if self._select_first is None:
                self._select_first = value
            if "selected" in a:
                self._select_chosen = value
        elif tag == "textarea" and name:
            self._textarea, self._text = name, []

    def handle_endtag(self, tag: str) -> None:
        if tag == "form" and self.inside:
            self.inside = False
        elif tag == "select" and self._select is not None:
            chosen = self._select_chosen if self._select_chosen is not None else self._select_first
            self.selected[self._select] = self._select_chosen is not None
            if chosen is not None:
                self.fields.append((self._select, chosen))
            self._select = None
        elif tag == "textarea" and self._textarea is not None:
            self.fields.append((self._textarea, "".join(self._text).removeprefix("\n")))
            self._textarea = None

    def handle_data(self, data: str) -> None:
        if self._textarea is not None:
            self._text.append(data)


def form_data(html: str, form_id: str) -> tuple[dict[str, str], dict[str, bool]]:
    """(the fields the browser would post, {select name: whether an option was marked selected})."""
    parser = _FormParser(form_id)
    parser.feed(html)
    return dict(parser.fields), parser.selected
