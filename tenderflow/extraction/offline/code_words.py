"""The words a tender uses for what it is, how it is awarded and what it buys, in the languages read.

Phrases are written in plain lower case without accents, one space between words (codes.py folds them
as it folds page text and lets any run of spaces or punctuation stand between words, and any single
space between two characters of a script written without spaces); a phrase may use regex syntax but no
literal space. Each table lists the standard vocabulary of procurement in each language: the names of
the national notices and forms (eForms/TED in every EU language, Japan's 入札公告, Korea's KONEPS 입찰공고,
China's 招标公告, Russia's EIS извещение, Greece's Diavgeia decisions, Romania's SEAP, Turkey's EKAP,
Vietnam's thông báo mời thầu), the legal names of procedures and of contract types.

Data only: the rules that use these words are in codes.py.
"""

from __future__ import annotations

from typing import Final

NOTICE_PHRASES: Final[dict[str, tuple[str, ...]]] = {
    "corrigendum": (
        # en, fr, de, es, it, pt, pl, nl, ar, hi
        "corrigendum", "addendum", "addendum no", "amendment no", "amendment number", "amendment to",
        "solicitation amendment", "amendment of solicitation", "change notice", "notice of change",
        "avis rectificatif", "rectificatif", "avis modificatif", "additif",
        "berichtigung", "anderungsbekanntmachung", "korrigendum",
        "correccion de errores", "anuncio de correccion", "anuncio de rectificacion", "fe de erratas", "enmienda",
        "circular aclaratoria",
        "circular modificatoria",
        "avviso di rettifica", "rettifica", "errata corrige",
        "aviso de retificacao", "rectificacao", "retificacao",
        "sprostowanie", "ogloszenie o zmianie ogloszenia", "zmiana tresci swz",
        "rectificatie", "corrigendum op",
        "ملحق", "शुद्धिपत्र",
        # cs, sk, hu, hr, sl, lt, lv, et, da, sv, fi, bg, el (eForms), ro (SEAP), tr (EKAP), vi
        "opravny formular", "korigendum", "helyesbites", "ispravak", "popravek", "klaidu istaisymas", "labojums",
        "parandusteade", "berigtigelse", "rattelse", "oikaisuilmoitus", "обявление за изменение",
        "διορθωτικη (?:διακηρυξη|προκηρυξη|ανακοινωση)", "τροποποιηση (?:της )?(?:διακηρυξης|προκηρυξης)",
        "erata", "anunt de rectificare", "zeyilname", "duzeltme ilan[ıi]", "thong bao sua đoi", "đinh chinh",
        # ru (EIS), uk, sr
        "изменени[ея] извещени[яе]", "изменения в извещение", "извещение об изменении", "изменения документации",
        "зміни до (?:тендерної документації|оголошення)", "измена конкурсне документације",
        "izmena konkursne dokumentacije",
        # ja, ko, zh, th
        "訂正公告", "変更公告", "公告の訂正", "入札公告の訂正", "訂正のお知らせ", "정정공고", "변경공고",
        "更正公告", "变更公告", "澄清公告", "补充公告", "更正公告", "變更公告", "補充公告", "แก้ไขประกาศ",
        "ประกาศแก้ไข",
    ),
    "contract_award_notice": (
        "contract award notice", "award notice", "notice of award", "notice of contract award",
        "contract or concession award notice", "concession award notice",
        "avis d attribution", "avis d attribution de marche", "resultat de marche", "avis de resultat",
        "bekanntmachung vergebener auftrage", "vergebener auftrag", "vergebene auftrage", "vergabebekanntmachung",
        "bekanntmachung uber (?:vergebene auftrage|die vergabe)",
        "anuncio de adjudicacion", "anuncio de formalizacion", "resolucion de adjudicacion",
        "avviso di aggiudicazione", "esito di gara", "esito della gara", "avviso di appalto aggiudicato",
        "anuncio de adjudicacao", "ogloszenie o udzieleniu zamowienia", "ogloszenie o wyniku postepowania",
        "aankondiging van een gegunde opdracht",
        "اعلان ترسية", "اعلان الترسية",
        # eForms in cs, sk, hu, hr, sl, lt, lv, et, da, sv, fi, bg, el, ro
        "oznameni o vysledku zadavaciho rizeni", "oznamenie o vysledku verejneho obstaravania",
        "tajekoztato az eljaras eredmenyerol", "obavijest o dodjeli ugovora",
        "obvestilo o oddaji (?:javnega )?narocila",
        "skelbimas apie sutarties sudaryma", "pazinojums par liguma slegsanas tiesibu pieskirsanu",
        "teade lepingu solmimise kohta", "bekendtgorelse om indgaede kontrakter",
        "meddelande om tilldelning av kontrakt", "jalki ilmoitus", "обявление за възложена поръчка",
        "γνωστοποιηση συμβασης που εχει ανατεθει", "anunt de atribuire",
        # el (Diavgeia), ru, uk, sr, tr, vi, th, id
        "κατακυρωση", "αποφαση κατακυρωσης", "συμβαση αναθεσης(?: εργου)?",
        "протокол подведения итогов", "итоговый протокол", "повідомлення про намір укласти договір",
        "одлука о додели уговора", "odluka o dodeli ugovora", "ihale sonuc ilan[ıi]", "sonuc ilan[ıi]",
        "kesinlesen ihale karar[ıi]", "thong bao ket qua lua chon nha thau", "ket qua lua chon nha thau",
        "ประกาศผู้ชนะการเสนอราคา", "pengumuman pemenang",
        # ja, ko, zh (Simplified and Traditional)
        "落札結果", "入札結果", "落札者決定", "落札者の決定", "낙찰자결정", "낙찰결과", "개찰결과",
        "中标公告", "中标结果公告", "中标结果", "成交公告", "成交结果公告", "中标候选人公示", "決標公告", "決標結果",
    ),
    "prior_information_notice": (
        "prior information notice", "periodic indicative notice", "general procurement notice",
        "avis de preinformation", "avis de pre information", "vorinformation",
        "anuncio previo", "anuncio de informacion previa", "avviso di preinformazione",
        "anuncio de pre informacao", "wstepne ogloszenie informacyjne", "vooraankondiging",
        "predbezne oznameni", "predbezne oznamenie", "elozetes tajekoztato", "prethodna informacijska obavijest",
        "predhodno informativno obvestilo", "isankstinis informacinis skelbimas", "ieprieksejs informativs pazinojums",
        "eelteade", "forhandsmeddelelse", "forhandsannons", "ennakkoilmoitus",
        "обявление за предварителна информация", "προκαταρκτικη προκηρυξη", "anunt de intentie", "on ilan",
        "発注見通し", "발주계획", "사전규격공개", "采购意向公开", "采购意向",
    ),
    "contract_notice": (
        "contract notice", "call for tenders?", "call for bids", "call for competition",
        "invitation (?:for|to) (?:bids?|tenders?|bid|tender|quotations?)", "invitation to bid",
        "request for (?:proposals?|quotations?|quotes?|tenders?|bids?|offers?)",
        "request for expressions? of interest", "tender notice", "notice inviting (?:e )?(?:tenders?|bids?)",
        "tender document", "tender documents", "bidding documents?", "bid document", "specific procurement notice",
        "procurement notice", "letter of invitation", "invitation letter", "e tender", "e tendering",
        "rfp", "rfq", "rft", "ifb", "itb", "porfp",
        "avis d appel public a la concurrence", "avis d appel d offres", "avis d appel a (?:la )?concurrence",
        "avis de marche", "appel d offres", "dossier d appel d offres", "dossier de consultation",
        "reglement de (?:la )?consultation", "avis (?:de sollicitation )?(?:de|d appel a) manifestations? d interet",
        "(?:appel a|sollicitation de) manifestations? d interet", "demande de cotation",
        "demande de prix", "lettre de consultation",
        "auftragsbekanntmachung", "bekanntmachung", "aufforderung zur abgabe (?:eines|von) angebot(?:e|es|s)?",
        "angebotsaufforderung", "ausschreibung",
        "anuncio de licitacion", "llamado a licitacion", "pliego de clausulas administrativas particulares",
        "pliego de condiciones particulares", "pliego de bases y condiciones", "pliego de condiciones",
        "invitacion a (?:licitar|cotizar|ofertar)", "solicitud de (?:cotizacion|propuestas|ofertas)",
        "bando di gara", "bando", "disciplinare di gara", "avviso di gara", "lettera (?:d|di) invito",
        "richiesta di offerta",
        "aviso de licitacao", "edital", "anuncio de procedimento", "caderno de encargos",
        "ogloszenie o zamowieniu", "specyfikacja (?:istotnych )?warunkow zamowienia", "zapytanie ofertowe",
        "aankondiging van een opdracht", "aanbestedingsleidraad", "offerteaanvraag",
        "اعلان منافسة", "كراسة الشروط والمواصفات", "كراسة الشروط", "طلب عروض",
        "निविदा सूचना", "निविदा आमंत्रण सूचना", "बिड दस्तावेज",
        # eForms and national names: cs, sk, hu, hr, sl, lt, lv, et, da, sv, fi, no
        "vyzva k podani nabid(?:ek|ky)", "oznameni o zahajeni zadavaciho rizeni", "zadavaci dokumentace",
        "oznameni o zakazce", "vyzva na predkladanie ponuk", "oznamenie o vyhlaseni verejneho obstaravania",
        "sutazne podklady", "ajanlattételi felhivas", "ajanlati felhivas", "reszveteli felhivas",
        "eljarast megindito felhivas", "poziv na nadmetanje", "obavijest o nadmetanju", "dokumentacija o nabavi",
        "povabilo k oddaji ponudbe", "obvestilo o narocilu", "skelbimas apie pirkima", "pirkimo dokumentai",
        "pazinojums par ligumu", "iepirkuma nolikums", "hanketeade", "hankedokumendid", "udbudsbekendtgorelse",
        "udbudsbetingelser", "meddelande om upphandling", "forfragningsunderlag", "hankintailmoitus",
        "tarjouspyynto", "kunngjoring av konkurranse", "konkurransegrunnlag",
        # ru (EIS 44-FZ, 223-FZ), uk (Prozorro), bg, sr
        "извещение о проведении", "извещение о закупке", "извещение об осуществлении закупки",
        "документация о закупке", "конкурсная документация", "аукционная документация",
        "приглашение (?:к участию|принять участие)", "оголошення про проведення", "тендерна документація",
        "оголошення про закупівлю", "обявление за поръчка", "документация за участие",
        "покана за (?:участие|представяне на оферти)", "публична покана", "позив за подношење понуда",
        "poziv za podnosenje ponuda", "конкурсна документација", "konkursna dokumentacija", "јавни позив",
        "javni poziv",
        # el, ro (SEAP), tr (EKAP), vi
        "διακηρυξη", "προκηρυξη", "περιληψη διακηρυξης", "προσκληση (?:υποβολης|εκδηλωσης) \\w+",
        "anunt de participare", "anunt de participare simplificat", "invitatie de participare",
        "fisa de date(?: a achizitiei)?", "documentatie de atribuire", "ihale ilan[ıi]", "ihale dokuman[ıi]",
        "idari sartname(?:si)?", "thong bao moi thau", "ho so moi thau", "thu moi thau", "thong bao moi quan tam",
        "ho so moi quan tam", "ho so yeu cau", "yeu cau bao gia",
        # th, he, id, ms
        "ประกาศประกวดราคา", "เอกสารประกวดราคา", "ประกาศเชิญชวน", "מכרז פומבי", "הזמנה להציע הצעות",
        "מסמכי המכרז", "הזמנה להגשת הצעות", "pengumuman (?:tender|pelelangan|seleksi|prakualifikasi)",
        "dokumen (?:tender|pemilihan|pengadaan)", "undangan (?:tender|pengadaan)", "kenyataan tender",
        "iklan tender", "dokumen tender", "kenyataan sebut harga",
        # ja, ko, zh (Simplified and Traditional)
        "入札公告", "入札説明書", "公募", "公示", "入札の公告", "입찰공고", "입찰설명서", "제안요청서", "재공고",
        "招标公告", "招标文件", "采购公告", "磋商文件", "谈判文件", "询价文件", "采购文件", "竞争性磋商公告",
        "竞争性谈判公告", "询价公告", "投标邀请", "招标邀请", "资格预审公告", "招標公告", "招標文件", "採購公告",
        "投標須知",
    ),
    # What the keys class 'other': a document that only describes what is bought (a technical specification,
    # terms of reference), issued with a call but not the call.
    "other": (
        "technical specifications?", "terms of reference", "termes de reference",
        "cahier des clauses techniques particulieres", "specifications techniques", "leistungsbeschreibung",
        "pliego de prescripciones tecnicas(?: particulares)?", "terminos de referencia", "especificaciones tecnicas",
        "capitolato tecnico", "opis przedmiotu zamowienia", "especificacoes tecnicas", "programma van eisen",
        "technische specificaties", "technicka specifikace", "muszaki leiras", "tehnicka specifikacija",
        "техническое задание", "описание объекта закупки", "технічне завдання", "технічні вимоги",
        "техническа спецификация", "техничка спецификација", "τεχνικες προδιαγραφες", "τεχνικη περιγραφη",
        "caiet(?:ul)? de sarcini", "specificatii tehnice", "teknik sartname(?:si|sidir)?", "đieu khoan tham chieu",
        "yeu cau ky thuat", "chi dan ky thuat", "ขอบเขตของงาน", "מפרט טכני", "kerangka acuan kerja",
        "spesifikasi teknis", "spesifikasi teknikal", "仕様書", "特記仕様書", "과업지시서", "과업내용서", "시방서",
        "技术要求", "技术规格书", "用户需求书", "採購需求",
    ),
}

