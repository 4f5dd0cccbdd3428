"""Which tesseract languages to read a document with: asked for, or detected from the document.

A plain tesseract run with ``eng`` loses a French or German scan's accents, and values with them
(``bauamit@…`` for ``bauamt@…``). So, unless languages were asked for, a document's language is
detected before its pages are OCRed:

1. from its text layer, when the pages that have a usable one hold enough letters
   (``MIN_LETTERS``): each such page is identified on its own and the pages vote by their letters,
   so a bilingual tender (French and Dutch pages) gets both;
2. otherwise by a quick first pass over its first scanned page: rendered at ``FIRST_PASS_DPI``,
   tesseract's orientation and script detection (``--psm 0``) names the script (Latin, Arabic,
   Devanagari, …) and says whether the page is turned, the page is OCRed with that script's language
   (``eng`` for Latin; set upright first when turned) and the text identified (the next scanned
   page too, when the first says too little).

Identification is py3langid (a naive Bayes model over byte n-grams, shipped inside the package: no
download; decoding it takes ~0.5 s of CPU, so a worker keeps the decoded model in its cache and the
processes after the first read that in a tenth of the time; well under a millisecond per page). The identified
language is mapped to its tesseract pack; the pages are then read with it and ``eng`` as a second
language (tenders quote English names, e-mail addresses, CPV titles): ``fra+eng``. A language whose
pack is not installed is still recorded, and the pages are read with ``fallback`` (``eng``).

``choose_ocr_languages(path, options)`` is the whole choice for a PDF on disk (what the plan job
does, and what ``tenderflow eval`` can call); ``detect_languages`` is the same from text layers the
caller already read. ``parse_languages`` checks languages a person gives (upload option, tenant
default) against the packs installed here and says which are.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Literal

from tenderflow import langid
from tenderflow.errors import ConfigurationError
from tenderflow.pdf import launcher
from tenderflow.pdf.ocr import (
    MIN_UPRIGHT_CONFIDENCE,
    OcrOptions,
    detect_orientation,
    recognize,
    render_page,
    sandbox_timeout,
    set_upright,
)
from tenderflow.pdf.packs import installed_languages as installed_languages  # languages' callers ask here
from tenderflow.pdf.packs import pack_loads
from tenderflow.pdf.probe import check_page_pixels, read_pdf_info
from tenderflow.pdf.textlayer import extract_text_layer, text_layer_is_usable
from tenderflow.pdf.tools import ToolTimeoutError, call_sandboxed
from tenderflow.pdf.tsv import text_from_tsv

AUTO = "auto"
"""The setting (TENDERFLOW_OCR_LANGUAGES) and tenant value meaning: detect each document's language."""

SECOND_LANGUAGE = "eng"
"""Added to every detected language: tenders mix in English names, addresses and code titles."""

MIN_LETTERS = 40
"""Letters a text needs before it is identified at all (a cover page saying "ANNEX 3" is not)."""

MIN_CONFIDENCE = 0.5
"""Probability the identifier must give its best language for that page to vote."""

SECOND_LANGUAGE_SHARE = 0.25
"""Share of the voting letters a second identified language needs to be read as well."""

MAX_DETECTED_LANGUAGES = 2
"""At most this many detected languages (plus SECOND_LANGUAGE): each one slows every OCRed page."""

FIRST_PASS_DPI = 150
"""Render resolution of the first pass: enough for body text to read and identify, a quarter of
the pixels of a 300 dpi read."""

FIRST_PASS_PAGES = 2
"""Scanned pages the first pass reads at most, while the earlier ones said too little."""

SCRIPT_CONFIDENCE_MARGIN = 10.0
"""Points of tesseract's mean word confidence by which a page read as Latin must beat its reading in the
script OSD named for the page to count as Latin: a misnamed script reads at 40-60, the right one at 80-95."""

