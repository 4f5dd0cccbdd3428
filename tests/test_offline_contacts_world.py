"""The buyer and its contacts in the procurement languages beyond Western Europe (offline/contacts.py and
the modules it reads with: buyer_names, letterheads, form_fields, parties, emails, phones, addresses,
submission).

Every page here is written for these tests, laid out the way `pdftotext -layout` prints such notices: a
Japanese 入札公告 signed by its official, a Korean KONEPS notice with its list of contacts, a Chinese
采购公告 with the buyer's, the agent's and the supervisor's blocks, a Russian EIS print form in two
columns, a Greek decision under its letterhead, a Romanian SEAP data sheet, a Turkish EKAP notice and a
specification's footer, a Vietnamese, Thai, Hebrew and Indonesian notice. Each negative (the agent, the
supervisor, the designer, the help desk, the fax, the state line, the signature's stamp, the department)
has its own test.
"""

from __future__ import annotations

import pytest

from tenderflow.extraction.backend import Page
from tenderflow.extraction.offline.contacts import (
    buyer_address,
    buyer_email,
    buyer_name,
    buyer_phone,
    submission_url,
)
from tenderflow.extraction.offline.document import Document
from tests.support.contact_readers import grounded, read

# --- Japanese ------------------------------------------------------------------------------------------------

JAPAN_CITY = """\
一般競争入札公告
次のとおり一般競争入札に付します。
令和７年５月１２日

                                          横浜市長　山中　一郎

１　工事名        市立北部図書館空調設備改修工事
２　工事場所      横浜市港北区大豆戸町１－２
３　問合せ先
    横浜市財政局契約部契約第一課
    住所　横浜市中区本町６－５０－１０
    電話　０４５－６７１－２２４８
    メール　za-keiyaku@city.example.jp
"""

JAPAN_PREFECTURE = """\
                                                入札公告（個別編）
別記様式
静岡県一般競争入札公告 交第２２号
県道拡幅工事の一般競争入札の実施について

令和７年６月２日

                                     静岡県知事　川口　次郎
"""


def test_japanese_notice_is_signed_by_the_mayor_of_the_buyer() -> None:
    assert read(buyer_name, JAPAN_CITY) == "横浜市"  # '市長' is the mayor OF 横浜市


def test_japanese_prefecture_signed_by_its_governor() -> None:
    assert read(buyer_name, JAPAN_PREFECTURE) == "静岡県"


def test_japanese_contract_officer_signature() -> None:
    page = "入札公告\n令和７年１月９日\n\n                 練馬区契約担当者\n\n１　件名　区役所庁舎清掃業務委託\n"
    assert read(buyer_name, page) == "練馬区"


def test_japanese_phone_in_full_width_digits_and_dashes() -> None:
    assert read(buyer_phone, JAPAN_CITY) == "045-671-2248"
    assert grounded(buyer_phone, JAPAN_CITY) is not None  # the quote prints it full width


def test_japanese_address_after_its_label() -> None:
    assert read(buyer_address, JAPAN_CITY) == "横浜市中区本町６－５０－１０"


def test_japanese_email_after_its_label() -> None:
    assert read(buyer_email, JAPAN_CITY) == "za-keiyaku@city.example.jp"


def test_japanese_address_line_opened_by_the_postal_mark() -> None:
    page = ("入札公告\n\n５　入札書の提出場所及び問い合わせ先\n"
            "    〒330-0081　埼玉県さいたま市中央区新都心３－１\n    電話　048-600-1234\n")
    assert read(buyer_address, page) == "埼玉県さいたま市中央区新都心３－１"


def test_the_designers_address_is_not_the_buyers() -> None:
    page = """\
    ・この工事に係る設計業務等の受託者
          商   号   株式会社北東設計
          所在地     静岡市葵区追手町９－６
（３）提出先
    静岡県交通基盤部建設課
    住所 静岡県静岡市葵区追手町９－６
"""
    assert read(buyer_address, page) == "静岡県静岡市葵区追手町９－６"
    found = buyer_address(Document.of([Page(1, page)]))
    assert found is not None and "住所" in found.quote  # the buyer's line, not the designer's


