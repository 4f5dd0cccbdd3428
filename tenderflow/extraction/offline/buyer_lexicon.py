"""The buyer's vocabulary in the procurement languages beyond Western Europe, as each country's forms
write it: the labels that name the buyer, the labels of the OTHER parties of a tender (the agent, the
supervisor, the designer, the bidder), the words that make a name an organisation or one of its
departments, the titles an official signs with, and the letterhead lines of the state above the buyer.

Plain data in the natural spelling (accents, case, script as printed); buyer_words.py folds it into
patterns. Sources are the standard forms: Japan's 入札公告 (発注者, 契約担当者), Korea's KONEPS
(발주기관, 수요기관), China's 招标公告 (采购人, 招标人, 采购代理机构), Russia's EIS print forms (Заказчик,
Размещение осуществляет), Greece's Diavgeia decisions (Αναθέτουσα Αρχή), Romania's SEAP and every EU
language's standard-form heading 'I.1) Name and addresses', Turkey's EKAP (İdarenin adı), Vietnam's
bidding documents (Bên mời thầu, Chủ đầu tư), Thailand's e-GP, Israel's, Indonesia's LPSE and Malaysia's
ePerolehan notices.
"""

from __future__ import annotations

from typing import Final

BUYER_LABELS_WORLD: Final = (
    # ja
    "発注者", "発注者名", "発注機関", "発注機関名", "契約担当者", "契約担当官", "調達機関", "調達機関名",
    "入札執行者", "契約権者",
    # ko
    "발주기관", "발주기관명", "수요기관", "수요기관명", "발주(수요)기관", "발주처", "발주청", "계약기관",
    "발주자", "공고기관",
    # zh (simplified, traditional)
    "采购人", "采购人名称", "招标人", "招标人名称", "招标单位", "采购单位", "采购单位名称", "建设单位",
    "业主", "业主单位", "发包人", "比选人", "询价人", "采购方", "招标方",
    "採購人", "採購人名稱", "招標人", "招標單位", "採購單位", "機關名稱", "招標機關", "業主",
    # ru, uk, bg, sr, kk
    "заказчик", "наименование заказчика", "полное наименование заказчика", "государственный заказчик",
    "муниципальный заказчик", "размещение осуществляет", "организация (заказчик)",
    "замовник", "найменування замовника", "повне найменування замовника",
    "възложител", "наименование на възложителя", "публичен възложител",
    "наручилац", "назив наручиоца", "naručilac", "naziv naručioca", "naručitelj", "naziv naručitelja",
    "тапсырыс беруші", "тапсырыс берушінің атауы",
    # el
    "αναθέτουσα αρχή", "αναθέτων φορέας", "φορέας", "επωνυμία αναθέτουσας αρχής", "ονομασία αναθέτουσας αρχής",
    # ro
    "autoritate contractantă", "autoritatea contractantă", "denumire oficială", "entitate contractantă",
    "entitatea contractantă", "denumirea autorității contractante",
    # tr
    "idarenin", "idarenin adı", "idarenin adi", "idare adı", "idare adi", "idare", "ihaleyi yapan idare",
    "ihaleyi yapan idarenin adı", "alımı yapan idare",
    # vi
    "bên mời thầu", "tên bên mời thầu", "chủ đầu tư", "đơn vị mời thầu", "cơ quan mời thầu",
    # th
    "ชื่อหน่วยงาน", "หน่วยงานผู้ว่าจ้าง", "ผู้ว่าจ้าง", "หน่วยงานที่จัดซื้อจัดจ้าง", "ส่วนราชการ",
    # he
    "הגוף המזמין", "המזמין", "שם המזמין", "שם הגוף המזמין", "מזמין העבודה",
    # id, ms
    "nama instansi", "instansi", "satuan kerja", "nama satuan kerja", "k/l/pd", "pemilik pekerjaan",
    "nama agensi", "agensi", "pihak berkuasa",
    # cs, sk, hu, hr, sl, lt, lv, et, fi, sv, da, no, mt, ga
    "zadavatel", "název zadavatele", "veřejný zadavatel", "verejný obstarávateľ", "názov verejného obstarávateľa",
    "ajánlatkérő", "ajánlatkérő neve", "javni naručitelj", "naročnik", "naziv naročnika",
    "perkančioji organizacija", "perkančiosios organizacijos pavadinimas", "pasūtītājs", "pasūtītāja nosaukums",
    "hankija", "hankija nimi", "hankintayksikkö", "hankintayksikön nimi", "upphandlande myndighet",
    "upphandlande enhet", "ordregiver", "ordregivende myndighed", "oppdragsgiver", "oppdragsgivers navn",
    "awtorità kontraenti", "údarás conarthach",
)
"""Labels that name the buyer (a label of its own field, or a notice section's heading)."""

