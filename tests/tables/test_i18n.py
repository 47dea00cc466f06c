"""The player's pages speak Persian, Hindi, Vietnamese, Russian and Portuguese, server side
(locale/<lang>/LC_MESSAGES/django.po) and in the browser (djangojs.po, served by JavaScriptCatalog at
/jsi18n/ and read by gettext() in static/casino/**/*.js); both compiled to .mo next to them."""

from __future__ import annotations

import gettext
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from django.conf import settings
from django.utils import translation

from tables.labels import BET_NAMES
from tests.factories import make_table, make_user, make_variant

ROOT = Path(settings.BASE_DIR)
LANGS = ("fa", "hi", "vi", "ru", "pt")
DOMAINS = ("django", "djangojs")
SCRIPTS = ROOT / "static" / "casino"

# What a player of each language must see; the words come from the seed rule pages.
TABLES = {"fa": "میزها", "hi": "टेबलें", "vi": "Các bàn", "ru": "Столы", "pt": "Mesas"}
BANKER = {"fa": "بانکدار", "hi": "बैंकर", "vi": "Nhà cái", "ru": "Банкир", "pt": "Banqueiro"}
PLAYER_PAIR = {
    "fa": "دست جفت بازیکن",
    "hi": "प्लेयर पेयर",
    "vi": "Cặp Người chơi",
    "ru": "Пара игрока",
    "pt": "Par do Jogador",
}
CONFIRM = {"fa": "تأیید", "hi": "कन्फ़र्म करें", "vi": "Xác nhận", "ru": "Подтвердить", "pt": "Confirmar"}
BET_RECORD = {
    "fa": "سابقه شرط\u200cها",
    "hi": "दांव रिकॉर्ड",
    "vi": "Lịch sử cược",
    "ru": "История ставок",
    "pt": "Registro de Apostas",
}
BUTTONS = {"undo": "Undo", "clear": "Clear", "repeat": "Repeat", "double": "Double", "confirm": "Confirm"}
ROADS = ("Bead plate", "Big road", "Big eye boy", "Small road", "Cockroach pig")

# Where a translation is rightly the English word: the seed rule pages keep the bet's name "Lucky Six" in
# Vietnamese and Portuguese, Vietnamese writes "Baccarat", Portuguese says "Natural" too.
SAME_AS_ENGLISH = {("vi", "Lucky Six"), ("pt", "Lucky Six"), ("vi", "Baccarat"), ("pt", "Natural")}

PLACEHOLDER = re.compile(r"%\(\w+\)[sd]|%[sd]|\{\w*\}")
NON_ASCII_DIGITS = re.compile("[\u0660-\u0669\u06f0-\u06f9\u0966-\u096f]")
JS_STRING = r""""(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'"""


@pytest.fixture
def table(db):
    return make_table("Baccarat 1", make_variant("Baccarat"))


# ── .po / .mo / script readers ───────────────────────────────────────────────


def po_path(lang: str, domain: str) -> Path:
    return ROOT / "locale" / lang / "LC_MESSAGES" / f"{domain}.po"


def po_entries(lang: str, domain: str = "django") -> list[dict]:
    """The entries of a .po file: msgid, msgid_plural, msgstr or msgstr[n], flags and whether it is obsolete (#~)."""
    entries: list[dict] = []
    entry: dict = {}
    field = None

    def finish() -> None:
        nonlocal entry
        if "msgid" in entry:
            entries.append(entry)
        entry = {}

    for raw in po_path(lang, domain).read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line:
            finish()
            field = None
        elif line.startswith("#~"):
            finish()
            entries.append({"msgid": line, "msgstr": "", "flags": set(), "obsolete": True})
        elif line.startswith("#,"):
            if "msgid" in entry:
                finish()
            entry.setdefault("flags", set()).update(f.strip() for f in line[2:].split(","))
        elif line.startswith("#"):
            if "msgid" in entry:
                finish()
        else:
            match = re.match(r'^(msgid|msgstr|msgctxt|msgid_plural|msgstr\[\d+\])?\s*"(.*)"$', line)
            assert match, f"{lang}/{domain}: cannot read .po line {raw!r}"
            if match.group(1):
                field = match.group(1)
                if field == "msgid" and "msgid" in entry:
                    finish()
                entry.setdefault(field, "")
            entry[field] += json.loads(f'"{match.group(2)}"')
    finish()
    for e in entries:
        e.setdefault("flags", set())
        e.setdefault("obsolete", False)
        e["forms"] = [e[k] for k in sorted((k for k in e if k.startswith("msgstr[")), key=lambda k: int(k[7:-1]))]
    return entries


