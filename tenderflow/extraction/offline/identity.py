"""What the tender is: its title, its reference number and where the contract is performed.

Each field is read the way an analyst reads a tender's first pages:

- **reference number**: the identifier printed after a reference label ("Tender No.", "Vergabenummer",
  "Número de expediente", "CIG", "znak sprawy", "Bid Number/बिड संख्या", "رقم المنافسة", ...), a cover line
  that is only "N° <identifier>", or an unlabelled code on the cover that names a procurement document
  ("ADB/RFP/RDNG/2025/001"). A value counts only when it looks like an identifier: it has a digit, and is
  not a sentence, a date, a year, a phone number, a time or a clause number such as "13.";
- **title**: the text after a title label ("Objet du marché :", "Oggetto dell'appalto:", "Contract Title:",
  "Maßnahme:", GeM's "Item Category" / "BOQ Title", ...), or, on the first page, the heading that names the
  purchase: the rest of a line such as "Tender for …" / "Bando di gara procedura aperta …", or the paragraph
  under (past number, publication, procedure and contract-type lines) or, failing that, above a heading
  that only says what the document is ("REQUEST FOR PROPOSAL", "SPECYFIKACJA WARUNKÓW ZAMÓWIENIA"). Titles
  wrap: the value joins the wrapped lines and the quote is those lines joined with "\n";
- **place of performance**: the place after a place label ("Place of Performance", "Lieu d'exécution",
  "Ort der Leistungserbringung", "Lugar de entrega", "Luogo di esecuzione", "مكان تنفيذ الأعمال", ...), the
  town of an eForms place block, the sentence form "Il luogo di svolgimento dell'appalto è nel Comune di …",
  else a NUTS code, a delivery sentence ("Las entregas se realizarán en …"), the first address of a
  consignee table (GeM), or the place a title ends with ("… Works at NCPB GCP Depot").

Every field abstains when its evidence is weak: a label inside a sentence, a table-of-contents line, a
section heading followed by prose, a table's header row, a template placeholder ("....", "[insert]", "$ X")
gives no value. Label positions are mapped back to the printed text ('ß' folds to two letters) and a
bilingual label's other-script half counts as part of the label.

The three readers live in references.py, titles.py and places.py; labelled.py is the layout they share
(where a label's value stands and how far it wraps).
"""

from __future__ import annotations

from tenderflow.extraction.offline.places import place_of_performance
from tenderflow.extraction.offline.references import reference_number
from tenderflow.extraction.offline.titles import title

__all__ = ["place_of_performance", "reference_number", "title"]
