"""Where a title stands when no title label gives it: the structures notices in many scripts share.

- **a quoted name after the word for what is bought**: 'την απευθείας ανάθεση του έργου: «ΣΥΝΤΗΡΗΣΗ 3
  ΑΝΕΛΚΥΣΤΗΡΩΝ …»', 'Contractul de achiziție publică „Echipamente IT …”', 'обществена поръчка с предмет „…“',
  'zamówienia pn. „…”': guillemets, low-high quotes, CJK corner brackets; the quotation may wrap;
- **the subject before the document's name** on a cover line, in languages that put the head noun last:
  '运河湾 AI 漫剧基地电脑设备采购安装项目   招标文件', '2026 YILI GÜBRE TEKNİK ŞARTNAMESİ';
- **China's model sentence** '本招标项目<name>已由…批准' / '本招标项目<name>，项目业主为…' (the standard tender
  documents' first clause);
- **the name in the section of a national form on what is bought** (Turkey's EKAP notice: '2 - İhale konusu
  hizmet alımının' / 'a) Adı : …');
- **the paragraph right above a line that only gives the tender's number** ('Xây dựng các giải pháp …' over
  '(Gói thầu ADB-BIDV-1.1)'), the mirror of the paragraph under a number line that titles.py reads.

Each yields the lines the title was read from and a score; titles.py turns them into candidates with the
checks every title passes (not a sentence, a document type, an organisation, a placeholder).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

from tenderflow.extraction.offline import identity_labels as words
from tenderflow.extraction.offline.document import Document, Line, fold
from tenderflow.extraction.offline.labelled import LABEL_LIKE, Block, is_blank, lines_after, lines_before, under_section
from tenderflow.extraction.offline.references import REFERENCE_GENERIC, REFERENCE_STRONG, identifier


@dataclass(frozen=True)
class Found:
    """A title's lines (and what of each line is the title), its score and the rule that read it."""

    block: Block
    score: float
    why: str


_OBJECT_WORD: Final = re.compile(
    r"(?<![^\W_])(?:εργο|εργου|προμηθει(?:α|ασ|ων)|υπηρεσι(?:α|ασ|ων|εσ)|παροχ(?:η|ησ)|μελετ(?:η|ησ|ων)|"
    r"συμβασ(?:η|ησ)|εργασι(?:α|ασ|ων|εσ)|contract(?:ul)?(?: de achizitie publica)?|achizitia|proiect(?:ul)?|"
    r"с предмет|поръчка|по объекту|на тему|з предметом|javna nabavka|јавна набавка|pn|pod nazwa|zadani[ae]|"
    r"project|contract|tender for|titled|entitled|marche|operation|intitulee?|vorhaben|bauvorhaben|projekt|"
    r"contrato|proyecto|denominad[oa]|titulad[oa]|appalto|progetto|denominat[oa]|projeto)(?![^\W_])\W{0,4}$"
)
"""The word for what is bought (a work, a supply, a service, a contract, a project) or for a name ('titled',
'pn.' = pod nazwą), folded, right before an opening quote."""

_OPENING: Final = {"«": "»", "„": "“”", "“": "”", "「": "」", "『": "』", "‹": "›"}
_OPENINGS: Final = re.compile("[" + "".join(_OPENING) + "]")
_QUOTE_PAGES: Final = 3
_QUOTE_LINES: Final = 3
_QUOTED_CHARS: Final = (6, 300)


def quoted_titles(document: Document) -> Iterator[Found]:
    """A name in quotes right after the word for what is bought, on the first pages (see the module
    docstring); the quotation may run over the next lines."""
    for line in document.lines:
        if line.page - document.page_numbers[0] >= _QUOTE_PAGES:
            break
        for opening in _OPENINGS.finditer(line.text):
            position, closing = opening.start(), _OPENING[opening.group()]
            if not _OBJECT_WORD.search(fold(line.text[max(0, position - 40) : position])):
                continue
            block = _quotation(document, line, position + 1, closing)
            if block is not None:
                yield Found(block, 0.62, "quoted after the object's word")


