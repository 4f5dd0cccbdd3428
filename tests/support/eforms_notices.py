"""A contract notice in the EU's current format, eForms (TED since late 2023; form CN standard), written in
each of the EU's official languages with the official labels, as the TED viewer prints an eForms notice: one
field a line, under the numbered sections of the notice (1. Buyer, 2. Procedure, 5. Lot, 8. Organisations).

The labels come from the eForms SDK's translation files (OP-TED/eForms-SDK, `translations/`):
`business-term_xx.xml` (the `business-term|name|BG-*`/`BT-*` entries: section and field names),
`auxiliary_xx.xml` (`auxiliary|text|value`, `estimated-duration`, `lot`, `organisations`,
`procurement-terms`) and, for English only, `code_en.xml` (`procurement-procedure-type.open`,
`contract-nature.services`, `timeperiods.MONTH`). Each label is spelled as the SDK spells it, machine
translation oddities included (German "Kaufmännischer" for Buyer, Latvian "Mērķis Mēr" for Purpose): the
notices print them. The stored SDK versions differ by language (SDK 1.4.0 of November 2022 for some, later
ones for others); the comment above each language names the commits read. The code-list words other
languages print for "open", "services" and "months" were not read from the SDK (`code_xx.xml` is 900,000
characters a language): "open" and "services" are the wording of form F02 in that language
(`ted_forms.FORMS`), "months" is written from knowledge of the language; see `_f02_codes`.

The values are made up and are those of the F02 notices (`ted_forms.FACTS`, `EMAIL`, `PHONE`, `VALUE`, `CPV`,
`DEADLINE`, `DURATION_MONTHS`), so both forms are scored on the same 12 fields with the same expectations.
The eForms notice also prints two fields form F02's notices here do not, in the lot's terms section: BT-13
'Deadline for requesting additional information' (`QUESTIONS_DEADLINE`) and BT-18 'Address for submission'
(`SUBMISSION_URL`), scored for eForms only (14 fields a language). Their labels were read later, from the
same business-term commits as each language's other labels (full hashes: 06272485c1decae88226a8f7891f047580fb6489,
07279dd18cb70637adf5759b38e8fdcb7f95520d (SDK 1.4.0), 0c7c1ed15f9b69e14f3f5b46c9af19cd081543c5,
0c7801e72547ae56a07a6f16a90866fa6aee02c3, 0f695d72603143a5db7e903dcb63eac61dab86a9,
0b481b3fab87554c2fc5b225573cc10f9213da7f).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

from tenderflow.extraction.schema import TenderFields
from tests.support import ted_forms
from tests.support.ted_forms import CPV, DEADLINE, DURATION_MONTHS, EMAIL, FACTS, PHONE, VALUE


@dataclass(frozen=True)
class EFormsLabels:
    """The labels an eForms contract notice prints in one language (SDK key in each comment)."""

    buyer: str  # business-term|name|BG-3
    procedure: str  # BG-6
    purpose: str  # BG-2
    place: str  # BG-708
    organisation: str  # BG-703 (not printed on this page; kept for notices that print it)
    official_name: str  # BT-500
    email: str  # BT-506
    telephone: str  # BT-503
    title: str  # BT-21
    procedure_identifier: str  # BT-04
    internal_identifier: str  # BT-22
    procedure_type: str  # BT-105
    main_nature: str  # BT-23
    main_classification: str  # BT-262
    postal_address: str  # BT-5101
    town: str  # BT-5131
    postcode: str  # BT-5121
    country_subdivision: str  # BT-5071
    country: str  # BT-5141
    estimated_value: str  # BT-27
    duration: str  # BT-36
    deadline: str  # BT-131
    value: str  # auxiliary|text|value
    estimated_duration: str  # auxiliary|text|estimated-duration
    lot: str  # auxiliary|text|lot
    organisations: str  # auxiliary|text|organisations
    procurement_terms: str  # auxiliary|text|procurement-terms
    open_procedure: str  # code procurement-procedure-type.open
    services: str  # code contract-nature.services
    months: str  # code timeperiods.MONTH, plural
    questions_deadline: str  # business-term|name|BT-13 (read later than the fields above: see the module docstring)
    submission_url: str  # business-term|name|BT-18


def _f02_codes(language: str, months: str) -> tuple[str, str, str]:
    """The words for "open", "services" and "months" where they were not read from the SDK's code lists:
    NOT FROM THE eForms SDK. "Open" and "services" are form F02's wording in `language` (the EU's own
    terms, close to what eForms prints: the code lists may print a shorter word), `months` is written from
    knowledge of the language (the plural or counted form after 36)."""
    form = ted_forms.FORMS[language]
    return form.open_procedure, form.services, months


LABELS: dict[str, EFormsLabels] = {
    # business-term 06272485; auxiliary 07279dd1, SDK 1.4.0; code 042da67e, SDK 1.1.199
    "en": EFormsLabels(
        "Buyer", "Procedure", "Purpose", "Place of performance", "Organisation", "Official name", "Email",
        "Telephone", "Title", "Procedure identifier", "Internal identifier", "Type of procedure",
        "Main nature of the contract", "Main classification", "Postal address", "Town", "Postcode",
        "Country subdivision (NUTS)", "Country", "Estimated value excluding VAT", "Duration",
        "Deadline for receipt of tenders", "Value", "Estimated duration", "Lot", "Organisations",
        "Terms of procurement", "Open", "Services", "Months",
        questions_deadline="Deadline for requesting additional information",
        submission_url="Address for submission"),
    # business-term 07279dd1, SDK 1.4.0; auxiliary 0fd86c01
    "de": EFormsLabels(
        "Kaufmännischer", "Prozedur", "Zweckbestimmung", "Ort der Leistung", "Organisation",
        "Offizielle Bezeichnung", "E-Mail", "Telefon", "Titel", "Kennung des Verfahrens", "Interne Kennung",
        "Verfahrensart", "Art des Auftrags", "Haupteinstufung", "Postanschrift", "Stadt", "Postleitzahl",
        "Untereinheit des Landes", "Land", "Geschätzter Wert ohne MwSt.", "Dauer",
        "Frist für den Eingang der Angebote", "Wert", "Geschätzte Dauer", "Los", "Organisationen",
        "Bedingungen für die Auftragsvergabe", *_f02_codes("de", "Monate"),
        questions_deadline="Frist für die Anforderung zusätzlicher Informationen",
        submission_url="Adresse für die Einreichung"),
    # business-term 07279dd1, SDK 1.4.0; auxiliary 0fd86c01
    "fr": EFormsLabels(
        "Acheteur", "Procédure", "Objet", "Lieu d’exécution", "Organisation", "Nom officiel",
        "Adresse électronique", "Téléphone", "Titre", "Identifiant de la procédure", "Identifiant interne",
        "Type de procédure", "Nature du marché", "Nomenclature principale", "Adresse postale", "Ville",
        "Code postal", "Entité secondaire du pays", "Pays", "Valeur estimée hors TVA", "Durée",
        "Date limite de réception des offres", "Valeur", "Durée estimée", "Lot", "Organisations",
        "Conditions du marché public", *_f02_codes("fr", "Mois"),
        questions_deadline="Date limite de demande d'informations complémentaires",
        submission_url="Adresse de présentation"),
    # business-term 06272485; auxiliary 0fd86c01
    "it": EFormsLabels(
        "Committente", "Procedura", "Obiettivo", "Luogo di esecuzione", "Organizzazione", "Nome ufficiale",
        "E-mail", "Telefono", "Titolo", "Identificativo della procedura", "Identificativo interno",
        "Tipo di procedura", "Natura dell'appalto", "Classificazione principale", "Indirizzo postale", "Località",
        "Codice postale", "Suddivisione del paese (NUTS)", "Paese", "Valore stimato al netto dell'IVA", "Durata",
        "Termine per il ricevimento delle offerte", "Valore", "Durata stimata", "Lotto", "Organizzazioni",
        "Condizioni di appalto", *_f02_codes("it", "Mesi"),
        questions_deadline="Termine per la richiesta di informazioni supplementari",
        submission_url="Indirizzo per la presentazione"),
    # business-term 06272485; auxiliary 07279dd1, SDK 1.4.0
    "es": EFormsLabels(
        "Comprador", "Procedimiento", "Finalidad", "Lugar de ejecución", "Organización", "Denominación oficial",
        "Correo electrónico", "Teléfono", "Título", "Identificador del procedimiento", "Identificador interno",
        "Tipo de procedimiento", "Naturaleza del contrato", "Clasificación principal", "Dirección postal",
        "Localidad", "Código postal", "Subdivisión del país (NUTS)", "País", "Valor estimado, IVA excluido",
        "Duración", "Plazo de recepción de ofertas", "Valor", "Duración estimada", "Lote", "Organizaciones",
        "Condiciones de la contratación pública", *_f02_codes("es", "Meses"),
        questions_deadline="Plazo para solicitar información complementaria",
        submission_url="Dirección para la presentación"),
    # business-term 06272485; auxiliary 0fd86c01
    "pt": EFormsLabels(
        "Adquirente", "Processo", "Finalidade", "Local de execução dos trabalhos", "Organização", "Nome oficial",
        "Correio eletrónico", "Telefone", "Título", "Identificador do procedimento", "Identificador interno",
        "Tipo de procedimento", "Natureza do contrato", "Classificação principal", "Endereço postal", "Cidade",
        "Código postal", "Subdivisão do país (NUTS)", "País", "Valor estimado, sem IVA", "Duração",
        "Prazo para a receção das propostas", "Valor", "Duração estimada", "Lote", "Organizações",
        "Condições do concurso", *_f02_codes("pt", "Meses"),
        questions_deadline="Prazo para solicitar informações adicionais",
        submission_url="Endereço para apresentação"),
    # business-term 07279dd1, SDK 1.4.0; auxiliary 0c7b71a4, SDK 1.5.0
    "nl": EFormsLabels(
        "Koper", "Procedure", "Doel", "Plaats van uitvoering", "Organisatie", "Officiële naam", "E-mail",
        "Telefoon", "Titel", "Identificatiecode van de procedure", "Interne identificatiecode", "Type procedure",
        "Aard van het contract", "Belangrijkste classificatie", "Postadres", "Stad", "Postcode",
        "Onderverdeling van een land", "Land", "Geraamde waarde exclusief btw", "Duur",
        "Uiterste datum voor de ontvangst van inschrijvingen", "Waarde", "Geraamde duur", "Perceel", "Organisaties",
        "Voorwaarden van de aanbesteding", *_f02_codes("nl", "Maanden"),
        questions_deadline="Termijn voor verzoeken om aanvullende informatie",
        submission_url="Adres voor indiening"),
    # business-term 07279dd1, SDK 1.4.0; auxiliary 07279dd1, SDK 1.4.0
    "pl": EFormsLabels(
        "Nabywca", "Procedura", "Cel", "Miejsce wykonania", "Organizacja", "Oficjalna nazwa", "E-mail", "Telefon",
        "Tytuł", "Identyfikator procedury", "Wewnętrzny identyfikator", "Rodzaj procedury", "Charakter zamówienia",
        "Główna klasyfikacja", "Adres pocztowy", "Miejscowość", "Kod pocztowy", "Podjednostka w kraju", "Kraj",
        "Szacunkowa wartość bez VAT", "Okres obowiązywania", "Termin składania ofert", "Wartość",
        "Szacowany okres obowiązywania", "Część zamówienia", "Organizacje", "Warunki udzielenia zamówienia",
        *_f02_codes("pl", "Miesiące"),
        questions_deadline="Termin występowania z wnioskiem o dodatkowe informacje",
        submission_url="Adres na potrzeby zgłoszenia"),
    # business-term 06272485; auxiliary 0fd86c01
    "cs": EFormsLabels(
        "Kupující", "Řízení", "Účel", "Místo plnění", "Organizace", "Oficiální název", "E-mail", "Telefon", "Název",
        "Identifikátor řízení", "Interní identifikátor", "Typ řízení", "Charakter smlouvy", "Hlavní klasifikace",
        "Poštovní adresa", "Obec", "PSČ", "Nižší územní jednotka země (NUTS)", "Země", "Odhadovaná hodnota bez DPH",
        "Doba trvání", "Lhůta pro doručení nabídek", "Hodnota", "Odhadovaná doba trvání", "Část", "Organizace",
        "Podmínky zadávání zakázek", *_f02_codes("cs", "Měsíce"),
        questions_deadline="Lhůta pro vyžádání dalších informací",
        submission_url="Adresa pro podání"),
    # business-term 0c7c1ed1; auxiliary 0b481b3f, SDK 1.5.0
    "sk": EFormsLabels(
        "Kupujúci", "Postup", "Účel", "Miesto výkonu", "Organizácia", "Úradný názov", "E-mail", "Telefón", "Názov",
        "Identifikátor postupu", "Interný identifikátor", "Druh postupu", "Druh zmluvy", "Hlavná klasifikácia",
        "Poštová adresa", "Mesto", "PSČ", "Podriadený subjekt krajiny", "Krajina", "Predpokladaná hodnota bez DPH",
        "Trvanie", "Lehota na prijímanie ponúk", "Hodnota", "Predpokladané trvanie", "Časť", "Organizácie",
        "Podmienky verejného obstarávania", *_f02_codes("sk", "Mesiace"),
        questions_deadline="Lehota na vyžiadanie doplňujúcich informácií",
        submission_url="Adresa na predkladanie"),
    # business-term 06272485; auxiliary 0c7b71a4, SDK 1.5.0
    "sv": EFormsLabels(
        "Köpare", "Förfarande", "Föremålet för upphandlingen", "Leveransplats", "Organisation", "Officiellt namn",
        "E-postadress", "Tfn", "Titel", "Förfarandets identifierare", "Intern identifierare", "Typ av förfarande",
        "Kontraktets art", "Huvudklassificering", "Postadress", "Ort", "Postnummer", "Del av land (NUTS)", "Land",
        "Beräknat värde exklusive moms", "Varaktighet", "Tidsfrist för mottagande av anbud", "Värde",
        "Uppskattad löptid", "Del (anbudsområde)", "Organisationer", "Upphandlingsvillkor",
        *_f02_codes("sv", "Månader"),
        questions_deadline="Sista dag för att begära kompletterande information",
        submission_url="Adress för inlämning"),
    # business-term 06272485; auxiliary 0fd86c01
    "da": EFormsLabels(
        "Køber", "Procedure", "Formål", "Udførelsessted", "Organisation", "Officielt navn", "E-mail", "Telefon",
        "Titel", "Identifikator for proceduren", "Intern identifikator", "Udbudsprocedure", "Kontraktens art",
        "Primær klassificering", "Postadresse", "By", "Postnummer", "Landespecifik underafdeling (NUTS)", "Land",
        "Anslået værdi eksklusiv moms", "Varighed", "Frist for modtagelse af tilbud", "Værdi", "Anslået varighed",
        "Delkontrakt", "Organisationer", "Udbudsvilkår", *_f02_codes("da", "Måneder"),
        questions_deadline="Frist for anmodning om yderligere oplysninger",
        submission_url="Indgivelsesadresse"),
    # business-term 06272485; auxiliary 0fd86c01
    "fi": EFormsLabels(
        "Ostaja", "Menettely", "Tarkoitus", "Suorituspaikka", "Organisaatio", "Virallinen nimi", "Sähköposti",
        "Puhelin", "Otsikko", "Menettelytunniste", "Sisäinen tunniste", "Menettelyn tyyppi", "Sopimuksen kategoria",
        "Pääasiallinen luokitus", "Postiosoite", "Postitoimipaikka", "Postinumero", "Maaryhmittely (NUTS)", "Maa",
        "Arvioitu arvo ilman arvonlisäveroa", "Kesto", "Tarjousten vastaanottamisen määräaika", "Arvo",
        "Arvioitu kesto", "Osa", "Organisaatiot", "Hankinnan ehdot", *_f02_codes("fi", "Kuukautta"),
        questions_deadline="Lisätietojen pyytämisen määräaika",
        submission_url="Tarjouksen/hakemuksen toimitusosoite"),
    # business-term 07279dd1, SDK 1.4.0; auxiliary 07279dd1, SDK 1.4.0
    "ro": EFormsLabels(
        "Cumpărător", "Procedură", "Scop", "Locul de desfășurare a activității", "Organizație", "Denumire oficială",
        "E-mail", "Telefon", "Titlu", "Identificatorul procedurii", "Identificator intern", "Tip de procedură",
        "Natura contractului", "Clasificarea principală", "Adresă poștală", "Localitate", "Cod poștal",
        "Subentitatea țării", "Țara", "Valoarea estimată fără TVA", "Durata",
        "Termenul-limită pentru primirea ofertelor", "Valoare", "Durata estimată", "Lot", "Organizații",
        "Condițiile achiziției publice", *_f02_codes("ro", "Luni"),
        questions_deadline="Termenul-limită pentru solicitarea de informații suplimentare",
        submission_url="Adresa de depunere"),
    # business-term 06272485; auxiliary 0fd86c01
    "hu": EFormsLabels(
        "Vevő", "Eljárás", "Cél", "Teljesítési hely", "Szervezet", "Hivatalos név", "E-mail-cím", "Telefonszám",
        "Cím", "Eljárásazonosító", "Belső azonosító", "Az eljárás típusa", "A szerződés jellege", "Fő osztályozás",
        "Postacím", "Város", "Irányítószám", "Ország alegysége (NUTS)", "Ország",
        "A becsült érték héa (áfa) nélkül", "Időtartam", "Az ajánlatok beérkezésének határideje", "Érték",
        "Becsült időtartam", "Rész", "Szervezetek", "A közbeszerzésre irányadó feltételek",
        *_f02_codes("hu", "Hónap"),
        questions_deadline="Határidő kiegészítő információk bekéréséhez",
        submission_url="A benyújtásra használható cím"),
    # business-term 06272485; auxiliary 0fd86c01
    "bg": EFormsLabels(
        "Купувач", "Процедура", "Цел", "Място на изпълнение", "Организация", "Официално наименование",
        "Електронна поща", "Телефон", "Заглавие", "Идентификатор на процедурата", "Вътрешен идентификатор",
        "Вид процедура", "Естество на поръчката", "Основна класификация", "Пощенски адрес", "Град", "Пощенски код",
        "Административно-териториална единица на държавата (NUTS)", "Държава",
        "Прогнозна стойност, без да се включва ДДС", "Срок", "Краен срок за получаване на оферти", "Стойност",
        "Очаквана продължителност", "Обособена позиция", "Организации",
        "Условия за възлагане на обществена поръчка", *_f02_codes("bg", "Месеца"),
        questions_deadline="Краен срок за искане на допълнителна информация",
        submission_url="Адрес за подаване"),
    # business-term 0c7801e7; auxiliary 0fd86c01
    "el": EFormsLabels(
        "Αγοραστής", "Διαδικασία", "Σκοπός", "Τόπος εκτέλεσης", "Οργανισμός", "Επίσημη ονομασία", "Email",
        "Τηλέφωνο", "Τίτλος", "Αναγνωριστικό διαδικασίας", "Εσωτερικό αναγνωριστικό", "Είδος διαδικασίας",
        "Χαρακτήρας της σύμβασης", "Κύρια ταξινόμηση", "Ταχυδρομική διεύθυνση", "Πόλη", "Ταχυδρομικός κώδικας",
        "Υποδιαίρεση χώρας (NUTS)", "Χώρα", "Εκτιμώμενη αξία χωρίς ΦΠΑ", "Διάρκεια",
        "Προθεσμία παραλαβής των προσφορών", "Αξία", "Εκτιμώμενη διάρκεια", "Παρτίδα", "Οργανισμοί",
        "Όροι δημοσίων συμβάσεων", *_f02_codes("el", "Μήνες"),
        questions_deadline="Προθεσμία αιτήματος για παροχή πρόσθετων πληροφοριών",
        submission_url="Διεύθυνση για υποβολή"),
    # business-term 06272485; auxiliary 07279dd1, SDK 1.4.0
    "hr": EFormsLabels(
        "Kupac", "Postupak", "Svrha", "Mjesto izvršenja", "Organizacija", "Službeno ime", "E-pošta", "Tel.",
        "Naslov", "Identifikacijska oznaka postupka", "Interna identifikacijska oznaka", "Vrsta postupka",
        "Priroda ugovora", "Glavna klasifikacija", "Poštanska adresa", "Grad", "Poštanski broj",
        "Zemlja – podregija (NUTS)", "Zemlja", "Procijenjena vrijednost bez PDV-a", "Trajanje",
        "Rok za zaprimanje ponuda", "Vrijednost", "Očekivano trajanje", "Grupa", "Organizacije", "Uvjeti nabave",
        *_f02_codes("hr", "Mjeseci"),
        questions_deadline="Rok za podnošenje zahtjeva za dodatne informacije",
        submission_url="Adresa za podnošenje"),
    # business-term 0f695d72; auxiliary 0fd86c01
    "sl": EFormsLabels(
        "Kupec", "Postopek", "Namen", "Kraj izvedbe", "Organizacija", "Uradno ime", "E-naslov", "Tel.", "Naslov",
        "Identifikator postopka", "Notranji identifikator", "Vrsta postopka", "Vrsta javnega naročila",
        "Glavna klasifikacijska oznaka", "Poštni naslov", "Mesto", "Poštna številka", "Podregija države (NUTS)",
        "Država", "Ocenjena vrednost brez DDV", "Trajanje", "Rok za prejem ponudb", "Vrednost",
        "Predvideno trajanje", "Sklop", "Organizacije", "Pogoji javnega naročila", *_f02_codes("sl", "Mesecev"),
        questions_deadline="Rok za zahtevanje dodatnih informacij",
        submission_url="Naslov za predložitev"),
    # business-term 0b481b3f; auxiliary 0fd86c01
    "lt": EFormsLabels(
        "Pirkėjas", "Procedūra", "Tikslas", "Vykdymo vieta", "Organizacija", "Oficialus pavadinimas", "E. paštas",
        "Telefono numeris", "Pavadinimas", "Procedūros identifikatorius", "Vidaus identifikatorius",
        "Pirkimo būdas", "Sutarties objektas", "Pagrindinis klasifikacijos kodas", "Pašto adresas", "Miestas",
        "Pašto kodas", "Šalies administracinis vienetas", "Šalis", "Numatoma vertė be PVM", "Galiojimas",
        "Pasiūlymų priėmimo terminas", "Vertė", "Numatomas galiojimas", "Pirkimo dalis", "Organizacijos",
        "Pirkimo sąlygos", *_f02_codes("lt", "Mėnesiai"),
        questions_deadline="Papildomos informacijos prašymo terminas",
        submission_url="Pateikimo adresas"),
    # business-term 07279dd1, SDK 1.4.0; auxiliary 07279dd1, SDK 1.4.0
    "lv": EFormsLabels(
        "Pasūtītājs", "Procedūra", "Mērķis Mēr", "Izpildes vieta", "Organizācijas nosaukums",
        "Oficiālais nosaukums", "E-pasts", "Tālrunis", "Nosaukums", "Procedūras identifikators",
        "Iekšējais identifikators", "Procedūras veids", "Līguma veids", "Galvenā klasifikācija", "Pasta adrese",
        "Pilsēta", "Pasta indekss", "Valsts apakšvienība", "Valsts", "Paredzamā vērtība bez PVN", "Ilgums",
        "Piedāvājumu saņemšanas termiņš", "Vērtība", "Paredzamais ilgums", "Daļa", "Organizācijas",
        "Iepirkuma noteikumi", *_f02_codes("lv", "Mēneši"),
        questions_deadline="Termiņš papildu informācijas pieprasīšanai",
        submission_url="Iesniegšanas adrese"),
    # business-term 06272485; auxiliary 0fd86c01
    "et": EFormsLabels(
        "Hankija", "Menetlus", "Eesmärk", "Lepingu täitmise koht", "Organisatsioon", "Ametlik nimi",
        "E-posti aadress", "Telefon", "Pealkiri", "Menetluse tunnus", "Sisemine tunnus", "Menetluse liik",
        "Lepingu olemus", "Peamine liigitus", "Postiaadress", "Linn", "Sihtnumber", "Riik – jaotus (NUTS)", "Riik",
        "Eeldatav maksumus käibemaksuta", "Kestus", "Pakkumuste esitamise tähtaeg", "Maksumus", "Eeldatav kestus",
        "Osa", "Organisatsioonid", "Hanke tingimused", *_f02_codes("et", "Kuud"),
        questions_deadline="Lisateabe taotlemise tähtaeg",
        submission_url="Avalduse esitamise aadress"),

}

PROCEDURE_ID = "5f0c6b7e-1f2a-4c3d-9e8f-0a1b2c3d4e5f"
"""BT-04, the procedure's UUID, as every eForms notice prints it."""

