"""The words that say what a date in a tender is about, in every language the deadline reader knows.

The standard vocabulary of procurement forms and notices, per language: the TOPIC of a date (offers, bids,
applications → the submission deadline; questions, clarifications → the questions deadline; the opening of
bids, a site visit, the award, the publication, a bid bond, an answer, a start → neither), the CUES that make
it a time limit (deadline, closing, 'no later than', 期限, 截止, 마감, окончание, προθεσμία, termen limita, son,
hạn nộp …), the act of handing something in, and the words of amendments, citations and ranges.

Two spellings per lexicon: words of scripts written with spaces (Latin, Cyrillic, Greek, Arabic, Hebrew,
Vietnamese) sit on word boundaries; words of scripts written without them (Han, kana, Hangul, Thai) match
anywhere, since 入札書の提出期限 or 전자입찰서제출기간 have no boundary around 入札 or 입찰. All patterns are
matched against FOLDED text (see lexicon.py).
"""

from __future__ import annotations

import re
from typing import Final

from tenderflow.extraction.offline.lexicon import compile_folded, lexicon

SUB: Final = "sub"
QUE: Final = "que"
NEG: Final = "neg"

_HEBREW_PREFIX: Final = "[והבלמשכ]?"
"""Hebrew glues 'and', 'the', 'in', 'to', 'from', 'that', 'as' to the next word: 'להגשת ההצעות'."""


