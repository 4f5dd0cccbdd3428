"""Born-digital tender PDFs: the page layouts a notice's facts are printed in, drawn with reportlab.

Each `render_*` function writes one PDF with a real text layer and returns its page count:

    render_eforms_notice      TED/eForms-style notice with numbered sections (Section I, II, IV, …)
    render_municipal_letter   a town's letter on letterhead with the facts as a label/value list
    render_two_column_bulletin  an official-gazette page: full-width title, text in two columns
    render_lots_notice        key-facts box, a table of lots and a table of weighted award criteria
    render_long_tender        an eForms notice plus a multi-page specification and a landscape annex
    render_addendum           an addendum that extends the notice's submission deadline (tender packages)

Output is byte-for-byte reproducible (reportlab's invariant mode fixes dates and document ids).
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

from reportlab.lib import colors
from reportlab.lib.enums import TA_RIGHT
from reportlab.lib.pagesizes import A4, landscape
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import cm
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.platypus import (
    BaseDocTemplate,
    Flowable,
    Frame,
    FrameBreak,
    KeepTogether,
    NextPageTemplate,
    PageBreak,
    PageTemplate,
    Paragraph,
    Spacer,
    Table,
    TableStyle,
)

from tenderflow.samples.notices import WORDING, NoticeWording, TenderFacts
from tenderflow.samples.specification import SPECIFICATION_SECTIONS, pricing_schedule_rows

# A type alias for the renderers, so the generator can pick one by name.
Renderer = Callable[[TenderFacts, Path, random.Random], int]

# Where distributions put DejaVu; it covers all of Latin (and more), where the PDF base-14 Helvetica
# covers only Latin-1. Nothing is downloaded: without DejaVu, Helvetica still covers en/de/fr.
_DEJAVU_DIRECTORIES = (
    Path("/usr/share/fonts/truetype/dejavu"),
    Path("/usr/share/fonts/dejavu"),
    Path("/usr/share/fonts/TTF"),
    Path("/usr/local/share/fonts"),
)

_PAGE_WIDTH, _PAGE_HEIGHT = A4
_MARGIN = 2 * cm
_GREY = colors.Color(0.85, 0.85, 0.85)
_DARK = colors.Color(0.15, 0.2, 0.35)


@dataclass(frozen=True)
class _Fonts:
    regular: str
    bold: str


@functools.cache
def _fonts() -> _Fonts:
    """Register DejaVu Sans once per process if the system has it, else fall back to Helvetica."""
    for directory in _DEJAVU_DIRECTORIES:
        regular, bold = directory / "DejaVuSans.ttf", directory / "DejaVuSans-Bold.ttf"
        if regular.is_file() and bold.is_file():
            pdfmetrics.registerFont(TTFont("TenderSans", str(regular)))
            pdfmetrics.registerFont(TTFont("TenderSans-Bold", str(bold)))
            pdfmetrics.registerFontFamily("TenderSans", normal="TenderSans", bold="TenderSans-Bold")
            return _Fonts("TenderSans", "TenderSans-Bold")
    return _Fonts("Helvetica", "Helvetica-Bold")


@dataclass(frozen=True)
class _Styles:
    body: ParagraphStyle
    small: ParagraphStyle
    label: ParagraphStyle
    title: ParagraphStyle
    heading: ParagraphStyle
    section: ParagraphStyle
    right: ParagraphStyle


def _styles(size: float = 10) -> _Styles:
    fonts = _fonts()
    body = ParagraphStyle("body", fontName=fonts.regular, fontSize=size, leading=size * 1.3, spaceAfter=3)
    return _Styles(
        body=body,
        small=ParagraphStyle("small", parent=body, fontSize=size * 0.8, leading=size),
        label=ParagraphStyle("label", parent=body, fontName=fonts.bold),
        title=ParagraphStyle(
            "title", parent=body, fontName=fonts.bold, fontSize=size * 1.6, leading=size * 2, spaceAfter=6
        ),
        heading=ParagraphStyle(
            "heading", parent=body, fontName=fonts.bold, fontSize=size * 1.15, spaceBefore=6, spaceAfter=4
        ),
        section=ParagraphStyle(
            "section",
            parent=body,
            fontName=fonts.bold,
            fontSize=size * 1.1,
            backColor=_GREY,
            borderPadding=(3, 4, 3, 4),
            spaceBefore=10,
            spaceAfter=6,
        ),
        right=ParagraphStyle("right", parent=body, alignment=TA_RIGHT),
    )


def _p(text: str, style: ParagraphStyle) -> Paragraph:
    """A paragraph of plain text: escaped, because reportlab parses '&' and '<' as markup."""
    return Paragraph(escape(text), style)


def _labelled(wording: NoticeWording, label: str, value: str, style: ParagraphStyle) -> Paragraph:
    return Paragraph(f"<b>{escape(wording.label(label))}</b> {escape(value)}", style)


def _document(path: Path, facts: TenderFacts, templates: Sequence[PageTemplate]) -> BaseDocTemplate:
    document = BaseDocTemplate(
        str(path),
        pagesize=A4,
        title=facts.title,
        author=facts.buyer_name,
        creator="tenderflow sample generator",
        invariant=True,  # fixed creation date and document id: same facts, same bytes
        leftMargin=_MARGIN,
        rightMargin=_MARGIN,
        topMargin=_MARGIN,
        bottomMargin=_MARGIN,
    )
    document.addPageTemplates(list(templates))
    return document


def _build(document: BaseDocTemplate, story: list[Flowable]) -> int:
    document.build(story)
    return int(document.page)


def _page_footer(text: str) -> Callable[[Any, Any], None]:
    """An onPage callback printing `text` and the page number at the foot of every page."""

    def draw(canvas: Any, document: Any) -> None:
        width = canvas._pagesize[0]
        canvas.saveState()
        canvas.setFont(_fonts().regular, 7.5)
        canvas.setStrokeColor(colors.grey)
        canvas.line(_MARGIN, 1.5 * cm, width - _MARGIN, 1.5 * cm)
        canvas.drawString(_MARGIN, 1.1 * cm, text)
        canvas.drawRightString(width - _MARGIN, 1.1 * cm, f"{document.page}")
        canvas.restoreState()

    return draw


def _full_page_frame(pagesize: tuple[float, float] = A4, frame_id: str = "body") -> Frame:
    width, height = pagesize
    return Frame(_MARGIN, _MARGIN, width - 2 * _MARGIN, height - 2 * _MARGIN, id=frame_id)


def _address_line(facts: TenderFacts) -> str:
    return ", ".join(facts.buyer_address)


def _place(facts: TenderFacts) -> str:
    """The town of the buyer's address ('04319 Lindenau' → 'Lindenau'), for a letter's date line."""
    town_line = facts.buyer_address[1]
    words = town_line.split(" ")
    return " ".join(word for word in words if not any(ch.isdigit() for ch in word)) or town_line


def _grid_table(
    rows: list[list[Any]], widths: list[float], *, header: bool = True, bold_last_row: bool = False
) -> Table:
    fonts = _fonts()
    table = Table(rows, colWidths=widths, repeatRows=1 if header else 0, hAlign="LEFT")
    commands: list[tuple[Any, ...]] = [
        ("FONT", (0, 0), (-1, -1), fonts.regular, 9),
        ("GRID", (0, 0), (-1, -1), 0.5, colors.grey),
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
        ("TOPPADDING", (0, 0), (-1, -1), 3),
        ("BOTTOMPADDING", (0, 0), (-1, -1), 3),
    ]
    if header:
        commands += [("FONT", (0, 0), (-1, 0), fonts.bold, 9), ("BACKGROUND", (0, 0), (-1, 0), _GREY)]
    if bold_last_row:
        commands.append(("FONT", (0, -1), (-1, -1), fonts.bold, 9))
    table.setStyle(TableStyle(commands))
    return table


# --- eForms / TED notice -----------------------------------------------------------------------


def _eforms_story(facts: TenderFacts, wording: NoticeWording, styles: _Styles) -> list[Flowable]:
    deadline = (
        f"{wording.label(wording.date_label)} {wording.numeric_date(facts.deadline)}   "
        f"{wording.label(wording.local_time)} {facts.deadline:%H:%M}"
    )
    value = (
        f"{wording.label(wording.value_excluding_vat)} {wording.amount(facts.estimated_value)}   "
        f"{wording.label(wording.currency)} {facts.currency}"
    )
    story: list[Flowable] = [
        _p(wording.notice_heading, styles.title),
        _p(f"{wording.label(wording.dispatch_date)} {wording.numeric_date(facts.published)}", styles.small),
        _p(wording.section_authority, styles.section),
        _p(wording.name_and_addresses, styles.label),
        _labelled(wording, wording.official_name, facts.buyer_name, styles.body),
        _labelled(wording, wording.postal_address, _address_line(facts), styles.body),
        _labelled(wording, wording.contact, facts.buyer_department, styles.body),
        _labelled(wording, wording.email, facts.buyer_email, styles.body),
        _labelled(wording, wording.phone, facts.buyer_phone, styles.body),
        _p(wording.section_object, styles.section),
        _labelled(wording, f"II.1.1) {wording.title}", facts.title, styles.body),
        _labelled(wording, wording.reference_number, facts.reference_number, styles.body),
        _labelled(wording, f"II.1.2) {wording.main_cpv}", f"{facts.cpv_code} {facts.cpv_label}", styles.body),
        _labelled(
            wording,
            f"II.1.3) {wording.contract_type}",
            wording.contract_type_name(facts.cpv_code),
            styles.body,
        ),
        _labelled(wording, f"II.1.4) {wording.short_description}", facts.description, styles.body),
        _p(f"II.1.5) {wording.estimated_value}", styles.label),
        _p(value, styles.body),
        _labelled(wording, f"II.2.3) {wording.place_of_performance}", facts.place_of_performance, styles.body),
        _labelled(wording, f"II.2.7) {wording.duration}", f"{facts.duration_months} {wording.months}", styles.body),
    ]
    if facts.award_criteria:
        story.append(_p(f"II.2.5) {wording.award_criteria}", styles.label))
        story.append(_award_criteria_table(facts, wording))
    story += [
        _p(wording.section_legal, styles.section),
        _labelled(wording, f"III.1) {wording.participation_heading}", wording.participation_text, styles.body),
        _p(wording.section_procedure, styles.section),
        _labelled(
            wording,
            f"IV.1.1) {wording.procedure_type}",
            wording.procedure_names[facts.procedure],
            styles.body,
        ),
        _p(f"IV.2.2) {wording.deadline}", styles.label),
        _p(deadline, styles.body),
        _p(wording.section_complementary, styles.section),
        _labelled(wording, f"VI.3) {wording.submission_heading}", wording.submission_text, styles.body),
        _labelled(wording, f"VI.4.1) {wording.review_heading}", wording.review_text, styles.body),
    ]
    return story


def render_eforms_notice(facts: TenderFacts, path: Path, rng: random.Random) -> int:
    """A TED/eForms-style contract notice: numbered sections, label: value lines."""
    wording = WORDING[facts.language]
    footer = f"{facts.buyer_name} – {facts.reference_number}"
    template = PageTemplate("notice", [_full_page_frame()], onPage=_page_footer(footer))
    return _build(_document(path, facts, [template]), _eforms_story(facts, wording, _styles()))


# --- municipal letter --------------------------------------------------------------------------


_LETTERHEAD_HEIGHT = 3.2 * cm


def render_municipal_letter(facts: TenderFacts, path: Path, rng: random.Random) -> int:
    """A letter on the buyer's letterhead announcing the tender, with the facts as a list."""
    wording = WORDING[facts.language]
    frame = Frame(
        _MARGIN,
        _MARGIN,
        _PAGE_WIDTH - 2 * _MARGIN,
        _PAGE_HEIGHT - 2 * _MARGIN - _LETTERHEAD_HEIGHT,
        id="letter",
    )
    template = PageTemplate("letter", [frame], onPage=_letterhead(facts, _fonts()))
    return _build(_document(path, facts, [template]), _letter_story(facts, wording, _styles()))


