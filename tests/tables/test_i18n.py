"""The player's pages speak Persian, Hindi, Vietnamese, Russian and Portuguese, server side
(locale/<lang>/LC_MESSAGES/django.po, compiled to django.mo) and in the browser
(static/casino/i18n.js)."""

from __future__ import annotations

import gettext
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from django.conf import settings

from tables.models import Bet
from tables.views import BET_LABELS
from tests.factories import make_table, make_user, make_variant

ROOT = Path(settings.BASE_DIR)
LANGS = ("fa", "hi", "vi", "ru", "pt")

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
CONFIRM_BETS = {
    "fa": "تأیید شرط\u200cها",
    "hi": "दांव कन्फ़र्म करें",
    "vi": "Xác nhận cược",
    "ru": "Подтвердить ставки",
    "pt": "Confirmar apostas",
}
BET_RECORD = {
    "fa": "سابقه شرط\u200cها",
    "hi": "दांव रिकॉर्ड",
    "vi": "Lịch sử cược",
    "ru": "История ставок",
    "pt": "Registro de Apostas",
}


@pytest.fixture
def table(db):
    return make_table("Baccarat 1", make_variant("Baccarat"))


# ── .po / .mo / i18n.js readers ──────────────────────────────────────────────


def po_entries(lang: str) -> list[dict]:
    """The entries of a .po file: msgid, msgstr, flags and whether it is obsolete (#~)."""
    entries: list[dict] = []
    entry: dict = {}
    field = None

    def finish() -> None:
        nonlocal entry
        if "msgid" in entry:
            entries.append(entry)
        entry = {}

    for raw in (ROOT / "locale" / lang / "LC_MESSAGES" / "django.po").read_text(encoding="utf-8").splitlines():
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
            assert match, f"{lang}: cannot read .po line {raw!r}"
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
    return entries


def po_catalogue(lang: str) -> dict[str, str]:
    return {e["msgid"]: e["msgstr"] for e in po_entries(lang) if e["msgid"] and not e["obsolete"]}


def js_source() -> str:
    return (ROOT / "static" / "casino" / "i18n.js").read_text(encoding="utf-8")


def js_catalogue() -> dict[str, dict[str, str]]:
    match = re.search(r"// catalogue:start\s*window\.Casino_i18n = (\{.*?\});\s*// catalogue:end", js_source(), re.S)
    assert match, "i18n.js must keep its catalogue as JSON between the catalogue:start/end markers"
    return json.loads(match.group(1))


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
    assert ">Banker <" not in page


@pytest.mark.parametrize("lang", LANGS)
def test_a_signed_in_player_sees_the_bet_spots_and_buttons_in_the_language_cookie(client, table, lang):
    client.force_login(make_user())
    page = get(client, f"/tables/{table.id}/", lang)
    assert PLAYER_PAIR[lang] in page
    assert CONFIRM_BETS[lang] in page
    assert "Confirm bets" not in page


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


def test_every_page_loads_the_js_catalogue_before_common_js(client, table):
    content = client.get("/").content.decode()
    assert "casino/i18n.js" in content
    assert content.index("casino/i18n.js") < content.index("casino/common.js")


# ── the server catalogues ────────────────────────────────────────────────────


@pytest.mark.parametrize("lang", LANGS)
def test_every_po_file_has_no_empty_no_fuzzy_and_no_obsolete_entries(lang):
    entries = po_entries(lang)
    header = [e for e in entries if e["msgid"] == ""]
    assert len(header) == 1
    assert f"Language: {lang}\n" in header[0]["msgstr"]
    messages = [e for e in entries if e["msgid"]]
    assert len(messages) >= 50
    assert [e["msgid"] for e in messages if not e["msgstr"].strip()] == []
    assert [e["msgid"] for e in entries if "fuzzy" in e["flags"]] == []
    assert [e["msgid"] for e in messages if e["obsolete"]] == []