VERTICAL_READER = "jpn_vert"
"""What the first pass tries on a page it reads badly: text set top to bottom is Japanese far more often
than Chinese (its kanji read as Han; identification then tells the two apart)."""

TEXT_LAYER_PAGES = 20
"""Pages of the text layer ``choose_ocr_languages`` reads: enough to know a document's language."""

IDENTIFY_CHARS = 3_000
"""Characters of one page handed to the identifier: a page of text; more decides nothing and costs
time (the identifier's work grows with the text)."""

IDENTIFY_PAGES = 8
"""Text-layer pages identified at most, spread evenly over the document: enough for a bilingual
tender's pages to vote, cheap next to reading the pages (about 1 ms each)."""

LanguageSource = Literal["upload", "tenant", "settings", "text_layer", "first_pass", "fallback"]
"""Where a document's OCR languages came from:

    upload      the uploader's ``--languages`` / ``?languages=``
    tenant      the tenant's default (``tenderflow tenants languages``)
    settings    TENDERFLOW_OCR_LANGUAGES set to fixed languages by the operator
    text_layer  detected from the document's own text
    first_pass  detected by the quick first pass over its first scanned page(s)
    fallback    detection found nothing to go by (or a language not installed here): ``fallback``
"""

# py3langid's labels (ISO 639-1 where there is one) -> tesseract's pack names (ISO 639-2/T, with
# tesseract's own spellings). Languages tesseract has no pack for are left out.
TESSERACT_LANGUAGE: Mapping[str, str] = {
    "af": "afr", "am": "amh", "ar": "ara", "as": "asm", "az": "aze", "be": "bel", "bg": "bul", "bn": "ben",
    "br": "bre", "bs": "bos", "ca": "cat", "cs": "ces", "cy": "cym", "da": "dan", "de": "deu", "el": "ell",
    "en": "eng", "eo": "epo", "es": "spa", "et": "est", "eu": "eus", "fa": "fas", "fi": "fin", "fo": "fao",
    "fr": "fra", "fy": "fry", "ga": "gle", "gd": "gla", "gl": "glg", "gu": "guj", "he": "heb", "hi": "hin",
    "hr": "hrv", "ht": "hat", "hu": "hun", "hy": "hye", "id": "ind", "is": "isl", "it": "ita", "ja": "jpn",
    "jv": "jav", "ka": "kat", "kk": "kaz", "km": "khm", "kn": "kan", "ko": "kor", "ku": "kmr", "ky": "kir",
    "la": "lat", "lb": "ltz", "lo": "lao", "lt": "lit", "lv": "lav", "mk": "mkd", "ml": "mal", "mn": "mon",
    "mr": "mar", "ms": "msa", "mt": "mlt", "my": "mya", "ne": "nep", "nl": "nld", "no": "nor", "nn": "nor",
    "oc": "oci", "or": "ori", "pa": "pan", "pl": "pol", "ps": "pus", "pt": "por", "qu": "que", "ro": "ron",
    "ru": "rus", "sa": "san", "si": "sin", "sk": "slk", "sl": "slv", "sq": "sqi", "sr": "srp", "sv": "swe",
    "sw": "swa", "ta": "tam", "te": "tel", "tg": "tgk", "th": "tha", "tl": "tgl", "tr": "tur", "tt": "tat",
    "ug": "uig", "uk": "ukr", "ur": "urd", "uz": "uzb", "vi": "vie", "yo": "yor", "zh": "chi_sim",
}

