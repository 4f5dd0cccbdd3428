"""The labels of a tender's title, reference number and place of performance, in the languages read.

Labels are plain lower-case phrases without accents (document.label_regex folds them as it folds page
text and lets spaces or punctuation stand between words, and no word boundary is needed at an end in a
script written without spaces). Each list holds the standard wording of that language's notices and
forms: the eForms/TED labels in every EU language, the national portals' fields (Japan's 件名/公告番号/
履行場所, Korea's KONEPS 공사명/공고번호/공사현장, China's 项目名称/项目编号/项目地点 and Taiwan's 標案名稱/
標案案號, Russia's EIS Наименование объекта закупки/Номер извещения/Место поставки, Greece's Diavgeia ΑΔΑ/Θέμα,
Romania's SEAP, Turkey's EKAP İKN/İşin adı/Teslim yeri, Vietnam's gói thầu), as an analyst of the
language would list them.

Data only: the rules that use these labels are in titles.py, references.py and places.py.
"""

from __future__ import annotations

from typing import Final

# --- titles -------------------------------------------------------------------------------------------------

TITLE_LABELS: Final[dict[str, tuple[str, ...]]] = {
    "en": ("tender title", "request title", "title of the tender", "title of tender", "title of the contract",
        "contract title", "procurement title", "boq title", "name of work", "name of the work", "name of works",
        "name of assignment", "name of the assignment", "item category", "description of work",
        "description of the work", "work description", "subject of the tender", "subject of procurement",
        "subject of the procurement", "subject of the contract", "tender subject", "subject matter", "rfp title",
        "rfq title", "itb title", "bid title", "solicitation title", "tender name", "name of tender",
        "name of the tender", "name of the contract", "contract name",
    ),
    "fr": ("objet du marche", "objet de la consultation", "objet de l'accord cadre", "objet de l'appel d'offres",
        "objet de l'avis", "intitule du marche", "intitule de la consultation", "intitule",
    ),
    "de": ("bezeichnung des auftrags", "auftragsgegenstand", "gegenstand der ausschreibung",
        "gegenstand des auftrags", "gegenstand der leistung", "leistungsbezeichnung", "bezeichnung der leistung",
        "kurzbezeichnung", "massnahme", "baumassnahme", "bezeichnung der massnahme",
    ),
    "es": ("objeto del contrato", "objeto de la contratacion", "objeto de la licitacion", "titulo del contrato",
        "denominacion del contrato", "objeto del pliego",
    ),
    "it": ("oggetto dell'appalto", "oggetto della gara", "oggetto del contratto", "oggetto della procedura",
        "denominazione dell'appalto", "titolo dell'appalto",
    ),
    "pl": ("nazwa zamowienia", "przedmiot zamowienia", "nazwa nadana zamowieniu", "nazwa postepowania"),
    "pt": ("objeto da licitacao", "objeto do contrato", "objeto do edital"),
    "nl": ("naam van de opdracht", "titel van de opdracht", "omschrijving van de opdracht"),
    "cs": ("nazev zakazky", "nazev verejne zakazky", "predmet verejne zakazky"),
    "sk": ("nazov zakazky", "nazov predmetu zakazky", "predmet zakazky"),
    "hu": ("a beszerzes targya", "a kozbeszerzes targya", "az eljaras targya", "a szerzodes targya"),
    "hr": ("naziv predmeta nabave", "predmet nabave"),
    "sl": ("naziv javnega narocila", "predmet javnega narocila"),
    "lt": ("pirkimo pavadinimas", "pirkimo objektas"),
    "lv": ("iepirkuma nosaukums", "iepirkuma prieksmets"),
    "et": ("hanke nimetus", "hankelepingu nimetus"),
    "da": ("udbuddets titel", "opgavens titel"),
    "sv": ("upphandlingens namn", "upphandlingens benamning"),
    "fi": ("hankinnan nimi", "hankinnan kohde"),
    "no": ("konkurransens navn", "anskaffelsens navn"),
    "ru": ("наименование объекта закупки", "наименование закупки", "предмет договора", "предмет контракта",
        "предмет закупки", "наименование предмета закупки",
    ),
    "uk": ("предмет закупівлі", "назва предмета закупівлі", "найменування предмета закупівлі",
        "конкретна назва предмета закупівлі",
    ),
    "bg": ("предмет на поръчката", "наименование на поръчката", "название на поръчката",
        "предмет на обществената поръчка",
    ),
    "sr": ("предмет јавне набавке", "назив набавке", "предмет набавке", "predmet javne nabavke", "naziv nabavke",
        "predmet nabavke",
    ),
    "el": ("αντικειμενο της συμβασης", "τιτλος συμβασης", "τιτλος της συμβασης", "τιτλος διαγωνισμου",
        "αντικειμενο του διαγωνισμου",
    ),
    "ro": ("denumire contract", "denumirea contractului", "denumirea achizitiei", "obiectul contractului"),
    "tr": ("işin adı", "isin adi", "ihale konusu", "ihale konusu işin adı", "ihalenin adı"),
    "vi": ("tên gói thầu", "tên công trình"),
    "ja": ("件名", "工事名", "業務名", "案件名", "案件名称", "調達件名", "契約件名", "入札件名", "工事件名",
        "業務件名", "委託業務名", "業務委託名", "調達案件名", "調達案件名称",
    ),
    "ko": ("공사명", "용역명", "사업명", "건명", "물품명", "과업명", "입찰건명", "계약건명", "공고명", "구매건명"),
    "zh": ("项目名称", "招标项目", "招标项目名称", "采购项目名称", "采购项目", "工程名称", "项目名", "項目名稱",
        "招標項目", "標案名稱", "採購項目名稱", "工程名稱", "採購案名稱", "案名",
    ),
    "th": ("ชื่อโครงการ",),
    "he": ("שם המכרז", "נושא המכרז"),
    "id": ("nama paket", "nama pekerjaan", "nama paket pekerjaan"),
    "ms": ("tajuk tender", "tajuk sebut harga"),
    "ar": ("اسم المنافسة", "عنوان المنافسة", "موضوع المنافسة"),
}  # fmt: skip
"""Labels whose value is the tender's title."""

