"""Rules and model together: the offline extractor reads every field, the LLM only what it left open.

    reading  = offline.read(pages)                        fields, confidence per field (offline/)
    asked    = the fields it did not find or is unsure of (confidence < offline.unsure_below)
    excerpt  = the pages that can hold them, cut to the lines near their labels (pages_for)
    answer   = llm.read_fields(excerpt, asked)            a schema and instructions for those only
    fields   = the offline fields, each asked field replaced by the LLM's value where that value
               is grounded on its page (validation.py) and its quote is a line that can hold the
               field (a label of it, a currency, a date: the cues of `pages_for`); `found_by`
               says which extractor found each

Lots and award criteria stay the offline extractor's: they are the longest answers to write (an
LLM's output tokens cost the most) and the rules read them from the notices that have them.

What the LLM is sent is bounded by `excerpt_chars` whatever the document's length, so a long
document costs about what a short one does; a document the rules read whole costs no call at all.
An LLM failure that retrying cannot mend (a request refused, an answer that is not JSON twice)
leaves the rules' fields, with a flag saying so; one that may pass (429, 5xx, timeouts) fails the
job so that the queue tries it again.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Protocol

from tenderflow.errors import ExtractionError, RetryableError
from tenderflow.extraction.backend import BackendReading, Interrupt, Page, PageLike, Usage
from tenderflow.extraction.offline import OfflineBackend
from tenderflow.extraction.schema import FIELD_PATHS, FoundBy, TenderFields, field_value, filled_paths, with_values
from tenderflow.extraction.validation import validate_fields

ASKABLE: Final = tuple(path for path in FIELD_PATHS if path not in ("lots", "award_criteria", "buyer.country"))
"""The fields the LLM may be asked for (see the module docstring for lots and award criteria; the buyer's
country is inferred from the document's evidence after any backend, by extraction/country.py)."""

# Fields a notice states near its beginning (its heading, its first section): the first lines of
# the first pages can hold them even where no label is recognised.
_OPENING_FIELDS: Final = frozenset({
    "buyer.name", "buyer.address", "buyer.country", "title", "reference_number", "notice_type", "procedure_type",
    "main_category", "place_of_performance",
})
_OPENING_PAGES: Final = 2
_OPENING_LINES: Final = 25
_CONTEXT_LINES: Final = 2

_DATE: Final = (r"\d{1,2}\s*[./-]\s*\d{1,2}\s*[./-]\s*\d{2,4}|\d{4}\s*[./-]\s*\d{1,2}\s*[./-]\s*\d{1,2}|\d{4}\s*年"
                r"|\d{1,2}(?:st|nd|rd|th)?\s+[A-Za-zÀ-ÿ]{3,}\.?\s+\d{4}|[A-Za-z]{3,}\.?\s+\d{1,2},?\s+\d{4}")
_DEADLINE_WORDS: Final = (r"deadline|closing|last date|due date|submission|receipt|received|Frist|Schluss"
                          r"|Ablauf|date limite|remise|plazo|presentaci|scadenza|termin|prazo"
                          r"|截止|締切|期限|마감|срок|окончани|προθεσμ|موعد|آخر")
# Per field: what a line that states it contains. Matched case-insensitively, line by line.
_CUES: Final[dict[str, str]] = {
    "buyer.name": r"contracting (?:authority|entity)|buyer|purchaser|employer|client|Auftraggeber|Vergabestelle"
                  r"|acheteur|pouvoir adjudicateur|organisme|entidad|órgano|amministrazione|stazione appaltante"
                  r"|zamawiaj|заказчик|发包|招标人|采购人|発注|契約担当|발주|수요기관|αναθέτ|الجهة|ministry|municipal",
    "buyer.address": r"address|adresse|Anschrift|dirección|indirizzo|adres|адрес|地址|住所|주소|διεύθυνση|العنوان"
                     r"|street|road|\b\d{4,6}\b",
    "buyer.country": r"country|pays|Land|país|paese|kraj|страна|国|国家|국가|χώρα|الدولة",
    "buyer.email": r"@|e-?mail|courriel|correo|posta elettronica|почта|邮箱|メール|이메일",
    "buyer.phone": r"tel|phone|fax|téléphone|teléfono|telefono|телефон|电话|電話|전화|τηλ|هاتف|\+\d{2,3}[\s\d()-]{6,}",
    "title": r"title|titre|Bezeichnung|Titel|título|titolo|oggetto|objet|object|subject"
             r"|name of (?:the )?(?:work|project)|наименование|名称|件名|건명|τίτλος|عنوان|tender for|invitation"
             r"|request for",
    "reference_number": r"ref|no\.|number|n°|nº|nr\.?|Aktenzeichen|Vergabenummer|expediente|CIG|numer|номер|№|编号"
                        r"|番号|번호|αριθ|رقم|tender id|bid id|file",
    "notice_type": r"notice|avis|Bekanntmachung|anuncio|bando|ogłoszenie|извещение|公告|公示|공고|προκήρυξη|إعلان"
                   r"|corrigendum|addendum|amendment",
    "procedure_type": r"procedure|procédure|Verfahren|procedimiento|procedura|tryb|способ|方式|入札方式|방법"
                      r"|διαδικασία|open tender|restricted|negotiat|competitive",
    "main_category": r"works|goods|supplies|services|travaux|fournitures|Bauleistung|Lieferung|Dienstleistung"
                     r"|obras|suministros|servicios|lavori|forniture|servizi|roboty|dostawy|usługi|работ|товар|услуг"
                     r"|工程|货物|服务|工事|物品|役務|공사|물품|용역",
    "cpv_codes": r"CPV|\b\d{8}(?:-\d)?\b",
    "estimated_value": r"value|budget|amount|cost|Wert|Auftragswert|montant|valeur|importe|presupuesto|importo"
                       r"|wartość|стоимость|цена|金额|预算|価格|金額|금액|예산|προϋπολογισμ|القيمة|€|\$|£|₹|¥|₩|₽"
                       r"|\b(?:EUR|USD|GBP|INR|CHF|PLN|RON|JPY|KRW|CNY|RUB|SAR|KES|CAD|AUD|ARS)\b|lakh|crore",
    "submission_deadline": _DEADLINE_WORDS,
    "questions_deadline": r"question|clarification|queries|enquir|Fragen|Bieterfragen|éclaircissement|aclaraci"
                          r"|chiarimenti|pytania|разъяснени|澄清|質問|질의|διευκρινίσ|استفسار|pre-bid",
    "place_of_performance": r"place|location|site|lieu|Ort|Leistungsort|lugar|luogo|miejsce|место|地点|場所|장소"
                            r"|τόπος|مكان|NUTS|delivery",
    "contract_duration": r"duration|period|term|durée|Laufzeit|Dauer|duración|plazo|durata|czas|okres|срок"
                         r"|期限|期间|期間|기간|διάρκεια|مدة|months?|years?|weeks?|days|mois|Monate|meses|mesi"
                         r"|miesi|месяц|个月|か月|ヶ月|개월",
    "submission_url": r"https?://|www\.|portal|platform|e-?procurement|eprocure|\.gov|\.gob|\.gouv",
}
_DATE_FIELDS: Final = frozenset({"submission_deadline", "questions_deadline"})
_COMPILED: Final = {name: re.compile(pattern, re.IGNORECASE) for name, pattern in _CUES.items()}
_DATE_PATTERN: Final = re.compile(_DATE, re.IGNORECASE)


class FieldReader(Protocol):
    """What the hybrid backend needs of an LLM backend: some fields read from some pages."""

    model: str

    def read_fields(
        self, pages: Sequence[PageLike], fields: Sequence[str] | None = None, *, interrupt: Interrupt | None = None
    ) -> tuple[TenderFields, Usage]: ...


@dataclass(frozen=True)
class Excerpt:
    """One page, or the lines of it that can hold the asked fields (verbatim, in order)."""

    number: int
    text: str


def pages_for(pages: Sequence[PageLike], fields: Sequence[str], *, excerpt_chars: int) -> list[Excerpt]:
    """The parts of `pages` that can hold `fields`, at most `excerpt_chars` characters in all.

    A line can hold a field when it has one of the field's cues (a label in one of the dev set's
    languages, a currency, an e-mail sign, a CPV code; a deadline's line also a date), and the lines
    around it are kept with it (a label's value is often on the next line); the opening lines of the
    first pages can hold the fields a notice starts with. Lines are scored by how many asked fields
    they may hold and the best kept until the budget is spent, then put back in page order.
    """
    wanted = [name for name in fields if name in _COMPILED]
    scored: list[tuple[float, int, int]] = []  # (score, page number, line index)
    lines_of: dict[int, list[str]] = {}
    for page in sorted(pages, key=lambda page: page.number):
        lines = page.text.splitlines()
        lines_of[page.number] = lines
        for index, line in enumerate(lines):
            if not line.strip():
                continue
            score = sum(1.0 for name in wanted if _holds(name, line))
            if page.number <= _OPENING_PAGES and index < _OPENING_LINES and _OPENING_FIELDS & set(wanted):
                score += 0.5  # the heading: weaker than a label, stronger than nothing
            if score:
                scored.append((score, page.number, index))
    scored.sort(key=lambda item: (-item[0], item[1], item[2]))
    kept: dict[int, set[int]] = {}
    budget = excerpt_chars
    for _, number, index in scored:
        lines = lines_of[number]
        window = range(max(0, index - _CONTEXT_LINES), min(len(lines), index + _CONTEXT_LINES + 1))
        new = [at for at in window if at not in kept.get(number, set())]
        cost = sum(len(lines[at]) + 1 for at in new)
        if cost > budget:
            continue
        kept.setdefault(number, set()).update(new)
        budget -= cost
    return [Excerpt(number, "\n".join(lines_of[number][at] for at in sorted(kept[number])))
            for number in sorted(kept)]


def _holds(name: str, line: str) -> bool:
    if _COMPILED[name].search(line) is None:
        return False
    return name not in _DATE_FIELDS or _DATE_PATTERN.search(line) is not None


class HybridBackend:
    """The offline extractor first, then the LLM for the fields it left empty or is unsure of."""

    name = "hybrid"

    def __init__(self, offline: OfflineBackend, llm: FieldReader, *, excerpt_chars: int = 6000) -> None:
        self._offline = offline
        self._llm = llm
        self._excerpt_chars = excerpt_chars

    @property
    def model(self) -> str:
        return self._llm.model

    def extract(self, pages: Sequence[PageLike], *, interrupt: Interrupt | None = None) -> tuple[TenderFields, Usage]:
        reading = self.read(pages, interrupt=interrupt)
        return reading.fields, reading.usage

    def read(self, pages: Sequence[PageLike], *, interrupt: Interrupt | None = None) -> BackendReading:
        """The fields (see the module docstring), with the offline extractor's confidence, rules and
        candidates for what it found and still holds, and `usage.found_by` naming the extractor of
        every field that holds a value. Raises the LLM backend's retryable errors (and LeaseLostError)."""
        reading = self._offline.read(pages, interrupt=interrupt)
        asked = [path for path in ASKABLE if reading.confidence.get(path, 0.0) < self._offline.unsure_below]
        excerpt = pages_for(pages, asked, excerpt_chars=self._excerpt_chars) if asked else []
        if not excerpt:
            return _offline_only(reading)
        try:
            answer, spent = self._llm.read_fields([Page(part.number, part.text) for part in excerpt], asked,
                                                  interrupt=interrupt)
        except ExtractionError as error:
            if isinstance(error, RetryableError):
                raise  # the endpoint is away for now: the job is tried again later, the LLM with it
            # The request or the answer cannot succeed (refused, not JSON twice): the rules' fields
            # stand on their own, and the flag says what the LLM did not add.
            return _offline_only(reading, f"nothing from the LLM for {', '.join(asked)}: {error}")
        # Grounded against the whole pages (the excerpt's lines are theirs, verbatim): an LLM value
        # that fails leaves the offline value, if any, in place.
        grounded, flags = validate_fields(answer, pages)
        labelled, unlabelled = _labelled(grounded, asked)
        fields, found_by = _combine(reading.fields, labelled, asked)
        offline = {path for path, by in found_by.items() if by == "offline"}
        usage = Usage(model=spent.model, prompt_tokens=spent.prompt_tokens, completion_tokens=spent.completion_tokens,
                      calls=spent.calls, notes=(*spent.notes, *flags, *unlabelled), found_by=found_by)
        return BackendReading(
            fields, usage,
            confidence={path: value for path, value in reading.confidence.items() if path in offline},
            rules={path: rule for path, rule in reading.rules.items() if path in offline},
            candidates={path: value for path, value in reading.candidates.items() if path not in found_by})


def _offline_only(reading: BackendReading, note: str | None = None) -> BackendReading:
    usage = Usage(notes=(note,) if note else (), found_by=dict.fromkeys(filled_paths(reading.fields), "offline"))
    return BackendReading(reading.fields, usage, reading.confidence, reading.rules, reading.candidates)


def _labelled(answer: TenderFields, asked: Sequence[str]) -> tuple[TenderFields, list[str]]:
    """The answer without the values whose quote is not a line that can hold their field (no label,
    currency, date… of it: what `pages_for` looks for). Grounding proves a value is written on the
    page; this that it is written where that field is stated: a small model that puts the phone
    number in the reference, or any date in the deadline, is refused here."""
    update: dict[str, object] = {}
    flags: list[str] = []
    for path in asked:
        value = field_value(answer, path)
        if value in (None, []) or path not in _COMPILED:
            continue
        items = value if isinstance(value, list) else [value]
        kept = [item for item in items if _holds(path, item.quote)]
        if len(kept) == len(items):
            continue
        flags += [f"{path}: dropped the LLM's {_short(item.value)}: its quote holds no label of the field "
                  f"(page {item.page})" for item in items if item not in kept]
        update[path] = kept if isinstance(value, list) else None
    return with_values(answer, update), flags


def _short(value: object) -> str:
    text = repr(value.model_dump() if hasattr(value, "model_dump") else value)
    return text if len(text) <= 60 else text[:59] + "…"


def _combine(
    offline: TenderFields, llm: TenderFields, asked: Sequence[str]
) -> tuple[TenderFields, dict[str, FoundBy]]:
    """The offline fields with each asked field the LLM answered replaced by its answer."""
    found_by: dict[str, FoundBy] = dict.fromkeys(filled_paths(offline), "offline")
    answered: dict[str, object] = {}
    for path in asked:
        value = field_value(llm, path)
        if value in (None, []):
            continue
        found_by[path] = "llm"
        answered[path] = value
    return with_values(offline, answered), {path: found_by[path] for path in FIELD_PATHS if path in found_by}
