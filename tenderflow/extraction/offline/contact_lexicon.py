"""The buyer's contact vocabulary in the procurement languages beyond Western Europe, as each country's
forms print it: phone, fax, e-mail and address labels; the contexts that make a contact another party's
(a system help desk, a call centre, an audit or integrity office, a review body) or the buyer's own
(inquiries about the tender and the contract); the words of a postal address; and what a sentence says
when it names where bids are submitted or only where documents are read.

Plain data in the natural spelling; contact_words.py folds it into patterns.
"""

from __future__ import annotations

from typing import Final

PHONE_LABELS_WORLD: Final = (
    "電話", "電話番号", "連絡先電話", "tel", "☎", "℡", "전화", "전화번호", "연락처", "대표전화", "电话", "联系电话",
    "联系方式", "手机", "固定电话", "電話號碼", "聯絡電話", "телефон", "тел", "номер контактного телефона",
    "контактный телефон", "номер телефона", "телефони", "τηλ", "τηλέφωνο", "τηλέφωνα", "nr de telefon",
    "nr. de telefon", "număr de telefon", "numar de telefon", "telefon", "telefonu", "điện thoại", "đt",
    "số điện thoại", "โทรศัพท์", "โทร", "טלפון", "טל", "telepon", "telp", "no. telp", "telefonszám",
    "puhelin", "tālrunis", "telefonas", "tlf", "telefone", "telefono",
)
FAX_LABELS_WORLD: Final = (
    "ファクス", "ファックス", "fax", "팩스", "전송", "传真", "傳真", "факс", "φαξ", "faks", "số fax", "แฟกซ์", "โทรสาร",
    "פקס", "faksimili",
)
EMAIL_LABELS_WORLD: Final = (
    "メール", "電子メール", "メールアドレス", "이메일", "전자우편", "전자메일", "电子邮箱", "邮箱", "电子邮件", "电邮",
    "電子郵件", "電子信箱", "адрес электронной почты", "электронная почта", "эл. почта", "електронна пошта",
    "ел. поща", "ηλ. ταχυδρομείο", "ηλεκτρονικό ταχυδρομείο", "adresa de e-mail", "adresa de email", "e-posta",
    "thư điện tử", "อีเมล", "אימייל", "דוא\"ל", "surel", "surat elektronik", "emel", "elektronik posta",
    "elektronik posta adresi", "البريد الالكتروني",
)
ADDRESS_LABELS_WORLD: Final = (
    "住所", "所在地", "주소", "소재지", "地址", "联系地址", "通讯地址", "详细地址", "通訊地址", "почтовый адрес",
    "место нахождения", "местонахождение", "юридический адрес", "адрес местонахождения", "фактический адрес",
    "поштова адреса", "місцезнаходження", "адрес за кореспонденция", "ταχ. δ/νση", "ταχ. διεύθυνση",
    "ταχυδρομική διεύθυνση", "διεύθυνση", "adresa", "adresa poștală", "adres", "adresi", "địa chỉ", "ที่อยู่",
    "כתובת", "alamat", "naslov", "cím", "osoite", "adress", "adresas", "adrese", "aadress", "sídlo", "székhely",
    "sjedište", "sedež", "адреса",
)
"""Labels of the buyer's postal address; the unspaced ones and those that name a street address outright
are strong enough to take a value without a house number ('Ταχ. Δ/νση: Κύμης & Επταλόφου')."""

POSTAL_LABELS: Final = (
    "住所", "주소", "地址", "联系地址", "通讯地址", "почтовый адрес", "поштова адреса", "ταχ. δ/νση", "ταχ. διεύθυνση",
    "ταχυδρομική διεύθυνση", "adresa poștală", "địa chỉ", "ที่อยู่", "כתובת", "alamat", "postal address",
    "mailing address", "street address", "adresse postale", "postanschrift", "anschrift",
)
"""Labels that name a postal address outright: their value needs no house number to be one."""

PLACE_LABELS: Final = ("地点", "地點", "所在", "소재")
"""'Place' labels: the buyer's address only inside the buyer's own block ('招标单位：… / 地点：…')."""

