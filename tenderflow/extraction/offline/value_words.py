"""The words that name a tender's estimated value and its contract period, and those that name something else.

Per language, the labels that procurement forms and notices use (Japan's 予定価格, Korea's 추정가격/추정금액,
China's 预算金额/最高限价/招标控制价, Russia's Начальная (максимальная) цена контракта, Romania's 'Valoarea estimata
fara TVA', Greece's προϋπολογισμός, Turkey's 'yaklaşık maliyet', Vietnam's 'giá gói thầu', the EU standard
forms' 'estimated value' in each language), and the NEGATIVE contexts that make an amount or a period near
them something else: a bid bond (入札保証金, 입찰보증금, 投标保证金, обеспечение заявки, garanție de participare,
εγγυητική, geçici teminat), a fee, a threshold ('5千万円以上', '추정가격 500억원 이상'), a unit price, a lot or trade
share; an offer validity, a warranty, a payment term.

Labels are matched with document.label_regex (it folds them); the negative patterns with lexicon.compile_folded.
"""

from __future__ import annotations

import re
from typing import Final

from tenderflow.extraction.offline.lexicon import compile_folded, lexicon
from tenderflow.extraction.schema import DurationUnit

# --- estimated value ---------------------------------------------------------------------------------------

STRONG_VALUE_LABELS: Final = (
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
    # ja, ko, zh (Simplified, Traditional)
    "予定価格", "設計金額", "予定金額", "추정금액", "기초금액", "예정가격", "배정예산", "설계금액",
    "预算金额", "采购预算", "项目预算", "预算价", "最高限价", "招标控制价", "控制价", "最高投标限价", "招标估算",
    "預算金額", "採購預算", "最高限價", "招標控制價", "預算",
    # ru, uk, bg, sr, kk
    "начальная (максимальная) цена контракта", "начальная (максимальная) цена договора",
    "начальная (максимальная) цена", "начальная максимальная цена", "нмцк", "нмцд", "начальная цена контракта",
    "начальная цена договора", "максимальное значение цены контракта", "очікувана вартість",
    "очікувана вартість предмета закупівлі", "прогнозна стойност", "прогнозна стойност на поръчката",
    "процењена вредност", "procenjena vrednost", "бөлінген сома", "сумма, выделенная для закупки",
    "выделенная сумма", "сумма закупки", "планируемая сумма",
    # el, ro, tr, vi, id/ms, th, he
    "προϋπολογισμός", "προϋπολογισθείσα δαπάνη", "εκτιμώμενη αξία", "συνολική εκτιμώμενη αξία",
    "ενδεικτικός προϋπολογισμός", "valoarea estimata", "valoare estimata", "valoarea totala estimata",
    "yaklaşık maliyet", "tahmini bedel", "muhammen bedel", "tahmini tutar", "giá gói thầu", "dự toán gói thầu",
    "giá trị ước tính", "nilai hps", "hps", "pagu anggaran", "nilai pagu", "nilai total hps", "ราคากลาง",
    "วงเงินงบประมาณ", "אומדן",
    # cs, sk, sl, hr, hu, sv, da, no, fi, et, lv, lt
    "předpokládaná hodnota", "předpokládaná hodnota veřejné zakázky", "predpokladaná hodnota",
    "predpokladaná hodnota zákazky", "ocenjena vrednost", "procijenjena vrijednost", "procijenjena vrijednost nabave",
    "becsült érték", "a beszerzés becsült értéke", "uppskattat värde", "beräknat värde", "anslået værdi",
    "estimert verdi", "arvioitu arvo", "ennakoitu arvo", "hankinnan ennakoitu arvo", "eeldatav maksumus",
    "hankelepingu eeldatav maksumus", "paredzamā līgumcena", "numatoma vertė", "numatoma pirkimo vertė",
    # TED standard form labels: 'II.1.5) Estimated total value' of form F02 (its amount is on the line below,
    # after 'Value excluding VAT'), in the languages the words above do not cover
    "predpokladana celkova hodnota", "celkova odhadovana hodnota", "uppskattat totalt varde", "anslaet samlet værdi",
    "arvioitu kokonaisarvo", "becsult teljes ertek", "прогнозна обща стойност", "εκτιμώμενη συνολική αξία",
    "procijenjena ukupna vrijednost", "ocenjena skupna vrednost", "numatoma bendra verte", "kopeja paredzama ligumcena",
    "hinnanguline koguvaartus",
)  # fmt: skip
NET_VALUE_LABELS: Final = (
    "추정가격", "予定価格 税抜", "予定価格(税抜)", "予定価格(税抜き)", "valoarea estimata fara tva",
    "valoare estimata fara tva", "geschatzter netto auftragswert", "valeur estimee hors tva", "montant hors tva",
    "estimated value excluding vat", "estimated value excl vat", "estimated value without vat",
    "εκτιμώμενη αξία χωρίς φπα", "προϋπολογισμός χωρίς φπα", "kdv hariç yaklaşık maliyet", "nettó becsült érték",
    # eForms labels (BT-27 'Estimated value excluding VAT'), in the languages the words above and the strong
    # labels do not cover
    "odhadovana hodnota bez dph", "paredzama vertiba bez pvn",
)  # fmt: skip
"""Labels that say the value is without VAT: where a notice prints it beside a gross one ('추정금액 … (추정가격) …',
a Japanese 税込/税抜 pair), the net one is the estimated value, as eForms keeps it."""
WEAK_VALUE_LABELS: Final = (
    "budget", "contract value", "total contract value", "project cost", "cost of the project", "bid value",
    "presupuesto base de licitacion", "presupuesto", "importo complessivo dell appalto", "importo dell appalto",
    "importo complessivo", "valeur du marche", "montant du marche", "wartosc zamowienia", "raming",
    "valor do contrato", "valor del contrato", "予算額", "사업예산", "예산금액", "预算", "цена контракта",
    "цена договора", "стоимость", "ανάθεση", "tổng mức đầu tư", "anggaran", "งบประมาณ", "תקציב",
)  # fmt: skip
"""Labels that often, not always, introduce the estimated value: read only right after the label."""