def _letterhead(facts: TenderFacts, fonts: _Fonts) -> Callable[[Any, Any], None]:
    """An onPage callback drawing the buyer's letterhead (name and department left, address and contacts
    right, a rule under them) and the page footer."""

    def draw(canvas: Any, document: Any) -> None:
        top = _PAGE_HEIGHT - _MARGIN
        canvas.saveState()
        canvas.setFillColor(_DARK)
        canvas.setFont(fonts.bold, 17)
        canvas.drawString(_MARGIN, top - 0.4 * cm, facts.buyer_name)
        canvas.setFont(fonts.regular, 10.5)
        canvas.drawString(_MARGIN, top - 1.0 * cm, facts.buyer_department)
        canvas.setFillColor(colors.black)
        canvas.setFont(fonts.regular, 8)
        right = _PAGE_WIDTH - _MARGIN
        for line_number, line in enumerate((*facts.buyer_address, facts.buyer_phone, facts.buyer_email)):
            canvas.drawRightString(right, top - 0.3 * cm - line_number * 0.36 * cm, line)
        canvas.setStrokeColor(_DARK)
        canvas.setLineWidth(1.2)
        canvas.line(_MARGIN, top - _LETTERHEAD_HEIGHT + 0.6 * cm, right, top - _LETTERHEAD_HEIGHT + 0.6 * cm)
        canvas.restoreState()
        _page_footer(f"{facts.buyer_name} · {_address_line(facts)}")(canvas, document)

    return draw


