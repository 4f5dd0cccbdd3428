"""Contract duration: how long the contract runs, read after a contract-period label.

A number with a unit (days, weeks, months, years) after a label that names the contract's period:
'11 mois', '24 Monate', 'doce (12) meses', '36 miesięcy', 'three (3) calendar years', '90 (Days)'. Periods
that are not the contract's (offer validity, warranty, payment term, notice period) are recognised by negative
contexts and dropped. Durations written only in words, and durations derived from a start and an end date, are
not returned: validation requires the number to be printed in the quote, and neither states it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final

from tenderflow.extraction.offline.candidates import Candidate, choose
from tenderflow.extraction.offline.document import Document, LabelHit, fold, label_regex
from tenderflow.extraction.offline.label_values import SAME_SPAN_REACH, in_prose, label_context
from tenderflow.extraction.schema import ContractDuration, DurationUnit, Sourced

_DURATION_LABELS: Final = (
    # en
    "contract period", "period of contract", "period of the contract", "contract duration",
    "duration of the contract", "duration of contract", "contract term", "term of the contract", "term of contract",
    "period of performance", "performance period", "ordering period", "completion period", "period of completion",
    "time for completion", "time allowed for completion", "time of completion", "duration of the assignment",
    "duration of the framework agreement", "term of the agreement", "agreement term", "initial term",
    "duration of work", "duration of the project", "project duration", "contract tenure", "tenure of contract",
    "period of work", "period of works", "work completion period", "time of performance",
    # fr
    "duree du marche", "duree de l accord cadre", "duree du contrat",
    "duree de la mission", "duree des prestations", "delai d execution", "delai global d execution",
    "duree d execution", "periode d execution",
    # de
    "laufzeit", "vertragslaufzeit", "vertragsdauer", "ausfuhrungsfrist", "ausfuhrungsfristen", "ausfuhrungszeitraum",
    "leistungszeitraum", "dauer des auftrags", "laufzeit des vertrags", "laufzeit der rahmenvereinbarung",
    "vertragszeitraum",
    # es
    "duracion del contrato", "plazo de ejecucion", "plazo de duracion", "plazo de duracion del contrato",
    "plazo del contrato", "periodo de ejecucion", "plazo de vigencia",
    # it
    "durata dell appalto", "durata del contratto", "durata del servizio", "durata dell accordo quadro",
    "durata della concessione", "termine di esecuzione", "tempo di esecuzione",
    # pl
    "czas trwania umowy", "termin realizacji", "termin wykonania", "okres realizacji", "czas realizacji",
    "termin wykonania zamowienia", "termin realizacji zamowienia", "okres obowiazywania umowy",
    "okres obowiazywania zamowienia",
    # pt
    "prazo de execucao", "prazo de vigencia", "duracao do contrato", "prazo contratual", "prazo do contrato",
    # nl
    "looptijd", "looptijd van de overeenkomst", "uitvoeringstermijn", "duur van de opdracht",
    "duur van de overeenkomst",
    "time limit for completion", "time limit for the contract", "time limit for the work", "time limit for execution",
    "time limit for the work contract", "completion time",
    # ar, hi
    "مدة العقد", "مدة التنفيذ", "مدة تنفيذ العقد", "مدة تنفيذ الاعمال", "فترة العقد", "مدة المشروع", "فترة التنفيذ",
    "अनुबंध अवधि", "संविदा अवधि",
)  # fmt: skip
_GENERIC_DURATION_LABELS: Final = ("duration", "duree", "dauer", "duracion", "durata", "duracao", "duur", "المدة")
"""One-word labels: trusted only at the start of a line with the value right after them."""

_DURATION_LABEL: Final = label_regex(_DURATION_LABELS)
_GENERIC_DURATION_LABEL: Final = label_regex(_GENERIC_DURATION_LABELS)
_PERIOD_OF: Final = label_regex((
    "for a period of", "for a term of", "pour une duree de", "pour une periode de", "fur einen zeitraum von",
    "fur die dauer von", "mit einer laufzeit von", "por un periodo de", "por un plazo de", "per un periodo di",
    "per la durata di", "per una durata di", "na okres", "pelo prazo de", "por um periodo de", "voor een periode van",
    "voor de duur van", "لمدة",
))  # fmt: skip
_CONTRACT_WORD: Final = re.compile(
    r"(?<![^\W_])(?:contract|agreement|framework|marche|contrat|accord|vertrag|rahmenvereinbarung|contrato|contratto|"
    r"appalto|accordo|umow|overeenkomst|العقد|अनुबंध|संविदा)"
)

_DURATION_NEGATIVE: Final = re.compile(
    r"(?<![^\W_])(?:"
    r"offer|offre|angebot|oferta|offert|propos|bid|bindefrist|zuschlagsfrist|vincolant|mantenimiento|zwiazani|"
    r"gestanddoening|validite|validez|validade|validita|bid validity|صلاحية|वैधता|"
    r"warrant|guarant|garanti|gewahrleist|garanzi|gwarancj|rekojmi|defect|الضمان|"
    r"payment|paiement|zahlung|pago|pagament|platnos|betaling|الدفع|invoice|factur|rechnung|"
    r"procedimento|procedure|procedura|verfahren|procedimiento|"
    r"notice period|period of notice|prior notice|preavis|kundigung|preaviso|wypowiedzeni|"
    r"question|clarification|fragen|pregunta|quesit|pytani|"
    r"experience|experiencia|esperienz|doswiadczeni|erfahrung|"
    r"insurance|versicherung|seguro|assicurazion|"
    r"publication|publicacion|pubblicazion|veroffentlich|record|retain|retention|archiv|conserv|aufbewahr|"
    r"security|deposit|bond|sicherheit|extend|extension|prolong|verlanger|prorog|renew|renouvel|reconduct|"
    r"przedluz|beyond|after the|au-dela|nach ablauf"
    r")"
)
"""Periods that are not the contract's: offer validity, warranty, payment term, notice period, the
procedure's own length, questions, experience, insurance, publication, offers."""

