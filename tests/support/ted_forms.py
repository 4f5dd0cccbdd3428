"""A contract notice on the EU's standard form (TED, Directive 2014/24/EU, form F02), written in each of
the EU's official languages with the form's official labels, as `pdftotext -layout` prints a TED PDF:
the section and field labels the Publications Office prints for every notice in that language, and
values made up for these tests (a buyer, a title, a reference, an amount, a date).

Every contract notice published in the EU since 2016 until eForms (and, through national portals, many
below the thresholds) carries these labels, so they are read from the standard's wording, not from a
document's: a bidder's notices in Polish or Finnish print them exactly so.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

from tenderflow.extraction.schema import TenderFields


@dataclass(frozen=True)
class FormLabels:
    """The labels of form F02 one language prints (the keys of `FORM` below)."""

    section_buyer: str
    names_and_addresses: str
    official_name: str
    postal_address: str
    town: str
    nuts: str
    postcode: str
    country: str
    email: str
    telephone: str
    section_object: str
    title: str
    reference: str
    main_cpv: str
    contract_type: str
    services: str
    estimated_value: str
    value_excluding_vat: str
    place: str
    main_site: str
    duration: str
    duration_months: str
    section_procedure: str
    procedure_type: str
    open_procedure: str
    time_limit: str
    date: str
    local_time: str


@dataclass(frozen=True)
class NoticeFacts:
    """What a notice in one language says (made up for these tests)."""

    buyer: str
    street: str
    town: str
    country: str
    title: str
    reference: str
    nuts: str
    """The NUTS code of the town's region with its name, as TED prints it."""