def _letter_facts_table(facts: TenderFacts, wording: NoticeWording, styles: _Styles) -> Table:
    """The tender's facts as a two-column list of label and value."""
    facts_rows = [
        (wording.contracting_authority, f"{facts.buyer_name}, {facts.buyer_department}"),
        (wording.reference_number, facts.reference_number),
        (wording.title, facts.title),
        (wording.main_cpv, f"{facts.cpv_code} ({facts.cpv_label})"),
        (wording.procedure_type, wording.procedure_names[facts.procedure]),
        (
            wording.estimated_value,
            f"{wording.amount(facts.estimated_value)} {facts.currency} {wording.excluding_vat}",
        ),
        (
            wording.deadline_long,
            f"{wording.long_date(facts.deadline)}, {wording.time(facts.deadline)}",
        ),
        (wording.duration, f"{facts.duration_months} {wording.months}"),
        (wording.place_of_performance, facts.place_of_performance),
    ]
    facts_table = Table(
        [[_p(wording.label(label), styles.label), _p(value, styles.body)] for label, value in facts_rows],
        colWidths=[6.2 * cm, _PAGE_WIDTH - 2 * _MARGIN - 6.2 * cm],
    )
    facts_table.setStyle(TableStyle([("VALIGN", (0, 0), (-1, -1), "TOP")]))
    return facts_table