_UNIT_WORDS: Final[tuple[tuple[DurationUnit, str], ...]] = (
    (
        "days",
        "day days jour jours tag tage tagen dia dias giorno giorni dni dzien dnia dag dagen يوم ايام أيام "
        "يوما يوماً दिन दिवस",
    ),
    (
        "weeks",
        "week weeks semaine semaines woche wochen semana semanas settimana settimane tydzien tygodnie "
        "tygodni weken اسبوع أسبوع اسابيع أسابيع सप्ताह",
    ),
    (
        "months",
        "month months mois monat monate monaten mes meses mese mesi miesiac miesiace miesiecy maand "
        "maanden شهر شهرا شهراً اشهر أشهر شهور माह महीने महीना",
    ),
    (
        "years",
        "year years an ans annee annees jahr jahre jahren ano anos anno anni rok lata lat jaar jaren سنة "
        "سنوات عام أعوام اعوام वर्ष साल",
    ),
    # the forms 'in months' takes: 'Laufzeit in Monaten', 'okres w miesiącach', 'liczba dni'
    ("days", "dniach"),
    ("months", "miesiacach"),
    ("years", "latach"),
)
_DURATION_UNITS: Final[dict[str, DurationUnit]] = {
    fold(word): unit for unit, words in _UNIT_WORDS for word in words.split()
}
"""Unit words, folded as the text they are matched in ('أشهر' → 'اشهر', 'días' → 'dias')."""
_UNIT_WORD: Final = "|".join(sorted((re.escape(word) for word in _DURATION_UNITS), key=len, reverse=True))
_DURATION: Final = re.compile(
    r"(?<![\d.,/])(?P<number>\d{1,4})(?![\d.,/]\d)\)?\s*(?:\([^()\d]{1,20}\)\s*)?-?\s*"
    r"(?:(?:calendar|working|business|consecutive|clear|natural|naturales|corridos|habiles|administrativos|"
    r"naturali|consecutivi|lavorativi|solari|kalendertage|kalendarzowych|roboczych|uteis|corridos|"
    r"de calendrier|ouvres|ouvrables|calendaires)\s+)*"
    rf"\(?(?P<unit>{_UNIT_WORD})\)?(?![^\W\d_])"
)
_DURATION_UNIT_FIRST: Final = re.compile(
    rf"(?<![^\W\d_])(?:in|en|w|em|in de)\s+(?P<unit>{_UNIT_WORD})\s*[:.)]?\s*(?P<number>\d{{1,4}})(?![\d.,/]\d)"
)
"""'Duration in months: 36', 'Durée en mois : 36', 'Laufzeit in Monaten: 24' (eForms / TED forms)."""
_BARE_DURATION: Final = re.compile(r"\W*(?:[^\W\d_]{1,10}\)\W*)?(\d{1,4})\W*")
"""A number alone after its label, maybe after the label's own '(Days)': '180', '(Days) 180'."""
_LABEL_UNIT: Final = re.compile(rf"\s*\(?\s*(?:(?:in|en|w|em)\s+)?(?P<unit>{_UNIT_WORD})\b")
"""The unit a label announces: '(Days)', 'in months', 'en mois', 'w miesiącach'."""
_AFTER_THE_CONTRACT: Final = re.compile(
    r"[^.;]{0,40}?(?:(?:following|after|beyond|from) (?:the )?(?:completion|expiry|expiration|termination|end)|"
    r"apres (?:la fin|l.achevement|l.expiration)|nach (?:ablauf|abschluss|beendigung)|"
    r"(?:despues|tras) (?:de )?(?:la )?(?:finalizacion|terminacion)|(?:dopo|dalla) (?:la )?(?:conclusione|scadenza)|"
    r"po (?:zakonczeniu|uplywie))"
)
"""A period counted from the END of the contract (records kept, access granted, a defects period):
'continues for a period of three (3) years following the completion of the Services'."""
_MAX_DAYS: Final[dict[DurationUnit, int]] = {"days": 1, "weeks": 7, "months": 30, "years": 365}
_DURATION_THRESHOLD: Final = 0.6