RECOMMENDED_PACKS: tuple[str, ...] = (
    # Western and Central Europe, the Americas; Arabic; Hindi (the first set, 2026-11)
    "eng", "deu", "fra", "spa", "ita", "por", "nld", "pol", "ara", "hin",
    # the other EU (and EEA) languages
    "ces", "slk", "slv", "hrv", "hun", "ron", "swe", "dan", "fin", "est", "lav", "lit", "mlt", "gle", "cat",
    "eus", "glg", "nor", "ell",
    # Cyrillic
    "rus", "ukr", "bel", "kaz", "srp", "bul", "mkd",
    # East and South-East Asia (with tesseract's models for vertical CJK text)
    "jpn", "jpn_vert", "chi_sim", "chi_sim_vert", "chi_tra", "chi_tra_vert", "kor", "kor_vert", "vie", "tha",
    "ind", "msa",
    # Turkish, Hebrew, the Indic scripts beyond Hindi
    "tur", "heb", "ben", "guj", "mar", "tam", "tel",
    # orientation and script detection
    "osd",
)
"""The tesseract packs `make`, the Dockerfile and `tenderflow doctor` expect: every language public tenders
are commonly published in. What it costs decided the set: Debian's packs are tesseract's fast models, 0.4-3
MB each to download (these 56: about 65 MB, 160 MB installed, 20 s of apt on a 2-core machine), and a pack
costs nothing until a document in its language is read. Left out: tesseract's `script-*` models (30 MB for
Latin alone, and slower) and the historic and minor languages; any of them can be installed and asked for."""

KNOWN_LANGUAGES = frozenset(TESSERACT_LANGUAGE.values()) | {
    "chi_tra", "chi_sim_vert", "chi_tra_vert", "jpn_vert", "kor_vert", "deu_latf", "frk", "enm", "frm", "gle_uncial",
    "grc", "ita_old", "spa_old", "kat_old", "dzo", "syr", "tir", "bod", "chr", "ceb", "iku", "kmr", "snd", "sun",
    "tat", "ton", "yid", "equ", "osd",
}
"""Every name a tesseract language pack has (what a person may ask for, installed here or not)."""

# OSD's script names -> the pack that reads that script (the first pass reads with it).
SCRIPT_LANGUAGE: Mapping[str, str] = {
    "Latin": "eng", "Arabic": "ara", "Devanagari": "hin", "Cyrillic": "rus", "Greek": "ell", "Hebrew": "heb",
    "Han": "chi_sim", "Japanese": "jpn", "Katakana": "jpn", "Hiragana": "jpn", "Hangul": "kor", "Korean": "kor",
    "Thai": "tha",
    "Bengali": "ben", "Tamil": "tam", "Telugu": "tel", "Kannada": "kan", "Malayalam": "mal", "Gujarati": "guj",
    "Gurmukhi": "pan", "Armenian": "hye", "Georgian": "kat", "Ethiopic": "amh", "Khmer": "khm", "Lao": "lao",
    "Myanmar": "mya", "Sinhala": "sin", "Oriya": "ori",
}

_NAME = re.compile(r"[a-z]{2,3}(?:_[a-z]{3,4})*")
_SEPARATORS = re.compile(r"[+,\s]+")


class LanguageError(ValueError):
    """OCR languages a person asked for that cannot be used: unknown, or not installed here."""


@dataclass(frozen=True)
class LanguageChoice:
    """The languages a document's pages are OCRed with, and why."""

    languages: str
    """What tesseract gets: installed packs joined by "+", e.g. "fra+eng"."""
    language: str | None
    """The document's (main) language as a tesseract pack name, e.g. "fra": the first language
    asked for, or the one detected (recorded even when its pack is not installed); None when
    nothing could be detected or nothing was detected because fixed languages apply."""
    source: LanguageSource
    script: str | None = None
    """The script OSD named in the first pass ("Latin", "Arabic", …), when one ran."""
    confidence: float | None = None
    """The identifier's probability for ``language``: a detected language's only."""

    def as_payload(self) -> dict[str, Any]:
        return {"languages": self.languages, "language": self.language, "source": self.source,
                "script": self.script, "confidence": self.confidence}