DEADLINE_LABELS: Final[tuple[str, ...]] = (
    "closing time", "closing date", "closing date and time", "bid end date", "bid due date",
    "tender closing date", "last date (?:and time )?(?:of|for) (?:submission|receipt)",
    "due date (?:for|of) submission", "deadline for (?:submission|receipt) of "
    "(?:tenders|bids|proposals|offers)", "bid submission end date", "proposal due date",
    "date limite de (?:remise|reception) des (?:offres|plis|candidatures)",
    "ablauf der angebotsfrist", "ende der angebotsfrist", "angebotsfrist", "teilnahmefrist",
    "plazo de presentacion de (?:ofertas|oferta|proposiciones)", "fecha limite de presentacion",
    "termine (?:ultimo )?(?:di|per la) (?:presentazione|ricezione) delle offerte",
    "prazo (?:de|para) (?:apresentacao|entrega) (?:das|de) propostas",
    "termin skladania ofert", "uiterste datum (?:voor|van) (?:ontvangst|indiening)",
    "اخر موعد لتقديم العروض",
)

PROCEDURE_PHRASES: Final[dict[str, tuple[str, ...]]] = {
    "open": (
        "open procedure", "open tender", "open tendering", "open bidding", "open competitive (?:bidding|tender|"
        "tendering)", "open (?:international|national) competitive bidding", "(?:national|international) "
        "competitive bidding", "(?:national|international) open tender", "open (?:national|international) tender",
        "(?:open )?(?:national|international) (?:open )?competitive (?:procurement|tendering)",
        "procedure ouverte", "appel d offres (?:national |international )?ouvert",
        "appel d offres ouvert (?:national|international)",
        "appel d offres (?:national|international)(?![\\s'’/_-]+restreint)", "appel d offres public",
        "open to all (?:eligible |qualified )?(?:bidders|tenderers|firms|suppliers|contractors)",
        "offene(?:s|n)? (?:vergabe)?verfahren(?:s)?", "offentliche(?:n)? ausschreibung",
        "procedimiento abierto", "licitacion publica", "licitacion publica (?:nacional|internacional)",
        "procedura (?:telematica )?aperta", "procedimento aberto", "concurso publico",
        "pregao (?:eletronico|presencial)",
        "concorrencia (?:publica|eletronica)",
        "przetarg(?:u|iem)? nieograniczon(?:y|ego|ym)", "procedura otwarta",
        "openbare procedure", "(?:europese )?openbare aanbesteding",
        "منافسة عامة", "مناقصة عامة", "खुली निविदा",
        # ja, ko, zh (Simplified and Traditional)
        "一般競争入札", "일반경쟁(?:입찰)?", "公开招标", "公開招標",
        # ru (44-FZ), uk, bg, sr, el, ro, tr, vi
        "электронн\\w* аукцион\\w*", "открыт\\w* (?:конкурс|аукцион)\\w*", "конкурс\\w* в электронной форме",
        "запрос\\w* котировок", "відкриті торги", "открита процедура", "публично състезание", "отворени поступак",
        "otvoreni postupak", "ανοι[κχ]τ\\w* (?:\\w+ )?(?:διαγωνισμ|διαδικασι)\\w*", "licitatie deschisa",
        "ac[ıi]k ihale(?: usul[uü])?", "đau thau rong rai",
        # th, he, id, ms; cs, sk, hu, sl, lt, lv, et, da, sv, fi, no
        "ประกวดราคาอิเล็กทรอนิกส์", "מכרז פומבי", "pelelangan umum", "tender terbuka", "otevrene rizeni",
        "verejna sutaz", "nyilt eljaras", "odprti postopek", "atviras konkursas", "atklats konkurss",
        "atklata procedura",
        "avatud hankemenetlus", "offentligt udbud", "oppet forfarande", "avoin menettely",
        "apen anbudskonkurranse",
    ),
    "restricted": (
        "restricted procedure", "restricted (?:tender|tendering|bidding)", "selective tender(?:ing)?",
        # India: a limited tender (enquiry) goes to registered or empanelled suppliers only
        # ("… Corporation Limited Tender No: 73448" is a company's name before a reference)
        "limited tender(?:ing)? enquiry", "limited tendering", "limited bidding",
        "limited tender (?:basis|mode|method|procedure|system)", "सीमित निविदा",
        "procedure restreinte", "appel d offres restreint",
        "nicht ?offene(?:s|n)? (?:vergabe)?verfahren(?:s)?", "beschrankte(?:n)? ausschreibung mit "
        "(?:offentlichem )?teilnahmewettbewerb",
        "procedimiento restringido", "licitacion privada", "licitacion restringida", "procedura ristretta",
        "concurso limitado(?: por previa qualificacao)?", "procedimento restrito",
        "przetarg(?:u|iem)? ograniczon(?:y|ego|ym)", "niet openbare procedure",
        "منافسة محدودة", "مناقصة محدودة",
        # a pre-qualification (PQ) admits only the firms it selects (Korea's 입찰참가자격사전심사)
        "指名競争入札", "지명경쟁(?:입찰)?", "입찰참가자격사전심사", "邀请招标", "邀請招標", "選擇性招標",
        "конкурс\\w* с ограниченным участием", "закрыт\\w* (?:конкурс|аукцион)\\w*", "ограничена процедура",
        "рестриктивни поступак", "restriktivni postupak", "κλειστ\\w* (?:\\w+ )?(?:διαγωνισμ|διαδικασι)\\w*",
        "licitatie restransa", "belli istekliler aras[ıi]nda", "đau thau han che", "วิธีคัดเลือก", "uzsi rizeni",
        "uzsia sutaz", "meghivasos eljaras", "ograniceni postupak", "riboto dalyvavimo konkursas", "slegts konkurss",
        "piiratud hankemenetlus", "begraenset udbud", "selektivt forfarande", "rajoitettu menettely",
        "begrenset anbudskonkurranse",
    ),
    "neg-w-call": (
        "competitive procedure with negotiation", "negotiated procedure with (?:prior )?(?:publication|call for "
        "competition)",
        "procedure concurrentielle avec negociation", "procedure negociee avec (?:publicite|mise en concurrence)",
        "procedure avec negociation",
        "verhandlungs(?:verfahren|vergabe) mit (?:\\w+ ){0,2}teilnahmewettbewerb",
        "procedimiento (?:de licitacion )?con negociacion", "procedimiento negociado con publicidad",
        "procedura competitiva con negoziazione", "procedimento de negociacao",
        "negocjac(?:je|ji) z ogloszeniem", "procedura konkurencyjna z negocjacjami",
        "mededingingsprocedure met onderhandeling", "onderhandelingsprocedure met (?:voorafgaande )?"
        "(?:bekendmaking|aankondiging)",
        "竞争性谈判", "竞争性磋商", "협상에 의한 계약", "състезателна процедура с договаряне",
        "договаряне с предварително обявление", "negociere competitiva", "procedura competitiva cu negociere",
        "ανταγωνιστικη διαδικασια με διαπραγματευση", "jednaci rizeni s uverejnenim",
        "rokovacie konanie so zverejnenim", "konkurencni postopek s pogajanji", "skelbiamos derybos",
        "konkursa procedura ar sarunam", "udbud med forhandling", "forhandlat forfarande med foregaende annonsering",
    ),
    "neg-wo-call": (
        "negotiated procedure without (?:prior )?(?:publication|call for competition)", "direct contracting",
        "direct procurement", "single source (?:procurement|selection)", "sole source",
        "single tender (?:enquiry|basis)",
        "procedure negociee sans (?:publicite|mise en concurrence)", "marche negocie sans publicite", "gre a gre",
        "entente directe",
        "verhandlungs(?:verfahren|vergabe) ohne (?:\\w+ ){0,2}teilnahmewettbewerb", "direktauftrag", "direktvergabe",
        "procedimiento negociado sin publicidad", "contratacion directa", "adjudicacion directa",
        "procedura negoziata senza (?:previa )?(?:pubblicazione|bando)", "affidamento diretto",
        "ajuste direto", "dispensa de licitacao",
        "(?:zamowieni(?:e|a) )?z wolnej reki", "negocjac(?:je|ji) bez ogloszenia",
        "onderhandelingsprocedure zonder (?:voorafgaande )?(?:bekendmaking|aankondiging)",
        "enkelvoudig onderhandse procedure",
        "شراء مباشر", "الشراء المباشر",
        "随意契約", "수의계약", "单一来源(?:采购)?", "單一來源", "限制性招標",
        "закупк\\w* у единственного (?:поставщика|подрядчика|исполнителя)", "переговорна процедура",
        "договаряне без предварително обявление", "пряко договаряне", "преговарачки поступак без објављивања",
        "pregovaracki postupak bez objavljivanja", "απευθειας αναθεση\\w*",
        "διαπραγματευση χωρις (?:προηγουμενη )?δημοσιευση", "negociere fara publicare(?: prealabila)?",
        "achizitie directa", "cumparare directa", "pazarl[ıi]k usul[uü]", "dogrudan temin", "chi đinh thau",
        "mua sam truc tiep", "วิธีเฉพาะเจาะจง", "פטור ממכרז", "penunjukan langsung", "pengadaan langsung",
        "rundingan terus", "jednaci rizeni bez uverejneni", "priame rokovacie konanie",
        "hirdetmeny nelkuli targyalasos eljaras", "pregovaracki postupak bez prethodne objave", "neskelbiamos derybos",
        "sarunu procedura bez (?:iepriekseja )?(?:publikacijas|pazinojuma)",
        "valjakuulutamiseta labiraakimistega hankemenetlus", "forhandlat forfarande utan foregaende annonsering",
        "neuvottelumenettely ilman (?:ennakkoilmoitusta|hankintailmoitusta)",
    ),
    "comp-dial": (
        "competitive dialogue", "dialogue competitif", "wettbewerbliche(?:r|n)? dialog(?:s)?", "dialogo competitivo",
        "dialogo concorrencial", "dialog(?:u)? konkurencyjn(?:y|ego)", "concurrentiegerichte dialoog",
        "الحوار التنافسي",
        "конкурентен диалог", "конкурентний діалог", "ανταγωνιστικος διαλογος", "dialog competitiv",
        "rekabetci diyalog", "soutezni dialog", "sutazny dialog", "versenyparbeszed", "natjecateljski dijalog",
        "konkurencni dialog", "konkurencinis dialogas", "konkursa dialogs", "voistlev dialoog",
        "konkurrencepraeget dialog", "konkurrenspraglad dialog", "kilpailullinen neuvottelumenettely",
    ),
    "innovation": (
        "innovation partnership", "partenariat d innovation", "innovationspartnerschaft",
        "asociacion para la innovacion", "partenariato per l innovazione", "parceria para a inovacao",
        "partnerstw(?:o|a) innowacyjn(?:e|ego)", "innovatiepartnerschap",
        "партньорство за иновации", "συμπραξη καινοτομιας", "parteneriat pentru inovare", "inovacijsko partnerstvo",
    ),
    # French MAPA: below-threshold procedure the buyer shapes itself (the analysts' call: oth-single).
    # and the national simplified procedures below the EU thresholds: Romania's procedură simplificată, Greece's
    # συνοπτικός διαγωνισμός
    "oth-single": ("procedure adaptee", "marche a procedure adaptee", "procedura simplificata",
                   "συνοπτικ\\w* διαγωνισμ\\w*"),
}