NAME_ADDRESS_HEADINGS: Final = (
    "name and addresses", "nom et adresses", "name und adressen", "nombre y direcciones",
    "denominazione e indirizzi", "nazwa i adresy", "nome e endereços", "naam en adressen", "denumire și adrese",
    "denumire si adrese", "επωνυμία και διευθύνσεις", "наименование и адреси", "název a adresy", "názov a adresy",
    "név és címek", "naziv i adrese", "ime in naslovi", "pavadinimas ir adresai", "nosaukums un adreses",
    "nimi ja aadressid", "nimi ja osoitteet", "namn och adresser", "navn og adresser", "isem u indirizzi",
    "ainm agus seoltaí",
)
"""The EU standard forms' 'I.1) Name and addresses' heading in every official language: the buyer's name
is the next line (SEAP 'Fisa de date', TED notices, national copies of them)."""

NAME_SUBLABELS: Final = (
    "наименование организации", "полное наименование", "сокращенное наименование", "наименование",
    "найменування", "повне найменування", "наименование на организацията", "επωνυμία", "ονομασία",
    "denumire oficială", "denumire", "unvanı", "unvan", "adı", "tên đơn vị", "tên cơ quan", "名称", "名稱",
    "機関名", "기관명", "nama", "název", "názov", "megnevezés", "naziv", "pavadinimas", "nosaukums", "nimi",
    "namn", "navn",
    # TED standard form labels: 'I.1) Name and addresses / Official name' in the EU languages not written
    # into NAME_SUBLABEL (pt, nl, cs, sk, sv, da, fi, hu, bg, el, hr, sl, lt, lv, et)
    "designação oficial", "officiële benaming", "úřední název", "úradný názov", "officiellt namn",
    "officielt navn", "virallinen nimi", "hivatalos név", "официално наименование", "επίσημη επωνυμία",
    "službeni naziv", "uradno ime", "oficialus pavadinimas", "oficiālais nosaukums", "ametlik nimi",
    # eForms labels (BT-500 'Official name') in the EU languages not written above (cs, el, hr)
    "oficiální název", "επίσημη ονομασία", "službeno ime",
)
"""A form's own field for the name under a buyer heading ('Заказчик' / 'Наименование организации: …')."""

EFORMS_BUYER_HEADINGS: Final = (
    # eForms labels (BG-3 'Buyer') in the EU languages whose word is not a buyer label already (en 'buyer',
    # fr 'acheteur', it 'committente', lv 'pasūtītājs', et 'hankija' are; ro's block is read by its
    # 'denumire oficială'); German in the wordings of the SDK's versions ('Kaufmännischer' in 1.4.0, 'Käufer'
    # in its other terms, 'Beschaffer' as its later terms say the buyer: 'Beschafferprofil')
    "kaufmännischer", "käufer", "beschaffer", "comprador", "adquirente", "koper", "nabywca", "kupující",
    "kupujúci", "köpare", "køber", "ostaja", "vevő", "купувач", "αγοραστής", "kupac", "kupec", "pirkėjas",
)
"""The heading of an eForms notice's buyer section ('1.1. Nabywca', then 'Oficjalna nazwa: …'), in the wording
of the eForms SDK's translations. Common words ('Koper' is also a Slovenian town, 'Comprador' a person's role):
a buyer's heading only alone on its line, over the name field (NAME_SUBLABELS)."""

SECTION_WORDS: Final = (
    "secțiunea", "sectiunea", "sekcia", "oddíl", "oddiel", "szakasz", "odjeljak", "oddelek", "skyrius",
    "iedaļa", "jagu", "osasto", "avsnitt", "afsnit", "раздел", "розділ", "τμήμα", "bölüm", "phần", "mục",
)
"""'Section' in the EU standard forms' other languages and beyond ('Secțiunea I: Autoritatea contractantă')."""

NOTICE_WORDS: Final = (
    "一般競争入札公告", "入札公告", "公告", "入札説明書", "仕様書", "입찰공고", "공고", "입찰설명서", "과업지시서",
    "招标公告", "采购公告", "招标文件", "采购文件", "磋商文件", "询价", "招標公告", "извещение", "документация",
    "διακήρυξη", "πρόσκληση", "περίληψη", "anunț", "anunt", "fișa de date", "caiet de sarcini", "şartname",
    "şartnamesi", "sartname", "ihale", "thông báo mời thầu", "hồ sơ mời thầu", "điều khoản tham chiếu",
    "ประกาศ", "מכרז", "pengumuman", "lelang", "tender", "zadávací", "výzva", "pályázat", "ajánlattételi",
)
"""Titles of notices and tender documents: a line holding one is a heading, not the buyer's letterhead;
an organisation printed right before one issues the notice ('千葉県一般競争入札公告', '한국도로공사 입찰공고')."""