def messages(lang: str, domain: str) -> list[dict]:
    """The live entries, without the header."""
    return [e for e in po_entries(lang, domain) if e["msgid"] and not e["obsolete"]]


def po_catalogue(lang: str, domain: str = "django") -> dict[str, str]:
    return {e["msgid"]: e.get("msgstr", "") for e in messages(lang, domain) if "msgid_plural" not in e}


def nplurals(lang: str, domain: str) -> int:
    header = next(e for e in po_entries(lang, domain) if e["msgid"] == "")
    match = re.search(r"^Plural-Forms: nplurals=(\d+);", header["msgstr"], re.M)
    assert match, f"{lang}/{domain}: the header has no Plural-Forms"
    return int(match.group(1))


def translations(entry: dict) -> list[str]:
    return entry["forms"] if "msgid_plural" in entry else [entry.get("msgstr", "")]


def placeholders(text: str) -> list[str]:
    return sorted(PLACEHOLDER.findall(text))


def scripts() -> list[Path]:
    found = sorted(SCRIPTS.rglob("*.js"))
    assert len(found) >= 8, found
    return found


def code_of(script: Path) -> str:
    """A script without its comments (block comments, and whole-line // comments)."""
    text = re.sub(r"/\*.*?\*/", "", script.read_text(encoding="utf-8"), flags=re.S)
    return re.sub(r"^\s*//.*$", "", text, flags=re.M)


def js_literal(quoted: str) -> str:
    if quoted.startswith("'"):
        quoted = '"' + quoted[1:-1].replace('\\"', '"').replace("\\'", "'").replace('"', '\\"') + '"'
    return json.loads(quoted)


def script_strings() -> dict[str, str]:
    """Every string a script hands to gettext() / ngettext(), with the file it is in."""
    wanted: dict[str, str] = {}
    for script in scripts():
        code = code_of(script)
        for quoted in re.findall(rf"\bgettext\(\s*({JS_STRING})\s*\)", code):
            wanted.setdefault(js_literal(quoted), script.name)
        for one, _many in re.findall(rf"\bngettext\(\s*({JS_STRING})\s*,\s*({JS_STRING})", code):
            wanted.setdefault(js_literal(one), script.name)  # a plural entry is keyed by its singular
    return wanted


def english(name) -> str:
    """A lazy msgid as English, whatever language the last request left active."""
    with translation.override("en"):
        return str(name)


def get(client, url: str, lang: str):
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = lang
    response = client.get(url)
    assert response.status_code == 200
    return response.content.decode()


# ── pages ────────────────────────────────────────────────────────────────────


@pytest.mark.parametrize("lang", LANGS)
def test_choosing_a_language_in_the_selector_translates_the_lobby_and_the_table(client, table, lang):
    response = client.post("/i18n/setlang/", {"language": lang, "next": "/"})
    assert response.status_code == 302
    assert response["Location"] == "/"

    lobby = client.get("/").content.decode()
    assert f'<html lang="{lang}"' in lobby
    assert TABLES[lang] in lobby

    page = client.get(f"/tables/{table.id}/").content.decode()
    assert BANKER[lang] in page
    assert ">Tables<" not in lobby
    assert ">Banker<" not in page