PROCEDURE_LABELS: Final[tuple[str, ...]] = (
    "type of procedure", "procedure type", "procurement procedure", "procurement method",
    "method of procurement", "selection method", "tender type", "type of tender", "bidding procedure",
    "tendering procedure",
    "type de procedure", "procedure de passation", "mode de passation", "mode de consultation",
    "verfahrensart", "art des verfahrens", "vergabeart", "art der vergabe", "vergabeverfahren",
    "tipo de procedimiento", "procedimiento de adjudicacion", "procedimiento de seleccion",
    "tipo de licitacion", "tipo di procedura", "procedura di aggiudicazione", "procedura di scelta del "
    "contraente", "tipo de procedimento", "modalidade de licitacao",
    "tryb udzielenia zamowienia", "tryb postepowania", "rodzaj procedury",
    "soort procedure", "aanbestedingsprocedure", "type procedure",
    "نوع المنافسة", "طريقة الطرح", "निविदा का प्रकार",
    "入札方式", "入札方法", "契約方式", "入札の方法", "調達方法", "입찰방법", "계약방법", "입찰방식",
    "입찰 및 계약방식",
    "입찰개요", "招标方式", "采购方式", "招標方式", "採購方式", "способ определения поставщика",
    "способ (?:проведения )?закупки", "способ осуществления закупки", "вид процедури", "тип процедури",
    "вид на процедурата", "врста поступка", "vrsta postupka", "διαδικασια αναθεσης", "ειδος διαδικασιας",
    "τυπος διαδικασιας", "tip(?:ul)? procedur\\w*", "procedura de atribuire", "ihale usul[uü]",
    "hinh thuc lua chon nha thau", "phuong thuc lua chon nha thau", "hinh thuc đau thau", "วิธีการจัดซื้อจัดจ้าง",
    "metode (?:pemilihan|pengadaan)", "kaedah perolehan", "druh zadavaciho rizeni", "druh postupu",
    "az eljaras fajtaja", "vrsta postopka", "pirkimo budas", "iepirkuma proceduras veids", "menetluse liik",
    "udbudsprocedure", "typ av forfarande", "menettelyn tyyppi", "konkurranseform",
)