def test_the_system_help_desk_phone_is_not_the_buyers() -> None:
    page = "・電子入札システムの操作に関する問い合わせ先\n    電子調達システムサポートデスク 電話 03-5555-0101\n"
    assert read(buyer_phone, page) is None


# --- Korean --------------------------------------------------------------------------------------------------

KOREA = """\
우편번호 : 61234
주     소 : 광주광역시 서구 상무중앙로 110
홈페이지 : http://www.example.or.kr

                    입찰공고

    ㆍ공  사  명 : 상무지구 하수관로 정비공사
    ㆍ수요기관 : 광주환경공단

    이 공고와 관련하여 문의할 사항이 있으면 아래 담당자에게 연락하시기 바랍니다.

    ○ 전자입찰 이용 문의 : 정부조달 콜센터 (☎ 1588-0800)
    ○ 입찰 및 계약 : 재무회계팀 박민수(☎ 062-600-1234)
    ○ 부조리 신고 : 감사실(☎ 062-600-1299)
"""


def test_korean_buyer_label_gives_the_demand_agency() -> None:
    assert read(buyer_name, KOREA) == "광주환경공단"


def test_korean_contract_contact_not_the_call_centre_nor_the_audit_office() -> None:
    assert read(buyer_phone, KOREA) == "062-600-1234"


def test_korean_address_after_its_letter_spaced_label() -> None:
    assert read(buyer_address, KOREA) == "광주광역시 서구 상무중앙로 110"


def test_korean_forms_addressed_to_the_buyers_president() -> None:
    page = "입 찰 참 가 신 청 서\n\n위와 같이 신청합니다.\n\n                     한국수자원공사 사장 귀하\n"
    assert read(buyer_name, page) == "한국수자원공사"


def test_korean_organisation_printed_before_the_notice_title() -> None:
    page = "                         한국철도공사 입찰공고 제2025-0412호\n\n1. 입찰에 부치는 사항\n"
    assert read(buyer_name, page) == "한국철도공사"


# --- Chinese -------------------------------------------------------------------------------------------------

CHINA = """\
七、对本次招标提出询问，请按以下方式联系。
1.采购人信息
名    称：温州市第三人民医院
地    址：温州市鹿城区学院中路 57 号
联系方式：0577-88051234
2.采购代理机构信息
名    称：浙江恒信招标代理有限公司
地    址：温州市瓯海区娄桥街道古岸路 88 号
联系方式：0577-86661111
邮    箱：hengxin_zb@example.com
3.监督部门
温州市财政局政府采购监管处
联系电话：0577-88990000
"""


def test_chinese_buyer_is_the_purchaser_not_the_agent() -> None:
    assert read(buyer_name, CHINA) == "温州市第三人民医院"


def test_chinese_buyer_contacts_stay_in_the_buyers_block() -> None:
    assert read(buyer_address, CHINA) == "温州市鹿城区学院中路 57 号"
    assert read(buyer_phone, CHINA) == "0577-88051234"
    assert read(buyer_email, CHINA) is None  # the only e-mail is the agent's


def test_chinese_fields_named_after_their_party() -> None:
    page = ("采购人名称：宁海县住房和城乡建设局\n采购人地址：宁海县跃龙街道气象北路 210 号\n"
            "采购人联系方式：0574-65551234\n采购代理机构名称：浙江正信工程咨询有限公司\n"
            "采购代理机构地址：宁波市鄞州区天童南路 588 号\n采购代理机构联系方式：0574-87001234\n")
    assert read(buyer_name, page) == "宁海县住房和城乡建设局"
    assert read(buyer_address, page) == "宁海县跃龙街道气象北路 210 号"
    assert read(buyer_phone, page) == "0574-65551234"