FORMS: dict[str, FormLabels] = {
    "en": FormLabels(
        "Section I: Contracting authority", "I.1) Name and addresses", "Official name", "Postal address", "Town",
        "NUTS code", "Postal code", "Country", "E-mail", "Telephone", "Section II: Object", "II.1.1) Title",
        "Reference number", "II.1.2) Main CPV code", "II.1.3) Type of contract", "Services",
        "II.1.5) Estimated total value", "Value excluding VAT", "II.2.3) Place of performance",
        "Main site or place of performance",
        "II.2.7) Duration of the contract, framework agreement or dynamic purchasing system", "Duration in months",
        "Section IV: Procedure", "IV.1.1) Type of procedure", "Open procedure",
        "IV.2.2) Time limit for receipt of tenders or requests to participate", "Date", "Local time"),
    "de": FormLabels(
        "Abschnitt I: Öffentlicher Auftraggeber", "I.1) Name und Adressen", "Offizielle Bezeichnung",
        "Postanschrift", "Ort", "NUTS-Code", "Postleitzahl", "Land", "E-Mail", "Telefon",
        "Abschnitt II: Gegenstand", "II.1.1) Bezeichnung des Auftrags", "Referenznummer der Bekanntmachung",
        "II.1.2) CPV-Code Hauptteil", "II.1.3) Art des Auftrags", "Dienstleistungen",
        "II.1.5) Geschätzter Gesamtwert", "Wert ohne MwSt.", "II.2.3) Erfüllungsort",
        "Hauptort der Ausführung", "II.2.7) Laufzeit des Vertrags, der Rahmenvereinbarung oder des dynamischen "
        "Beschaffungssystems", "Laufzeit in Monaten", "Abschnitt IV: Verfahren", "IV.1.1) Verfahrensart",
        "Offenes Verfahren", "IV.2.2) Schlusstermin für den Eingang der Angebote oder Teilnahmeanträge", "Tag",
        "Ortszeit"),
    "fr": FormLabels(
        "Section I : Pouvoir adjudicateur", "I.1) Nom et adresses", "Nom officiel", "Adresse postale", "Ville",
        "Code NUTS", "Code postal", "Pays", "Courriel", "Téléphone", "Section II : Objet", "II.1.1) Intitulé",
        "Numéro de référence", "II.1.2) Code CPV principal", "II.1.3) Type de marché", "Services",
        "II.1.5) Valeur totale estimée", "Valeur hors TVA", "II.2.3) Lieu d'exécution",
        "Lieu principal d'exécution",
        "II.2.7) Durée du marché, de l'accord-cadre ou du système d'acquisition dynamique", "Durée en mois",
        "Section IV : Procédure", "IV.1.1) Type de procédure", "Procédure ouverte",
        "IV.2.2) Date limite de réception des offres ou des demandes de participation", "Date", "Heure locale"),
    "it": FormLabels(
        "Sezione I: Amministrazione aggiudicatrice", "I.1) Denominazione e indirizzi", "Denominazione ufficiale",
        "Indirizzo postale", "Città", "Codice NUTS", "Codice postale", "Paese", "E-mail", "Tel.",
        "Sezione II: Oggetto", "II.1.1) Denominazione", "Numero di riferimento", "II.1.2) Codice CPV principale",
        "II.1.3) Tipo di appalto", "Servizi", "II.1.5) Valore totale stimato", "Valore, IVA esclusa",
        "II.2.3) Luogo di esecuzione", "Luogo principale di esecuzione",
        "II.2.7) Durata del contratto d'appalto, dell'accordo quadro o del sistema dinamico di acquisizione",
        "Durata in mesi", "Sezione IV: Procedura", "IV.1.1) Tipo di procedura", "Procedura aperta",
        "IV.2.2) Termine per il ricevimento delle offerte o delle domande di partecipazione", "Data", "Ora locale"),
    "es": FormLabels(
        "Apartado I: Poder adjudicador", "I.1) Nombre y direcciones", "Nombre oficial", "Dirección postal",
        "Localidad", "Código NUTS", "Código postal", "País", "Correo electrónico", "Teléfono",
        "Apartado II: Objeto", "II.1.1) Denominación", "Número de referencia", "II.1.2) Código CPV principal",
        "II.1.3) Tipo de contrato", "Servicios", "II.1.5) Valor total estimado", "Valor IVA excluido",
        "II.2.3) Lugar de ejecución", "Lugar principal de ejecución",
        "II.2.7) Duración del contrato, acuerdo marco o sistema dinámico de adquisición", "Duración en meses",
        "Apartado IV: Procedimiento", "IV.1.1) Tipo de procedimiento", "Procedimiento abierto",
        "IV.2.2) Plazo para la recepción de ofertas o solicitudes de participación", "Fecha", "Hora local"),
    "pt": FormLabels(
        "Secção I: Autoridade adjudicante", "I.1) Nome e endereços", "Designação oficial", "Endereço postal",
        "Localidade", "Código NUTS", "Código postal", "País", "Correio eletrónico", "Telefone",
        "Secção II: Objeto", "II.1.1) Título", "Número de referência", "II.1.2) Código CPV principal",
        "II.1.3) Tipo de contrato", "Serviços", "II.1.5) Valor total estimado", "Valor sem IVA",
        "II.2.3) Local de execução", "Principal local de execução",
        "II.2.7) Duração do contrato, do acordo-quadro ou do sistema de aquisição dinâmico", "Duração em meses",
        "Secção IV: Procedimento", "IV.1.1) Tipo de processo", "Concurso público",
        "IV.2.2) Prazo para a receção de propostas ou pedidos de participação", "Data", "Hora local"),
    "nl": FormLabels(
        "Afdeling I: Aanbestedende dienst", "I.1) Naam en adressen", "Officiële benaming", "Postadres", "Plaats",
        "NUTS-code", "Postcode", "Land", "E-mail", "Telefoon", "Afdeling II: Voorwerp", "II.1.1) Benaming",
        "Referentienummer", "II.1.2) Hoofd-CPV-code", "II.1.3) Type opdracht", "Diensten",
        "II.1.5) Geraamde totale waarde", "Waarde exclusief btw", "II.2.3) Plaats van uitvoering",
        "Voornaamste plaats van uitvoering",
        "II.2.7) Looptijd van de opdracht, de raamovereenkomst of het dynamisch aankoopsysteem",
        "Looptijd in maanden", "Afdeling IV: Procedure", "IV.1.1) Type procedure", "Openbare procedure",
        "IV.2.2) Termijn voor ontvangst van inschrijvingen of deelnemingsaanvragen", "Datum", "Plaatselijke tijd"),
    "pl": FormLabels(
        "Sekcja I: Instytucja zamawiająca", "I.1) Nazwa i adresy", "Oficjalna nazwa", "Adres pocztowy",
        "Miejscowość", "Kod NUTS", "Kod pocztowy", "Państwo", "E-mail", "Tel.", "Sekcja II: Przedmiot",
        "II.1.1) Nazwa", "Numer referencyjny", "II.1.2) Główny kod CPV", "II.1.3) Rodzaj zamówienia", "Usługi",
        "II.1.5) Szacunkowa całkowita wartość", "Wartość bez VAT", "II.2.3) Miejsce świadczenia usług",
        "Główna lokalizacja lub miejsce realizacji",
        "II.2.7) Okres obowiązywania zamówienia, umowy ramowej lub dynamicznego systemu zakupów",
        "Okres w miesiącach", "Sekcja IV: Procedura", "IV.1.1) Rodzaj procedury", "Procedura otwarta",
        "IV.2.2) Termin składania ofert lub wniosków o dopuszczenie do udziału", "Data", "Czas lokalny"),
    "cs": FormLabels(
        "Oddíl I: Veřejný zadavatel", "I.1) Název a adresa", "Úřední název", "Poštovní adresa", "Obec",
        "Kód NUTS", "PSČ", "Země", "E-mail", "Tel.", "Oddíl II: Předmět", "II.1.1) Název", "Spisové číslo",
        "II.1.2) Hlavní kód CPV", "II.1.3) Druh zakázky", "Služby", "II.1.5) Předpokládaná celková hodnota",
        "Hodnota bez DPH", "II.2.3) Místo plnění", "Hlavní místo plnění",
        "II.2.7) Doba trvání zakázky, rámcové dohody nebo dynamického nákupního systému",
        "Doba trvání v měsících", "Oddíl IV: Řízení", "IV.1.1) Druh řízení", "Otevřené řízení",
        "IV.2.2) Lhůta pro doručení nabídek nebo žádostí o účast", "Datum", "Místní čas"),
    "sk": FormLabels(
        "Oddiel I: Verejný obstarávateľ", "I.1) Názov a adresy", "Úradný názov", "Poštová adresa", "Mesto/obec",
        "Kód NUTS", "PSČ", "Štát", "E-mail", "Telefón", "Oddiel II: Predmet", "II.1.1) Názov",
        "Referenčné číslo", "II.1.2) Hlavný kód CPV", "II.1.3) Druh zákazky", "Služby",
        "II.1.5) Celková odhadovaná hodnota", "Hodnota bez DPH", "II.2.3) Miesto vykonania",
        "Hlavné miesto dodania alebo plnenia",
        "II.2.7) Trvanie zmluvy, rámcovej dohody alebo dynamického nákupného systému", "Trvanie v mesiacoch",
        "Oddiel IV: Postup", "IV.1.1) Druh postupu", "Verejná súťaž",
        "IV.2.2) Lehota na predkladanie ponúk alebo žiadostí o účasť", "Dátum", "Miestny čas"),
    "sv": FormLabels(
        "Avsnitt I: Upphandlande myndighet", "I.1) Namn och adresser", "Officiellt namn", "Postadress", "Ort",
        "Nuts-kod", "Postnummer", "Land", "E-post", "Telefon", "Avsnitt II: Föremål", "II.1.1) Benämning",
        "Referensnummer", "II.1.2) Huvudsaklig CPV-kod", "II.1.3) Typ av kontrakt", "Tjänster",
        "II.1.5) Uppskattat totalt värde", "Värde exklusive moms", "II.2.3) Plats för utförande",
        "Huvudsaklig plats för byggentreprenad eller utförande",
        "II.2.7) Kontraktets, ramavtalets eller det dynamiska inköpssystemets löptid", "Löptid i månader",
        "Avsnitt IV: Förfarande", "IV.1.1) Typ av förfarande", "Öppet förfarande",
        "IV.2.2) Sista dag för mottagande av anbud eller anbudsansökningar", "Datum", "Lokal tid"),
    "da": FormLabels(
        "Del I: Ordregivende myndighed", "I.1) Navn og adresser", "Officielt navn", "Postadresse", "By",
        "NUTS-kode", "Postnummer", "Land", "E-mail", "Telefon", "Del II: Genstand", "II.1.1) Titel",
        "Referencenummer", "II.1.2) Hoved-CPV-kode", "II.1.3) Type kontrakt", "Tjenesteydelser",
        "II.1.5) Anslået samlet værdi", "Værdi ekskl. moms", "II.2.3) Leveringssted", "Hovedudførelsessted",
        "II.2.7) Varighed af kontrakten, rammeaftalen eller det dynamiske indkøbssystem", "Varighed i måneder",
        "Del IV: Procedure", "IV.1.1) Udbudsprocedure", "Offentligt udbud",
        "IV.2.2) Tidsfrist for modtagelse af bud eller anmodninger om deltagelse", "Dato", "Lokal tid"),
    "fi": FormLabels(
        "I kohta: Hankintaviranomainen", "I.1) Nimi ja osoitteet", "Virallinen nimi", "Postiosoite",
        "Postitoimipaikka", "NUTS-koodi", "Postinumero", "Maa", "Sähköposti", "Puhelin", "II kohta: Kohde",
        "II.1.1) Nimi", "Viitenumero", "II.1.2) CPV-pääkoodi", "II.1.3) Sopimuksen tyyppi", "Palvelut",
        "II.1.5) Arvioitu kokonaisarvo", "Arvo ilman alv:tä", "II.2.3) Suorituspaikka",
        "Pääasiallinen suorituspaikka",
        "II.2.7) Sopimuksen, puitejärjestelyn tai dynaamisen hankintajärjestelmän kesto", "Kesto kuukausina",
        "IV kohta: Menettely", "IV.1.1) Menettelyn luonne", "Avoin menettely",
        "IV.2.2) Tarjousten tai osallistumishakemusten vastaanottamisen määräaika", "Päivämäärä",
        "Paikallinen aika"),
    "ro": FormLabels(
        "Secțiunea I: Autoritatea contractantă", "I.1) Denumire și adrese", "Denumire oficială", "Adresă",
        "Localitate", "Cod NUTS", "Cod poștal", "Țară", "E-mail", "Telefon", "Secțiunea II: Obiect",
        "II.1.1) Titlu", "Număr de referință", "II.1.2) Cod CPV principal", "II.1.3) Tipul contractului",
        "Servicii", "II.1.5) Valoarea totală estimată", "Valoarea fără TVA", "II.2.3) Locul de executare",
        "Locul principal de executare",
        "II.2.7) Durata contractului, a acordului-cadru sau a sistemului dinamic de achiziții", "Durata în luni",
        "Secțiunea IV: Procedură", "IV.1.1) Tipul procedurii", "Licitație deschisă",
        "IV.2.2) Termen limită pentru primirea ofertelor sau a cererilor de participare", "Data", "Ora locală"),
    "hu": FormLabels(
        "I. szakasz: Ajánlatkérő", "I.1) Név és címek", "Hivatalos név", "Postai cím", "Város", "NUTS-kód",
        "Postai irányítószám", "Ország", "E-mail", "Telefon", "II. szakasz: Tárgy", "II.1.1) Elnevezés",
        "Hivatkozási szám", "II.1.2) Fő CPV-kód", "II.1.3) A szerződés típusa", "Szolgáltatásmegrendelés",
        "II.1.5) Becsült teljes érték", "Érték ÁFA nélkül", "II.2.3) A teljesítés helye",
        "A teljesítés fő helyszíne",
        "II.2.7) A szerződés, a keretmegállapodás vagy a dinamikus beszerzési rendszer időtartama",
        "Időtartam hónapban", "IV. szakasz: Eljárás", "IV.1.1) Az eljárás fajtája", "Nyílt eljárás",
        "IV.2.2) Ajánlattételi határidő vagy részvételi határidő", "Dátum", "Helyi idő"),
    "bg": FormLabels(
        "Раздел I: Възлагащ орган", "I.1) Наименование и адреси", "Официално наименование", "Пощенски адрес",
        "Град", "код NUTS", "Пощенски код", "Държава", "Електронна поща", "Телефон", "Раздел II: Предмет",
        "II.1.1) Наименование", "Референтен номер", "II.1.2) Основен CPV код", "II.1.3) Вид на поръчка",
        "Услуги", "II.1.5) Прогнозна обща стойност", "Стойност, без да се включва ДДС",
        "II.2.3) Място на изпълнение", "Основно място на изпълнение",
        "II.2.7) Срок на договора, рамковото споразумение или динамичната система за покупки",
        "Срок в месеци", "Раздел IV: Процедура", "IV.1.1) Вид процедура", "Открита процедура",
        "IV.2.2) Срок за получаване на оферти или заявления за участие", "Дата", "Местно време"),
    "el": FormLabels(
        "Τμήμα I: Αναθέτουσα αρχή", "I.1) Επωνυμία και διευθύνσεις", "Επίσημη επωνυμία", "Ταχ. διεύθυνση",
        "Πόλη", "Κωδικός NUTS", "Ταχ. κωδικός", "Χώρα", "Ηλ. ταχυδρομείο", "Τηλέφωνο", "Τμήμα II: Αντικείμενο",
        "II.1.1) Τίτλος", "Αριθμός αναφοράς", "II.1.2) Κύριος κωδικός CPV", "II.1.3) Είδος σύμβασης",
        "Υπηρεσίες", "II.1.5) Εκτιμώμενη συνολική αξία", "Αξία χωρίς ΦΠΑ", "II.2.3) Τόπος εκτέλεσης",
        "Κύριος τόπος εκτέλεσης",
        "II.2.7) Διάρκεια της σύμβασης, της συμφωνίας-πλαισίου ή του δυναμικού συστήματος αγορών",
        "Διάρκεια σε μήνες", "Τμήμα IV: Διαδικασία", "IV.1.1) Είδος διαδικασίας", "Ανοικτή διαδικασία",
        "IV.2.2) Προθεσμία παραλαβής προσφορών ή αιτήσεων συμμετοχής", "Ημερομηνία", "Τοπική ώρα"),
    "hr": FormLabels(
        "Odjeljak I: Javni naručitelj", "I.1) Naziv i adrese", "Službeni naziv", "Poštanska adresa", "Mjesto",
        "NUTS kod", "Poštanski broj", "Država", "E-pošta", "Tel.", "Odjeljak II: Predmet", "II.1.1) Naziv",
        "Referentni broj", "II.1.2) Glavna CPV oznaka", "II.1.3) Vrsta ugovora", "Usluge",
        "II.1.5) Procijenjena ukupna vrijednost", "Vrijednost bez PDV-a", "II.2.3) Mjesto izvršenja",
        "Glavna lokacija ili mjesto izvršenja",
        "II.2.7) Trajanje ugovora, okvirnog sporazuma ili dinamičkog sustava nabave", "Trajanje u mjesecima",
        "Odjeljak IV: Postupak", "IV.1.1) Vrsta postupka", "Otvoreni postupak",
        "IV.2.2) Rok za dostavu ponuda ili zahtjeva za sudjelovanje", "Datum", "Lokalno vrijeme"),
    "sl": FormLabels(
        "Oddelek I: Naročnik", "I.1) Ime in naslovi", "Uradno ime", "Poštni naslov", "Kraj", "Šifra NUTS",
        "Poštna številka", "Država", "E-pošta", "Telefon", "Oddelek II: Predmet", "II.1.1) Naslov",
        "Referenčna številka", "II.1.2) Glavna koda CPV", "II.1.3) Vrsta naročila", "Storitve",
        "II.1.5) Ocenjena skupna vrednost", "Vrednost brez DDV", "II.2.3) Kraj izvedbe",
        "Glavna lokacija ali kraj izvedbe",
        "II.2.7) Trajanje javnega naročila, okvirnega sporazuma ali dinamičnega nabavnega sistema",
        "Trajanje v mesecih", "Oddelek IV: Postopek", "IV.1.1) Vrsta postopka", "Odprti postopek",
        "IV.2.2) Rok za prejem ponudb ali prijav za sodelovanje", "Datum", "Lokalni čas"),
    "lt": FormLabels(
        "I dalis: Perkančioji organizacija", "I.1) Pavadinimas ir adresai", "Oficialus pavadinimas", "Adresas",
        "Miestas", "NUTS kodas", "Pašto kodas", "Šalis", "El. paštas", "Telefonas", "II dalis: Objektas",
        "II.1.1) Pavadinimas", "Nuorodos numeris", "II.1.2) Pagrindinis BVPŽ kodas", "II.1.3) Sutarties tipas",
        "Paslaugos", "II.1.5) Numatoma bendra vertė", "Vertė be PVM", "II.2.3) Įgyvendinimo vieta",
        "Pagrindinė įgyvendinimo vieta",
        "II.2.7) Sutarties, preliminariosios sutarties arba dinaminės pirkimo sistemos trukmė",
        "Trukmė mėnesiais", "IV dalis: Procedūra", "IV.1.1) Procedūros tipas", "Atviras konkursas",
        "IV.2.2) Pasiūlymų arba prašymų dalyvauti priėmimo terminas", "Data", "Vietos laikas"),
    "lv": FormLabels(
        "I iedaļa: Līgumslēdzēja iestāde", "I.1) Nosaukums un adreses", "Oficiālais nosaukums", "Pasta adrese",
        "Pilsēta", "NUTS kods", "Pasta indekss", "Valsts", "E-pasts", "Tālrunis", "II iedaļa: Līguma priekšmets",
        "II.1.1) Nosaukums", "Atsauces numurs", "II.1.2) Galvenais CPV kods", "II.1.3) Līguma veids",
        "Pakalpojumi", "II.1.5) Kopējā paredzamā līgumcena", "Vērtība bez PVN", "II.2.3) Izpildes vieta",
        "Galvenā būvdarbu veikšanas vai izpildes vieta",
        "II.2.7) Līguma, vispārīgās vienošanās vai dinamiskās iepirkumu sistēmas darbības termiņš",
        "Ilgums mēnešos", "IV iedaļa: Procedūra", "IV.1.1) Procedūras veids", "Atklāta procedūra",
        "IV.2.2) Piedāvājumu vai pieteikumu dalībai iesniegšanas termiņš", "Datums", "Vietējais laiks"),
    "et": FormLabels(
        "I osa: Hankija", "I.1) Nimi ja aadressid", "Ametlik nimi", "Postiaadress", "Linn", "NUTS-kood",
        "Postiindeks", "Riik", "E-post", "Telefon", "II osa: Objekt", "II.1.1) Nimetus", "Viitenumber",
        "II.1.2) Peamine CPV-kood", "II.1.3) Lepingu liik", "Teenused", "II.1.5) Hinnanguline koguväärtus",
        "Väärtus käibemaksuta", "II.2.3) Teostamise koht", "Peamine teostamise koht",
        "II.2.7) Lepingu, raamlepingu või dünaamilise hankesüsteemi kestus", "Kestus kuudes",
        "IV osa: Menetlus", "IV.1.1) Menetluse liik", "Avatud hankemenetlus",
        "IV.2.2) Pakkumuste või osalemistaotluste esitamise tähtaeg", "Kuupäev", "Kohalik aeg"),
}