PROCEDURE_WORDS: Final[dict[str, str]] = {
    # A labelled value that is one bare word ("Type of procedure: Open").
    "open": "open", "ouverte": "open", "offen": "open", "offenes": "open", "abierto": "open", "aperta": "open",
    "aberto": "open", "openbaar": "open", "openbare": "open", "nieograniczony": "open",
    "restricted": "restricted", "restreinte": "restricted", "restringido": "restricted", "ristretta": "restricted",
    "ograniczony": "restricted", "deschisa": "open",
    # Indonesia's and Malaysia's open method is called 'Tender' ('Metode Pemilihan: Tender')
    "tender": "open",
}

CATEGORY_STATEMENTS: Final[dict[str, tuple[str, ...]]] = {
    "works": (
        "type de marche de travaux", "marches? (?:public )?de travaux", "contrato de obras?",
        "tipo de contrato obras?", "appalto (?:pubblico )?di lavori", "(?:offentlicher )?bauauftrag",
        "bauleistung(?:en)?", "roboty budowlane", "zamowienie na roboty budowlane",
        "(?:nabywania|dotyczace) robot budowlanych", "works contract", "contract for works",
        "procurement of works", "execution of works", "empreitada de obras publicas", "opdracht voor werken",
        # a Korean or Chinese notice names the kind of contract it calls for ('공사입찰공고', '工程招标')
        "공사입찰", "工程招标", "工程招標", "(?:ihale konusu )?yap[ıi]m is[i]\\w*", "goi thau xay lap",
        "pekerjaan konstruksi",
    ),
    "goods": (
        "type de marche de fournitures", "marches? (?:public )?de fournitures", "contrato de suministros?",
        "tipo de contrato suministros?", "appalto (?:pubblico )?di forniture", "(?:offentlicher )?lieferauftrag",
        "lieferleistung(?:en)?", "zamowienie na dostawy", "(?:nabywania|dotyczace) dostaw", "supply contract",
        "contract for the supply of", "procurement of goods", "supply of goods", "purchase of goods",
        "adquisicion de bienes", "compra de bienes",
        "aquisicao de bens", "contrato de fornecimento", "opdracht voor leveringen",
        "물품(?:구매)?입찰", "货物招标", "货物采购", "財物採購", "(?:ihale konusu )?mal[ıi]? al[ıi]m\\w*",
        "goi thau mua sam hang hoa",
        "pengadaan barang",
    ),
    "services": (
        "type de marche de services", "marches? (?:public )?de services", "categorie de services",
        "contrato de servicios?", "tipo de contrato servicios?", "appalto (?:pubblico )?di servizi",
        "(?:offentlicher )?dienstleistungsauftrag", "zamowienie na uslugi", "(?:nabywania|dotyczace) uslug",
        "service contract", "services contract", "(?:non )?consult(?:ing|ancy) services",
        "contratacion de servicios", "prestacion de servicios", "aquisicao de servicos", "prestacao de servicos",
        "opdracht voor diensten",
        # Greek law's contract for a work to be done by a person (σύμβαση μίσθωσης/ανάθεσης έργου) is a service
        "용역입찰", "服务招标", "服务采购", "勞務採購", "(?:ihale konusu )?hizmet[i]? al[ıi]m\\w*", "goi thau tu van",
        "dich vu tu van",
        "dich vu phi tu van", "jasa konsultansi", "συμβαση (?:μισθωσης|αναθεσης) εργου",
    ),
}