def missing_pack_note(language: str | None, ocr_languages: str | None) -> str | None:
    """What a person must know when a document's language has no pack where it was read: 'jpn has no
    tesseract pack on the OCR worker: its scanned pages were read as eng'; None when the pack was used
    (or nothing was detected). Said by `show`, the API's document and the dashboard, never silently."""
    if not language or not ocr_languages or language in ocr_languages.split("+"):
        return None
    if language not in KNOWN_LANGUAGES:
        return f"the document is in {language!r}, which tesseract has no pack for: its scanned pages were read as " \
               f"{ocr_languages}"
    return (f"the document is in {language}, whose tesseract pack is not installed (or does not load) where it was "
            f"read: its scanned pages were read as {ocr_languages} (apt-get install --reinstall "
            f"tesseract-ocr-{language.replace('_', '-')}, then reprocess it)")


# --- installed packs and what a person asks for --------------------------------------------------


def parse_languages(value: str, installed: frozenset[str] | None = None) -> str | None:
    """Languages a person gave ("fra+eng", "fra,eng", "fr de", "auto") in tesseract's form
    ("fra+eng"), or None for "auto" (detect). Two-letter ISO 639-1 codes are accepted for the
    languages tesseract has a pack for ("fr" -> "fra").

    Raises LanguageError naming the languages installed here for a name that is no tesseract
    language or whose pack is not installed. ``installed`` defaults to this machine's packs; on a
    machine without tesseract (an API server whose OCR runs on remote workers) names are only
    checked against the packs tesseract has.
    """
    cleaned = value.strip().lower()
    if cleaned in ("", AUTO):
        return None
    available: frozenset[str] | None = installed
    if available is None:
        try:
            available = installed_languages()
        except ConfigurationError:
            available = None
    listed = _listed(available) if available is not None else "unknown (tesseract is not installed here)"
    names: list[str] = []
    for raw in _SEPARATORS.split(cleaned):
        if not raw:
            continue
        name = TESSERACT_LANGUAGE.get(raw, raw)
        if name == "osd" or not _NAME.fullmatch(name) or name not in KNOWN_LANGUAGES | (available or frozenset()):
            raise LanguageError(
                f"unknown OCR language {raw!r}: give tesseract language names joined by '+', e.g. fra+eng, "
                f"or {AUTO!r} to detect; installed here: {listed}"
            )
        if available is not None and name not in available:
            asked = repr(raw) if raw == name else f"{raw!r} ({name})"
            raise LanguageError(
                f"OCR language {asked} is not installed here (Debian: apt-get install "
                f"tesseract-ocr-{name.replace('_', '-')}); installed: {listed}"
            )
        if name not in names:
            names.append(name)
    if not names:
        return None
    return "+".join(names)


def _listed(languages: frozenset[str]) -> str:
    return ", ".join(sorted(languages)) or "none"


def with_second_language(languages: Sequence[str], installed: frozenset[str]) -> str:
    """``languages`` that are installed, then SECOND_LANGUAGE, joined for tesseract ("fra+eng")."""
    chosen = [name for name in dict.fromkeys(languages) if name in installed]
    if SECOND_LANGUAGE in installed and SECOND_LANGUAGE not in chosen:
        chosen.append(SECOND_LANGUAGE)
    return "+".join(chosen)


# --- identification ------------------------------------------------------------------------------


def _letters(text: str) -> int:
    return sum(map(str.isalpha, text))


def warm_up(cache_dir: Path | None = None) -> None:
    """Load the identifier's model now, once per process, rather than in the first document's OCR
    plan: workers call this before they claim work. With `cache_dir` (the worker's cache), from the
    decoded copy kept there (`tenderflow.langid`)."""
    langid.load(cache_dir)