def _letter_story(facts: TenderFacts, wording: NoticeWording, styles: _Styles) -> list[Flowable]:
    """The letter: recipient, place and date, subject, the facts, the description, closing and signature."""
    place_and_date = wording.letter_place_date_format.format(
        place=_place(facts), date=wording.long_date(facts.published)
    )
    return [
        _p(wording.letter_recipient, styles.body),
        Spacer(1, 0.6 * cm),
        _p(place_and_date, styles.right),
        Spacer(1, 0.6 * cm),
        _p(
            f"{wording.label(wording.subject_prefix)} {wording.letter_subject} – {facts.title}",
            styles.heading,
        ),
        Spacer(1, 0.3 * cm),
        _p(wording.letter_salutation, styles.body),
        _p(wording.letter_intro, styles.body),
        Spacer(1, 0.2 * cm),
        _letter_facts_table(facts, wording, styles),
        Spacer(1, 0.2 * cm),
        _p(facts.description, styles.body),
        _p(wording.letter_documents, styles.body),
        Spacer(1, 0.4 * cm),
        _p(wording.letter_closing, styles.body),
        Spacer(1, 1.0 * cm),
        *(_p(line, styles.body) for line in wording.letter_signature),
    ]


# --- two-column gazette page -------------------------------------------------------------------