HEADING_WORDS_UNSPACED: Final = ("信息", "情况", "名称", "的名称", "信息如下", "概况", "情報", "정보", "현황")
"""What follows a party's label in a heading of its block ('1.采购人信息' / '名 称：…', '발주기관 정보')."""

WEAK_LABELS_WORLD: Final = (
    "公告機関", "공고기관", "계약담당", "발주처", "организация, осуществляющая размещение",
    "организация осуществляющая размещение", "организатор", "організатор закупівлі", "φορέας", "idare",
    "甲方", "instansi", "agensi", "ผู้ว่าจ้าง",
)
"""Labels that may name a central purchasing body or an agent (Korea's 공고기관 is often the Public
Procurement Service for a 수요기관; an EIS 'organisation placing the notice' may be an authorised body),
or that are common words elsewhere: kept, but weaker than a label naming the buyer itself."""

OTHER_PARTY_LABELS: Final = (
    # en, fr, de, es, it, pl
    "procurement agent", "tender agent", "tendering agent", "consultant",
    "supervisor", "supervising engineer", "designer", "mandataire", "maitre d'oeuvre", "maître d'œuvre",
    "vergabeberater", "projektsteuerer", "agente", "consulente", "progettista", "direttore dei lavori",
    "pełnomocnik zamawiającego",
    # zh
    "采购代理机构", "招标代理机构", "代理机构", "招标代理", "采购代理", "招标代理人", "监督部门", "监管单位",
    "监督单位", "监督机构", "纪检部门", "设计单位", "监理单位", "採購代理機構", "招標代理機構", "監督單位",
    # ja
    "受託者", "設計者", "監理者", "受注者", "落札者", "設計業務等の受託者", "商号", "商号又は名称",
    # ko
    "감리", "감리단", "감리자", "설계자", "입찰대행", "낙찰자", "시공사",
    # ru, uk
    "уполномоченный орган", "уполномоченное учреждение", "специализированная организация",
    "оператор электронной площадки", "контрактный управляющий", "уповноважена особа",
    # el, ro, tr, vi
    "ανάδοχος", "οικονομικός φορέας", "operator economic", "ofertant", "yüklenici", "istekli", "nhà thầu",
    "tư vấn",
)
"""Labels of the OTHER parties of a tender: an agent that runs the procedure for the buyer, a supervising
or disciplinary body, a designer, a supervisor of works, a bidder. Their names and contacts are not the
buyer's (招标代理 / 采购代理机构, 감리, 'контрактный управляющий' or 'уполномоченный орган' vs заказчик)."""