FACTS: dict[str, NoticeFacts] = {
    "en": NoticeFacts("Cork County Council", "Carrigrohane Road", "Cork", "Ireland",
                      "Cleaning of public buildings", "CCC-2025-117", "IE053 South-West"),
    "de": NoticeFacts("Landeshauptstadt Stuttgart", "Marktplatz 1", "Stuttgart", "Deutschland",
                      "Reinigung öffentlicher Gebäude", "STU-2025-117", "DE111 Stuttgart, Stadtkreis"),
    "fr": NoticeFacts("Ville de Nantes", "2 rue de l'Hôtel de Ville", "Nantes", "France",
                      "Nettoyage des bâtiments publics", "VDN-2025-117", "FRG01 Loire-Atlantique"),
    "it": NoticeFacts("Comune di Bologna", "Piazza Maggiore 6", "Bologna", "Italia",
                      "Pulizia degli edifici pubblici", "CDB-2025-117", "ITH55 Bologna"),
    "es": NoticeFacts("Ayuntamiento de Valencia", "Plaza del Ayuntamiento 1", "Valencia", "España",
                      "Limpieza de edificios públicos", "AVL-2025-117", "ES523 Valencia / València"),
    "pt": NoticeFacts("Câmara Municipal do Porto", "Praça General Humberto Delgado", "Porto", "Portugal",
                      "Limpeza de edifícios públicos", "CMP-2025-117", "PT11A Área Metropolitana do Porto"),
    "nl": NoticeFacts("Gemeente Utrecht", "Stadsplateau 1", "Utrecht", "Nederland",
                      "Schoonmaak van openbare gebouwen", "GU-2025-117", "NL310 Utrecht"),
    "pl": NoticeFacts("Gmina Miasta Toruń", "ul. Wały gen. Sikorskiego 8", "Toruń", "Polska",
                      "Sprzątanie budynków użyteczności publicznej", "GMT-2025-117", "PL613 Bydgosko-toruński"),
    "cs": NoticeFacts("Statutární město Brno", "Dominikánské náměstí 1", "Brno", "Česko",
                      "Úklid veřejných budov", "SMB-2025-117", "CZ064 Jihomoravský kraj"),
    "sk": NoticeFacts("Mesto Košice", "Trieda SNP 48/A", "Košice", "Slovensko",
                      "Upratovanie verejných budov", "MK-2025-117", "SK042 Košický kraj"),
    "sv": NoticeFacts("Malmö stad", "August Palms plats 1", "Malmö", "Sverige",
                      "Städning av offentliga byggnader", "MS-2025-117", "SE224 Skåne län"),
    "da": NoticeFacts("Aarhus Kommune", "Rådhuspladsen 2", "Aarhus", "Danmark",
                      "Rengøring af offentlige bygninger", "AK-2025-117", "DK042 Østjylland"),
    "fi": NoticeFacts("Tampereen kaupunki", "Aleksis Kiven katu 14", "Tampere", "Suomi",
                      "Julkisten rakennusten siivous", "TK-2025-117", "FI197 Pirkanmaa"),
    "ro": NoticeFacts("Municipiul Cluj-Napoca", "Strada Moților 1-3", "Cluj-Napoca", "România",
                      "Curățenia clădirilor publice", "MCN-2025-117", "RO113 Cluj"),
    "hu": NoticeFacts("Debrecen Megyei Jogú Város Önkormányzata", "Piac utca 20", "Debrecen", "Magyarország",
                      "Középületek takarítása", "DMJV-2025-117", "HU321 Hajdú-Bihar"),
    "bg": NoticeFacts("Столична община", "ул. Московска 33", "София", "България",
                      "Почистване на обществени сгради", "СО-2025-117", "BG411 София (столица)"),
    "el": NoticeFacts("Δήμος Θεσσαλονίκης", "Βασιλέως Γεωργίου Α 1", "Θεσσαλονίκη", "Ελλάδα",
                      "Καθαρισμός δημόσιων κτιρίων", "ΔΘ-2025-117", "EL522 Θεσσαλονίκη"),
    "hr": NoticeFacts("Grad Split", "Obala kneza Branimira 17", "Split", "Hrvatska",
                      "Čišćenje javnih zgrada", "GS-2025-117", "HR033 Splitsko-dalmatinska županija"),
    "sl": NoticeFacts("Mestna občina Maribor", "Ulica heroja Staneta 1", "Maribor", "Slovenija",
                      "Čiščenje javnih stavb", "MOM-2025-117", "SI032 Podravska"),
    "lt": NoticeFacts("Kauno miesto savivaldybės administracija", "Laisvės al. 96", "Kaunas", "Lietuva",
                      "Viešųjų pastatų valymas", "KMSA-2025-117", "LT022 Kauno apskritis"),
    "lv": NoticeFacts("Rīgas valstspilsētas pašvaldība", "Rātslaukums 1", "Rīga", "Latvija",
                      "Publisko ēku uzkopšana", "RVP-2025-117", "LV006 Rīga"),
    "et": NoticeFacts("Tartu Linnavalitsus", "Raekoja plats 1a", "Tartu", "Eesti",
                      "Avalike hoonete koristamine", "TLV-2025-117", "EE008 Lõuna-Eesti"),
}