CEILING_VALUE_LABELS: Final = (
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

VALUE_NEGATIVE: Final = compile_folded(
    lexicon(
        # bid security, earnest money, guarantees and bonds
        r"emd|earnest|bid security|bid bond|tender security|bid guarantee|security deposit|performance security"
        r"|performance guarantee|performance bond|performance bank|bank guarantee|retention|surety"
        r"|bietersicherheit|sicherheitsleistung|burgschaft|kaution|vertragserfullung"
        r"|garantie|cautionnement|caution|garantia|fianza|aval|cauzione|garanzia|fideiussione|wadium|wadia"
        r"|zabezpieczeni|caucao|zekerheid|borgstelling|الضمان|ضمان|बयाना"
        r"|обеспечени\w*|забезпеченн\w*|гаранци\w*|гарантійн\w*|εγγυητικ\w*|εγγυησ\w*|garanti\w*|teminat\w*"
        r"|bảo đảm dự thầu|bảo lãnh|jaminan|jistot\w*|zábezpek\w*|biztosíték\w*|ערבות"
        # fees
        r"|tender fee|document fee|documents fee|cost of (?:the )?(?:bid|tender) documents?|tender documents?"
        r"|bid documents?|document cost|documents cost|cost of tender|form fee"
        r"|processing fee|application fee|registration fee|fee|fees|frais|gebuhr|tasa|contributo|oplata"
        r"|قيمة وثائق|ثمن|رسوم|शुल्क|плат[аы]|τέλη|τέλος|taxa|ücret\w*"
        # turnover, experience, capacity thresholds
        r"|turnover|chiffre d.affaires|umsatz|facturacion|volumen (?:anual )?de negocios|fatturato|obrot|faturamento"
        r"|volume de negocios|omzet|net worth|experience|similar works?|similar services|past|completed"
        r"|experiencia|esperienza|analoghi|doswiadczeni|referenzen?|references"
        r"|minimum|not less than|at least|non inferiore|au moins|mindestens|no inferior|nie mniejsz"
        r"|опыт\w*|выручк\w*|cifra de afaceri|similar\w*|minim|deneyim\w*|ciro|kinh nghiệm|doanh thu"
        # insurance, liability, penalties
        r"|insurance|assurance|versicherung|seguro|assicurazion|polizza|ubezpieczeni|liability"
        r"|penalty|penalties|liquidated damages|penalite|vertragsstrafe|penalidad|penale|kara umowna|multa"
        r"|штраф\w*|пен[иья]|неустойк\w*|ποιν\w*|penalitat\w*|ceza\w*"
        # unit and partial prices
        r"|daily|per day|per diem|hourly|per hour|per month|monthly|unit price|unit rate|giornaliero|journalier"
        r"|taglich|tagessatz|prix unitaire|einheitspreis|precio unitario|prezzo unitario|manodopera|labour cost"
        r"|of which|di cui|dont|davon|цена единицы|за единицу|аванс\w*|birim fiyat|đơn giá"
        # thresholds the value is compared with, not the value
        r"|above|exceed|exceeds|exceeding|in excess of|greater than|less than|more than|below|threshold|thresholds"
        r"|seuil|seuils|superieur|inferieur|schwellenwert|uberschreit|unterschreit|soglia|soglie|supera|umbral"
        r"|progi|progu|przekracza|drempel|не менее|не более|свыше|prag\w*|eşik"
        # lots and trades
        r"|per lot|par lot|pro los|по лоту|на лот|pe lot",
        r"保証金|手数料|以上|以下|未満|超える|実績|最低制限|調査基準|失格基準|低入札|落札|単価"
        r"|보증금|보증서|수수료|이상|이하|미만|초과|실적|시공능력|평가|업종별|공종별|관급|부가가치세|낙찰|단가"
        r"|保证金|保證金|服务费|服務費|代理费|报名费|文件费|售价|注册资本|业绩|業績|以上|以下|单价|單價|中标|中標"
        r"|หลักประกัน|ค่าธรรมเนียม",
    )
)
"""Words that make an amount near an estimated-value label something else: a security or guarantee,
a fee, a turnover / experience / capacity threshold, insurance, a penalty, a unit or partial price, a trade's
share, an award."""
THRESHOLD_AFTER: Final = compile_folded(
    r"\s*(?:以上|以下|未満|を超え|超|이상|이하|미만|초과|及以上|以上的|[(（]\s?\d{1,3}(?:[.,]\d+)?\s?%\s?[)）])"
)
"""A threshold written after its amount, as Japanese, Korean and Chinese do ('予定価格５千万円以上の工事'), or a share
of a total ('354,232,000,000원(81.5%)', 'EUR 100 000 (25 %)'): the amount is not the estimated value."""
VAT_INCLUDED: Final = compile_folded(
    r"(?:ttc|iva inclu|iva compres|inkl\.? (?:mwst|ust)|including (?:vat|gst|taxes)|incl\.? (?:vat|gst)|brutto"
    r"|con iva|con impuestos|z vat|with gst|inclusive of (?:gst|vat|all taxes)|税込|税込み|消費税.{0,6}含|"
    r"부가세\s?포함|부가가치세\s?포함|含税|含增值税|с ндс|в т\.\s?ч\.\s?ндс|включая ндс|με φπα|cu tva|kdv dahil"
    r"|bao gồm vat|đã bao gồm thuế|termasuk ppn|รวมภาษีมูลค่าเพิ่ม|כולל מע\"מ|vč\.? dph|s dph|bruttó)"
)
LOT_HEADING: Final = compile_folded(
    r"^\W*(?:\d{1,2}(?:\.\d{1,2})*\s+)?(?:lot|lote|lotto|los|pakiet|czesc|partie|perceel|лот|lotul|τμημα|kısım)\b"
    r"(?:\s*(?:n[o°º.]*|nr\.?|number|numero|technical id|id|№)?\s*[:.]?\s*(?:lot-)?\d{1,4}\b)"
    r"|^\W*(?:第\s?\d{1,3}\s?(?:包|标段|標段|工区|공구)|제\s?\d{1,3}\s?공구|\d{1,3}\s?(?:공구|工区))"
)
"""A lot's heading: 'Lot 2', 'Lote 1:', 'Лот № 1', '第1包', '第2标段', '제1공구'."""
EU_FORM_LOT_SECTION: Final = re.compile(r"^\W*II\.2\.\d{1,2}\b")
"""The section of the EU standard forms (and of the national forms that follow them: SEAP, BOAMP) that
describes one lot: a value under 'II.2.6' is that lot's, the whole procurement's is under 'II.1.5'."""
IN_MULTIPLES: Final = compile_folded(
    r"'000|thousands|milliers|tausend|万円|千円|百万円|万元|千元|천원|백만원|억원|тыс\.? руб|млн\.? руб"
)
"""A label that counts in multiples ('(Rs. in lakh)', "(in '000)", '(万元)', '(단위: 백만원)'): with a scale word it
says the amount printed is not the amount."""

# --- contract duration -------------------------------------------------------------------------------------

DURATION_LABELS: Final = (
    # en
    "contract period", "period of contract", "period of the contract", "contract duration",
    "duration of the contract", "duration of contract", "contract term", "term of the contract", "term of contract",
    "period of performance", "performance period", "ordering period", "completion period", "period of completion",
    "time for completion", "time allowed for completion", "time of completion", "duration of the assignment",
    "duration of the framework agreement", "term of the agreement", "agreement term", "initial term",
    "duration of work", "duration of the project", "project duration", "contract tenure", "tenure of contract",
    "period of work", "period of works", "work completion period", "time of performance",
    "time limit for completion", "time limit for the contract", "time limit for the work", "time limit for execution",
    "time limit for the work contract", "completion time",
    # fr
    "duree du marche", "duree de l accord cadre", "duree du contrat",
    "duree de la mission", "duree des prestations", "delai d execution", "delai global d execution",
    "duree d execution", "periode d execution",
    # de
    "laufzeit", "vertragslaufzeit", "vertragsdauer", "ausfuhrungsfrist", "ausfuhrungsfristen", "ausfuhrungszeitraum",
    "leistungszeitraum", "dauer des auftrags", "laufzeit des vertrags", "laufzeit der rahmenvereinbarung",
    "vertragszeitraum",
    # es
    "duracion del contrato", "plazo de ejecucion", "plazo de duracion", "plazo de duracion del contrato",
    "plazo del contrato", "periodo de ejecucion", "plazo de vigencia",
    # it
    "durata dell appalto", "durata del contratto", "durata del servizio", "durata dell accordo quadro",
    "durata della concessione", "termine di esecuzione", "tempo di esecuzione",
    # pl
    "czas trwania umowy", "termin realizacji", "termin wykonania", "okres realizacji", "czas realizacji",
    "termin wykonania zamowienia", "termin realizacji zamowienia", "okres obowiazywania umowy",
    "okres obowiazywania zamowienia",
    # pt
    "prazo de execucao", "prazo de vigencia", "duracao do contrato", "prazo contratual", "prazo do contrato",
    # nl
    "looptijd", "looptijd van de overeenkomst", "uitvoeringstermijn", "duur van de opdracht",
    "duur van de overeenkomst",
    # ar, hi
    "مدة العقد", "مدة التنفيذ", "مدة تنفيذ العقد", "مدة تنفيذ الاعمال", "فترة العقد", "مدة المشروع", "فترة التنفيذ",
    "अनुबंध अवधि", "संविदा अवधि",
    # ja, ko, zh
    "工期", "履行期間", "契約期間", "委託期間", "業務期間", "工事期間", "공사기간", "계약기간", "용역기간", "사업기간",
    "과업기간", "수행기간", "服务期限", "服务期", "交货期", "交货安装期", "合同履行期限", "履约期限", "合同期限",
    "供货期", "实施周期", "建设工期", "服務期限", "交貨期", "合同履行期",
    # ru, uk, bg, sr
    "срок поставки", "срок выполнения работ", "срок оказания услуг", "срок выполнения", "срок действия контракта",
    "срок действия договора", "срок исполнения контракта", "срок исполнения договора", "строк виконання",
    "строк поставки", "строк дії договору", "срок за изпълнение", "срок на договора", "рок извршења",
    # el, ro, tr, vi, id/ms, th, he
    "διάρκεια της σύμβασης", "διάρκεια σύμβασης", "χρονική διάρκεια", "durata contractului",
    "perioada de derulare", "iş süresi", "işin süresi", "sözleşme süresi", "teslim süresi",
    "thời gian thực hiện hợp đồng", "thời gian thực hiện gói thầu", "thời gian thực hiện", "thời hạn hợp đồng",
    "jangka waktu pelaksanaan", "waktu pelaksanaan", "masa pelaksanaan", "jangka waktu kontrak", "tempoh kontrak",
    "ระยะเวลาดำเนินการ", "ระยะเวลาแล้วเสร็จ", "תקופת ההתקשרות", "משך ההתקשרות",
    # cs, sk, sl, hr, hu, sv, da, no, fi, et, lt
    "doba plnění", "doba trvání smlouvy", "lehota plnenia", "trvanie zmluvy", "trajanje pogodbe", "rok izvedbe",
    "trajanje ugovora", "rok izvršenja", "a szerződés időtartama", "teljesítési határidő", "avtalstid",
    "kontraktsperiod", "avtalsperiod", "kontraktens varighed", "kontraktens varighet", "sopimuskausi",
    "sopimuksen kesto", "lepingu kestus", "sutarties trukmė",
    # TED standard form labels: 'II.2.7) Duration of the contract, framework agreement or dynamic purchasing
    # system' of form F02 (the number is on the line below: 'Duration in months: 36'), in the languages the
    # words above do not cover
    "doba trvani zakazky ramcove dohody nebo dynamickeho nakupniho systemu",
    "trvanie zmluvy ramcovej dohody alebo dynamickeho nakupneho systemu",
    "kontraktets ramavtalets eller det dynamiska inkopssystemets loptid",
    "varighed af kontrakten rammeaftalen eller det dynamiske indkøbssystem",
    "sopimuksen puitejarjestelyn tai dynaamisen hankintajarjestelman kesto",
    "a szerzodes a keretmegallapodas vagy a dinamikus beszerzesi rendszer idotartama",
    "срок на договора рамковото споразумение или динамичната система за покупки",
    "διάρκεια της σύμβασης της συμφωνίας-πλαισίου ή του δυναμικού συστήματος αγορών",
    "trajanje ugovora okvirnog sporazuma ili dinamickog sustava nabave",
    "trajanje javnega narocila okvirnega sporazuma ali dinamicnega nabavnega sistema",
    "sutarties preliminariosios sutarties arba dinamines pirkimo sistemos trukme",
    "liguma visparigas vienosanas vai dinamiskas iepirkumu sistemas darbibas termins",
    "lepingu raamlepingu voi dunaamilise hankesusteemi kestus",
)  # fmt: skip
GENERIC_DURATION_LABELS: Final = (
    "duration", "duree", "dauer", "duracion", "durata", "duracao", "duur", "المدة", "срок", "διάρκεια", "süre",
    "trvání", "trajanje", "időtartam", "varighed", "kesto",
    # eForms labels (BT-36 'Duration': '5.1.3. Estimated duration' / 'Duration: 36 Months'), in the languages
    # the words above do not cover
    "okres obowiazywania", "doba trvani", "trvanie", "varaktighet", "galiojimas", "ilgums", "kestus",
)  # fmt: skip
"""One-word labels (and the two words of Polish and Czech 'Duration'): trusted only at the start of a line
with the value right after them."""
PERIOD_OF_LABELS: Final = (
    "for a period of", "for a term of", "pour une duree de", "pour une periode de", "fur einen zeitraum von",
    "fur die dauer von", "mit einer laufzeit von", "por un periodo de", "por un plazo de", "per un periodo di",
    "per la durata di", "per una durata di", "na okres", "pelo prazo de", "por um periodo de", "voor een periode van",
    "voor de duur van", "لمدة", "на срок", "на период", "για περίοδο", "pe o perioada de", "süreyle",
)  # fmt: skip
CONTRACT_WORD: Final = compile_folded(
    lexicon(
        r"(?:contract|agreement|framework|marche|contrat|accord|vertrag|rahmenvereinbarung|contrato|contratto"
        r"|appalto|accordo|umow|overeenkomst|العقد|अनुबंध|संविदा|контракт\w*|договор\w*|σύμβασ\w*|contract\w*"
        r"|sözleşme\w*|hợp đồng|kontrak|smlouv\w*|zmluv\w*|pogodb\w*|ugovor\w*|szerződés\w*|avtal\w*|kontrakt\w*)\w*",
        r"契約|合同|계약",
    )
)

DURATION_NEGATIVE: Final = compile_folded(
    lexicon(
        r"(?:offer|offre|angebot|oferta|offert|propos|bid|bindefrist|zuschlagsfrist|vincolant|mantenimiento|zwiazani"
        r"|gestanddoening|validite|validez|validade|validita|bid validity|صلاحية|वैधता"
        r"|warrant|guarant|garanti|gewahrleist|garanzi|gwarancj|rekojmi|defect|الضمان"
        r"|payment|paiement|zahlung|pago|pagament|platnos|betaling|الدفع|invoice|factur|rechnung"
        r"|procedimento|procedure|procedura|verfahren|procedimiento"
        r"|notice period|period of notice|prior notice|preavis|kundigung|preaviso|wypowiedzeni"
        r"|question|clarification|fragen|pregunta|quesit|pytani"
        r"|experience|experiencia|esperienz|doswiadczeni|erfahrung"
        r"|insurance|versicherung|seguro|assicurazion"
        r"|publication|publicacion|pubblicazion|veroffentlich|record|retain|retention|archiv|conserv|aufbewahr"
        r"|security|deposit|bond|sicherheit|extend|extension|prolong|verlanger|prorog|renew|renouvel|reconduct"
        r"|przedluz|beyond|after the|au-dela|nach ablauf"
        r"|заявк\w*|предложени\w*|гаранти\w*|гарантийн\w*|оплат\w*|обеспечени\w*|рассмотрени\w*|подач\w*"
        r"|προσφορ\w*|εγγυησ\w*|ισχυ\w*|πληρωμ\w*|valabilitat\w*|ofert\w*|garanți\w*|teklif\w*|teminat\w*"
        r"|geçerlilik\w*|ödeme\w*|bảo hành|hiệu lực|thanh toán|dự thầu|penawaran|masa berlaku|nabíd\w*|ponuk\w*"
        r"|ponud\w*|ajánlat\w*|anbud\w*|tilbud\w*|tarjou\w*|אחריות|просрочк\w*|неустойк\w*|штраф\w*"
        r"|penalit\w*|întârzier\w*|gecikme\w*|chậm"
        # an offer's validity in the languages the words above miss: bg 'Срок на валидност на офертите', sr/mk
        # 'понуда', lt 'pasiūlymų', lv 'piedāvājuma', et 'pakkumuse'
        r"|оферт\w*|валидност\w*|понуд\w*|pasiūlym\w*|piedāvājum\w*|pakkumus\w*"
        # how long a tender binds its tenderer, in words that name no offer: en 'must maintain the tender', nl
        # 'zijn inschrijving gestand moet doen'
        r"|maintain the tender|tender validity|validity of (?:the )?tenders?|gestand)\w*",
        r"保証|瑕疵|有効期間|支払|入札|遅延|하자|보증|유효기간|입찰|대금|지체|质保|保修|有效期|付款|投标|投標|违约|超期"
        r"|逾期|延误|不低于|不少于|以上|이상|≥|≤|ประกัน|ยืนราคา",
    )
)
"""Periods that are not the contract's: offer validity, warranty, payment term, notice period, the
procedure's own length, questions, experience, insurance, publication, offers."""

DURATION_UNITS: Final[tuple[tuple[DurationUnit, str], ...]] = (
    (
        "days",
        "day days jour jours tag tage tagen dia dias giorno giorni dni dzien dnia dag dagen يوم ايام أيام يوما يوماً "
        "दिन दिवस дней дня день днів дні діб дни дана ημέρες ημερών ημέρα zile zi gün günü ngày hari วัน ימים יום dnů "
        "dní dny nap dagar dage dager päivää päeva dienas dienų",
    ),
    (
        "weeks",
        "week weeks semaine semaines woche wochen semana semanas settimana settimane tydzien tygodnie tygodni weken "
        "اسبوع أسبوع اسابيع أسابيع सप्ताह недель недели неделя тижнів тижні седмици недеља εβδομάδες εβδομάδων "
        "săptămâni saptamani hafta tuần minggu สัปดาห์ שבועות týdnů týždňov tednov tjedana hét veckor uger uker "
        "viikkoa nädalat savaičių",
    ),
    (
        "months",
        "month months mois monat monate monaten mes meses mese mesi miesiac miesiace miesiecy maand maanden شهر شهرا "
        "شهراً اشهر أشهر شهور माह महीने महीना месяцев месяца месяц місяців місяці місяць месеца месеци месец μήνες "
        "μηνών μήνα μήνας luni luna ay ayı tháng bulan เดือน חודשים חודש měsíců měsíce měsíc mesiacov mesiace mesiac "
        "mesecev mjeseci hónap månader måneder kuukautta kuud mēneši mēnešiem mėnesių",
    ),
    (
        "years",
        "year years an ans annee annees jahr jahre jahren ano anos anno anni rok lata lat jaar jaren سنة سنوات عام "
        "أعوام اعوام वर्ष साल лет года год років роки рік години година έτη ετών έτος χρόνια χρόνο χρόνος ani yıl "
        "yılı sene năm tahun ปี שנים שנה let roky rokov godina év år vuotta aastat gadi metų metai",
    ),
    # the forms 'in months' takes: 'Laufzeit in Monaten', 'okres w miesiącach', 'liczba dni'
    ("days", "dniach"),
    ("months", "miesiacach"),
    ("years", "latach"),
    # eForms labels (BT-36 'Duration: 36 Months', the unit after the number): the month's forms after a number
    # that the words above lack: sv/da/no singular, fi nominative, hr 'mjesec'/'mjeseca', sl 'mesec'/'meseca'/
    # 'meseci', lt 'mėnuo'/'mėnesiai', lv 'mēnesis', et 'kuu'
    ("months", "månad måned kuukausi mjesec mjeseca mesec meseca meseci mėnuo mėnesiai mēnesis kuu"),
    # the other units' forms after a number in the same languages ('30 dana' is 'dana' already; hr 'dan' and
    # cs/sk 'den'/'deň' are left out: Indonesian 'dan' is 'and', German 'den' an article)
    ("days", "dag päivä päivän päev dneva dnevi diena dienos dienų dienas dienām dias"),
    ("weeks", "vecka uge týden týdny týždeň týždne tjedan tjedna teden tedna tedni savaitė savaitės nedēļa nedēļas "
              "nädal nädalat viikko εβδομάδα седмица săptămână"),
    ("years", "godine godinu leto leta leti metus gads gadus aasta vuosi"),
)
"""Unit words of written-with-spaces scripts, per unit."""
DURATION_UNITS_IN_LABEL: Final[tuple[tuple[DurationUnit, str], ...]] = (
    # TED standard form labels: 'Duration in months' / 'Duration in days' of forms F02 and the like, where the
    # 'in' is none of 'in', 'en', 'w', 'em' (those are read with any unit): a preposition of its own (cs, sk,
    # sv, da, bg, el, hr, sl) or a case ending (fi 'Kesto kuukausina', hu 'Időtartam hónapban', et 'Kestus
    # kuudes', lt 'Trukmė mėnesiais', lv 'Ilgums mēnešos')
    ("days", "ve dnech, v dňoch, i dagar, i dage, päivinä, napokban, в дни, σε ημέρες, u danima, v dnevih, "
             "dienomis, dienās, päevades"),
    ("months", "v měsících, v mesiacoch, i månader, i måneder, kuukausina, hónapban, в месеци, σε μήνες, "
               "u mjesecima, v mesecih, mėnesiais, mēnešos, kuudes"),
)
"""A label's 'in months' / 'in days', comma-separated: the unit of the number right after it ('Löptid i
månader: 36', 'Kesto kuukausina: 36'), read only so: 'i dni 30' is no label."""
CJK_DURATION_UNITS: Final[tuple[tuple[DurationUnit, str], ...]] = (
    ("days", "日 日間 日间 天 日历天 日曆天 个日历天 個日曆天 工作日 일 일간"),
    ("weeks", "週間 周 週 주"),
    ("months", "か月 ヶ月 ケ月 ヵ月 カ月 箇月 个月 個月 개월"),
    ("years", "年 年間 年间 년"),
)
"""Unit words of scripts without spaces, glued to what follows ('20 日历天内', '1 年或', '1,825일')."""