TITLE_PROJECT_LABELS: Final[dict[str, tuple[str, ...]]] = {
    "en": ("project title", "title of the project", "title of project", "name of project", "name of the project",
        "project name",
    ),
    "vi": ("tên dự án",),
    "id": ("nama kegiatan",),
    "ms": ("tajuk projek",),
    "ru": ("название проекта", "наименование проекта"),
}  # fmt: skip
"""The project's name: the title of some calls, the financing project of others ('Project: Bukhara Region Water
Supply and Sewerage Project' above 'Contract Title: …'), so it weighs less than a contract's title."""

TITLE_GENERIC_LABELS: Final[dict[str, tuple[str, ...]]] = {
    "en": ("title", "subject", "sub"),
    "fr": ("objet",),
    "es": ("objeto", "titulo"),
    "it": ("oggetto", "titolo"),
    "de": ("gegenstand", "bezeichnung", "betreff", "betrifft", "titel"),
    "nl": ("omschrijving", "onderwerp"),
    "pl": ("przedmiot",),
    "hr": ("naslov",),
    "sv": ("rubrik",),
    "no": ("tittel",),
    "el": ("θεμα", "τιτλος", "αντικειμενο"),
    "ro": ("titlu",),
    "ms": ("tajuk",),
    "th": ("เรื่อง",),
    "he": ("הנדון",),
    "ar": ("الموضوع",),
}  # fmt: skip
"""Bare 'title'/'subject' words ('Sub:' in Indian letters, 'Θέμα:' in Greek decisions, SEAP's 'Titlu:'): the
title only when they open an entry of the first pages. ('Name' words such as 'Název', 'Nimetus' are left out:
they open the buyer's block as often as the title.)"""

# TED standard form labels
TITLE_FORM_LABELS: Final[dict[str, tuple[str, ...]]] = {
    "en": ("title",), "de": ("bezeichnung des auftrags",), "fr": ("intitule",), "it": ("denominazione",),
    "es": ("denominacion",), "pt": ("titulo",), "nl": ("benaming",), "pl": ("nazwa",), "cs": ("nazev",),
    "sk": ("nazov",), "sv": ("benamning",), "da": ("titel",), "fi": ("nimi",), "ro": ("titlu",),
    "hu": ("elnevezes",), "bg": ("наименование",), "el": ("τιτλος",), "hr": ("naziv",), "sl": ("naslov",),
    "lt": ("pavadinimas",), "lv": ("nosaukums",), "et": ("nimetus",), "ga": ("teideal",),
}  # fmt: skip
"""The label of field II.1.1 (the contract's title) on the EU standard forms (TED, Directive 2014/24/EU), in
every official language (Maltese prints the Romanian 'Titlu'): the title only after the field's number
('II.1.1) Nazwa:', 'II.1.1) Nimi:'), since the bare word names the buyer as often ('I.1) Nazwa i adresy',
'Virallinen nimi')."""