def identify(text: str) -> tuple[str, float] | None:
    """(tesseract name, probability) of the language of ``text``; None when it holds fewer than
    MIN_LETTERS letters or the identifier is unsure (below MIN_CONFIDENCE). A language tesseract
    has no pack for at all comes back under its identifier label (ISO 639-1)."""
    text = text[:IDENTIFY_CHARS]
    if _letters(text) < MIN_LETTERS:
        return None
    label, probability = langid.classify(text)
    if probability < MIN_CONFIDENCE:
        return None
    language = TESSERACT_LANGUAGE.get(label, label)
    if language == "chi_sim" and _traditional(text):
        language = "chi_tra"
    return language, probability


_SIMPLIFIED_ONLY = frozenset("们这为与学标购务会国个来时说对经发动种实现点进过关开区单项价设务报应书议务电资产县")
_TRADITIONAL_ONLY = frozenset("們這為與學標購務會國個來時說對經發動種實現點進過關開區單項價設報應書議電資產縣")
"""Frequent characters written differently in Simplified and Traditional Chinese (the identifier names
both 'zh'): Taiwan's and Hong Kong's tenders are read with chi_tra."""


def _traditional(text: str) -> bool:
    """Whether Chinese `text` is written in Traditional characters (more of its tell-tale characters)."""
    simplified = sum(character in _SIMPLIFIED_ONLY for character in text)
    traditional = sum(character in _TRADITIONAL_ONLY for character in text)
    return traditional > simplified


def identify_languages(texts: Sequence[str]) -> list[tuple[str, float, float]]:
    """The languages of a document's pages: each text (page) identified on its own, voting with its
    letters. (language, share of the voting letters, mean probability), largest share first; []
    when no text could be identified."""
    letters: dict[str, int] = {}
    probabilities: dict[str, list[float]] = {}
    for text in texts:
        found = identify(text)
        if found is None:
            continue
        language, probability = found
        letters[language] = letters.get(language, 0) + _letters(text[:IDENTIFY_CHARS])
        probabilities.setdefault(language, []).append(probability)
    total = sum(letters.values())
    ranked = sorted(letters, key=lambda language: letters[language], reverse=True)
    return [(language, letters[language] / total, sum(probabilities[language]) / len(probabilities[language]))
            for language in ranked]


def _choice_from_identified(
    identified: list[tuple[str, float, float]], installed: frozenset[str], fallback: str,
    source: LanguageSource, script: str | None = None,
) -> LanguageChoice | None:
    if not identified:
        return None
    main, _, confidence = identified[0]
    chosen = [main] + [language for language, share, _ in identified[1:MAX_DETECTED_LANGUAGES]
                       if share >= SECOND_LANGUAGE_SHARE]
    usable = [language for language in chosen if language in installed and pack_loads(language)]
    if not usable:
        return LanguageChoice(fallback, main, "fallback", script, round(confidence, 3))
    return LanguageChoice(with_second_language(usable, installed), main, source, script, round(confidence, 3))


# --- the first pass over a scanned page ----------------------------------------------------------


def first_pass(
    path: Path, page_numbers: Sequence[int], options: OcrOptions, *, installed: frozenset[str],
) -> tuple[list[str], str | None]:
    """Quick reads of the given scanned pages (at most FIRST_PASS_PAGES, stopping once one says
    enough): each rendered at FIRST_PASS_DPI, its script named by OSD, and OCRed with that script's
    pack (eng when the script is unknown or its pack is not installed), set upright first when OSD
    finds it turned. Returns the texts and the first script named. Runs in a sandboxed call, as
    read_pages does."""
    numbers = list(page_numbers)[:FIRST_PASS_PAGES]
    if not numbers:
        return [], None
    if launcher.inside():
        return _first_pass_here(path, numbers, options, installed)
    try:
        found = call_sandboxed(
            "languages.first_pass",
            {"path": os.path.abspath(path), "pages": numbers, "options": asdict(options),
             "installed": sorted(installed)},
            memory_bytes=options.memory_bytes, progress_timeout_seconds=sandbox_timeout(options) * len(numbers),
            what="the language first pass",
        )
    except ToolTimeoutError as error:
        raise error.as_job_error("the language first pass") from error
    return [str(text) for text in found["texts"]], found["script"]