def test_an_address_label_naming_its_party_before_the_colon() -> None:
    page = "Найменування замовника: Управління освіти Житомирської міської ради\n" \
           "Місцезнаходження замовника: 10014, м. Житомир, вул. Святослава Ріхтера, 20\n"
    assert read(buyer_address, page) == "10014, м. Житомир, вул. Святослава Ріхтера, 20"


def test_chinese_tenderer_label_with_letter_spacing() -> None:
    page = "招 标 人：台州市交通投资集团有限公司\n联 系 人： 王工\n电   话：0576-88123456\n"
    assert read(buyer_name, page) == "台州市交通投资集团有限公司"
    assert read(buyer_phone, page) == "0576-88123456"


def test_chinese_submission_platform_with_a_full_width_colon_and_a_wrapped_url() -> None:
    page = ("  3.投标文件递交方式：请登录金华市公共资源交易平台（http：\n"
            "//ggzy.jinhua.example.cn/jhztb/）上传投标文件，逾期上传的不予受理。\n"
            "  4.开标地点：本项目采用不见面开标（http：//ggzy.jinhua.example.cn/bidopen/）\n")
    assert read(submission_url, page) == "http://ggzy.jinhua.example.cn/jhztb/"
    assert grounded(submission_url, page) is not None


# --- Russian and its neighbours --------------------------------------------------------------------------------

EIS = """\
      Номер извещения                                        0123300000125000042


      Адрес электронной площадки в
      информационно-
                                                             https://www.sberbank-ast.example.ru
      телекоммуникационной сети
      «Интернет»


                                                             Заказчик
                                                             МУНИЦИПАЛЬНОЕ БЮДЖЕТНОЕ
      Размещение осуществляет                                ОБЩЕОБРАЗОВАТЕЛЬНОЕ УЧРЕЖДЕНИЕ
                                                             "СРЕДНЯЯ ШКОЛА № 7"


                                                             445012, Российская Федерация, Самарская обл,
      Почтовый адрес
                                                             Тольятти г, Комсомольская ул, дом 12


      Адрес электронной почты                                school7-zakupki@example.ru


      Номер контактного телефона                             8-8482-223344
"""


def test_russian_eis_form_value_wrapped_around_its_label() -> None:
    assert read(buyer_name, EIS) == 'МУНИЦИПАЛЬНОЕ БЮДЖЕТНОЕ ОБЩЕОБРАЗОВАТЕЛЬНОЕ УЧРЕЖДЕНИЕ "СРЕДНЯЯ ШКОЛА № 7"'
    assert grounded(buyer_name, EIS) is not None


def test_russian_eis_contacts() -> None:
    address = "445012, Российская Федерация, Самарская обл, Тольятти г, Комсомольская ул, дом 12"
    assert read(buyer_address, EIS) == address
    assert read(buyer_email, EIS) == "school7-zakupki@example.ru"
    assert read(buyer_phone, EIS) == "8-8482-223344"


def test_russian_electronic_platform_address_is_the_submission_url() -> None:
    assert read(submission_url, EIS) == "https://www.sberbank-ast.example.ru"


def test_russian_authorised_body_placing_the_notice_is_not_the_buyer() -> None:
    page = """\
                                                             Уполномоченный орган
                                                             ДЕПАРТАМЕНТ ЗАКУПОК
      Размещение осуществляет                                АДМИНИСТРАЦИИ ГОРОДА
"""
    assert read(buyer_name, page) is None


def test_russian_223_form_with_colons_and_a_phone_printed_without_plus() -> None:
    page = """\
      Заказчик
      Наименование организации:                               АКЦИОНЕРНОЕ ОБЩЕСТВО "СЕВЕРНЫЕ
                                                              ЭЛЕКТРОСЕТИ"
      Почтовый адрес:                                         163000, г. Архангельск, ул. Поморская,
                                                              д. 5
      Номер контактного телефона:                             78182123456
      Факс:                                                   78182123457
"""
    assert read(buyer_name, page) == 'АКЦИОНЕРНОЕ ОБЩЕСТВО "СЕВЕРНЫЕ ЭЛЕКТРОСЕТИ"'
    assert read(buyer_address, page) == "163000, г. Архангельск, ул. Поморская, д. 5"
    assert read(buyer_phone, page) == "78182123456"