# eForms labels (BT-21 Title, BG-6 Procedure)
TITLE_EFORMS_LABELS: Final[dict[str, tuple[str, ...]]] = {
    "en": ("title",), "de": ("titel",), "fr": ("titre",), "it": ("titolo",), "es": ("titulo",), "pt": ("titulo",),
    "nl": ("titel",), "pl": ("tytul",), "cs": ("nazev",), "sk": ("nazov",), "sv": ("titel",), "da": ("titel",),
    "fi": ("otsikko",), "ro": ("titlu",), "hu": ("cim",), "bg": ("заглавие",), "el": ("τιτλος",), "hr": ("naslov",),
    "sl": ("naslov",), "lt": ("pavadinimas",), "lv": ("nosaukums",), "et": ("pealkiri",),
}  # fmt: skip
"""The label of BT-21 (the procedure's title) in an eForms notice (the eForms SDK's translations), in every
official language: the title only under the procedure's heading ('2.1. Procedura' / 'Tytuł: …'), since the
same word names a lot or an organisation ('5.1. Lot', 'Poštni naslov', Hungarian 'Cím' is also an address)."""

PROCEDURE_EFORMS_LABELS: Final[dict[str, tuple[str, ...]]] = {
    "en": ("procedure",), "de": ("prozedur", "verfahren"), "fr": ("procedure",), "it": ("procedura",),
    "es": ("procedimiento",), "pt": ("processo",), "nl": ("procedure",), "pl": ("procedura",), "cs": ("rizeni",),
    "sk": ("postup",), "sv": ("forfarande",), "da": ("procedure",), "fi": ("menettely",), "ro": ("procedura",),
    "hu": ("eljaras",), "bg": ("процедура",), "el": ("διαδικασια",), "hr": ("postupak",), "sl": ("postopek",),
    "lt": ("procedura",), "lv": ("procedura",), "et": ("menetlus",),
}  # fmt: skip
"""The heading of BG-6 (the procedure) in an eForms notice ('2. Procedure', '2.1. Procedure'), in every official
language. German prints the SDK 1.4 translation 'Prozedur' or 'Verfahren', the word of German procurement law
and of TED's German notices (not read from the SDK's files)."""

# --- references ---------------------------------------------------------------------------------------------