CATEGORY_WORDS: Final[dict[str, tuple[str, ...]]] = {
    # A bare category word: as a labelled value, or as a heading line of its own (BOAMP "Fournitures").
    "works": ("works", "travaux", "obras?", "lavori", "bauleistungen", "bauleistung", "roboty budowlane",
              "werken", "empreitadas?", "اشغال", "कार्य", "工事", "공사", "工程", "работы", "роботи", "строителство",
              "радови", "radovi", "εργα", "lucrari", "(?:ihale konusu )?yap[ıi]m is[i]\\w*", "xay lap",
              "pekerjaan konstruksi", "kerja",
              "stavebni prace", "stavebne prace", "epitesi beruhazas", "gradnje", "darbai", "buvdarbi", "ehitustood",
              "bygge og anlaegsarbejder", "byggentreprenad", "rakennusurakka"),
    "goods": ("goods", "supplies", "supply", "fournitures", "suministros?", "forniture", "lieferleistungen",
              "lieferleistung", "lieferungen", "lieferung", "dostawy", "dostawa", "bienes", "bens", "leveringen",
              "توريد", "माल", "物品", "물품", "货物", "財物", "товары?", "товари", "доставки", "добра", "dobra",
              "προμηθειες", "furnizare", "produse", "(?:ihale konusu )?mal[ıi]? al[ıi]m\\w*", "hang hoa", "barang",
              "bekalan", "dodavky",
              "tovary", "arubeszerzes", "robe", "blago", "prekes", "piegade", "asjad", "varer", "varor", "tavarat"),
    "services": ("services?", "servicios?", "servizi", "dienstleistungen", "dienstleistung", "uslugi", "usluga",
                 "servicos", "diensten", "خدمات", "सेवाएं", "सेवा", "役務", "業務委託", "용역", "服务", "勞務",
                 "услуги",
                 "послуги", "услуге", "υπηρεσιες", "servicii", "(?:ihale konusu )?hizmet[i]? al[ıi]m\\w*",
                 "(?:phi )?tu van",
                 "jasa (?:konsultansi|lainnya)", "perkhidmatan", "sluzby", "szolgaltatas(?: megrendelese)?",
                 "storitve", "paslaugos", "pakalpojumi", "teenused", "tjenesteydelser", "tjanster", "palvelut"),
}