_TOPICS: Final = (
    (
        NEG,
        # bid opening
        r"opening|opened|open on|ouverture|offnung|eroffnung|apertura|otwarci\w*|abertura|opening van"
        r"|فتح|खोलने|вскрыти\w*|открыти\w* доступа|розкритт\w*|отваряне|отварањ\w*|αποσφραγισ\w*|ανοιγμα\w*"
        r"|deschider\w*|açılış\w*|açılma\w*|mở thầu|mở hồ sơ|pembukaan|otevírání|otváran\w*|odpiranj\w*"
        r"|otvaranj\w*|bontás\w*|felbontás\w*|\w*öppning\w*|\w*åbning\w*|\w*åpning\w*|avaus\w*|avaami\w*|avami\w*"
        r"|atvēršan\w*|atplėšim\w*|פתיחת|"
        # meetings and visits
        r"(?:pre-?bid|pre-?proposal|pre-?tender|pre-?quote)(?! (?:queries|query|questions?|clarifications?|enquir\w*))"
        r"|site (?:visit|meeting|inspection)|meeting|conference|session"
        r"|briefing|visite|reunion|ortsbesichtigung|besichtigung|bieterkonferenz|visita|sopralluogo|spotkani\w*"
        r"|wizj\w* lokaln\w*|совещани\w*|осмотр\w*|αυτοψι\w*|vizit\w*|sedinta|toplantı\w*|hội nghị|aanwijzing"
        r"|penjelasan|prohlídk\w*|prehliadk\w*|כנס|סיור|"
        # offer validity and award
        r"validity|valid|validite|bindefrist|zuschlags\w*|gultigkeit|validez|mantenimiento de (?:la )?oferta"
        r"|validita|vincola\w*|zwiaz\w*(?: oferta)?|validade|gestanddoening|geldigheid|award|attribution|adjudicacion"
        r"|aggiudicazione|udzielenie|подведени\w*|итог\w*|рассмотрени\w*|оценк\w*|действи\w*|ισχυ\w*"
        r"|κατακυρωσ\w*|αναθεσ\w*|valabilitat\w*|atribuir\w*|geçerlilik\w*|hiệu lực|masa berlaku|platnost\w*"
        r"|kötöttség\w*|bindningstid|vedståelse\w*|voimassa\w*|jõusoleku|derīgum\w*|galiojim\w*|תוקף"
        r"|الترسية|ترسية|"
        # publication, issue, dispatch, documents
        r"date of issue|issue date|issued|publication|publish|published|posted|dispatch of (?:the |this )?notice"
        r"|(?:date d'|data di |fecha de )?(?:envoi|invio|envio) (?:du |de l'|dell'|del )(?:present )?"
        r"(?:avis|avviso|bando|anuncio)"
        r"|absendung|versand|veroffentlich\w*|publicacion|pubblicazione|publikacj\w*|publicacao"
        r"|dispatch\w*|invitations? to (?:tender|participate|submit)|estimated date"
        r"|download|sale of|obtencion de pliegos|retrait|anforderungsfrist|bid start|start date"
        r"|размещени\w*|опубликовани\w*|публикаци\w*|предоставлени\w* документаци\w*|оприлюдн\w*|δημοσιευσ\w*"
        r"|publicar\w*|ilan\w*|phát hành|đăng tải|công bố|pengumuman|uveřejněn\w*|közzététel\w*|פרסום|"
        # start, execution, delivery
        r"commence\w*|start|debut|beginn|inicio|inizio|rozpoczeci\w*|completion|realizacji|execution|ejecucion"
        r"|esecuzione|ausfuhrung\w*|(?:delivery|livraison|lieferung|entrega|consegna|dostaw\w*)(?! (?:of |de |des |das "
        r"|dos |de las |de los |delle |degli |der )?(?:the )?(?:bids?|tenders?|offers?|proposals?|ofertas?|propuestas?"
        r"|propostas?|offres?|plis|offerte|angebote|ofert\w*))"
        r"|начал\w*|исполнени\w*|поставк\w*|початк\w*|начало|εναρξ\w*|παραδοσ\w*|incepere\w*|livrar\w*"
        r"|başlangıç\w*|bắt đầu|mulai|zahájení|začiatk\w*|"
        # payment, signature, interviews, bonds
        r"payments?|invoices?|paiement|facture|zahlung\w*|rechnung\w*|pago|factura|pagamento|fattura|platnos\w*"
        r"|faktur\w*|betaling|factuur|signature|signing|signed|unterzeichnung|firma del contrato|stipula|podpisani\w*"
        r"|interviews?|presentations?|demonstrations?"
        r"|оплат\w*|обеспечени\w*|заключени\w*|подписани\w*|πληρωμ\w*|εγγυησ\w*|εγγυητικ\w*|υπογραφ\w*"
        r"|garanti\w*|semnar\w*|teminat\w*|bảo lãnh|bảo đảm|ký hợp đồng|jaminan|penandatanganan|jistot\w*"
        r"|zábezpek\w*|biztosíték\w*|ערבות|"
        # answers to questions
        r"communique\w*|communicated|comunicad[oa]s?|comunicat[aeio]|mitgeteilt|answers?"
        r"|responses? to (?:the )?(?:questions|queries|inquiries|clarifications?)|reponses?|antworten"
        r"|respuestas?|risposte|odpowiedz\w*|ответ\w*|відповід\w*|απαντησ\w*|raspuns\w*|cevap\w*|yanıt\w*"
        r"|trả lời|jawaban|odpověd\w*|odgovor\w*|válasz\w*|svar|vastau\w*|vastus\w*|atbild\w*|atsakym\w*|תשובות",
        # Japanese
        r"開札|開封|開始|公告|公表|掲載|説明会|現場説明|現地説明|回答|落札|決定|通知|資格確認|参加資格|参加申請"
        r"|申請書|縦覧|閲覧|配布|交付|契約締結|保証金|工期|履行期間|納期|納入|支払|有効期間"
        # Chinese (Simplified, Traditional)
        r"|开标|開標|开启|開啟|唱标|发布|發布|发售|获取|獲取|下载|下載|报名|報名|资格预审|資格預審|保证金|保證金"
        r"|评标|評標|中标|中標|定标|答复|答覆|回复|答疑会|踏勘|考察|签订|簽訂|签署|交货|交貨|付款|支付|有效期"
        r"|质保|公示|异议|異議|质疑"  # 质疑: a supplier's formal challenge (Japanese 質疑 are questions)
        # Korean
        r"|개찰|개봉|공고|게시|현장설명|설명회|등록|사전심사|신청|납부|보증금|보증서|협정서|낙찰|계약체결|평가|발표"
        r"|통보|답변|회신|시작|열람"
        # Thai
        r"|เปิดซอง|ประกาศ|หลักประกัน|ยืนราคา|ชี้แจง|ดูสถานที่|ตอบ",
    ),
    (
        SUB,
        r"tenders?|bids?|proposals?|offers?|quotations?|quotes|applications?|submissions?|submittals?|responses?"
        r"|expressions? of interest|eois?|manifestations? d'interet|expressions? d'interet|interessenbekundung\w*"
        r"|manifestacion(?:es)? de interes|manifestazion[ei] di interesse|manifestac(?:ao|oes) de interesse"
        r"|requests? to participate|bid end|tender document submission|rfp|rfq|rft|rfb|itb|ifb|rfx"
        r"|offres?|plis|candidatures?|soumissions?|propositions?|remise|depot|reception des offres"
        r"|angebot\w*|teilnahmeantr\w*|bewerbung\w*|einreichung\w*|abgabefrist|schlusstermin"
        r"|ofertas?|proposiciones|propuestas?|solicitudes de participacion|presentacion"
        r"|offerte|domande di partecipazione|presentazione|ricevimento"
        r"|caricamento|invio|envoi|envio|upload\w*"
        r"|propostas?|apresentacao|entrega das propostas"
        r"|inschrijving\w*|offertes?|aanbieding\w*|indiening"
        r"|ofert\w*|wnioskow o dopuszczenie|wnioski o dopuszczenie|skladani\w*|zlozeni\w*|zlozyc|skladac"
        r"|[وبلف]?العروض|[وبلف]?العطاءات|[وبلف]?تقديم|बोली|निविदा"
        # Cyrillic, Greek
        r"|заявк\w*|заявок|подач\w*|предложени\w*|пропозиці\w*|оферт\w*|понуд\w*|өтінім\w*"
        r"|προσφορ\w*|αιτησ\w*|υποβολ\w*"
        # Romanian, Turkish, Vietnamese, Indonesian/Malay
        r"|candidatur\w*|depuner\w*|teklif\w*|başvuru\w*|hồ sơ dự thầu|hồ sơ đề xuất|hồ sơ chào giá|dự thầu"
        r"|penawaran|pemasukan|sebut harga|tawaran"
        # Czech, Slovak, Slovene, Croatian/Serbian/Bosnian, Hungarian, Nordic, Baltic
        r"|nabíd\w*|ponúk\w*|ponuk\w*|ponudb\w*|ponud\w*|ajánlat\w*|anbud\w*|tilbud\w*|tarjou\w*|pakkum\w*"
        r"|piedāvājum\w*|pasiūlym\w*"
        # TED standard form labels: Danish 'Tidsfrist for modtagelse af bud eller anmodninger om deltagelse'
        r"|bud|anmodning\w* om deltagelse"
        # Hebrew
        rf"|{_HEBREW_PREFIX}הצעות|{_HEBREW_PREFIX}הצעה|{_HEBREW_PREFIX}הגשת",
        r"入札|応札|提案書|企画提案|見積書|投标|投標|响应文件|響應文件|递交|遞交|报价|報價|竞价|입찰|투찰|제안서|견적서"
        r"|ข้อเสนอ|ซอง|ยื่น",
    ),
    (
        QUE,
        r"questions?|queries|query|inquiry|inquiries|enquiry|enquiries|clarifications?|requests? for information"
        r"|demandes? de (?:renseignements|precisions|eclaircissements|clarification)|renseignements complementaires"
        r"|eclaircissements|requesting additional information|requests? for additional information"
        r"|additional information (?:requests?|may be requested)|demandes? de renseignements complementaires"
        r"|fragen|anfragen|ruckfragen|bieterfragen|auskunfte|aufklarung\w*|erlauterungen"
        r"|preguntas|consultas|aclaraciones|aclaracion"
        r"|chiarimenti|quesiti|domande"
        r"|esclarecimentos?|perguntas|pedidos de esclarecimento"
        r"|vragen|nota van inlichtingen"
        r"|pytania|pytan|wyjasnie\w*|zapytania"
        r"|[وبلف]?الاستفسارات|[وبلف]?استفسارات|[وبلف]?الأسئلة|[وبلف]?التوضيحات|[وبلف]?الاستيضاحات"
        r"|вопрос\w*|разъяснени\w*|уточнен\w*|запрос\w* (?:на|о) (?:даче )?разъяснени\w*|роз'яснен\w*"
        r"|роз’яснен\w*|питан\w*"
        r"|разяснени\w*|въпрос\w*|појашњењ\w*|διευκρινισ\w*|ερωτηματ\w*|ερωτησ\w*|clarificar\w*|intrebar\w*"
        r"|soru\w*|açıklama talep\w*|làm rõ|câu hỏi|pertanyaan|vysvětlení|dotaz\w*|vysvetleni\w*|otázk\w*"
        r"|vprašanj\w*|pojasnil\w*|pojašnjenj\w*|pitanj\w*|kiegészítő tájékoztatás\w*|kérdés\w*|frågor|spørgsmål"
        r"|spørsmål|kysymy\w*|lisätietopyyn\w*|küsimus\w*|selgitus\w*|jautājum\w*|klausim\w*|paaiškinim\w*"
        # eForms labels (BT-13 'Deadline for requesting additional information', eForms SDK translations): the
        # request for more information, never 'additional information' alone (BT-300, BT-134 print that)
        r"|anforderung zusätzlicher informationen|demandes? d'informations complémentaires"
        r"|richiest[ae] di informazioni supplementari|solicitar información complementaria"
        r"|solicitar informações adicionais|verzoek(?:en)? om aanvullende informatie"
        r"|wnioskiem o dodatkowe informacje|vyžádání dalších informací|vyžiadanie doplňujúcich informácií"
        r"|begära kompletterande information|anmodning om yderligere oplysninger|lisätietojen pyytämi\w*"
        r"|solicitarea de informații suplimentare|kiegészítő információk bekérés\w*"
        r"|искане на допълнителна информация|παροχή πρόσθετων πληροφοριών|zahtjeva za dodatne informacije"
        r"|zahtevanje dodatnih informacij|papildomos informacijos prašym\w*|papildu informācijas pieprasīšan\w*"
        r"|lisateabe taotlemis\w*"
        rf"|{_HEBREW_PREFIX}שאלות|{_HEBREW_PREFIX}הבהרות",
        r"質問|質疑|問合せ|問い合わせ|澄清|疑义|疑義|疑问|疑問|질의|질문|문의|คำถาม|สอบถาม",
    ),
)
TOPIC: Final = compile_folded("|".join(rf"(?P<{kind}>{lexicon(*words)})" for kind, *words in _TOPICS))
"""One pattern, negative contexts first: at one position 'responses to questions' is an answer, not a response,
and 投标保证金 a bid bond, not a bid."""