REFERENCE_LABELS: Final[dict[str, tuple[str, ...]]] = {
    "en": ("reference number", "reference no", "ref no", "tender no", "tender number", "tender ref",
        "tender reference", "tender reference number", "tender id", "tender notice no", "e-tender no", "bid number",
        "bid no", "bid reference", "bid reference number", "solicitation number", "solicitation no",
        "request number", "request no", "procurement number", "procurement no", "procurement reference",
        "procurement reference number", "contract number", "contract no", "contract reference", "enquiry no",
        "inquiry no", "nit no", "bid id", "internal identifier",
    ),
    "fr": ("identifiant interne", "numero de reference", "numero de reference attribue au marche",
        "reference du marche", "reference de la consultation", "reference de l'avis", "numero de la consultation",
        "numero de consultation", "numero du marche", "n° de marche", "no de marche", "marche n", "marche no",
        "consultation n", "n° de la consultation", "appel d'offres n", "appel d'offres no",
    ),
    "de": ("interne kennung", "vergabenummer", "vergabe nr", "vergabe-nr", "ausschreibungsnummer",
        "ausschreibungs nr", "referenznummer", "verfahrensnummer", "vergabeverfahren nr", "projektnummer",
        "projektnr", "projekt nr",
    ),
    "es": ("identificador interno", "numero de expediente", "n° de expediente", "no de expediente",
        "nro de expediente", "expediente n", "expediente no", "expediente nro", "expte", "numero de licitacion",
        "licitacion n", "licitacion no", "numero de proceso", "numero de procedimiento",
    ),
    "it": ("identificativo interno", "cig", "codice identificativo gara", "codice identificativo di gara",
        "numero di gara", "numero gara", "n gara", "codice gara", "id gara", "codice procedura",
        "numero di riferimento",
    ),
    "pl": ("identyfikator wewnetrzny", "znak sprawy", "numer sprawy", "nr sprawy", "numer postepowania",
        "nr postepowania", "numer referencyjny", "oznaczenie sprawy", "znak postepowania",
    ),
    "nl": ("intern kenmerk", "referentienummer", "aanbestedingsnummer", "projectnummer"),
    "pt": ("identificador interno do processo", "processo n", "processo no", "numero do processo", "n do processo",
        "edital n", "edital no", "pregao eletronico n", "pregao eletronico no", "numero de referencia",
    ),
    "hi": ("बिड संख्या", "बोली संख्या", "निविदा संख्या"),
    "cs": ("evidencni cislo zakazky", "evidencni cislo verejne zakazky", "systemove cislo", "cislo zakazky"),
    "sk": ("evidencne cislo", "cislo oznamenia"),
    "hu": ("hivatkozasi szam", "ekr azonosito"),
    "hr": ("evidencijski broj nabave", "broj objave"),
    "sl": ("stevilka objave", "referencna stevilka"),
    "lt": ("pirkimo numeris", "pirkimo nr"),
    "lv": ("iepirkuma identifikacijas numurs", "iepirkuma identifikacijas nr"),
    "et": ("viitenumber", "hanke viitenumber"),
    "da": ("referencenummer", "udbudsnummer"),
    "sv": ("referensnummer", "upphandlingsnummer"),
    "fi": ("viitenumero",),
    "no": ("referansenummer",),
    "ru": ("номер извещения", "реестровый номер", "реестровый номер извещения", "номер закупки", "номер процедуры"),
    "uk": ("ідентифікатор закупівлі", "номер закупівлі", "номер оголошення"),
    "bg": ("номер на поръчката", "уникален номер"),
    "sr": ("број јавне набавке", "редни број јавне набавке", "број набавке", "broj javne nabavke",
        "redni broj javne nabavke", "broj nabavke",
    ),
    "el": ("αδα", "αδαμ", "αριθμος διακηρυξης", "αριθ διακηρυξης", "αρ διακηρυξης", "αριθμος διαγωνισμου",
        "αρ διαγωνισμου",
    ),
    "ro": ("numar anunt", "numarul anuntului", "numar de referinta", "numarul de referinta",
        "numar de referinta atribuit dosarului de autoritatea contractanta", "numar procedura",
    ),
    "tr": ("ikn", "ihale kayıt numarası", "ihale kayit numarasi", "ihale kayıt no", "ihale kayit no", "ihale no",
        "ihale numarası",
    ),
    "vi": ("số hiệu gói thầu", "mã gói thầu", "số tbmt", "mã tbmt", "số thông báo mời thầu"),
    "ja": ("公告番号", "入札番号", "案件番号", "調達案件番号", "契約番号", "工事番号", "業務番号", "入札公告番号",
        "調達番号",
    ),
    "ko": ("공고번호", "입찰공고번호", "입찰번호", "계약번호"),
    "zh": ("项目编号", "招标编号", "采购编号", "招标项目编号", "采购项目编号", "项目代码", "招标文件编号",
        "合同编号", "項目編號", "招標編號", "採購編號", "案號", "標案案號", "招標案號", "標案編號",
    ),
    "th": ("เลขที่โครงการ", "ประกวดราคาเลขที่"),
    "he": ("מכרז מס", "מכרז מספר", "מספר מכרז", "מספר המכרז", "מכרז פומבי מס", "מכרז פומבי מספר"),
    "id": ("kode tender", "kode paket", "kode rup", "nomor tender"),
    "ms": ("no tender", "nombor tender", "no sebut harga", "nombor rujukan", "no rujukan"),
    "ar": ("رقم المنافسة", "الرقم المرجعي", "رقم المناقصة", "رقم العطاء", "رقم الكراسة"),
}  # fmt: skip
"""Labels that name the tender's own identifier."""

REFERENCE_TED_LABELS: Final[dict[str, tuple[str, ...]]] = {
    # TED standard form labels: 'II.1.1) Title / Reference number' in the EU languages whose labels above
    # do not already hold it (en, fr, de, it, pt and es, nl, pl, ro, hu, sl, et, da, sv, fi do)
    "cs": ("spisove cislo",),
    "sk": ("referencne cislo",),
    "bg": ("референтен номер",),
    "el": ("αριθμος αναφορας",),
    "hr": ("referentni broj",),
    "lt": ("nuorodos numeris",),
    "lv": ("atsauces numurs",),
}  # fmt: skip
"""The tender's own identifier as the EU standard forms (TED) label it: read as REFERENCE_LABELS are."""