QUESTIONS_DEADLINE = date(2025, 3, 4)
"""BT-13, the deadline for requesting additional information (at 12:00, ten days before BT-131)."""

SUBMISSION_URL = "https://tenders.example.eu/procedure/117"
"""BT-18, the address for submission."""


def _amount(value: float) -> str:
    """An amount as the notice prints it: "1 250 000,00 EUR"."""
    whole, cents = f"{value:,.2f}".split(".")
    return f"{whole.replace(',', ' ')},{cents} EUR"


def notice(language: str) -> str:
    """The eForms contract notice in `language`, one field a line, as the TED viewer prints it."""
    label, facts = LABELS[language], FACTS[language]
    nuts_code, nuts_name = facts.nuts.split(" ", 1)
    subdivision = label.country_subdivision
    if "(NUTS)" not in subdivision:  # later SDK versions put "(NUTS)" in the label itself
        subdivision = f"{subdivision} (NUTS)"
    return "\n".join([
        f"1. {label.buyer}",
        f"1.1. {label.buyer}",
        f"{label.official_name}: {facts.buyer}",
        f"{label.email}: {EMAIL}",
        f"2. {label.procedure}",
        f"2.1. {label.procedure}",
        f"{label.title}: {facts.title}",
        f"{label.procedure_identifier}: {PROCEDURE_ID}",
        f"{label.internal_identifier}: {facts.reference}",
        f"{label.procedure_type}: {label.open_procedure}",
        f"2.1.1. {label.purpose}",
        f"{label.main_nature}: {label.services}",
        f"{label.main_classification} (cpv): {CPV}",
        f"2.1.2. {label.place}",
        f"{label.postal_address}: {facts.street}",
        f"{label.town}: {facts.town}",
        f"{label.postcode}: 10100",
        f"{subdivision}: {nuts_name} ({nuts_code})",
        f"{label.country}: {facts.country}",
        f"2.1.3. {label.value}",
        f"{label.estimated_value}: {_amount(VALUE)}",
        f"5. {label.lot}",
        f"5.1. {label.lot}: LOT-0000",
        f"5.1.3. {label.estimated_duration}",
        f"{label.duration}: {DURATION_MONTHS} {label.months}",
        f"5.1.12. {label.procurement_terms}",
        f"{label.questions_deadline}: {QUESTIONS_DEADLINE:%d/%m/%Y} 12:00:00 (UTC+01:00)",
        f"{label.deadline}: {DEADLINE:%d/%m/%Y} 12:00:00 (UTC+01:00)",
        f"{label.submission_url}: {SUBMISSION_URL}",
        f"8. {label.organisations}",
        "8.1. ORG-0001",
        f"{label.official_name}: {facts.buyer}",
        f"{label.postal_address}: {facts.street}",
        f"{label.town}: {facts.town}",
        f"{label.postcode}: 10100",
        f"{label.country}: {facts.country}",
        f"{label.telephone}: {PHONE}",
        f"{label.email}: {EMAIL}",
        "",
    ])