def test_ukrainian_prozorro_notice() -> None:
    page = ("Замовник: Виконавчий комітет Полтавської міської ради\n"
            "Місцезнаходження: 36000, м. Полтава, вул. Соборності, 36\n"
            "Контактна особа: тел. +380 532 56 12 34, e-mail: tender@rada.example.ua\n")
    assert read(buyer_name, page) == "Виконавчий комітет Полтавської міської ради"
    assert read(buyer_address, page) == "36000, м. Полтава, вул. Соборності, 36"
    assert read(buyer_phone, page) == "+380 532 56 12 34"


# --- Greek ---------------------------------------------------------------------------------------------------

GREECE = """\
                                                               ΑΔΑ: 9ΧΥΖ46ΜΤΛ6-ΚΛΜ
                                            ORGANISATION   Digitally signed by
                                            SIGN SERVICE    ORGANISATION SIGN SERVICE
                                                            Date: 2024.03.05 10:12:44
                                                            Reason:
                                                            Location: Athens
ΕΛΛΗΝΙΚΗ ΔΗΜΟΚΡΑΤΙΑ
ΔΗΜΟΣ ΚΕΡΑΤΣΙΝΙΟΥ
Δ/ΝΣΗ ΟΙΚΟΝΟΜΙΚΩΝ ΥΠΗΡΕΣΙΩΝ
ΤΜΗΜΑ ΠΡΟΜΗΘΕΙΩΝ
Ταχ. Δ/νση: Πλατεία Λαού 1
Τηλέφωνο: 213 2000 123
Φαξ: 213 2000 199
e-mail: promitheies@keratsini.example.gr
                                 ΑΠΟΦΑΣΗ
"""


def test_greek_letterhead_is_the_municipality_not_the_state_the_stamp_or_the_department() -> None:
    assert read(buyer_name, GREECE) == "ΔΗΜΟΣ ΚΕΡΑΤΣΙΝΙΟΥ"


def test_greek_contacts_and_the_fax_left_out() -> None:
    assert read(buyer_address, GREECE) == "Πλατεία Λαού 1"
    assert read(buyer_phone, GREECE) == "213 2000 123"
    assert read(buyer_email, GREECE) == "promitheies@keratsini.example.gr"


def test_greek_street_without_a_number_under_the_postal_label() -> None:
    page = "ΠΕΡΙΦΕΡΕΙΑ ΚΡΗΤΗΣ\nΤαχ. Δ/νση: Πλατεία Κουντουριώτη\nΤηλ.: 2813 400 100\n"
    assert read(buyer_address, page) == "Πλατεία Κουντουριώτη"
    assert read(buyer_phone, page) == "2813 400 100"


def test_the_bidder_is_not_the_contracting_authority() -> None:
    page = "Οικονομικός φορέας: ΤΕΧΝΙΚΗ ΕΤΑΙΡΕΙΑ Α.Ε.\n"
    assert read(buyer_name, page) is None


# --- Romanian (an EU standard form) --------------------------------------------------------------------------

SEAP = (
    "Sectiunea I Autoritatea contractanta\n\n"
    "    I.1) Denumire si adrese\n"
    "    SPITALUL JUDETEAN DE URGENTA ARAD\n"
    "    Cod de identificare fiscala: 3519933; Adresa: Strada: Andreny Karoly, nr. 2-4; Localitate: Arad; "
    "Cod Postal: 310037; Tara: Romania;\n"
    "    Codul NUTS: RO421 Arad; Adresa de e-mail: achizitii@spital.example.ro; Nr de telefon: +40 257212233; "
    "Fax: +40 257212244;\n\n"
    "    VI.4.1 Organismul de solutionare a contestatiilor\n"
    "    Consiliul National de Solutionare a Contestatiilor\n"
    "    Adresa: Str. Stavropoleos nr. 6, sector 3; Localitate: Bucuresti; Cod Postal: 030084; Tara: Romania;\n"
)