REFERENCE_EFORMS_LABELS: Final[dict[str, tuple[str, ...]]] = {
    # eForms labels (BT-22 'Internal identifier') in the EU languages whose labels above do not already hold
    # it (en, fr, de, it, es and pt do); never BT-04 'Procedure identifier', the procedure's UUID
    "nl": ("interne identificatiecode",), "pl": ("wewnetrzny identyfikator",), "cs": ("interni identifikator",),
    "sk": ("interny identifikator",), "sv": ("intern identifierare",), "da": ("intern identifikator",),
    "fi": ("sisainen tunniste",), "ro": ("identificator intern",), "hu": ("belso azonosito",),
    "bg": ("вътрешен идентификатор",), "el": ("εσωτερικο αναγνωριστικο",),
    "hr": ("interna identifikacijska oznaka",), "sl": ("notranji identifikator",),
    "lt": ("vidaus identifikatorius",), "lv": ("ieksejais identifikators",), "et": ("sisemine tunnus",),
}  # fmt: skip
"""The tender's own identifier as an eForms notice labels it (the eForms SDK's translations of BT-22, the
buyer's internal identifier of the procedure): read as REFERENCE_LABELS are."""

REFERENCE_FILE_LABELS: Final[dict[str, tuple[str, ...]]] = {
    "en": ("file no", "file number", "our ref", "our reference"),
    "de": ("aktenzeichen", "geschaftszeichen", "kennziffer"),
    "nl": ("dossiernummer", "zaaknummer", "kenmerk"),
    "cs": ("spisova znacka",),
    "da": ("sagsnummer",),
    "sv": ("diarienummer",),
    "fi": ("diaarinumero",),
    "no": ("saksnummer",),
    "sl": ("stevilka zadeve",),
    "el": ("αριθ πρωτ", "αρ πρωτ", "αριθμος πρωτοκολλου"),
}  # fmt: skip
"""The buyer's file or registry number: the tender's reference when nothing better is printed, below a
tender's own number when both are (a letter's 'Aktenzeichen', a Greek decision's protocol number)."""

REFERENCE_PROJECT_LABELS: Final[dict[str, tuple[str, ...]]] = {
    "en": ("project number", "project no", "project id"),
    "fr": ("numero du projet",),
    "ru": ("идентификационный код закупки",),
}  # fmt: skip
"""A project's number: the tender's reference in some calls (APEC 'project number: CTI69'), but a financing
project's in others, so it weighs less than a tender's own number. (Russia's ИКЗ codes the budget line.)"""

REFERENCE_GENERIC_LABELS: Final[dict[str, tuple[str, ...]]] = {
    "en": ("reference", "ref", "rfa"),
    "es": ("referencia", "expediente"),
    "it": ("riferimento",),
    "de": ("referenz",),
    "nl": ("referentie",),
    "vi": ("gói thầu",),
    "ar": ("المرجع",),
}  # fmt: skip
"""Bare 'reference' words: a reference only when they open an entry of a form or a letter head (Vietnam's
'(Gói thầu ADB-BIDV-1.1)' under a title names the package)."""

REFERENCE_PUBLICATION_LABELS: Final = ("avis n", "annonce n", "annonce no", "avis no", "notice no")
"""The number of the published notice: an acceptable reference when the buyer gives none."""

# --- places -------------------------------------------------------------------------------------------------