DEADLINE = date(2025, 3, 14)
VALUE = 1_250_000.0
DURATION_MONTHS = 36
CPV = "90911200"
EMAIL = "hankinnat@example.eu"
PHONE = "+358 40 1234567"


SECTION_IV_2: dict[str, tuple[str, str]] = {
    # the two fields F02 prints after the time limit, which name a duration and a date that are not the
    # contract's: IV.2.6 how long a tender binds its tenderer, IV.2.7 when the tenders are opened
    "en": ("Minimum time frame during which the tenderer must maintain the tender",
           "Conditions for opening of tenders"),
    "de": ("Bindefrist des Angebots", "Bedingungen für die Öffnung der Angebote"),
    "fr": ("Délai minimal pendant lequel le soumissionnaire est tenu de maintenir son offre",
           "Modalités d'ouverture des offres"),
    "it": ("Periodo minimo durante il quale l'offerente è vincolato alla propria offerta",
           "Modalità di apertura delle offerte"),
    "es": ("Plazo durante el cual el licitador estará obligado a mantener su oferta",
           "Condiciones para la apertura de las ofertas"),
    "pt": ("Prazo mínimo durante o qual o proponente é obrigado a manter a sua proposta",
           "Condições de abertura das propostas"),
    "nl": ("Minimumtermijn gedurende welke de inschrijver zijn inschrijving gestand moet doen",
           "Wijze van opening van de inschrijvingen"),
    "pl": ("Minimalny okres, w którym oferent będzie związany ofertą", "Warunki otwarcia ofert"),
    "cs": ("Minimální lhůta, během níž musí uchazeč dodržet nabídku", "Podmínky pro otevírání nabídek"),
    "sk": ("Minimálna lehota, počas ktorej sú ponuky uchádzačov viazané", "Podmienky otvárania ponúk"),
    "sv": ("Minimitid under vilken anbudsgivaren måste hålla anbudet giltigt", "Villkor för öppning av anbud"),
    "da": ("Minimumsperiode, hvor tilbudsgiver skal opretholde sit tilbud", "Betingelser for åbning af bud"),
    "fi": ("Vähimmäisaika, jonka kuluessa tarjoajan on pidettävä tarjouksensa voimassa",
           "Tarjousten avaamisehdot"),
    "ro": ("Perioada minimă în care ofertantul trebuie să își mențină oferta", "Condiții de deschidere a ofertelor"),
    "hu": ("Az ajánlati kötöttség minimális időtartama", "Az ajánlatok felbontásának feltételei"),
    "bg": ("Минимален срок, през който оферентът е обвързан с офертата", "Условия за отваряне на офертите"),
    "el": ("Ελάχιστο χρονικό διάστημα κατά το οποίο ο προσφέρων πρέπει να διατηρήσει την προσφορά του",
           "Όροι για την αποσφράγιση των προσφορών"),
    "hr": ("Minimalni rok valjanosti ponude", "Uvjeti otvaranja ponuda"),
    "sl": ("Minimalni časovni okvir, v katerem mora ponudnik ohraniti veljavnost ponudbe", "Način odpiranja ponudb"),
    "lt": ("Minimalus laikotarpis, per kurį konkurso dalyvis turi užtikrinti pasiūlymo galiojimą",
           "Vokų su pasiūlymais atplėšimo sąlygos"),
    "lv": ("Minimālais laika posms, kurā pretendentam jāuztur savs piedāvājums", "Piedāvājumu atvēršanas nosacījumi"),
    "et": ("Minimaalne ajavahemik, mille jooksul pakkuja peab pakkumuse jõus hoidma", "Pakkumuste avamise tingimused"),
}
"""IV.2.6 and IV.2.7 of form F02 in each language: a tender's binding period ('Duration in months: 6') and the
opening of tenders ('Date: 17/03/2025', 'Local time: 14:00'), which are not the contract's duration or the
time limit; `notice(language, full=True)` prints them."""