def render_two_column_bulletin(facts: TenderFacts, path: Path, rng: random.Random) -> int:
    """An official gazette page: masthead, full-width title block, then the notice in two columns."""
    wording = WORDING[facts.language]
    styles = _styles(9)
    fonts = _fonts()
    masthead_height = 1.6 * cm
    title_height = 3.4 * cm
    gutter = 0.8 * cm
    column_width = (_PAGE_WIDTH - 2 * _MARGIN - gutter) / 2
    columns_top = _PAGE_HEIGHT - _MARGIN - masthead_height - title_height
    notice_number = f"{facts.published:%y}-{facts.published.timetuple().tm_yday * 173 % 90000:05d}"

    def draw_masthead(canvas: Any, document: Any) -> None:
        top = _PAGE_HEIGHT - _MARGIN
        canvas.saveState()
        canvas.setFillColor(_DARK)
        canvas.rect(_MARGIN, top - 1.1 * cm, _PAGE_WIDTH - 2 * _MARGIN, 1.1 * cm, stroke=0, fill=1)
        canvas.setFillColor(colors.white)
        canvas.setFont(fonts.bold, 12)
        canvas.drawString(_MARGIN + 0.3 * cm, top - 0.75 * cm, wording.bulletin_name)
        canvas.setFont(fonts.regular, 8)
        canvas.drawRightString(_PAGE_WIDTH - _MARGIN - 0.3 * cm, top - 0.72 * cm, wording.long_date(facts.published))
        canvas.restoreState()
        _page_footer(f"{wording.bulletin_name} – {wording.notice_heading} {notice_number}")(canvas, document)

    title_frame = Frame(_MARGIN, columns_top, _PAGE_WIDTH - 2 * _MARGIN, title_height, id="title", showBoundary=0)
    left = Frame(_MARGIN, _MARGIN, column_width, columns_top - _MARGIN, id="left")
    right = Frame(_MARGIN + column_width + gutter, _MARGIN, column_width, columns_top - _MARGIN, id="right")
    continuation_height = _PAGE_HEIGHT - 2 * _MARGIN - masthead_height
    later_left = Frame(_MARGIN, _MARGIN, column_width, continuation_height, id="later-left")
    later_right = Frame(_MARGIN + column_width + gutter, _MARGIN, column_width, continuation_height, id="later-right")

    story: list[Flowable] = [
        _p(f"{wording.notice_heading} n° {notice_number}", styles.small),
        _p(facts.title, styles.title),
        _p(f"{facts.buyer_name} – {facts.buyer_department}", styles.heading),
        NextPageTemplate("continuation"),
        FrameBreak(),
        _p(wording.section_authority, styles.section),
        _labelled(wording, wording.official_name, facts.buyer_name, styles.body),
        _labelled(wording, wording.postal_address, _address_line(facts), styles.body),
        _labelled(wording, wording.email, facts.buyer_email, styles.body),
        _labelled(wording, wording.phone, facts.buyer_phone, styles.body),
        _p(wording.section_object, styles.section),
        _labelled(wording, wording.title, facts.title, styles.body),
        _labelled(wording, wording.reference_number, facts.reference_number, styles.body),
        _labelled(wording, wording.main_cpv, f"{facts.cpv_code} – {facts.cpv_label}", styles.body),
        _labelled(wording, wording.contract_type, wording.contract_type_name(facts.cpv_code), styles.body),
        _labelled(wording, wording.short_description, facts.description, styles.body),
        _labelled(
            wording,
            wording.estimated_value,
            f"{wording.amount(facts.estimated_value)} {facts.currency} {wording.excluding_vat}",
            styles.body,
        ),
        _labelled(wording, wording.duration, f"{facts.duration_months} {wording.months}", styles.body),
        _labelled(wording, wording.place_of_performance, facts.place_of_performance, styles.body),
        _p(wording.section_procedure, styles.section),
        _labelled(wording, wording.procedure_type, wording.procedure_names[facts.procedure], styles.body),
        _labelled(
            wording,
            wording.deadline_long,
            f"{wording.numeric_date(facts.deadline)} – {wording.time(facts.deadline)}",
            styles.body,
        ),
        _p(wording.participation_heading, styles.heading),
        _p(wording.participation_text, styles.body),
        _p(wording.submission_heading, styles.heading),
        _p(wording.submission_text, styles.body),
        _p(wording.review_heading, styles.heading),
        _p(wording.review_text, styles.body),
        _labelled(wording, wording.dispatch_date, wording.numeric_date(facts.published), styles.small),
    ]
    first = PageTemplate("first", [title_frame, left, right], onPage=draw_masthead)
    later = PageTemplate("continuation", [later_left, later_right], onPage=draw_masthead)
    return _build(_document(path, facts, [first, later]), story)