PLACE_LABELS: Final[dict[str, tuple[str, ...]]] = {
    "en": ("place of performance", "place of delivery", "delivery place", "delivery location",
        "location of delivery", "place of work", "place of works", "location of work", "location of works",
        "location of the works", "site location", "project location", "project site", "site of work",
        "site of works", "work site", "place of execution", "place of service", "place of supply",
        "location of the project", "location", "delivery address", "consignee address",
        "main site or place of performance",
    ),
    "fr": ("lieu d'execution", "lieu de livraison", "lieu d'execution des prestations", "lieu principal d'execution",
        "lieu d'execution et de livraison", "lieu de realisation", "lieu des travaux", "lieu de prestation",
    ),
    "de": ("erfullungsort", "ausfuhrungsort", "leistungsort", "liefer leistungsort", "lieferort", "lieferanschrift",
        "ort der leistungserbringung", "ort der leistung", "ort der ausfuhrung", "ort der lieferung",
        "ausfuhrungsort der leistung", "lieferung an",
    ),
    "es": ("lugar de ejecucion", "lugar de entrega", "lugar de prestacion", "lugar de ejecucion del contrato",
        "lugar de prestacion del servicio", "lugar de las obras",
    ),
    "it": ("luogo di esecuzione", "luogo di consegna", "luogo di svolgimento", "luogo principale di esecuzione",
        "luogo di esecuzione del contratto", "luogo di esecuzione dei lavori", "luogo di prestazione",
    ),
    "pl": ("miejsce realizacji", "miejsce dostawy", "miejsce wykonania", "miejsce realizacji zamowienia",
        "miejsce wykonania zamowienia", "miejsce swiadczenia uslug",
    ),
    "pt": ("local de execucao", "local de entrega", "local da obra", "local de prestacao"),
    "nl": ("plaats van uitvoering", "leveringsplaats", "plaats van levering", "uitvoeringsplaats"),
    "cs": ("misto plneni", "hlavni misto plneni"),
    "sk": ("miesto plnenia", "miesto dodania", "hlavne miesto plnenia"),
    "hu": ("a teljesites helye", "teljesites helye"),
    "hr": ("mjesto izvrsenja", "mjesto isporuke", "glavno mjesto izvrsenja"),
    "sl": ("kraj izvedbe", "kraj dobave", "glavni kraj izvedbe"),
    "lt": ("pagrindine pristatymo vieta", "vykdymo vieta"),
    "lv": ("izpildes vieta", "piegades vieta", "galvena izpildes vieta"),
    "et": ("taitmise koht", "tarnekoht"),
    "da": ("leveringssted", "udforelsessted"),
    "sv": ("leveransort", "plats for utforande"),
    "fi": ("toimituspaikka", "suorituspaikka"),
    "ru": ("место поставки товара", "место поставки", "место выполнения работ", "место выполнения работы",
        "место оказания услуг", "место оказания услуги", "место доставки", "место исполнения контракта",
        "место исполнения договора", "место поставки товара выполнения работы или оказания услуги",
    ),
    "uk": ("місце поставки товарів", "місце поставки", "місце виконання робіт", "місце надання послуг"),
    "bg": ("място на изпълнение", "място на доставка", "място на изпълнение на поръчката"),
    "sr": ("место испоруке", "место извршења", "mesto isporuke", "mesto izvrsenja"),
    "el": ("τοπος παροχης", "τοπος εκτελεσης", "τοπος παραδοσης", "τοπος υλοποιησης", "κυριος τοπος εκτελεσης",
        "τοπος παροχης των υπηρεσιων",
    ),
    "ro": ("locul de executare", "locul principal de executare", "locul de livrare", "locul de prestare"),
    "tr": ("teslim yeri", "teslim yerleri", "işin yapılacağı yer", "isin yapilacagi yer",
        "malın teslim edileceği yer",
    ),
    "vi": ("địa điểm thực hiện", "địa điểm thực hiện gói thầu", "địa điểm giao hàng", "địa điểm xây dựng"),
    "ja": ("履行場所", "工事場所", "工事箇所", "納入場所", "納品場所", "施工場所", "履行の場所", "工事の場所",
        "作業場所", "設置場所", "業務場所", "納入先",
    ),
    "ko": ("공사현장", "납품장소", "사업위치", "사업장소", "공사위치", "공사장소", "과업장소", "이행장소",
        "인도장소", "설치장소", "현장위치",
    ),
    "zh": ("项目地点", "交货地点", "服务地点", "建设地点", "工程地点", "实施地点", "履约地点", "供货地点",
        "安装地点", "交货地址", "项目实施地点", "施工地点", "履約地點", "交貨地點", "工程地點", "施工地點",
        "服務地點", "項目地點",
    ),
    "th": ("สถานที่ส่งมอบ", "สถานที่ก่อสร้าง", "สถานที่ดำเนินการ"),
    "he": ("מקום ביצוע העבודה", "מקום האספקה"),
    "id": ("lokasi pekerjaan", "tempat pelaksanaan"),
    "ms": ("lokasi projek", "tempat pembekalan"),
    "ar": ("مكان التنفيذ", "مكان تنفيذ الأعمال", "مكان تنفيذ الاعمال", "موقع التنفيذ", "موقع تنفيذ الأعمال",
        "مكان العمل",
    ),
}  # fmt: skip
"""Labels of where the contract is performed or delivered (never the bare 'place', 'lugar', 'lieu', '地点':
those are often the place of opening or submission)."""