@launcher.entry("languages.first_pass")
def _first_pass_entry(arguments: Mapping[str, Any], progress: Callable[[Any], None]) -> dict[str, Any]:
    texts, script = _first_pass_here(Path(arguments["path"]), [int(n) for n in arguments["pages"]],
                                     OcrOptions(**arguments["options"]), frozenset(arguments["installed"]))
    return {"texts": texts, "script": script}


def _first_pass_here(
    path: Path, numbers: list[int], options: OcrOptions, installed: frozenset[str],
) -> tuple[list[str], str | None]:
    quick = replace(options, dpi=min(FIRST_PASS_DPI, options.dpi))
    info = read_pdf_info(path, min(numbers), max(numbers), timeout_seconds=options.timeout_seconds,
                         memory_bytes=options.memory_bytes)
    sizes = {page.number: page for page in info.pages}
    texts: list[str] = []
    script: str | None = None
    with tempfile.TemporaryDirectory(prefix="tenderflow-lang-") as workdir:
        for number in numbers:
            check_page_pixels(sizes[number], dpi=quick.dpi, max_page_pixels=options.max_page_pixels)
            image = render_page(path, number, quick.dpi, quick, Path(workdir))
            try:
                text, page_script = _read_in_its_script(image, number, quick, installed)
            finally:
                image.unlink(missing_ok=True)
            script = script or page_script
            texts.append(text)
            if _letters(text) >= 4 * MIN_LETTERS:
                break
    return texts, script


def _read_in_its_script(
    image: Path, number: int, quick: OcrOptions, installed: frozenset[str]
) -> tuple[str, str | None]:
    """One rendered page read with the pack of the script OSD names (eng when no osd pack, too few
    letters, or the script's pack is missing), set upright first when OSD finds it turned. OSD takes
    the capitals of a Latin page for Cyrillic or Greek ('TEKNİK ŞARTNAME' read as 'ТЕКМК ЗАВТМАМЕ'):
    a page whose script is not Latin is read as Latin too, and the surer reading wins. Returns the text
    and the script it was read in."""
    upright = image
    try:
        orientation = detect_orientation(image, number, quick, "script detection")
        reader = SCRIPT_LANGUAGE.get(orientation.script or "Latin", SECOND_LANGUAGE)
        if reader not in installed:
            reader = SECOND_LANGUAGE
        if orientation.rotate:
            upright = set_upright(image, orientation.rotate)
        script = orientation.script
        try:
            text, confidence = text_from_tsv(recognize(upright, number, replace(quick, languages=reader)))
        except ConfigurationError:  # the script's pack is listed but does not load: the page is read as Latin
            reader = SECOND_LANGUAGE
            text, confidence = text_from_tsv(recognize(upright, number, replace(quick, languages=reader)))
        if reader == "chi_sim" and "chi_tra" in installed:
            # Han: Simplified or Traditional characters, which each model reads badly in the other's place.
            traditional = text_from_tsv(recognize(upright, number, replace(quick, languages="chi_tra")))
            if (traditional[1] or 0.0) > (confidence or 0.0):
                text, confidence = traditional
        if reader != SECOND_LANGUAGE:
            # OSD that misnames the script often misjudges the turn too: the page as it came is read as well.
            as_latin = [text_from_tsv(recognize(page, number, replace(quick, languages=SECOND_LANGUAGE)))
                        for page in dict.fromkeys([upright, image])]
            latin, latin_confidence = max(as_latin, key=lambda reading: reading[1] or 0.0)
            if (latin_confidence or 0.0) >= (confidence or 0.0) + SCRIPT_CONFIDENCE_MARGIN:
                text, confidence, script = latin, latin_confidence, "Latin"
        if (confidence or 0.0) < MIN_UPRIGHT_CONFIDENCE and VERTICAL_READER in installed:
            # Japanese set top to bottom: OSD names no script (or Latin) and every reading is garbage.
            vertical_tsv = recognize(image, number, replace(quick, languages=VERTICAL_READER))
            vertical, vertical_confidence = text_from_tsv(vertical_tsv)
            if (vertical_confidence or 0.0) >= max(confidence or 0.0, MIN_UPRIGHT_CONFIDENCE):
                return vertical, "Japanese"
        return text, script
    finally:
        if upright != image:
            upright.unlink(missing_ok=True)