# --- notice with lots and award criteria -------------------------------------------------------


def _award_criteria_table(facts: TenderFacts, wording: NoticeWording) -> Table:
    rows: list[list[Any]] = [[wording.criterion, wording.weighting]]
    rows += [[criterion.name, f"{criterion.weight_percent} %"] for criterion in facts.award_criteria]
    rows.append([wording.total, f"{sum(c.weight_percent for c in facts.award_criteria)} %"])
    return _grid_table(rows, [11 * cm, 3 * cm], bold_last_row=True)


def render_lots_notice(facts: TenderFacts, path: Path, rng: random.Random) -> int:
    """A summary notice: a boxed key-facts table, a table of lots with values, weighted criteria."""
    if not facts.lots or not facts.award_criteria:
        raise ValueError("a lots notice needs lots and award criteria")
    wording = WORDING[facts.language]
    styles = _styles()
    usable_width = _PAGE_WIDTH - 2 * _MARGIN
    value_text = f"{facts.currency} {wording.amount(facts.estimated_value)} ({wording.excluding_vat})"
    deadline_text = f"{wording.long_date(facts.deadline)}, {wording.time(facts.deadline)}"
    key_facts = [
        (wording.contracting_authority, f"{facts.buyer_name}, {facts.buyer_department}"),
        (wording.reference_number, facts.reference_number),
        (wording.procedure_type, wording.procedure_names[facts.procedure]),
        (wording.main_cpv, f"{facts.cpv_code} {facts.cpv_label}"),
        (wording.estimated_value, value_text),
        (wording.deadline_long, deadline_text),
        (wording.duration, f"{facts.duration_months} {wording.months}"),
    ]
    key_facts_table = Table(
        [[_p(label, styles.label), _p(value, styles.body)] for label, value in key_facts],
        colWidths=[5.5 * cm, usable_width - 5.5 * cm],
    )
    key_facts_table.setStyle(
        TableStyle(
            [
                ("BOX", (0, 0), (-1, -1), 1.2, _DARK),
                ("LINEBELOW", (0, 0), (-1, -2), 0.3, colors.grey),
                ("BACKGROUND", (0, 0), (0, -1), colors.Color(0.93, 0.94, 0.97)),
                ("VALIGN", (0, 0), (-1, -1), "TOP"),
            ]
        )
    )
    lot_rows: list[list[Any]] = [[wording.lot, wording.lot_title, f"{wording.lot_value} ({facts.currency})"]]
    lot_rows += [
        [str(lot.number), _p(lot.title, styles.body), wording.amount(lot.estimated_value)] for lot in facts.lots
    ]
    lot_rows.append(["", wording.total, wording.amount(sum((lot.estimated_value for lot in facts.lots), Decimal(0)))])
    lots_table = _grid_table(lot_rows, [1.4 * cm, usable_width - 6.4 * cm, 5 * cm], bold_last_row=True)
    lots_table.setStyle(TableStyle([("ALIGN", (2, 0), (2, -1), "RIGHT")]))

    story: list[Flowable] = [
        _p(f"{wording.notice_heading} – {facts.reference_number}", styles.small),
        _p(facts.title, styles.title),
        _p(facts.description, styles.body),
        Spacer(1, 0.3 * cm),
        key_facts_table,
        Spacer(1, 0.4 * cm),
        KeepTogether([_p(wording.section_lots, styles.heading), lots_table]),
        Spacer(1, 0.4 * cm),
        KeepTogether([_p(wording.award_criteria, styles.heading), _award_criteria_table(facts, wording)]),
        _p(wording.participation_heading, styles.heading),
        _p(wording.participation_text, styles.body),
        _p(wording.submission_heading, styles.heading),
        _p(wording.submission_text, styles.body),
        _labelled(wording, wording.dispatch_date, wording.long_date(facts.published), styles.small),
    ]
    template = PageTemplate("lots", [_full_page_frame()], onPage=_page_footer(facts.buyer_name))
    return _build(_document(path, facts, [template]), story)