@pytest.mark.parametrize("lang", LANGS)
def test_the_table_page_renders_its_bet_names_and_buttons_in_the_language_cookie(client, table, lang):
    client.force_login(make_user())
    page = get(client, f"/tables/{table.id}/", lang)
    server = po_catalogue(lang)

    names = dict(re.findall(r'<button[^>]*\bdata-type="(\w+)"[^>]*>\s*<span class="name">([^<]*)</span>', page))
    assert list(names) == list(BET_NAMES)
    for bet_type, name in BET_NAMES.items():
        assert names[bet_type] == server[english(name)], bet_type
        if (lang, english(name)) not in SAME_AS_ENGLISH:
            assert names[bet_type] != english(name), bet_type
    assert names["banker"] == BANKER[lang]
    assert names["player_pair"] == PLAYER_PAIR[lang]

    config = json.loads(re.search(r'<script id="table-config" type="application/json">(.*?)</script>', page).group(1))
    assert config["bet_names"] == names

    buttons = dict(re.findall(r'<button[^>]*\bid="(undo|clear|repeat|double|confirm)"[^>]*>([^<]*)</button>', page))
    assert set(buttons) == set(BUTTONS)
    for button, label in BUTTONS.items():
        assert buttons[button] == server[label] != label, button
        assert f">{label}<" not in page
    assert buttons["confirm"] == CONFIRM[lang]


@pytest.mark.parametrize("lang", LANGS)
def test_a_watcher_is_invited_to_log_in_in_the_language_cookie(client, table, lang):
    page = get(client, f"/tables/{table.id}/", lang)
    assert po_catalogue(lang)["Log in to bet"] in page
    assert "Log in to bet" not in page


@pytest.mark.parametrize("lang", LANGS)
def test_the_bet_record_is_translated_too(client, table, lang):
    client.force_login(make_user())
    page = get(client, "/bets/", lang)
    assert BET_RECORD[lang] in page
    assert "Bet record" not in page


@pytest.mark.parametrize("lang", LANGS)
def test_a_browser_asking_for_the_language_in_accept_language_gets_it(client, table, lang):
    content = client.get("/", HTTP_ACCEPT_LANGUAGE=f"{lang};q=1.0, en;q=0.5").content.decode()
    assert f'<html lang="{lang}"' in content
    assert TABLES[lang] in content


def test_a_regional_accept_language_falls_back_to_its_language(client, table):
    content = client.get("/", HTTP_ACCEPT_LANGUAGE="pt-BR,pt;q=0.9").content.decode()
    assert '<html lang="pt"' in content
    assert TABLES["pt"] in content


def test_english_stays_the_default(client, table):
    content = client.get("/").content.decode()
    assert '<html lang="en">' in content
    assert ">Tables<" in content


def test_persian_pages_are_right_to_left(client, table):
    for url in ("/", f"/tables/{table.id}/", "/accounts/login/"):
        assert '<html lang="fa" dir="rtl">' in get(client, url, "fa")


@pytest.mark.parametrize("lang", ["en", "hi", "vi", "ru", "pt"])
def test_the_other_languages_are_left_to_right(client, table, lang):
    assert 'dir="rtl"' not in get(client, "/", lang)


def test_the_table_page_loads_the_js_catalogue_before_its_scripts_and_no_page_loads_the_old_one(client, table):
    client.force_login(make_user())
    page = client.get(f"/tables/{table.id}/").content.decode()
    assert '<script src="/jsi18n/"></script>' in page
    assert page.index('src="/jsi18n/"') < page.index("casino/table/main.js")
    assert not (SCRIPTS / "i18n.js").exists()
    for url in ("/", f"/tables/{table.id}/", "/bets/"):
        assert "i18n.js" not in client.get(url).content.decode(), url


# ── the catalogues ───────────────────────────────────────────────────────────


