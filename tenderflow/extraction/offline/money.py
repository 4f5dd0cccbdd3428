"""The estimated value of the contract, read the way an analyst reads it.

Find a label that NAMES the value ("valor estimado del contrato", "importo a base di gara", "Estimated Bid
Value", a budget ceiling such as "should not exceed a total amount of" / "Budget maximum"), then read the amount
that follows it (same cell, the cell to the right, the cell below, the next line; only its own sentence when the
label stands inside prose). Tenders are full of other amounts that sit next to similar words: the bid security,
the tender fee, a turnover or experience threshold, insurance limits, a daily rate. Those are recognised by
NEGATIVE contexts around the label and the value, and such a candidate is dropped, not down-weighted: a wrong
value costs a bidder more than a missing one.

An amount without a currency takes the currency a label states ('Estimated cost (Rs.)', 'Currency: EUR' nearby)
or, with less confidence, the currency nearly all the document's amounts are in (currencies.py reads amounts).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final

from tenderflow.extraction.offline.candidates import Candidate, choose
from tenderflow.extraction.offline.currencies import (
    CURRENCY_LABEL,
    CURRENCY_SIGN,
    MULTIPLIER,
    Amount,
    Currencies,
    amounts_in,
    token_currency,
)
from tenderflow.extraction.offline.document import Document, LabelHit, Line, Span, fold, label_regex
from tenderflow.extraction.offline.label_values import SAME_SPAN_REACH, in_prose, label_context
from tenderflow.extraction.schema import Money, Sourced

_STRONG_VALUE_LABELS: Final = (
    # en (incl. Indian portals: GeM, CPPP, PSU tenders)
    "estimated value", "estimated values", "estimated contract value", "estimated total value", "total estimated value",
    "estimated bid value", "estimated tender value", "estimated procurement value", "estimated cost",
    "estimated cost of work", "estimated cost of the work", "estimated cost of works", "estimated amount",
    "estimated budget", "estimated project cost", "tender value", "value of tender", "value of the tender",
    "approximate value", "approx value", "estimated value of the contract", "total value of the procurement",
    "estimated cost put to tender", "advertised value", "value of the contract estimated",
    # fr
    "valeur estimee", "valeur totale estimee", "valeur estimee du marche", "montant estime", "montant estimatif",
    "cout estimatif", "cout estime", "budget previsionnel", "montant previsionnel", "estimation du marche",
    # de
    "geschatzter auftragswert", "geschatzter wert", "geschatzter gesamtwert", "geschatzte auftragssumme",
    "voraussichtlicher auftragswert", "auftragswert", "schatzwert", "geschatzter netto auftragswert",
    # es
    "valor estimado", "valor estimado del contrato", "presupuesto oficial", "presupuesto estimado", "monto estimado",
    "importe estimado", "monto total estimado", "valor total estimado",
    # it
    "importo a base di gara", "importo complessivo a base di gara", "importo a base d asta",
    "importo posto a base di gara", "importo complessivo posto a base di gara", "valore stimato",
    "valore complessivo stimato", "valore stimato dell appalto", "valore totale stimato", "importo stimato",
    "valore globale stimato",
    # pl
    "wartosc szacunkowa", "szacunkowa wartosc", "szacowana wartosc", "wartosc szacunkowa zamowienia",
    "szacunkowa wartosc zamowienia", "szacunkowa całkowita wartosc",
    # pt
    "valor global estimado", "preco base", "valor de referencia", "orcamento estimado", "valor estimado do contrato",
    # nl
    "geraamde waarde", "geschatte waarde", "geschatte totale waarde", "geraamde totale waarde", "geraamde kosten",
    # ar, hi
    "القيمة التقديرية", "التكلفة التقديرية", "القيمة المقدرة", "अनुमानित मूल्य", "अनुमानित लागत",
    "अनुमानित बोली मूल्य", "निविदा मूल्य",
)  # fmt: skip
_WEAK_VALUE_LABELS: Final = (
    "budget", "contract value", "total contract value", "project cost", "cost of the project", "bid value",
    "presupuesto base de licitacion", "presupuesto", "importo complessivo dell appalto", "importo dell appalto",
    "importo complessivo", "valeur du marche", "montant du marche", "wartosc zamowienia", "raming",
    "valor do contrato", "valor del contrato",
)  # fmt: skip
"""Labels that often, not always, introduce the estimated value: read only right after the label."""

_CEILING_VALUE_LABELS: Final = (
    "budget ceiling", "maximum budget", "budget maximum", "available budget", "budget available",
    "not exceed a total amount of", "not to exceed a total amount of", "total budget available",
    "budget maximal", "plafond budgetaire", "enveloppe budgetaire", "enveloppe financiere", "budget disponible",
    "maximales budget", "budgetobergrenze", "verfugbares budget", "presupuesto maximo", "presupuesto disponible",
    "budget massimo", "budget disponibile", "tetto di spesa", "kwota jaka zamawiajacy zamierza przeznaczyc",
    "kwota przeznaczona na sfinansowanie", "orcamento maximo", "orcamento disponivel", "maximaal budget",
    "beschikbaar budget", "الميزانية المعتمدة", "الحد الاعلى للميزانية",
)  # fmt: skip
"""A budget the buyer sets as the ceiling of the offers: in a tender, its estimated value. A framework's
'montant maximum' / 'maximaler Umfang' is not one (eForms keeps it apart from the estimated value)."""
_STRONG_VALUE: Final = label_regex(_STRONG_VALUE_LABELS)
_CEILING_VALUE: Final = label_regex(_CEILING_VALUE_LABELS)
_STRONG: Final = "strong"
_CEILING: Final = "ceiling"
_WEAK: Final = "weak"
_VALUE_BASE_SCORE: Final[dict[str, float]] = {_STRONG: 0.6, _CEILING: 0.5, _WEAK: 0.4}
_WEAK_VALUE: Final = label_regex(_WEAK_VALUE_LABELS)

_VALUE_NEGATIVE: Final = re.compile(
    r"(?<![^\W_])(?:"
    # bid security, earnest money, guarantees and bonds
    r"emd|earnest|bid security|bid bond|tender security|bid guarantee|security deposit|performance security|"
    r"performance guarantee|performance bond|performance bank|bank guarantee|retention|surety|"
    r"bietersicherheit|sicherheitsleistung|burgschaft|kaution|vertragserfullung|"
    r"garantie|cautionnement|caution|garantia|fianza|aval|cauzione|garanzia|fideiussione|wadium|wadia|"
    r"zabezpieczeni|caucao|zekerheid|borgstelling|الضمان|ضمان|बयाना|"
    # fees
    r"tender fee|document fee|documents fee|cost of (?:the )?(?:bid|tender) documents?|tender documents?|"
    r"bid documents?|document cost|documents cost|cost of tender|form fee|"
    r"processing fee|application fee|registration fee|fee|fees|frais|gebuhr|tasa|contributo|oplata|"
    r"قيمة وثائق|ثمن|رسوم|शुल्क|"
    # turnover, experience, capacity thresholds
    r"turnover|chiffre d.affaires|umsatz|facturacion|volumen (?:anual )?de negocios|fatturato|obrot|faturamento|"
    r"volume de negocios|omzet|net worth|experience|similar works?|similar services|past|completed|"
    r"experiencia|esperienza|analoghi|doswiadczeni|referenzen?|references|"
    r"minimum|not less than|at least|non inferiore|au moins|mindestens|no inferior|nie mniejsz|"
    # insurance, liability, penalties
    r"insurance|assurance|versicherung|seguro|assicurazion|polizza|ubezpieczeni|liability|"
    r"penalty|penalties|liquidated damages|penalite|vertragsstrafe|penalidad|penale|kara umowna|multa|"
    # unit and partial prices
    r"daily|per day|per diem|hourly|per hour|per month|monthly|unit price|unit rate|giornaliero|journalier|"
    r"taglich|tagessatz|prix unitaire|einheitspreis|precio unitario|prezzo unitario|manodopera|labour cost|"
    r"of which|di cui|dont|davon|"
    # thresholds the value is compared with, not the value
    r"above|exceed|exceeds|exceeding|in excess of|greater than|less than|more than|below|threshold|thresholds|"
    r"seuil|seuils|superieur|inferieur|schwellenwert|uberschreit|unterschreit|soglia|soglie|supera|umbral|"
    r"progi|progu|przekracza|drempel|"
    # lots
    r"per lot|par lot|pro los"
    r")(?![^\W_])"
)
"""Words that make an amount near an estimated-value label something else: a security or guarantee,
a fee, a turnover / experience / capacity threshold, insurance, a penalty, a unit or partial price."""

_LOT_HEADING: Final = re.compile(
    r"^\W*(?:\d{1,2}(?:\.\d{1,2})*\s+)?(?:lot|lote|lotto|los|pakiet|czesc|partie|perceel)\b"
    r"(?:\s*(?:n[o°º.]*|nr\.?|number|numero|technical id|id)?\s*[:.]?\s*(?:lot-)?\d{1,4}\b)"
)
_VAT_INCLUDED: Final = re.compile(
    r"(?:ttc|iva inclu|iva compres|inkl\.? (?:mwst|ust)|including (?:vat|gst|taxes)|incl\.? (?:vat|gst)|brutto|"
    r"con iva|con impuestos|z vat|brutto|with gst|inclusive of (?:gst|vat|all taxes))"
)
_LABEL_CURRENCY: Final = re.compile(rf"(?<![^\W\d_]){CURRENCY_SIGN}(?![^\W\d_])")
_LABEL_CURRENCY_REACH: Final = 25
_IN_MULTIPLES: Final = re.compile(rf"(?<![^\W\d_]){MULTIPLIER}|'000|thousands|milliers|tausend")
_PLACEHOLDER: Final = re.compile(
    rf"\W*(?:{CURRENCY_SIGN})?\s*(?:x+|_+|\.{{2,}}|…+|\[[^\]]*\]|-+|n/?a|tbd|\*+|0+(?:[.,]0+)?)\W*", re.IGNORECASE
)
"""A template's empty value: '$ X', '____', '……', '[insert amount]', 'N/A', '0,00'."""
_BARE_AMOUNT_CELL: Final = 30
_BARE_NUMBER: Final = re.compile(r"\s*\d{3,12}(?:[.,]\d{1,2})?\s*")
"""A table cell holding only a number ('1500000'): a value, not a year or a clause number in prose."""