def notice(language: str, *, full: bool = False) -> str:
    """The first page of the notice in `language`, laid out as a TED PDF prints it; `full`: with the binding
    period and the opening of tenders after the time limit (SECTION_IV_2)."""
    label, facts = FORMS[language], FACTS[language]
    return "\n".join([
        label.section_buyer,
        label.names_and_addresses,
        f"{label.official_name}: {facts.buyer}",
        f"{label.postal_address}: {facts.street}",
        f"{label.town}: {facts.town}",
        f"{label.nuts}: {facts.nuts}",
        f"{label.postcode}: 10100",
        f"{label.country}: {facts.country}",
        f"{label.email}: {EMAIL}",
        f"{label.telephone}: {PHONE}",
        "",
        label.section_object,
        f"{label.title}:",
        facts.title,
        f"{label.reference}: {facts.reference}",
        label.main_cpv,
        CPV,
        label.contract_type,
        label.services,
        label.estimated_value,
        f"{label.value_excluding_vat}: 1 250 000.00 EUR",
        label.place,
        f"{label.nuts}: {facts.nuts}",
        f"{label.main_site}:",
        facts.town,
        label.duration,
        f"{label.duration_months}: {DURATION_MONTHS}",
        "",
        label.section_procedure,
        label.procedure_type,
        label.open_procedure,
        label.time_limit,
        f"{label.date}: {DEADLINE:%d/%m/%Y}",
        f"{label.local_time}: 12:00",
        *(_section_iv_2(language) if full else []),
        "",
    ])