@pytest.mark.parametrize("domain", DOMAINS)
@pytest.mark.parametrize("lang", LANGS)
def test_every_po_file_is_translated_with_no_fuzzy_and_no_obsolete_entries(lang, domain):
    entries = po_entries(lang, domain)
    header = [e for e in entries if e["msgid"] == ""]
    assert len(header) == 1
    assert f"Language: {lang}\n" in header[0]["msgstr"]
    assert "charset=UTF-8" in header[0]["msgstr"]
    live = messages(lang, domain)
    assert len(live) >= {"django": 60, "djangojs": 50}[domain]
    untranslated = [e["msgid"] for e in live if not all(t.strip() for t in translations(e))]
    assert untranslated == [], f"{lang}/{domain}: translate {untranslated}"
    plural = [e for e in live if "msgid_plural" in e]
    assert [e["msgid"] for e in plural if len(e["forms"]) != nplurals(lang, domain)] == []
    assert [e["msgid"] for e in entries if "fuzzy" in e["flags"]] == []
    assert [e["msgid"] for e in entries if e["obsolete"]] == []


@pytest.mark.parametrize("domain", DOMAINS)
@pytest.mark.parametrize("lang", LANGS)
def test_every_translation_keeps_the_placeholders_of_its_msgid(lang, domain):
    live = messages(lang, domain)
    with_placeholders = [e for e in live if placeholders(e["msgid"])]
    assert len(with_placeholders) >= {"django": 1, "djangojs": 15}[domain]
    wrong = []
    for e in live:
        expected = placeholders(e["msgid"])
        if "msgid_plural" in e:
            expected = sorted(set(expected) | set(placeholders(e["msgid_plural"])))
            wrong += [(e["msgid"], form) for form in e["forms"] if sorted(set(placeholders(form))) != expected]
        elif placeholders(e["msgstr"]) != expected:
            wrong.append((e["msgid"], e["msgstr"]))
    assert wrong == []


@pytest.mark.parametrize("domain", DOMAINS)
@pytest.mark.parametrize("lang", LANGS)
def test_no_translation_is_left_in_english_and_numerals_stay_ascii(lang, domain):
    live = messages(lang, domain)
    english = []
    checked = 0
    for e in live:
        words = PLACEHOLDER.sub("", e["msgid"])
        if not re.search(r"[A-Za-z]", words) or (lang, e["msgid"]) in SAME_AS_ENGLISH:
            continue  # a pure format ("%(winner)s %(high)s – %(low)s") or a word the house keeps
        checked += 1
        english += [e["msgid"] for t in translations(e) if t == e["msgid"]]
    # Skipping everything would pass too: the catalogues hold hundreds of English words to compare.
    assert checked >= {"django": 60, "djangojs": 50}[domain], checked
    assert english == []
    texts = [t for e in live for t in translations(e)]
    assert len(texts) >= checked
    assert [t for t in texts if NON_ASCII_DIGITS.search(t)] == []


@pytest.mark.parametrize("lang", LANGS)
def test_the_road_names_are_translated_not_left_in_english(lang):
    js = po_catalogue(lang, "djangojs")
    names = [js[road] for road in ROADS]
    assert all(names), names
    assert len(set(names)) == len(ROADS)
    for road, name in zip(ROADS, names, strict=True):
        assert name != road
        assert not set(road.lower().split()) & set(name.lower().split()), (road, name)


@pytest.mark.parametrize("domain", DOMAINS)
@pytest.mark.parametrize("lang", LANGS)
def test_every_committed_mo_file_matches_its_po_file(lang, domain, tmp_path):
    msgfmt = shutil.which("msgfmt")
    assert msgfmt, "GNU gettext's msgfmt is needed to check the compiled catalogues"
    fresh = tmp_path / f"{domain}.mo"
    subprocess.run([msgfmt, "--check-format", "-o", str(fresh), str(po_path(lang, domain))], check=True)
    committed = po_path(lang, domain).with_suffix(".mo")
    assert committed.exists(), f"{committed} is missing: run `manage.py compilemessages --ignore=.venv`"
    with committed.open("rb") as mo:
        stored = gettext.GNUTranslations(mo)._catalog
    with fresh.open("rb") as mo:
        expected = gettext.GNUTranslations(mo)._catalog
    assert len(expected) > len(messages(lang, domain)) // 2
    assert stored == expected, f"{committed} is stale: run `manage.py compilemessages --ignore=.venv`"