def _quotation(document: Document, line: Line, start: int, closing: str) -> Block | None:
    """The quoted text from `start` on `line` to its closing quote, over at most a few lines."""
    fragments: list[str] = []
    lines: list[Line] = []
    text = line.text[start:]
    current: Line | None = line
    following = lines_after(document, line, limit=_QUOTE_LINES)
    while current is not None and not is_blank(current):
        end = next((index for index, character in enumerate(text) if character in closing), None)
        fragments.append(text[:end] if end is not None else text)
        lines.append(current)
        if end is not None:
            break
        current = next(following, None)
        text = current.text if current is not None else ""
    else:
        return None
    length = sum(len(fragment.strip()) for fragment in fragments)
    if not _QUOTED_CHARS[0] <= length <= _QUOTED_CHARS[1]:
        return None
    return Block(tuple(fragments), tuple(lines))


_HEAD_FINAL_NAME: Final = re.compile(
    "(?:" + "|".join(fold(name) for name in words.HEAD_FINAL_DOCUMENT_NAMES) + r")\s*$"
)
_COVER_LINES: Final = 15


def subject_before_document_name(document: Document) -> Iterator[Found]:
    """On the first page's first lines, the subject a head-final language prints before the document's name
    ('运河湾 … 采购安装项目   招标文件'): the text of the line before that name."""
    if not document.page_numbers:
        return
    lines = [line for line in document.lines_of(document.page_numbers[0]) if not is_blank(line)][:_COVER_LINES]
    for line in lines:
        folded = line.folded.rstrip()
        match = _HEAD_FINAL_NAME.search(folded)
        if match is None or len(folded) != len(line.text.rstrip()):
            continue
        subject = line.text[: match.start()].strip()
        if subject:
            yield Found(Block((subject,), (line,)), 0.6, "subject before the document's name")
            return


_MODEL_SENTENCE: Final = re.compile(
    r"本(?:招标|采购|招標|採購)项目(?:名称为|为)?[：:]?\s*(?P<title>[^，。,；;：:]{4,80}?)\s*"
    r"(?:已由|已经|，|,|。|项目业主|招标人为)"
)
"""'本招标项目<name>已由…批准' / '本招标项目<name>，项目业主为…': the first clause of China's model tender documents."""


def model_sentence(document: Document) -> Iterator[Found]:
    """The project's name in the first clause of a Chinese model tender notice, on the first pages."""
    for line in document.lines:
        if line.page - document.page_numbers[0] >= _QUOTE_PAGES + 3:
            break
        if "本" not in line.text:
            continue
        match = _MODEL_SENTENCE.search(line.text)
        if match is not None:
            yield Found(Block((match.group("title"),), (line,)), 0.6, "model sentence")
            return


def above_number_line(document: Document) -> Iterator[Found]:
    """The paragraph just above a cover line that only gives the tender's number ('(Gói thầu ADB-BIDV-1.1)'),
    fenced off by a blank line above it."""
    if not document.page_numbers:
        return
    lines = [line for line in document.lines_of(document.page_numbers[0]) if not is_blank(line)][:_COVER_LINES]
    for line in lines:
        if not only_a_number(line):
            continue
        above: list[Line] = []
        for other in lines_before(document, line, limit=4):
            if is_blank(other):
                break
            if len(other.cells) != 1 or LABEL_LIKE.search(other.stripped):
                return
            above.append(other)
        else:
            return  # no blank line above: the paragraph may go on
        if above:
            above.reverse()
            yield Found(Block(tuple(other.stripped for other in above), tuple(above)), 0.58, "above number line")
        return


def only_a_number(line: Line) -> bool:
    """A line that is only a number label and its identifier, maybe in brackets ('(Gói thầu ADB-BIDV-1.1)')."""
    text = line.stripped.strip("()[]（）")
    folded = fold(text)
    if len(folded) != len(text):
        return False
    for pattern in (REFERENCE_STRONG, REFERENCE_GENERIC):
        match = pattern.match(folded)
        if match is not None:
            value = identifier(text[match.end() :])
            rest = text[match.end() :].strip(" :：.#№°")
            return value is not None and rest == value
    return False


_SUBJECT_SECTION: Final = re.compile(r"\s*\d{1,2}\s?[-–.)]\s*ihale konusu")
_NAME_LABEL: Final = re.compile(r"\s*[a-h]\)\s*ad[ıi]\s*[:：]\s*")


def section_name(document: Document) -> Iterator[Found]:
    """The name a national form gives in the section on what is bought: EKAP's '2 - İhale konusu … / a) Adı :'."""
    for line, value in under_section(document, _SUBJECT_SECTION, _NAME_LABEL):
        if value:
            yield Found(Block((value,), (line,)), 0.78, "name in the subject's section")
            return