def _page_or_year(value: float) -> bool:
    """A bare number a table of contents or a date column prints: a page number or a year."""
    return value < 1000 or 1900 <= value <= 2100


_VALUE_THRESHOLD: Final = 0.6
_MIN_AMOUNT: Final = 100.0
_SENTENCE_END: Final = re.compile(r"(?<=[^\W\d_]{3})[.;]\s+(?=[A-ZÀ-Ý])|;")


def estimated_value(document: Document) -> Sourced[Money] | None:
    """The estimated value of the whole procurement, read after an estimated-value label; None unless
    one amount stands out (a lot's value, a security or a fee is not it)."""
    currencies = Currencies(document)
    candidates = [
        *_value_candidates(document, document.find(_STRONG_VALUE), kind=_STRONG, currencies=currencies),
        *_value_candidates(document, document.find(_CEILING_VALUE), kind=_CEILING, currencies=currencies),
        *_value_candidates(document, document.find(_WEAK_VALUE), kind=_WEAK, currencies=currencies),
    ]
    best = choose(candidates, _VALUE_THRESHOLD)
    if best is None:
        return None
    rivals = [
        candidate for candidate in candidates
        if candidate.score >= best.score - 0.05 and not _same_amount(candidate.value, best.value)
    ]  # fmt: skip
    return None if rivals else best.sourced()