def read_values(fields: TenderFields) -> dict[str, Any]:
    """The fields the eForms notice states, as plain values (None: not read): form F02's 12
    (`ted_forms.read_values`) and the two only the eForms notice prints (BT-13, BT-18)."""

    def value(sourced: Any) -> Any:
        return None if sourced is None else sourced.value

    return {**ted_forms.read_values(fields), "questions_deadline": value(fields.questions_deadline),
            "submission_url": value(fields.submission_url)}


def expected_values(language: str) -> dict[str, Any]:
    """What `read_values` should give for the eForms notice in `language`; the place is checked by
    `ted_forms.right_place`."""
    return {**ted_forms.expected_values(language), "questions_deadline": f"{QUESTIONS_DEADLINE.isoformat()}T12:00",
            "submission_url": SUBMISSION_URL}


def scored(language: str, fields: TenderFields) -> dict[str, bool]:
    """Per field, whether `fields` (read from the eForms notice in `language`) has it right: form F02's 12
    fields with the same expected values (`ted_forms.scored`; the place may be the town, the NUTS code or
    the region's name), and the questions deadline (BT-13) and the submission URL (BT-18)."""
    read = read_values(fields)
    right = {name: read[name] == value for name, value in expected_values(language).items()}
    return {**right, "place_of_performance": ted_forms.right_place(language, read["place_of_performance"])}