def test_romanian_data_sheet() -> None:
    assert read(buyer_name, SEAP) == "SPITALUL JUDETEAN DE URGENTA ARAD"
    assert read(buyer_email, SEAP) == "achizitii@spital.example.ro"
    assert read(buyer_phone, SEAP) == "+40 257212233"


def test_romanian_address_ends_before_the_country_and_is_not_the_review_bodys() -> None:
    assert read(buyer_address, SEAP) == "Strada: Andreny Karoly, nr. 2-4; Localitate: Arad; Cod Postal: 310037"


# --- Turkish -------------------------------------------------------------------------------------------------

EKAP = """\
İhale Kayıt Numarası : 2025/412345
1-İdarenin
a) Adı                       : KONYA İL SAĞLIK MÜDÜRLÜĞÜ
b) Adresi                    : Meram Yeni Yol Cad. No:5 42090 Meram/KONYA
c) Telefon ve faks numarası  : 3322211000 - 3322211099
ç) Elektronik posta adresi   : konyaism@saglik.example.tr
"""


def test_turkish_ekap_notice() -> None:
    assert read(buyer_name, EKAP) == "KONYA İL SAĞLIK MÜDÜRLÜĞÜ"
    assert read(buyer_address, EKAP) == "Meram Yeni Yol Cad. No:5 42090 Meram/KONYA"
    assert read(buyer_email, EKAP) == "konyaism@saglik.example.tr"


def test_a_combined_phone_and_fax_label_gives_the_phone_first() -> None:
    assert read(buyer_phone, EKAP) == "3322211000"


def test_turkish_letterhead_under_its_ministry_and_the_footer_address() -> None:
    page = """\
T.C.
SANAYİ VE TEKNOLOJİ BAKANLIĞI
Bilim ve Teknoloji Genel Müdürlüğü
İzmir Ölçüm Araştırma Enstitüsü Müdürlüğü

2025 YILI LABORATUVAR CİHAZI TEKNİK ŞARTNAMESİ

1- Cihaz en az 20 ölçüm kanalına sahip olacaktır.

Kazımdirik Mah. Üniversite Cad. No:24 35100 Bornova/İZMİR Ayrıntılı bilgi: Satınalma Birimi
Telefon: (0232) 411 2200 Faks: (0232) 411 2299
"""
    assert read(buyer_name, page) == "İzmir Ölçüm Araştırma Enstitüsü Müdürlüğü"
    assert read(buyer_address, page) == "Kazımdirik Mah. Üniversite Cad. No:24 35100 Bornova/İZMİR"
    assert read(buyer_phone, page) == "(0232) 411 2200"


# --- Vietnamese, Thai, Hebrew, Indonesian ----------------------------------------------------------------------

def test_vietnamese_notice_labels() -> None:
    page = ("Bên mời thầu: Ban Quản lý dự án đầu tư xây dựng tỉnh Hà Nam\n"
            "Địa chỉ: Số 12 đường Lê Hoàn, phường Quang Trung, thành phố Phủ Lý\n"
            "Điện thoại: 0226.3852.123\n")
    assert read(buyer_name, page) == "Ban Quản lý dự án đầu tư xây dựng tỉnh Hà Nam"
    assert read(buyer_address, page) == "Số 12 đường Lê Hoàn, phường Quang Trung, thành phố Phủ Lý"


def test_vietnamese_organisation_defined_by_its_acronym() -> None:
    body = " ".join(["VNPT"] * 6)
    page = (f"Tổng công ty Bưu chính Việt Nam (VNC) và Tập đoàn Bưu chính Viễn thông Việt Nam (VNPT) "
            f"phối hợp.\n{body}\n")
    assert read(buyer_name, page) == "Tập đoàn Bưu chính Viễn thông Việt Nam (VNPT)"