def contract_duration(document: Document) -> Sourced[ContractDuration] | None:
    """How long the contract runs, read after a contract-period label; None when no label gives a
    number with a unit, or when two equally good candidates disagree."""
    candidates = [
        *_duration_candidates(document, document.find(_DURATION_LABEL), kind=_NAMED),
        *_duration_candidates(document, document.find(_GENERIC_DURATION_LABEL), kind=_GENERIC),
        *_duration_candidates(document, document.find(_PERIOD_OF), kind=_PERIOD),
    ]
    best = choose(candidates, _DURATION_THRESHOLD)
    if best is None:
        return None
    best_days = _days(best.value)
    rivals = [
        candidate for candidate in candidates
        if candidate.score >= best.score - 0.05 and abs(_days(candidate.value) - best_days) > 0.1 * best_days
    ]  # fmt: skip
    return None if rivals else best.sourced()


def _days(duration: ContractDuration) -> float:
    return duration.amount * _MAX_DAYS[duration.unit]


_NAMED: Final = "named"
_GENERIC: Final = "generic"
_PERIOD: Final = "period"
_BASE_SCORE: Final[dict[str, float]] = {_NAMED: 0.65, _GENERIC: 0.55, _PERIOD: 0.55}
_HOW_SCORE: Final[dict[str, float]] = {"same": 0.1, "right": 0.1, "below": 0.05, "next": 0.0}


def _duration_candidates(
    document: Document, hits: Iterator[LabelHit], *, kind: str
) -> Iterator[Candidate[ContractDuration]]:
    """Durations after duration labels. A generic label ('Durée', 'Duration') counts only at the
    start of a line with the value on the same line; 'for a period of' only after a contract word in
    the same sentence ('The rate contract will be for a period of 2 years')."""
    for hit in hits:
        if kind == _GENERIC and not hit.at_line_start:
            continue
        context = label_context(document, hit)
        if _DURATION_NEGATIVE.search(context):
            continue
        if kind == _PERIOD and not _CONTRACT_WORD.search(context):
            continue
        prose = in_prose(hit)
        for span in document.spans_after(hit, below=2):
            if (kind != _NAMED and span.distance > 0) or (prose and span.how != "same"):
                break
            text = fold(span.text)
            if span.how == "same":
                text = text[:SAME_SPAN_REACH]
            duration = _duration_in(text) or _bare_duration(hit, text)
            if duration is None:
                continue
            value, position = duration
            if _DURATION_NEGATIVE.search(text[:position]) or _AFTER_THE_CONTRACT.match(
                text, position + len(str(value.amount))
            ):
                break
            score = _BASE_SCORE[kind] + _HOW_SCORE[span.how] - 0.05 * max(0, span.distance - 1)
            yield Candidate(value, span.page, span.quote, round(score, 3), f"label {hit.label!r}, {span.how}")
            break


def _bare_duration(hit: LabelHit, text: str) -> tuple[ContractDuration, int] | None:
    """A bare number after a label that carries the unit: 'Period Of Work(Days)   180'."""
    number = _BARE_DURATION.fullmatch(text)
    if number is None:
        return None
    cell = hit.line.cell_at(hit.start)
    label_rest = hit.line.folded[hit.end : cell.end if cell is not None else len(hit.line.folded)]
    unit = _LABEL_UNIT.match(label_rest)
    if unit is None:
        return None
    return _plausible(int(number[1]), _DURATION_UNITS[unit["unit"]], number.start(1))


def _duration_in(text: str) -> tuple[ContractDuration, int] | None:
    """The first duration in folded `text` ('24 monate', 'doce (12) meses', 'in months: 36') and
    where it starts; None if there is none or it is implausible (nothing, or over 30 years)."""
    match = _DURATION_UNIT_FIRST.search(text) or _DURATION.search(text)
    if match is None:
        return None
    return _plausible(int(match["number"]), _DURATION_UNITS[match["unit"]], match.start())


def _plausible(amount: int, unit: DurationUnit, position: int) -> tuple[ContractDuration, int] | None:
    """The duration if it is one a contract can have (more than nothing, at most 30 years)."""
    if not 0 < amount * _MAX_DAYS[unit] <= 365 * 30:
        return None
    return ContractDuration(amount=amount, unit=unit), position