def _same_amount(first: Money, second: Money) -> bool:
    return first.currency == second.currency and abs(first.amount - second.amount) <= 0.005 * max(first.amount, 1)


def _value_candidates(
    document: Document, hits: Iterator[LabelHit], *, kind: str, currencies: Currencies
) -> Iterator[Candidate[Money]]:
    """Amounts after value labels of one kind: the nearest span with an amount, unless a negative
    context (before the label, or between it and the amount) says it is something else."""
    for hit in hits:
        context = label_context(document, hit)
        if _VALUE_NEGATIVE.search(context):
            continue
        prose = in_prose(hit)
        for span in document.spans_after(hit):
            if (kind != _STRONG and span.distance > 1) or (prose and span.how != "same"):
                break
            text = span.text
            if span.how == "same":
                text = _SENTENCE_END.split(text[:SAME_SPAN_REACH], maxsplit=1)[0]
            if span.distance == 0 and _PLACEHOLDER.fullmatch(text):
                break  # 'PRESUPUESTO OFICIAL: $ X': a template, no value
            amounts = [amount for amount in amounts_in(text, currencies) if amount.value >= _MIN_AMOUNT]
            if not amounts:
                continue
            amount = next((amount for amount in amounts if amount.currency), amounts[0])
            if _VALUE_NEGATIVE.search(fold(text[: amount.start])):
                break
            candidate = _value_candidate(document, hit, span, text, amount, kind=kind, currencies=currencies)
            if candidate is not None:
                yield candidate
                break