def _section_iv_2(language: str) -> list[str]:
    label, (binding, opening) = FORMS[language], SECTION_IV_2[language]
    return [f"IV.2.6) {binding}", f"{label.duration_months}: 6", f"IV.2.7) {opening}",
            f"{label.date}: 17/03/2025", f"{label.local_time}: 14:00"]


def read_values(fields: TenderFields) -> dict[str, Any]:
    """The fields a notice on the form states, as plain values (None: not read)."""

    def value(sourced: Any) -> Any:
        return None if sourced is None else sourced.value

    amount, duration = value(fields.estimated_value), value(fields.contract_duration)
    return {
        "buyer.name": value(fields.buyer.name),
        "buyer.email": value(fields.buyer.email),
        "buyer.phone": value(fields.buyer.phone),
        "title": value(fields.title),
        "reference_number": value(fields.reference_number),
        "procedure_type": value(fields.procedure_type),
        "main_category": value(fields.main_category),
        "cpv_codes": [code.value for code in fields.cpv_codes],
        "estimated_value": None if amount is None else (amount.amount, amount.currency),
        "submission_deadline": value(fields.submission_deadline),
        "place_of_performance": value(fields.place_of_performance),
        "contract_duration": None if duration is None else (duration.amount, duration.unit),
    }


def expected_values(language: str) -> dict[str, Any]:
    """What `read_values` should give for the notice in `language`; the place is checked by `right_place`."""
    facts = FACTS[language]
    return {
        "buyer.name": facts.buyer,
        "buyer.email": EMAIL,
        "buyer.phone": PHONE,
        "title": facts.title,
        "reference_number": facts.reference,
        "procedure_type": "open",
        "main_category": "services",
        "cpv_codes": [CPV],
        "estimated_value": (VALUE, "EUR"),
        "submission_deadline": f"{DEADLINE.isoformat()}T12:00",
        "contract_duration": (DURATION_MONTHS, "months"),
    }


def right_place(language: str, place: Any) -> bool:
    """The place of performance as the form states it: the main site (the town) or the NUTS region."""
    facts = FACTS[language]
    code, name = facts.nuts.split(" ", 1)
    return place in {facts.town, facts.nuts, code, name}


def scored(language: str, fields: TenderFields) -> dict[str, bool]:
    """Per field of the form, whether `fields` (read from the notice in `language`) has it right."""
    read = read_values(fields)
    right = {name: read[name] == value for name, value in expected_values(language).items()}
    return {**right, "place_of_performance": right_place(language, read["place_of_performance"])}