STRONG_CUE: Final = compile_folded(
    lexicon(
        r"deadline|closing|closes|close|close of|due|no later than|not later than|latest by|last date"
        r"|last day|end date|end time|time limit|cut-?off|expir\w*|must be received|shall be received|will be received"
        r"|date limite|heure limite|au plus tard|delai|cloture|echeance"
        r"|\w*frist|schlusstermin|ablauf|ende der|spatestens|bis zum|eingang der|termin"
        r"|plazo|fecha limite|fecha de cierre|hasta el|hasta las|a mas tardar|vencimiento|cierre"
        r"|termine|scadenza|entro il|entro le|entro e non oltre|non oltre"
        r"|prazo|data limite|ate o dia|ate ao dia|ate as|encerramento"
        r"|uiterste|uiterlijk|sluitingsdatum|termijn"
        r"|do dnia|nie pozniej niz|najpozniej|nalezy zlozyc|terminu|terminie|terminem|termini"
        r"|آخر موعد|اخر موعد|موعد|تاريخ انتهاء|अंतिम तिथि|समाप्ति"
        r"|окончани\w*|истечени\w*|не позднее|не позже|срок\w*|закінченн\w*|кінцев\w* строк\w*|строк\w*|краен срок"
        r"|рок за|προθεσμι\w*|καταληκτικ\w*|ληξ\w*|termen\w* limit\w*|data limit\w*|son teklif|son başvuru|son gün"
        # eForms labels (BT-131): Romanian writes the compound with a hyphen, 'Termenul-limită pentru primirea
        # ofertelor'
        r"|termen\w*-limit\w*"
        r"|son tarih\w*"
        r"|en geç|hạn nộp|hạn cuối|thời hạn|hạn chót|đóng thầu|chậm nhất|batas akhir|batas waktu|tarikh tutup|tutup"
        r"|paling lambat|lhůt\w*|lehot\w*|rok za|rok do|határid\w*|sista|senast|senest|määräai\w*|viimeistään"
        r"|tähtaeg\w*|hiljemalt|termiņš|termiņa|termiņu|terminas|המועד האחרון|מועד אחרון|לא יאוחר",
        r"期限|締切|締め切り|〆切|必着|最終日|入札日時|截止|截至|마감|기한|종료|입찰일시|สิ้นสุด|หมดเขต",
    )
)
WEAK_CUE: Final = compile_folded(
    lexicon(
        r"on or before|by|before|until|till|prior to|received|receipt|submit\w*|reception|recepcion"
        r"|ricevimento|recebimento|avant le|jusqu'au|bis|hasta|entro|ate|tot|قبل|حتى"
        r"|до|по|έως|μέχρι|pana la|kadar|trước|sebelum|hingga|sampai|mennessä|līdz|iki|עד",
        r"受付|受領|提出|期間|まで|迄|递交|提交|接收|受理|请于|須於|须于|应于|期间|제출|접수|기간|까지|ภายใน",
    )
)
TAIL_CUE: Final = compile_folded(r"[\s)\]）】,.]*(?:まで|迄|必着|前|之前|以前|为止|為止|止|까지|이전|전까지)")
"""A time limit written AFTER its date, as Japanese, Korean and Chinese write 'until' and 'before':
'令和8年9月25日 午前9時30分 まで', '2025. 2. 7. 10:00까지', '2026年1月20日17:00前'."""
DEADLINE_LABEL: Final = compile_folded(
    lexicon(
        r"deadline|submission deadline|date limite|heure limite|fecha limite|data limite|scadenza"
        r"|uiterste datum|einsendeschluss|abgabetermin|schlusstermin|termin ostateczny|آخر موعد|اخر موعد"
        r"|termen limita|ihale tarihi|ihale saati|son teklif verme tarihi|hạn nộp hồ sơ|batas akhir|tarikh tutup"
        r"|lhůta pro podání|προθεσμια"
    )
)
"""A label that by itself names the submission deadline when nothing says what it is for ('Deadline: …')."""
ACTION: Final = compile_folded(
    lexicon(
        r"submission|submitting|receipt|lodg(?:e|ing|ement)|depot|remise|einreichung|abgabe"
        r"|eingang|presentacion|recepcion|presentazione|ricezione|skladani\w*|zlozeni\w*|apresentacao|entrega"
        r"|indiening|ارسال|[وبلف]?تقديم|استلام|تسليم|подач\w*|υποβολ\w*|depuner\w*|nộp|pemasukan|podání"
        r"|predkladani\w*|oddaj\w*|benyújtás\w*|inlämning\w*|jättämi\w*|esitami\w*|iesniegšan\w*|pateikim\w*"
        rf"|{_HEBREW_PREFIX}הגשת",
        r"提出|受付|递交|遞交|提交|제출|접수|ยื่น",
    )
)
"""The act of handing something in: in a short schedule label ('Submission of proposals   15 March 2026',
'تقديم العروض 17/11/1446', '入札書受付期間') it makes the date a deadline without any other cue."""
CLOSING_CUE: Final = compile_folded(
    lexicon(r"closing|closes|close of|cloture|cierre|encerramento|καταληκτικ\w*|đóng thầu|tarikh tutup")
)
AMENDED: Final = compile_folded(
    lexicon(
        r"revised|amended|extended|postponed|rescheduled|modifiee?|reportee?|prorogee?|geandert|verlangert"
        r"|verschoben|prorrogad[oa]|modificad[oa]|prorogat[oa]|differit[oa]|przedluzon\w*|zmienion\w*|alterad[oa]"
        r"|gewijzigd\w*|verlengd|changed|cambiad[oa]|modificat[oa]|تمديد|المعدل|الجديد"
        r"|(?:new|nouvelle|neue[rs]?|nuev[oa]|nuov[oa]|nowy|novo|nova|nieuwe) (?:closing|deadline|due|submission|date"
        r"|time|date limite|frist|termin|plazo|fecha|termine|scadenza|data|prazo|datum|sluitingsdatum)"
        r"|продлен\w*|перенесен\w*|изменен\w*|παραταση|παρατειν\w*|prelungi\w*|uzatıl\w*|gia hạn|diperpanjang",
        r"延長|延期|変更後|延长|变更后|變更後|연장|변경",
    )
)
ORIGINAL: Final = compile_folded(
    lexicon(
        r"original|originally|previous|previously|old|initial|initiale|ancienne|ursprunglich\w*|bisherige"
        r"|anterior|originale|precedente|pierwotn\w*|dotychczasow\w*|oorspronkelijke|instead of|au lieu de"
        r"|initially|initialement|inicialmente|inizialmente|pierwotnie|oorspronkelijk|zunachst|urspr\w*"
        r"|statt|en lugar de|anstelle|первоначальн\w*|прежн\w*|αρχικ\w*",
        r"変更前|当初|变更前|變更前|변경전|변경 전",
    )
)
CITATION: Final = compile_folded(
    lexicon(
        r"ustaw\w*|rozporzadz\w*|dz\.? ?u|law|act|loi|decret|arrete|gesetz\w*|verordnung|richtlinie|ley"
        r"|real decreto|decreto|legge|d\.? ?lgs|regolamento|directive|directiva|direttiva|lei|regulation|regulamento"
        r"|circular|circulaire|rundschreiben|ordinance|ordonnance|закон\w*|постановлени\w*|приказ\w*|распоряжени\w*"
        r"|νομο\w*|ν\.|legea|hg|oug|kanun\w*|yönetmelik\w*|luật|nghị định|thông tư|undang-undang|peraturan"
        r"|zákon\w*|törvény\w*|likum\w*|įstatym\w*|seadus\w*"
    )
)
"""A law or regulation cited with its date ('ustawa z dnia 11 marca 2004', 'loi du 12 mars 2019', 'Ley 9/2017,
de 8 de noviembre', 'Федеральный закон от 05.04.2013'): when one ends the clause right before a date, the date
is the law's."""
REFERENCE_DATED: Final = compile_folded(
    r"(?<![^\W_])(?:no|nr|n°|numero|number|ref|reference|رقم|№|αρ|αριθ)\.?\s*:?\s*\(?[\w/.\-]+\)?\s*,?\s*"
    r"(?:dated|of|du|vom|de|del|z dnia|وتاريخ|بتاريخ|от|της|din|tarihli|ngày|tanggal|ze dne|zo dňa)\s*$"
)
"""Another document's number and date ('Tender No. 12/2025 dated', 'رقم (م/128) وتاريخ', 'n° 2019-1 du',
'№ 123 от'): the date that follows is that document's."""
CHANGED_TO: Final = re.compile(r"[\W_]*(?:to|au|a|à|al|auf|na|do|para|naar|until|till|->|→)?[\W_]*")
"""What stands between the old and the new date of 'extended from 10 March to 20 March'."""
_WEEKDAY_IN_BRACKETS: Final = r"(?:\s*\([^()\d]{1,12}\))?"
RANGE_TO: Final = compile_folded(
    _WEEKDAY_IN_BRACKETS
    + r"[\s(),.]*(?:[~～〜\-–—]+|から|至|到|부터|to|until|till|au|bis|hasta(?: el)?|al|fino al|do|tot|по|до|έως"
    r"|μέχρι|pana la|den|đến|tới|hingga|sampai|s\.?\s?d\.?|עד|ถึง)[\s(),.]*"
)
"""What joins the start and the end of a period ('2025. 1. 31. 00:00 ~ 2025. 2. 7. 10:00', '令和8年7月27日（月）
～令和8年7月28日（火）', 'с 30.03.2026 по 15.04.2026', 'from 1 March to 15 March 2026'): the end is the time
limit, the start is none."""
RANGE_FROM: Final = compile_folded(r"\S*(?:から|より|부터)\s*$")
"""A period's start written in words before its end date ('入札参加資格確認結果通知日から 令和8年9月25日まで', 'from the
date of the notice to …'): the words of the start are not the end date's label."""
SAME_DAY: Final = compile_folded(
    r"(?:[\W_]*(?:الموافق|corresponding to|i\.?e\.?|soit|or|o|oder|ou|هـ|ه|م|r)(?![^\W\d_]))*[\W_]*"
)
"""What stands between two writings of one day (Hijri and Gregorian, words and digits)."""
NEW_HEADER: Final = compile_folded(
    lexicon(
        r"revised|amended|new|neu|neue[rs]?|nouveau|nouvelle|nuev[oa]|nuov[oa]|nowy|nowa|nov[oa]|nieuwe?"
        r"|modifiee?|geandert|modificad[oa]|modificat[oa]|zmienion\w*|alterad[oa]|gewijzigd\w*|المعدل|الجديد"
        r"|новая|новый|нов\w*",
        r"変更後|变更后|변경후",
    )
)
"""A column header saying its dates are the amended ones."""

OPENING: Final = compile_folded(
    lexicon(
        r"opening|ouverture|offnung|eroffnung|apertura|otwarci\w*|abertura|вскрыти\w*|розкритт\w*|отваряне"
        r"|αποσφραγισ\w*|deschider\w*|açılış\w*|mở thầu|pembukaan|otevírání|bontás\w*|פתיחת|فتح",
        r"開札|開封|开标|開標|开启|開啟|개찰|เปิดซอง",
    )
)
"""The opening of the offers, as a topic word."""
JOINED: Final = compile_folded(
    r"\s*\S{0,8}?\s*(?:及|和|与|與|暨|、|・|･|및|/|&|(?<![^\W_])(?:and|et|y|und|e|i|и|και|si|ve|va)(?![^\W_]))\s*$"
)
"""What joins the submission deadline to the opening when both are one time: '投标截止时间及开标时间', '入札・開札日時',
'submission and opening of bids'."""