# --- long tender: notice + specification + landscape annex --------------------------------------


def render_long_tender(facts: TenderFacts, path: Path, rng: random.Random) -> int:
    """The eForms notice, then one page per specification section, then a landscape pricing annex.

    The specification's sentences are drawn by `rng`, so a seed fixes the text. Its sentence bank is
    English: the facts must be an English notice.
    """
    if facts.language != "en":
        raise ValueError("the specification text of a long tender exists in English only")
    wording = WORDING[facts.language]
    styles = _styles()
    footer = _page_footer(f"{facts.buyer_name} – {facts.reference_number} – Invitation to tender")
    portrait = PageTemplate("portrait", [_full_page_frame()], onPage=footer)
    annex = PageTemplate("landscape", [_full_page_frame(landscape(A4), "annex")], onPage=footer, pagesize=landscape(A4))

    story = _eforms_story(facts, wording, styles)
    for number, section in enumerate(SPECIFICATION_SECTIONS, start=1):
        story.append(PageBreak())
        if number == 1:
            story.append(_p("Part B: Specification of requirements", styles.title))
        story.append(_p(f"{number}. {section.heading}", styles.section))
        for clause, paragraph in enumerate(section.paragraphs(rng), start=1):
            story.append(_p(f"{number}.{clause}  {paragraph}", styles.body))
        if section.table:
            story.append(Spacer(1, 0.2 * cm))
            story.append(_grid_table([list(row) for row in section.table], [4 * cm, 4 * cm, 4 * cm, 4 * cm]))

    annex_width = landscape(A4)[0] - 2 * _MARGIN
    pricing_rows: list[list[Any]] = [list(row) for row in pricing_schedule_rows()]
    widths = [1.5 * cm, annex_width - 15.5 * cm, 2.5 * cm, 3.5 * cm, 4 * cm, 4 * cm]
    story += [
        NextPageTemplate("landscape"),
        PageBreak(),
        _p("Annex A: Pricing schedule", styles.title),
        _p(
            f"Tenderers complete the unit rates in {facts.currency}, excluding VAT. Quantities are "
            "estimates for evaluation only and do not commit the council to any volume.",
            styles.body,
        ),
        _grid_table(pricing_rows, widths),
    ]
    return _build(_document(path, facts, [portrait, annex]), story)


# --- addendum ------------------------------------------------------------------------------------


def render_addendum(
    facts: TenderFacts, path: Path, *, number: int, issued: date, old_deadline: datetime, new_deadline: datetime,
) -> int:
    """An addendum to the notice of `facts` (English): its number and date of issue in the title lines,
    the reference, and the submission deadline it extends from `old_deadline` to `new_deadline`."""
    styles = _styles()
    footer = f"{facts.buyer_name} – {facts.reference_number} – Addendum No. {number}"
    template = PageTemplate("addendum", [_full_page_frame()], onPage=_page_footer(footer))

    def when(moment: datetime) -> str:
        return f"{moment.day} {moment:%B %Y}, {moment:%H:%M}"

    story: list[Flowable] = [
        _p(f"ADDENDUM No. {number}", styles.title),
        _p(f"Date of issue: {issued.isoformat()}", styles.body),
        _p(f"Reference number: {facts.reference_number}", styles.body),
        _p(f"Contracting authority: {facts.buyer_name}", styles.body),
        _p("1. Time limit for receipt of tenders", styles.heading),
        _p("The time limit for receipt of tenders is extended.", styles.body),
        _p(f"Previous time limit: {when(old_deadline)}", styles.body),
        _p(f"New time limit for receipt of tenders: {when(new_deadline)} (local time)", styles.body),
        _p("2. Other conditions", styles.heading),
        _p("All other conditions of the contract notice and of the tender documents remain unchanged. "
           "Tenderers are asked to acknowledge receipt of this addendum in their tender.", styles.body),
    ]
    return _build(_document(path, facts, [template]), story)