CATEGORY_LABELS: Final[tuple[str, ...]] = (
    "type of contract", "contract type", "procurement category", "category of procurement",
    "main category", "main nature of the contract", "nature of (?:the )?contract", "type de marche",
    "nature du marche", "tipo de contrato", "tipo di appalto", "natura principale dell appalto",
    "naturaleza (?:principal )?del contrato",
    "vertragsart", "auftragsart", "art des auftrags", "art der leistung", "rodzaj zamowienia",
    "soort opdracht", "tipo de adquisicion", "tender category", "category of tender", "निविदा श्रेणी",
    "adquisicion de bienes o contratacion de servicios", "scope of supply",
    "工事種別", "工事の種類", "契約種別", "調達区分", "入札区分", "공사구분", "계약구분", "입찰구분", "采购类别",
    "项目类别",
    "采购类型", "招标类别", "採購性質", "標的分類", "вид предмета закупівлі", "вид на поръчката", "обект на поръчката",
    "врста предмета набавке", "vrsta predmeta nabavke", "ειδος συμβασης", "τυπος συμβασης",
    "tip(?:ul)? (?:de )?contract",
    "ihale tur[uü]", "linh vuc", "jenis pengadaan", "kategori perolehan", "druh (?:verejne )?zakazky",
    "a szerzodes tipusa", "vrsta ugovora", "vrsta narocila", "liguma veids", "hankelepingu liik", "kontrakttype",
    "typ av kontrakt", "hankintalaji", "sopimuksen tyyppi",
)