# TED standard form labels
PLACE_FORM_LABELS: Final[dict[str, tuple[str, ...]]] = {
    "en": ("place of performance", "main site or place of performance"),
    "de": ("erfullungsort", "hauptort der ausfuhrung"),
    "fr": ("lieu d'execution", "lieu principal d'execution"),
    "it": ("luogo di esecuzione", "luogo principale di esecuzione"),
    "es": ("lugar de ejecucion", "lugar principal de ejecucion"),
    "pt": ("local de execucao", "principal local de execucao"),
    "nl": ("plaats van uitvoering", "voornaamste plaats van uitvoering"),
    "pl": ("miejsce swiadczenia uslug", "glowna lokalizacja lub miejsce realizacji"),
    "cs": ("misto plneni", "hlavni misto plneni"),
    "sk": ("miesto vykonania", "hlavne miesto dodania alebo plnenia"),
    "sv": ("plats for utforande", "huvudsaklig plats for byggentreprenad eller utforande"),
    "da": ("leveringssted", "hovedudforelsessted"),
    "fi": ("suorituspaikka", "paaasiallinen suorituspaikka"),
    "ro": ("locul de executare", "locul principal de executare"),
    "hu": ("a teljesites helye", "a teljesites fo helyszine"),
    "bg": ("място на изпълнение", "основно място на изпълнение"),
    "el": ("τοπος εκτελεσης", "κυριος τοπος εκτελεσης"),
    "hr": ("mjesto izvrsenja", "glavna lokacija ili mjesto izvrsenja"),
    "sl": ("kraj izvedbe", "glavna lokacija ali kraj izvedbe"),
    "lt": ("igyvendinimo vieta", "pagrindine igyvendinimo vieta"),
    "lv": ("izpildes vieta", "galvena buvdarbu veiksanas vai izpildes vieta"),
    "et": ("teostamise koht", "peamine teostamise koht"),
}  # fmt: skip
"""Field II.2.3 of the EU standard forms (TED, Directive 2014/24/EU), 'Place of performance', and its 'Main site
or place of performance' in every official language, folded ('ł' as 'l', 'ø' as 'o')."""

# eForms labels (BG-708 Place of performance)
PLACE_EFORMS_LABELS: Final[dict[str, tuple[str, ...]]] = {
    "en": ("place of performance",), "de": ("ort der leistung",), "fr": ("lieu d'execution",),
    "it": ("luogo di esecuzione",), "es": ("lugar de ejecucion",), "pt": ("local de execucao dos trabalhos",),
    "nl": ("plaats van uitvoering",), "pl": ("miejsce wykonania",), "cs": ("misto plneni",), "sk": ("miesto vykonu",),
    "sv": ("leveransplats",), "da": ("udforelsessted",), "fi": ("suorituspaikka",),
    "ro": ("locul de desfasurare a activitatii",), "hu": ("teljesitesi hely",), "bg": ("място на изпълнение",),
    "el": ("τοπος εκτελεσης",), "hr": ("mjesto izvrsenja",), "sl": ("kraj izvedbe",), "lt": ("vykdymo vieta",),
    "lv": ("izpildes vieta",), "et": ("lepingu taitmise koht",),
}  # fmt: skip
"""The heading of BG-708 in an eForms notice ('2.1.2. Place of performance'), in every official language (the
eForms SDK's translations): the place's sub-fields follow it, one a line (PLACE_EFORMS_SUBLABELS)."""

# eForms labels (BT-5101 Postal address, BT-5131 Town, BT-5121 Postcode, BT-5071 Country subdivision,
# BT-5141 Country)
PLACE_EFORMS_SUBLABELS: Final[dict[str, tuple[str, ...]]] = {
    "address": ("postal address", "postanschrift", "adresse postale", "indirizzo postale", "direccion postal",
        "endereco postal", "postadres", "adres pocztowy", "postovni adresa", "postova adresa", "postadress",
        "postadresse", "postiosoite", "adresa postala", "postacim", "пощенски адрес", "ταχυδρομικη διευθυνση",
        "postanska adresa", "postni naslov", "pasto adresas", "pasta adrese", "postiaadress",
    ),
    "town": ("town", "stadt", "ville", "localita", "localidad", "cidade", "stad", "miejscowosc", "obec", "mesto",
        "ort", "by", "postitoimipaikka", "localitate", "varos", "град", "πολη", "grad", "miestas", "pilseta", "linn",
    ),
    "postcode": ("postcode", "postleitzahl", "code postal", "codice postale", "codigo postal", "kod pocztowy", "psc",
        "postnummer", "postinumero", "cod postal", "iranyitoszam", "пощенски код", "ταχυδρομικος κωδικας",
        "postanski broj", "postna stevilka", "pasto kodas", "pasta indekss", "sihtnumber",
    ),
    "code": ("country subdivision", "untereinheit des landes", "entite secondaire du pays", "suddivisione del paese",
        "subdivision del pais", "subdivisao do pais", "onderverdeling van een land", "podjednostka w kraju",
        "nizsi uzemni jednotka zeme", "podriadeny subjekt krajiny", "del av land", "landespecifik underafdeling",
        "maaryhmittely", "subentitatea tarii", "orszag alegysege", "административно-териториална единица на държавата",
        "υποδιαιρεση χωρας", "zemlja – podregija", "podregija drzave", "salies administracinis vienetas",
        "valsts apaksvieniba", "riik – jaotus",
    ),
    "country": ("country", "land", "pays", "paese", "pais", "kraj", "zeme", "krajina", "maa", "tara", "orszag",
        "държава", "χωρα", "zemlja", "drzava", "salis", "valsts", "riik",
    ),
}  # fmt: skip
"""The sub-fields of an eForms place block (BG-708) and of an organisation's address, by kind, in every official
language (the eForms SDK's translations): read as sub-labels only when a colon follows ('By: Aarhus', 'Maa:
Suomi'; the country subdivision with its '(NUTS)')."""