def test_every_string_the_templates_and_views_translate_is_in_every_catalogue():
    wanted = set()
    for template in [ROOT / "templates" / "base.html", *(ROOT / "templates").glob("*/*.html")]:
        text = template.read_text(encoding="utf-8")
        wanted |= set(re.findall(r"""{%\s*(?:translate|trans)\s+"([^"]+)"\s*%}""", text))
        wanted |= set(re.findall(r"""{%\s*(?:translate|trans)\s+'([^']+)'\s*%}""", text))
    wanted |= {english(name) for name in BET_NAMES.values()}
    assert {"Tables", "Banker", "3-Card Lucky Six", "Bet record", "Language", "Confirm", "Undo"} <= wanted
    for lang in LANGS:
        missing = sorted(wanted - set(po_catalogue(lang)))
        assert missing == [], f"{lang}: run makemessages and translate {missing}"


def test_every_string_the_scripts_pass_to_gettext_is_in_every_js_catalogue():
    wanted = script_strings()
    assert {"Place your bets", "No more bets", "Big road", "Cockroach pig", "Round %(number)s"} <= set(wanted)
    assert len(wanted) >= 50
    for lang in LANGS:
        done = {e["msgid"] for e in messages(lang, "djangojs") if all(t.strip() for t in translations(e))}
        missing = {text: script for text, script in wanted.items() if text not in done}
        assert missing == {}, f"{lang}: run makemessages -d djangojs and translate {missing}"


def test_the_scripts_pass_gettext_only_string_literals_so_makemessages_finds_them():
    calls = 0
    refused = []
    for script in scripts():
        code = code_of(script)
        for match in re.finditer(r"\b(?:n|p|np)?gettext\(", code):
            calls += 1
            if not re.match(rf"\s*(?:{JS_STRING})\s*[,)]", code[match.end() :]):
                refused.append(f"{script.name}: {code[match.start() : match.start() + 60]!r}")
    assert calls >= 50
    assert refused == []


@pytest.mark.parametrize("lang", LANGS)
def test_the_scripts_and_the_pages_use_the_same_words(lang):
    server = po_catalogue(lang)
    js = po_catalogue(lang, "djangojs")
    shared = set(server) & set(js)
    assert {"Banker", "Player", "Tie", "Won", "Lost", "Push", "Refunded", "Copy"} <= shared
    assert {key: (server[key], js[key]) for key in shared if server[key] != js[key]} == {}
    assert js["Banker pair"] == server["Banker Pair"]
    assert js["Player pair"] == server["Player Pair"]


# ── the script catalogue as the browser gets it ──────────────────────────────


def served_catalogue(client, lang: str) -> dict:
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = lang
    response = client.get("/jsi18n/")
    assert response.status_code == 200
    assert "javascript" in response["Content-Type"]
    text = response.content.decode()
    assert "function gettext" in text or "django.gettext" in text
    match = re.search(r"const newcatalog = (\{.*?\});\n", text, re.S)
    return json.loads(match.group(1)) if match else {}


@pytest.mark.parametrize("lang", LANGS)
def test_the_js_catalogue_view_serves_every_script_string_in_the_cookie_language(client, db, lang):
    served = served_catalogue(client, lang)
    expected = po_catalogue(lang, "djangojs")
    assert len(expected) >= 50
    assert {k: v for k, v in expected.items() if served.get(k) != v} == {}
    assert served["Place your bets"] != "Place your bets"
    assert served["Banker"] == BANKER[lang]


def test_the_js_catalogue_view_in_english_translates_nothing_of_ours(client, db):
    # The reader does find the strings when they are served (else an unreadable catalogue would pass below).
    assert "Place your bets" in served_catalogue(client, "pt")
    served = served_catalogue(client, "en")
    assert "Place your bets" not in served
    assert "Big road" not in served