def test_vietnamese_address_ending_the_sentence_after_the_buyers_name() -> None:
    body = " ".join(["VNPT"] * 6)
    page = (f"Tập đoàn Bưu chính Viễn thông Việt Nam (VNPT) mời thầu.\n{body}\n"
            "Hồ sơ nộp tại: Tập đoàn Bưu chính Viễn thông Việt Nam, tầng 5, tòa nhà VNPT, 57 Huỳnh Thúc Kháng,\n"
            "Hà Nội.\n")
    assert read(buyer_address, page) == "tầng 5, tòa nhà VNPT, 57 Huỳnh Thúc Kháng, Hà Nội"


def test_thai_notice_labels() -> None:
    page = ("ชื่อหน่วยงาน: กรมชลประทาน\n"
            "ที่อยู่: 811 ถนนสามเสน แขวงถนนนครไชยศรี เขตดุสิต กรุงเทพฯ 10300\n"
            "โทรศัพท์: 0 2241 0020\n")
    assert read(buyer_name, page) == "กรมชลประทาน"
    assert read(buyer_address, page) == "811 ถนนสามเสน แขวงถนนนครไชยศรี เขตดุสิต กรุงเทพฯ 10300"
    assert read(buyer_phone, page) == "0 2241 0020"


def test_hebrew_notice_labels() -> None:
    page = "הגוף המזמין: עיריית נתניה\nכתובת: רחוב הרצל 10, נתניה\nטלפון: 09-8603111\n"
    assert read(buyer_name, page) == "עיריית נתניה"
    assert read(buyer_address, page) == "רחוב הרצל 10, נתניה"
    assert read(buyer_phone, page) == "09-8603111"


def test_indonesian_notice_labels() -> None:
    page = ("Nama Instansi : Pemerintah Kabupaten Sleman\n"
            "Alamat : Jl. Parasamya No. 1, Beran, Tridadi, Sleman 55511\n"
            "Telepon : (0274) 868405\n")
    assert read(buyer_name, page) == "Pemerintah Kabupaten Sleman"
    assert read(buyer_address, page) == "Jl. Parasamya No. 1, Beran, Tridadi, Sleman 55511"
    assert read(buyer_phone, page) == "(0274) 868405"


def test_arabic_form_with_the_label_right_of_its_value() -> None:
    page = ("                       معلومات اتصال ممثل الجهة الحكومية\n\n"
            "                    خالد العتيبي                                        الاسم\n\n"
            "                    0551234567                                          الهاتف\n\n"
            "                    0114440000                                          الفاكس\n\n"
            "                 k.otaibi@ministry.example.sa                          البريد الإلكتروني\n")
    assert read(buyer_phone, page) == "0551234567"


# --- the organisation, not its department (Latin script) ---------------------------------------------------------

def test_letterhead_prefers_the_city_over_its_purchasing_department() -> None:
    page = ("CITY OF MAPLEWOOD\nPURCHASING DEPARTMENT\n250 Main Street, Room 12\nMaplewood, OR 97001\n\n"
            "INVITATION FOR BID NO. 25-014\n")
    assert read(buyer_name, page) == "CITY OF MAPLEWOOD"


@pytest.mark.parametrize(
    ("page", "expected"),
    [
        ("Contracting authority: Ministry of Water, Procurement Unit\n", "Ministry of Water"),
        ("Pouvoir adjudicateur : Direction des achats, Ville de Montbrun\n", "Ville de Montbrun"),
        ("Stazione appaltante: Comune di Valverde - Ufficio Gare\n", "Comune di Valverde"),
    ],
)
def test_a_buyer_label_gives_the_organisation_without_its_office(page: str, expected: str) -> None:
    assert read(buyer_name, page) == expected


def test_a_department_after_a_label_gives_way_to_the_organisations_letterhead() -> None:
    page = "                      COUNTY OF RIVERBEND\n\nIssued by:   Purchasing Department\n\nREQUEST FOR PROPOSALS\n"
    assert read(buyer_name, page) == "COUNTY OF RIVERBEND"