NUTS_LABELS: Final = (
    "code nuts", "nuts code", "codice nuts", "codigo nuts", "nuts-code", "kod nuts", "nuts",
    "codigo de subentidad territorial", "cod nuts", "codul nuts", "κωδικος nuts",
    # TED standard form labels: 'NUTS code' in every official language
    "nuts-kod", "nuts-kode", "nuts-koodi", "nuts-kood", "nuts kodas", "nuts kods", "код nuts", "sifra nuts",
    "kodici nuts",
)  # fmt: skip
"""The label of a NUTS code (the region of the EU's statistical nomenclature), in every official language."""

# --- what a document calls itself ----------------------------------------------------------------------------

DOCUMENT_NAMES: Final = (
    # ru, uk, bg, sr
    "извещение о проведении[\\w ]*", "извещение о закупке", "извещение об осуществлении закупки",
    "изменения извещения[\\w ]*", "документация о закупке", "конкурсная документация", "аукционная документация",
    "оголошення про проведення[\\w ]*", "тендерна документація", "обявление за поръчка",
    "документация за участие", "конкурсна документација", "konkursna dokumentacija",
    "позив за подношење понуда", "poziv za podnosenje ponuda",
    # el, ro, tr, vi
    "διακήρυξη", "προκήρυξη", "περίληψη διακήρυξης", "πρόσκληση υποβολής προσφορ\\w*",
    "anunț de participare(?: simplificat)?", "fișa de date(?: a achiziției)?", "documentație de atribuire",
    "invitație de participare", "caiet de sarcini",
    "ihale ilan[ıi]", "teknik şartname(?:si|sidir)?", "idari şartname(?:si)?", "ihale doküman[ıi]",
    "thông báo mời thầu", "hồ sơ mời thầu", "hồ sơ yêu cầu", "thư mời thầu", "điều khoản tham chiếu",
    # cs, sk, hu, hr, sl, lt, lv, et, da, sv, fi
    "zadávací dokumentace", "výzva k podání nabíd(?:ek|ky)", "súťažné podklady", "výzva na predkladanie ponúk",
    "ajánlattételi felhívás", "ajánlati felhívás", "dokumentacija o nabavi", "poziv na nadmetanje",
    "razpisna dokumentacija", "pirkimo dokumentai", "iepirkuma nolikums", "hankedokumendid",
    "udbudsbetingelser", "förfrågningsunderlag", "tarjouspyyntö",
    # ja, ko, zh
    "(?:一般競争|指名競争|公募型)?入札公告", "入札説明書", "特記仕様書", "仕様書", "公募要領",
    "입찰공고(?:문)?", "입찰설명서", "과업지시서", "제안요청서",
    "招标文件", "招标公告", "采购文件", "采购公告", "磋商文件", "谈判文件", "询价文件", "招標文件", "招標公告",
    "採購公告",
    # th, he, id, ms
    "ประกาศประกวดราคา", "เอกสารประกวดราคา", "מסמכי המכרז", "dokumen (?:tender|pemilihan|pengadaan)",
    "dokumen tender", "kenyataan tender",
)  # fmt: skip
"""What a document calls itself on its cover, beyond the Latin-script names titles.py lists: a regex each,
written as printed (folded before use)."""

HEAD_FINAL_DOCUMENT_NAMES: Final = (
    "仕様書", "特記仕様書", "入札説明書", "과업지시서", "제안요청서", "招标文件", "采购文件", "磋商文件", "谈判文件",
    "询价文件", "招標文件", "teknik şartname(?:si|sidir)?", "idari şartname(?:si)?",
)  # fmt: skip
"""Names of a document that follow its subject in languages that put the head noun last ('运河湾 … 采购安装项目
招标文件', '2026 YILI GÜBRE TEKNİK ŞARTNAMESİ'): what stands before them on a cover line is the title. (Not the
notices 入札公告/공고/招标公告: what stands before them is as often the buyer and the procedure.)"""