ORG_WORDS_WORLD: Final = (
    # ru, uk, bg, sr, kk
    "учреждение", "администрация", "министерство", "управление", "департамент", "комитет", "общество",
    "предприятие", "фонд", "университет", "институт", "школа", "больница", "поликлиника", "центр", "служба",
    "агентство", "инспекция", "казенное", "бюджетное", "автономное", "унитарное", "ооо", "оао", "зао", "пао",
    "ао", "гуп", "муп", "фгуп", "фгбу", "фгбоу", "кгбу", "мбу", "мбоу", "гбу", "гку", "мку", "гбуз", "академия",
    "колледж", "правительство", "корпорация", "компания", "установа", "заклад", "підприємство", "міністерство",
    "управління", "адміністрація", "рада", "комітет", "товариство", "тов", "лікарня", "община", "агенция", "дружество",
    "еад", "оод", "болница", "министарство", "управа", "општина", "предузеће", "универзитет", "агенција",
    "завод", "министрлігі", "әкімдігі", "басқармасы", "мекемесі", "тоо", "ргп",
    # el
    "δήμος", "δήμου", "περιφέρεια", "περιφέρειας", "υπουργείο", "υπουργείου", "πανεπιστήμιο", "πανεπιστημίου",
    "νοσοκομείο", "νοσοκομείου", "οργανισμός", "οργανισμού", "ίδρυμα",
    "εταιρεία", "επιμελητήριο", "αρχή", "υπηρεσία", "υποκατάστημα", "κέντρο", "ινστιτούτο", "ικα", "εφκα",
    "δευα", "σχολή", "ταμείο",
    # ro
    "ministerul", "universitatea", "primăria", "consiliul", "județul", "spitalul", "centrul", "institutul",
    "agenția", "compania", "societatea", "autoritatea", "regia", "școala", "colegiul", "oficiul",
    "administrația", "comuna", "orașul", "municipiul",
    # tr
    "bakanlığı", "müdürlüğü", "başkanlığı", "belediyesi", "üniversitesi", "enstitüsü", "hastanesi", "valiliği",
    "kaymakamlığı", "kurumu", "kurulu", "idaresi", "ajansı", "odası", "rektörlüğü", "a.ş.",
    # vi (multi-word: the one-syllable words are common words)
    "ngân hàng", "công ty", "tổng công ty", "ủy ban nhân dân", "uỷ ban nhân dân", "ban quản lý", "bệnh viện",
    "tập đoàn", "trường đại học", "kho bạc", "tổng cục",
    # he
    "משרד", "עיריית", "עירייה", "מועצה", "מועצת", "רשות", "חברת", "בע\"מ", "אוניברסיטת", "תאגיד", "המוסד",
    # id, ms
    "kementerian", "dinas", "badan", "pemerintah", "kabupaten", "provinsi", "universitas", "rumah sakit",
    "perusahaan", "lembaga", "jabatan", "kerajaan", "majlis", "sdn bhd", "berhad", "perbadanan", "sekretariat",
    "direktorat", "balai", "politeknik",
    # cs, sk, hu, hr, sl, lt, lv, et, fi, sv, da, no, nl
    "ministerstvo", "město", "mesto", "obec", "kraj", "úřad", "úrad", "nemocnice", "nemocnica", "univerzita",
    "správa", "s.r.o.", "a.s.", "önkormányzat", "minisztérium", "hivatal", "kórház", "egyetem", "zrt", "kft",
    "ministarstvo", "općina", "bolnica", "sveučilište", "d.o.o.", "občina", "ministrstvo", "bolnišnica",
    "univerza", "savivaldybė", "savivaldybės", "ministerija", "ligoninė", "universitetas", "uab", "pašvaldība",
    "ministrija", "slimnīca", "universitāte", "vald", "linn", "ministeerium", "haigla", "ülikool", "amet",
    "kaupunki", "kunta", "ministeriö", "virasto", "sairaanhoitopiiri", "yliopisto", "oy", "oyj", "kommun",
    "myndighet", "verket", "universitet", "sjukhus", "landsting", "styrelsen", "kommune", "fylkeskommune",
    "direktoratet", "etaten", "waterschap", "hogeschool", "universiteit", "ziekenhuis", "rijkswaterstaat",
)
"""Words, written with spaces around them, that make a line an organisation's name."""

ORG_SUFFIXES_UNSPACED: Final = (
    # ja
    "県", "都", "府", "市", "区", "町", "村", "省", "庁", "局", "機構", "公社", "公団", "株式会社", "委員会",
    "大学", "病院", "事業団", "組合", "法人", "センター", "事務所", "研究所", "協会",
    # ko
    "공사", "공단", "시청", "구청", "군청", "도청", "교육청", "재단", "대학교", "병원", "주식회사", "위원회",
    "연구원", "진흥원", "관리원", "본부", "센터", "광역시", "특별시", "조달청",
    # zh
    "公司", "集团", "委员会", "政府", "大学", "学院", "医院", "中心", "研究院", "学校", "银行", "事务所",
    "集團", "委員會", "大學", "學院", "醫院", "學校", "銀行",
    # th
    "กระทรวง", "กรม", "สำนักงาน", "องค์การ", "เทศบาล", "มหาวิทยาลัย", "โรงพยาบาล", "บริษัท", "การไฟฟ้า",
    "การประปา", "สถาบัน", "ธนาคาร",
)
"""Organisation words of scripts written without spaces: found anywhere in a name ('千葉県', '대구교통공사',
'嘉兴运河湾城投集团有限公司')."""