NOT_ADDRESS_CONTEXTS_WORLD: Final = (
    "開札", "入札場所", "履行場所", "工事箇所", "工事場所", "納入場所", "現場", "納品", "개찰", "납품", "현장",
    "설명회", "开标", "交货", "服务地点", "项目地点", "现场", "供货", "投标人", "供应商", "受託者", "落札者", "商号",
    "место поставки", "место доставки", "место выполнения", "место оказания", "место рассмотрения",
    "место подведения", "участник", "поставщик", "уфк", "бик", "получатель", "τόπος παράδοσης", "ανάδοχος",
    "locul de livrare", "locul de prestare", "ofertant", "teslim yeri", "yüklenici", "địa điểm thực hiện",
    "địa điểm giao hàng", "nhà thầu",
)
"""Contexts in which an address is a delivery place, the works site, the opening room, a bidder's or a
bank's, not the buyer's."""

ADDRESS_STOPS_WORLD: Final = (
    "電話", "ＴＥＬ", "전화", "☎", "电话", "联系电话", "联系人", "邮箱", "телефон", "тел", "факс", "τηλ", "φαξ",
    "e-posta", "telefon", "faks", "irtibat", "ayrıntılı bilgi", "bilgi için", "điện thoại", "codul nuts",
    "nuts code", "cod nuts",
)
"""Where an address printed on one line with its contacts ends."""

COUNTRY_FIELDS: Final = ("țara", "tara", "country", "pays", "land", "страна", "χώρα", "ülke", "država", "kraj")
"""A form's country field ('; Tara: Romania'), where an address printed on one line ends."""

NOT_ADDRESS_AFTER_LABEL: Final = (
    "e-mail", "email", "электронной", "электронная", "web", "internet", "url", "ip", "mac", "de e-mail",
    "電子", "电子", "이메일", "ηλεκτρονικ",
)
"""Words after an address label that make it another field's ('Адрес электронной почты', 'Adresa web',
'IP 地址')."""

OTHER_CONTACTS_WORLD: Final = (
    # help desks, call centres, technical support, platforms
    "サポートデスク", "ヘルプデスク", "コールセンター", "認証機関", "콜센터", "기술지원", "헬프데스크", "고객센터",
    "技术支持", "客服", "服务平台", "交易平台", "служба поддержки", "техническая поддержка", "горячая линия",
    "τεχνική υποστήριξη", "helpdesk", "suport tehnic", "destek", "hỗ trợ kỹ thuật", "תמיכה",
    # audit, integrity, complaints, review bodies
    "감사실", "신고", "부조리", "청렴", "이의신청", "纪检", "监督", "投诉", "举报", "監督", "苦情", "異議",
    "жалоба", "жалобы", "обжалование", "προσφυγ", "αεππ", "contestații", "contestatii", "contestare",
    "soluționare", "solutionare", "itiraz", "şikayet", "kamu ihale kurumu", "khiếu nại", "pengaduan",
)
"""Contexts of another party's contacts: a help desk or the e-procurement system's support, a call
centre, an audit, integrity or disciplinary office, a complaints or review body."""

CONTACT_POSITIVE_WORLD: Final = (
    "問合せ", "問い合わせ", "問合せ先", "質問", "担当", "문의", "질의", "담당", "연락",
    "联系人", "联系", "咨询", "疑问",
    "контакт", "контактная информация", "ответственное должностное лицо", "вопрос", "разъяснен",
    "πληροφορίες", "επικοινωνία", "διευκρινίσεις", "persoana de contact", "clarificări", "iletişim", "irtibat",
    "bilgi", "liên hệ", "ติดต่อ", "kontak", "hubungi", "اتصال", "للتواصل", "الاستفسارات",
)
"""Contexts of the buyer's own contact: inquiries, the contact person."""

PROCUREMENT_WORDS: Final = (
    "契約", "入札", "계약", "입찰", "招标", "采购", "招標", "採購", "закуп", "контракт", "προμήθει", "διαγωνισμ",
    "achiziți", "achizitii", "ihale", "satın alma", "đấu thầu", "จัดซื้อ", "מכרז", "pengadaan", "tender",
    "procurement", "contract",
)
"""Words of the procedure itself: a contact line about the tender or the contract is the buyer's
procurement contact, before a technical or general one ('입찰공고·개찰·계약 : 회계자산팀 (☎ …)')."""