@pytest.mark.parametrize("lang", LANGS)
def test_every_committed_mo_file_matches_its_po_file(lang):
    with (ROOT / "locale" / lang / "LC_MESSAGES" / "django.mo").open("rb") as mo:
        compiled = gettext.GNUTranslations(mo)
    stale = {k: v for k, v in po_catalogue(lang).items() if k and compiled.gettext(k) != v}
    assert stale == {}, f"locale/{lang}/LC_MESSAGES/django.mo is stale: run `manage.py compilemessages --ignore=.venv`"


def test_every_string_the_templates_and_views_translate_is_in_every_catalogue():
    wanted = set()
    for template in [ROOT / "templates" / "base.html", *(ROOT / "templates").glob("*/*.html")]:
        text = template.read_text(encoding="utf-8")
        wanted |= set(re.findall(r"""{%\s*(?:translate|trans)\s+"([^"]+)"\s*%}""", text))
        wanted |= set(re.findall(r"""{%\s*(?:translate|trans)\s+'([^']+)'\s*%}""", text))
    wanted |= {str(label) for label, _pays in BET_LABELS.values()}
    assert {"Tables", "Banker", "3-Card Lucky Six", "Bet record", "Language"} <= wanted
    for lang in LANGS:
        missing = sorted(wanted - set(po_catalogue(lang)))
        assert missing == [], f"{lang}: run makemessages and translate {missing}"


# ── the browser catalogue ────────────────────────────────────────────────────


def test_the_js_catalogue_has_the_same_keys_for_all_five_languages():
    catalogue = js_catalogue()
    assert set(catalogue) == set(LANGS)
    keys = set(catalogue["fa"])
    for lang in LANGS:
        assert set(catalogue[lang]) == keys, lang
        assert [k for k, v in catalogue[lang].items() if not v.strip()] == [], lang
    assert {"Bets confirmed", "No more bets", "Reconnecting…", "Player wins", "Round"} <= keys


def test_the_js_catalogue_uses_the_same_words_as_the_server_catalogue():
    catalogue = js_catalogue()
    codes = {bet_type: str(label) for bet_type, (label, _pays) in BET_LABELS.items()}
    codes |= {value: str(label) for value, label in Bet.Status.choices}
    codes |= {value: str(label) for value, label in Bet.Mode.choices}
    for lang in LANGS:
        server = po_catalogue(lang)
        js = catalogue[lang]
        for key in set(js) & set(server):
            assert js[key] == server[key], (lang, key)
        for code, label in codes.items():
            assert js[code] == server[label], (lang, code)


def test_every_string_the_scripts_wrap_in_t_is_in_the_js_catalogue():
    keys = set(js_catalogue()["fa"])
    for script in ("common.js", "table.js", "record.js"):
        text = (ROOT / "static" / "casino" / script).read_text(encoding="utf-8")
        for quoted in re.findall(r"""\bt\(\s*("(?:[^"\\]|\\.)*")\s*\)""", text):
            assert json.loads(quoted).strip() in keys, f"{script}: t({quoted}) has no translation"


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node to run i18n.js")
def test_t_translates_for_the_page_language_keeps_spaces_and_falls_back_to_english(tmp_path):
    probe = tmp_path / "probe.js"
    probe.write_text(
        "global.window = {};\n"
        "global.document = {documentElement: {lang: process.argv[2]}};\n"
        f"require({json.dumps(str(ROOT / 'static' / 'casino' / 'i18n.js'))});\n"
        "const t = window.t;\n"
        'console.log(JSON.stringify([t("Banker wins"), t("Table paused: ") + "x", t("banker"), t("Zzz")]));\n'
    )

    def run(lang: str) -> list[str]:
        out = subprocess.run(["node", str(probe), lang], capture_output=True, text=True, check=True).stdout
        return json.loads(out)

    assert run("en") == ["Banker wins", "Table paused: x", "banker", "Zzz"]
    assert run("ru") == ["Победа банкира", "Стол на паузе: x", "Банкир", "Zzz"]
    assert run("pt-br") == ["Vitória do Banqueiro", "Mesa pausada: x", "Banqueiro", "Zzz"]
    assert run("fa")[2] == BANKER["fa"]