def _value_candidate(
    document: Document,
    hit: LabelHit,
    span: Span,
    text: str,
    amount: Amount,
    *,
    kind: str,
    currencies: Currencies,
) -> Candidate[Money] | None:
    """The candidate for `amount`, scored by label kind, place and how its currency is known; None
    when its currency is unknown or the label counts in multiples ('Rs. in lakh')."""
    score = _VALUE_BASE_SCORE[kind]
    why = [f"label {hit.label!r}", span.how]
    currency = amount.currency
    if _label_multiplier(hit) and not amount.scaled:
        return None  # 'Estimated Cost (Rs. in lakh)   45.60': the amount is not the number printed
    if currency is None and (labelled := CURRENCY_LABEL.search(span.line.text)) is not None:
        currency = currencies.resolve(token_currency(labelled["token"]))  # '1 250 000.00 Currency: EUR'
    if currency is None:
        if span.how != "same" and len(span.text) > _BARE_AMOUNT_CELL:
            return None  # a bare number inside other text below the label: an address, a count, …
        currency = _label_currency(document, hit, currencies)
        if currency is not None:
            why.append("currency from label")
        elif (
            kind == _STRONG
            and (amount.grouped or (_BARE_NUMBER.fullmatch(text) and not _page_or_year(amount.value)))
            and (currency := currencies.dominant()) is not None
        ):
            score -= 0.1
            why.append("document's currency")
        else:
            return None
    else:
        score += 0.1
    score += {"same": 0.1, "right": 0.1, "below": 0.05, "next": 0.0}[span.how] - 0.05 * max(0, span.distance - 1)
    if _under_lot_heading(document, hit.line):
        score -= 0.15
        why.append("lot")
    if _VAT_INCLUDED.search(fold(text[amount.end : amount.end + 40])):
        score -= 0.1
        why.append("VAT included")
    return Candidate(
        Money(amount=amount.value, currency=currency), span.page, span.quote, round(score, 3), ", ".join(why)
    )


def _label_currency(document: Document, hit: LabelHit, currencies: Currencies) -> str | None:
    """The currency a label states ('Estimated cost (Rs.)', 'Tender value in ₹', 'Importo €') or a
    'Currency: EUR' label within three lines of it."""
    cell = hit.line.cell_at(hit.start)
    after_label = hit.line.text[hit.end : cell.end if cell is not None else len(hit.line.text)]
    for token in _LABEL_CURRENCY.finditer(after_label[:_LABEL_CURRENCY_REACH]):
        if (currency := currencies.resolve(token_currency(token.group()))) is not None:
            return currency
    page = document.lines_of(hit.line.page)
    for line in page[max(0, hit.line.row - 3) : hit.line.row + 4]:
        if (labelled := CURRENCY_LABEL.search(line.text)) is not None:
            if (currency := currencies.resolve(token_currency(labelled["token"]))) is not None:
                return currency
    return None


def _label_multiplier(hit: LabelHit) -> bool:
    """Whether the label announces a unit of account: '(Rs. in lakh)', '(€ million)', "(in '000)"."""
    cell = hit.line.cell_at(hit.start)
    after_label = hit.line.folded[hit.end : cell.end if cell is not None else len(hit.line.folded)]
    return _IN_MULTIPLES.search(after_label[:_LABEL_CURRENCY_REACH]) is not None


def _under_lot_heading(document: Document, line: Line) -> bool:
    """Whether a 'Lot 2' / 'Lote 1:' heading stands within the 8 lines above: the value is a lot's."""
    page = document.lines_of(line.page)
    return any(_LOT_HEADING.match(other.folded) for other in page[max(0, line.row - 8) : line.row + 1])
