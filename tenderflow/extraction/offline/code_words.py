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
    ),
    "prior_information_notice": (
        "prior information notice", "periodic indicative notice", "general procurement notice",
        "avis de preinformation", "avis de pre information", "vorinformation",
        "anuncio previo", "anuncio de informacion previa", "avviso di preinformazione",
        "anuncio de pre informacao", "wstepne ogloszenie informacyjne", "vooraankondiging",
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
    ),
    "comp-dial": (
        "competitive dialogue", "dialogue competitif", "wettbewerbliche(?:r|n)? dialog(?:s)?", "dialogo competitivo",
        "dialogo concorrencial", "dialog(?:u)? konkurencyjn(?:y|ego)", "concurrentiegerichte dialoog",
        "الحوار التنافسي",
    ),
    "innovation": (
        "innovation partnership", "partenariat d innovation", "innovationspartnerschaft",
        "asociacion para la innovacion", "partenariato per l innovazione", "parceria para a inovacao",
        "partnerstw(?:o|a) innowacyjn(?:e|ego)", "innovatiepartnerschap",
    ),
    # French MAPA: below-threshold procedure the buyer shapes itself (the analysts' call: oth-single).
    "oth-single": ("procedure adaptee", "marche a procedure adaptee"),
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
)

PROCEDURE_WORDS: Final[dict[str, str]] = {
    # A labelled value that is one bare word ("Type of procedure: Open").
    "open": "open", "ouverte": "open", "offen": "open", "offenes": "open", "abierto": "open", "aperta": "open",
    "aberto": "open", "openbaar": "open", "openbare": "open", "nieograniczony": "open",
    "restricted": "restricted", "restreinte": "restricted", "restringido": "restricted", "ristretta": "restricted",
    "ograniczony": "restricted",
}

CATEGORY_STATEMENTS: Final[dict[str, tuple[str, ...]]] = {
    "works": (
        "type de marche de travaux", "marches? (?:public )?de travaux", "contrato de obras?",
        "tipo de contrato obras?", "appalto (?:pubblico )?di lavori", "(?:offentlicher )?bauauftrag",
        "bauleistung(?:en)?", "roboty budowlane", "zamowienie na roboty budowlane",
        "(?:nabywania|dotyczace) robot budowlanych", "works contract", "contract for works",
        "procurement of works", "execution of works", "empreitada de obras publicas", "opdracht voor werken",
    ),
    "goods": (
        "type de marche de fournitures", "marches? (?:public )?de fournitures", "contrato de suministros?",
        "tipo de contrato suministros?", "appalto (?:pubblico )?di forniture", "(?:offentlicher )?lieferauftrag",
        "lieferleistung(?:en)?", "zamowienie na dostawy", "(?:nabywania|dotyczace) dostaw", "supply contract",
        "contract for the supply of", "procurement of goods", "supply of goods", "purchase of goods",
        "adquisicion de bienes", "compra de bienes",
        "aquisicao de bens", "contrato de fornecimento", "opdracht voor leveringen",
    ),
    "services": (
        "type de marche de services", "marches? (?:public )?de services", "categorie de services",
        "contrato de servicios?", "tipo de contrato servicios?", "appalto (?:pubblico )?di servizi",
        "(?:offentlicher )?dienstleistungsauftrag", "zamowienie na uslugi", "(?:nabywania|dotyczace) uslug",
        "service contract", "services contract", "(?:non )?consult(?:ing|ancy) services",
        "contratacion de servicios", "prestacion de servicios", "aquisicao de servicos", "prestacao de servicos",
        "opdracht voor diensten",
    ),
}

CATEGORY_WORDS: Final[dict[str, tuple[str, ...]]] = {
    # A bare category word: as a labelled value, or as a heading line of its own (BOAMP "Fournitures").
    "works": ("works", "travaux", "obras?", "lavori", "bauleistungen", "bauleistung", "roboty budowlane",
              "werken", "empreitadas?", "اشغال", "कार्य"),
    "goods": ("goods", "supplies", "supply", "fournitures", "suministros?", "forniture", "lieferleistungen",
              "lieferleistung", "lieferungen", "lieferung", "dostawy", "dostawa", "bienes", "bens", "leveringen",
              "توريد", "माल"),
    "services": ("services?", "servicios?", "servizi", "dienstleistungen", "dienstleistung", "uslugi", "usluga",
                 "servicos", "diensten", "خدمات", "सेवाएं", "सेवा"),
}

CATEGORY_LABELS: Final[tuple[str, ...]] = (
    "type of contract", "contract type", "procurement category", "category of procurement",
    "main category", "main nature of the contract", "nature of (?:the )?contract", "type de marche",
    "nature du marche", "tipo de contrato", "tipo di appalto", "natura principale dell appalto",
    "naturaleza (?:principal )?del contrato",
    "vertragsart", "auftragsart", "art des auftrags", "art der leistung", "rodzaj zamowienia",
    "soort opdracht", "tipo de adquisicion", "tender category", "category of tender", "निविदा श्रेणी",
    "adquisicion de bienes o contratacion de servicios", "scope of supply",
)

SUBJECT_WORDS: Final[dict[str, tuple[str, ...]]] = {
    # Head nouns of a subject line ("Professional Engineering Services for …"); the first one wins.
    "works": (
        # a plant contract (design, supply and installation) is classed as works, unlike a mere supply
        "construction", "constructing", "build", "design build", "design supply and install(?:ation)?", "works",
        "travaux", "obras?", "lavori",
        "bauarbeiten", "bauleistungen", "neubau", "umbau", "erweiterungsbau", "roboty budowlane", "budowa",
        "przebudowa", "rozbudowa", "empreitada", "انشاء", "निर्माण",
    ),
    "goods": (
        "supply (?:of|and|&)", "purchase of", "acquisition of",
        "procurement of equipment", "fourniture(?:s)? (?:de|d)", "achat de", "acquisition de",
        "adquisicion de", "suministro de", "fornitura di", "lieferung von", "kauf von", "zakup", "dostawa",
        "dostawy", "fornecimento de", "aquisicao de", "levering van", "hardware", "equipment", "توريد",
        "आपूर्ति",
    ),
    "services": (
        # not the singular "service": "Federal Acquisition Service", "Service des marchés" are offices
        "services", "servicios?", "servizio", "servizi", "dienstleistung(?:en)?", "uslug[ia]?", "servicos?",
        "diensten", "dienstverlening", "consultancy", "consulting", "consultants?", "prestations?",
        "supervision", "audit", "training", "cleaning", "insurance", "etudes?", "maitrise d (?:œ|oe)uvre",
        "entwicklung", "erstellung", "beratung", "gutachten", "studie", "خدمات", "सेवा", "सेवाएं",
    ),
}

CPV_LABELS: Final[tuple[str, ...]] = (
    "cpv", "common procurement vocabulary", "vocabulaire commun", "gemeinsame(?:s|n)? vokabular",
    "vocabulario comun", "vocabolario comune", "vocabulario comum", "wspolny slownik zamowien",
    "gemeenschappelijke woordenlijst",
)