ADDRESS_WORDS_WORLD: Final = (
    # ru, uk, bg, sr
    "ул", "улица", "д", "дом", "пер", "переулок", "пр-т", "проспект", "шоссе", "наб", "набережная", "пл",
    "площадь", "г", "город", "край", "область", "обл", "р-н", "район", "корп", "стр", "офис", "вул", "вулиця",
    "бул", "булевард", "ulica", "улица",
    # el
    "οδός", "οδ", "λεωφ", "λεωφόρος", "πλατεία", "τκ", "τ.κ",
    # ro
    "strada", "str", "bulevardul", "bd", "calea", "șoseaua", "soseaua", "nr", "sector", "județul", "localitate",
    "cod poștal", "cod postal",
    # tr
    "mah", "mahallesi", "cad", "caddesi", "sok", "sokak", "sokağı", "bulvarı", "blv", "no", "kat",
    # vi
    "số", "đường", "phố", "phường", "quận", "huyện", "tầng", "tòa", "thành phố", "tp", "tỉnh",
    # id, ms, th, he
    "jalan", "jl", "gedung", "lantai", "kecamatan", "kelurahan", "ถนน", "แขวง", "เขต", "ตำบล", "อำเภอ", "รหัสไปรษณีย์",
    "רחוב", "רח'", "ת.ד",
)
"""Words of a postal address in those languages: streets, numbers, districts, towns."""

ADDRESS_SHAPES_UNSPACED: Final = (
    r"[都道府県].{0,6}[市区町村郡]",  # ja: 千葉県千葉市中央区市場町１－１
    r"[市区町村].{0,12}[0-9０-９一二三四五六七八九十]+(?:丁目|番地?|号|[－ー‐-])",
    # ko: 대구광역시 달서구 월배로 250
    r"(?:특별시|광역시|도|시)\s*\S{1,6}(?:시|군|구)\s*\S{1,12}(?:로|길|동|읍|면)\s*\d",
    r"[省市区县].{0,16}(?:路|街|道|巷|弄|里)\s*\d+\s*(?:号|號)",  # zh: 嘉兴市秀洲区东升西路 1581 号
    r"[市区县].{0,20}\d+\s*(?:号|號)",
)
"""Addresses of scripts without spaces: prefecture/city/ward and a block number, 시/도 구 로/길 and a
number, 省/市/区 路/街 and 号."""

SUBMIT_POSITIVE_WORLD: Final = (
    "递交", "提交投标文件", "上传投标文件", "上传", "投标人登录", "電子入札", "入札書", "입찰서 제출", "입찰서를 제출",
    "전자입찰서", "투찰",
    "подача заявок", "подачи заявок", "электронной площадки", "электронная площадка", "υποβολή", "depunere",
    "depunerea ofertelor", "teklif", "nộp hồ sơ", "ยื่นข้อเสนอ", "הגשת", "penawaran",
    # eForms labels (BT-18 'Address for submission', eForms SDK translations; en, de, ro, el are read by the
    # words above)
    "adresse de présentation", "indirizzo per la presentazione", "dirección para la presentación",
    "endereço para apresentação", "adres voor indiening", "adres na potrzeby zgłoszenia", "adresa pro podání",
    "adresa na predkladanie", "adress för inlämning", "indgivelsesadresse", "tarjouksen/hakemuksen toimitusosoite",
    "a benyújtásra használható cím", "адрес за подаване", "adresa za podnošenje", "naslov za predložitev",
    "pateikimo adresas", "iesniegšanas adrese", "avalduse esitamise aadress",
)
"""What a sentence or a form field says when it names where bids are submitted."""

SUBMIT_NEGATIVE_WORLD: Final = (
    "开标", "開札", "개찰", "下载", "ダウンロード", "マニュアル", "操作", "说明", "помощь", "инструкция",
    "вскрытие", "итогов", "результат", "결과", "公示", "公告", "発表",
)
"""Words of a URL's sentence that make it a place to open bids, download or read, not to submit."""