# --- the choice ----------------------------------------------------------------------------------


def fixed_choice(languages: str, source: LanguageSource) -> LanguageChoice:
    """Languages asked for (upload, tenant, settings): no detection; the first one is the language."""
    return LanguageChoice(languages, languages.split("+")[0], source)


def detect_languages(
    path: Path, text_layers: Mapping[int, str], scan_pages: Sequence[int], options: OcrOptions, *,
    fallback: str = SECOND_LANGUAGE, installed: frozenset[str] | None = None,
) -> LanguageChoice:
    """Detect the document's languages: from ``text_layers`` (page number -> that page's usable
    text layer) when they hold at least MIN_LETTERS letters, else by a first pass over the first
    of ``scan_pages`` (the pages without a usable layer, in order). ``fallback`` when neither
    finds a language whose pack is installed. Raises what OCR raises (a page over the pixel cap,
    a tool timing out, tesseract missing)."""
    available = installed_languages() if installed is None else installed
    layered = [text for _, text in sorted(text_layers.items())]
    if len(layered) > IDENTIFY_PAGES:
        layered = [layered[index * len(layered) // IDENTIFY_PAGES] for index in range(IDENTIFY_PAGES)]
    if sum(_letters(text[:IDENTIFY_CHARS]) for text in layered) >= MIN_LETTERS:
        found = _choice_from_identified(identify_languages(layered), available, fallback, "text_layer")
        if found is not None:
            return found
    if scan_pages:
        texts, script = first_pass(path, scan_pages, options, installed=available)
        found = _choice_from_identified(identify_languages(["\n".join(texts)]), available, fallback,
                                        "first_pass", script)
        if found is not None:
            return found
        reader = SCRIPT_LANGUAGE.get(script or "")
        if reader and reader in available and reader != SECOND_LANGUAGE and pack_loads(reader):
            return LanguageChoice(with_second_language([reader], available), reader, "first_pass", script)
        # The script's language is recorded even when its pack is missing or does not load: `show` says so.
        return LanguageChoice(fallback, reader if reader != SECOND_LANGUAGE else None, "fallback", script)
    return LanguageChoice(fallback, None, "fallback")


def choose_ocr_languages(
    path: Path, options: OcrOptions, *, fallback: str = SECOND_LANGUAGE, installed: frozenset[str] | None = None,
) -> LanguageChoice:
    """The OCR languages for the PDF at ``path``, as the pipeline chooses them when none were asked
    for: its text layer (first TEXT_LAYER_PAGES pages) or a first pass over its first scanned pages.
    Use the result as ``dataclasses.replace(options, languages=choice.languages)`` for read_pages.
    One pdfinfo and one pdftotext run, plus the first pass for a scan (about a second a page)."""
    info = read_pdf_info(path, 1, 1, timeout_seconds=options.timeout_seconds, memory_bytes=options.memory_bytes)
    last = min(info.page_count, TEXT_LAYER_PAGES)
    layers = extract_text_layer(path, 1, last, timeout_seconds=options.timeout_seconds,
                                memory_bytes=options.memory_bytes)
    usable = {number: text for number, text in enumerate(layers, start=1) if text_layer_is_usable(text)}
    scans = [number for number in range(1, last + 1) if number not in usable]
    return detect_languages(path, usable, scans, options, fallback=fallback, installed=installed)