SUBUNIT_WORDS: Final = (
    # en, fr, de, es, it, pl, pt, nl
    "procurement department", "purchasing department", "procurement division", "purchasing division",
    "procurement office", "purchasing office", "contracts office", "procurement unit", "procurement section",
    "procurement services", "purchasing services", "office of procurement", "division of purchasing",
    "department of purchasing", "finance department", "supply chain management", "tender committee",
    "service des marchés", "service achats", "service des achats", "direction des achats", "bureau des marchés",
    "cellule des marchés", "abteilung", "referat", "fachbereich", "dezernat", "sachgebiet",
    "servicio de contratación", "departamento de compras", "sección de contratación", "unidad de compras",
    "ufficio", "servizio appalti", "servizio gare", "settore", "wydział", "dział", "biuro", "referat zamówień",
    "departamento de compras", "divisão", "setor de compras", "afdeling", "afdeling inkoop",
    # el, ro, ru, tr, vi
    "διεύθυνση", "δ/νση", "τμήμα", "γραφείο", "γραμματεία", "υποδιεύθυνση", "αυτοτελές τμήμα",
    "direcția", "serviciul", "biroul", "compartimentul", "отдел", "сектор", "şube müdürlüğü",
    "daire başkanlığı", "birimi", "phòng", "ban khách hàng",
)
"""Words of a department or office inside the buyer ('Procurement Department', 'ΔΙΕΥΘΥΝΣΗ ΑΜΑΞΟΣΤΑΣΙΟΥ',
'Serviciul achiziții'): the schema wants the organisation's name without them."""

SUBUNIT_SUFFIXES_UNSPACED: Final = ("部", "課", "室", "係", "班", "팀", "처", "과", "실", "科", "处", "處", "股")
"""Department suffixes of Japanese, Korean and Chinese names ('県土整備部建設・不動産業課', '재무관리처')."""

SIGNATORY_TITLES: Final = (
    # ja: the title is dropped; for '…長' of a city, ward, town, village, bureau or office its first
    # character stays with the name ('千葉市長' → '千葉市')
    "知事", "教育長", "企業管理者", "管理者", "理事長", "代表取締役社長", "社長", "会長",
    "学長", "総長", "契約担当者", "契約担当官", "支出負担行為担当官", "分任支出負担行為担当官",
    "市長", "区長", "町長", "村長", "局長", "所長", "署長", "院長",
    # ko
    "사장", "이사장", "시장", "군수", "구청장", "도지사", "교육감", "청장", "원장", "총장", "본부장", "계약담당관",
    "계약담당", "재무관", "분임재무관",
)
"""Titles an official signs a notice with, after the organisation's name: '千葉県知事 熊谷 俊人',
'世田谷区契約担当者', '대구교통공사 사장 귀하', '한국도로공사 사장'."""

KEEP_FIRST: Final = frozenset({"市長", "区長", "町長", "村長", "局長", "所長", "署長", "院長", "시장", "청장", "원장"})
"""Titles whose first character belongs to the organisation ('千葉市長' is the mayor of 千葉市)."""

PARENT_WORDS: Final = (
    "ministry of", "ministère", "ministerium", "ministerio de", "ministero", "ministerstwo", "ministerie",
    "ministerul", "министерство", "міністерство", "министарство", "υπουργείο", "bakanlığı", "kementerian",
    "general directorate", "directorate general", "direction générale", "generaldirektion", "dirección general",
    "direzione generale", "γενική διεύθυνση", "direcția generală", "genel müdürlüğü", "başkanlığı",
)
"""A ministry or a directorate-general: printed ABOVE another organisation on a letterhead, it is the
buyer's parent ('TARIM VE ORMAN BAKANLIĞI' / '… Genel Müdürlüğü' / '… Enstitüsü Müdürlüğü')."""

STAMP_WORDS: Final = (
    "digitally signed", "signed by", "signature not verified", "signature valid", "ψηφιακά υπογεγραμμένο",
    "подписано электронной подписью", "документ подписан", "semnat digital", "podpisany cyfrowo",
    "elektronisch signiert", "signé numériquement", "firmado digitalmente", "firmato digitalmente",
)
"""The visible stamp of a digital signature ('INFORMATICS DEVELOPMENT AGENCY / Digitally signed by ...'):
the signer's name in it is the signing service's, never the buyer's letterhead."""

STATE_LINES: Final = (
    "ελληνική δημοκρατία", "t.c.", "türkiye cumhuriyeti", "românia", "republica moldova", "российская федерация",
    "україна", "република българия", "република србија", "republika srbija", "қазақстан республикасы",
    "республика казахстан", "中华人民共和国", "日本国", "대한민국", "cộng hòa xã hội chủ nghĩa việt nam",
    "độc lập - tự do - hạnh phúc", "ราชอาณาจักรไทย", "מדינת ישראל", "republik indonesia",
    "česká republika", "slovenská republika", "republic of", "república", "repubblica italiana",
)
"""A letterhead's first line that names the state above the buyer ('ΕΛΛΗΝΙΚΗ ΔΗΜΟΚΡΑΤΙΑ', 'T.C.'):
never the buyer."""