SUBJECT_WORDS: Final[dict[str, tuple[str, ...]]] = {
    # Head nouns of a subject line ("Professional Engineering Services for …"); the first one wins.
    "works": (
        # a plant contract (design, supply and installation) is classed as works, unlike a mere supply
        "construction", "constructing", "build", "design build", "design supply and install(?:ation)?", "works",
        "travaux", "obras?", "lavori",
        "bauarbeiten", "bauleistungen", "neubau", "umbau", "erweiterungsbau", "roboty budowlane", "budowa",
        "przebudowa", "rozbudowa", "empreitada", "انشاء", "निर्माण",
        "выполнени\\w* (?:строительно монтажных )?работ", "строительств\\w*", "капитальн\\w* ремонт\\w*",
        "будівництв\\w*", "строителство", "κατασκευ\\w*", "executie (?:de )?lucrari", "lucrari",
        "(?:ihale konusu )?yap[ıi]m is[i]\\w*",
        "thi cong xay dung", "xay lap", "pembangunan", "pembinaan", "vystavba", "rekonstrukce",
        "rehabilitation", "renovation", "refurbishment", "civil works", "road works", "rehabilitation",
        "renovation", "sanierung", "renovierung", "rehabilitacion", "remodelacion", "ristrutturazione",
        "riqualificazione", "remont", "modernizacja", "renovatie", "reabilitacao", "reforma",
        "капітальн\\w* ремонт\\w*", "реконструкці\\w*", "จ้างก่อสร้าง",
        "[לוהב]?ביצוע עבודות", "עבודות בנייה",
    ),
    "goods": (
        "supply (?:of|and|&)", "purchase of", "acquisition of",
        "procurement of equipment", "fourniture(?:s)? (?:de|d)", "achat de", "acquisition de",
        "adquisicion de", "suministro de", "fornitura di", "lieferung von", "kauf von", "zakup", "dostawa",
        "dostawy", "fornecimento de", "aquisicao de", "levering van", "hardware", "equipment", "توريد",
        "आपूर्ति",
        "поставк[аи]", "приобретени\\w*", "постачання", "доставка на", "испорука", "προμηθει\\w*", "furnizare",
        "achizitie (?:de )?(?:echipamente|produse)", "echipamente", "(?:ihale konusu )?mal[ıi]? al[ıi]m\\w*", "mua sam",
        "cung cap (?:thiet bi|hang hoa)",
        "pengadaan barang", "bekalan", "dodavka", "sat[ıi]n al[ıi]nacak", "al[ıi]nacak olan",
        "vehicles?", "vehicules?", "fahrzeuge?", "vehiculos?", "veicoli", "pojazd(?:y|ow)", "voertuigen",
        "computers?", "ordinateurs?",
        "ordenadores", "computadoras", "komputer(?:y|ow)", "medicines", "medicaments", "arzneimittel",
        "medicamentos", "farmaci", "lekow", "geneesmiddelen", "fuel", "carburants?", "kraftstoffe?", "stationery",
        "ประกวดราคาซื้อ", "ซื้อ",
        "[לוהב]?אספקת",
    ),
    "services": (
        # not the singular "service": "Federal Acquisition Service", "Service des marchés" are offices
        "services", "servicios?", "servizio", "servizi", "dienstleistung(?:en)?", "uslug[ia]?", "servicos?",
        "diensten", "dienstverlening", "consultancy", "consulting", "consultants?", "prestations?",
        "supervision", "audit", "training", "cleaning", "insurance", "etudes?", "maitrise d (?:œ|oe)uvre",
        "entwicklung", "erstellung", "beratung", "gutachten", "studie", "خدمات", "सेवा", "सेवाएं",
        "оказани\\w* услуг", "услуг[иа]", "послуг\\w*", "συντηρηση", "παροχ\\w* υπηρεσιων", "υπηρεσιων", "servicii",
        "(?:ihale konusu )?hizmet[i]? al[ıi]m\\w*", "dich vu", "jasa konsultansi", "perkhidmatan",
        "maintenance", "entretien", "wartung", "mantenimiento", "manutenzione", "konserwacja", "onderhoud",
        "catering", "restauration", "security services", "gardiennage", "bewachung", "vigilancia", "vigilanza",
        "transport services", "transportation",
        "จ้างเหมาบริการ", "จ้างที่ปรึกษา", "บริการ",
        "[לוהב]?מתן שירותי\\w*",
    ),
}

CPV_LABELS: Final[tuple[str, ...]] = (
    "cpv", "common procurement vocabulary", "vocabulaire commun", "gemeinsame(?:s|n)? vokabular",
    "vocabulario comun", "vocabolario comune", "vocabulario comum", "wspolny slownik zamowien",
    "gemeenschappelijke woordenlijst",
    # lt: the CPV is the BVPŽ (Bendrasis viešųjų pirkimų žodynas) on Lithuanian forms
    "bvpz", "bendr\\w* viesuju pirkimu zodyn\\w*",
)

HEAD_NOUNS: Final[dict[str, tuple[str, ...]]] = {
    # The head noun of a title in a language that puts it last ('…解体工事', '…설계용역', '…设备采购安装项目'):
    # the last one of a title names what is bought. (Not 調達/采购 alone, procurement of anything: '…服务采购'.)
    "works": ("工事", "공사", "工程", "施工"),
    "goods": ("購入", "買入れ", "物品", "구매", "물품", "제조", "设备采购", "货物", "购置", "財物", "購置"),
    "services": ("業務", "委託", "点検", "保守", "清掃", "設計", "調査", "警備", "용역", "服务", "咨询", "监理", "设计",
                 "运维", "勞務", "服務"),
}
