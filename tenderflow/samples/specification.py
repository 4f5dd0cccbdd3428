"""The English specification text of the long sample tender: sections whose sentences a seed picks.

A real invitation to tender is mostly specification: scope, service levels, compliance, reporting.
This bank is enough to fill about one page per section with plausible, non-repeating clauses, so
the long sample has realistic text on every page for OCR and page batching.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

_SENTENCES_PER_PARAGRAPH = 4
_PARAGRAPHS_PER_SECTION = 5

# Clauses that fit in any section; each section mixes a few of them with its own.
_GENERAL_CLAUSES = (
    "The contractor shall comply with all applicable legislation, regulations and codes of practice "
    "in force during the term of the contract.",
    "Any deviation from this specification must be agreed in writing with the contract manager before "
    "the work concerned is carried out.",
    "The council reserves the right to vary the quantities stated in this document by up to twenty "
    "per cent without any change to the tendered rates.",
    "All records required by this specification shall be kept for a minimum of six years after the "
    "end of the contract and made available for audit on request.",
    "Where this specification refers to a named standard, an equivalent standard demonstrated by the "
    "tenderer to be at least as demanding will be accepted.",
    "The contractor shall nominate a single point of contact who is available during normal working "
    "hours and has authority to take operational decisions.",
    "Information provided by the council in connection with the contract remains confidential and "
    "shall be used only for the purposes of the contract.",
    "The contractor shall cooperate with other contractors engaged by the council and coordinate "
    "access to shared areas through the site manager.",
    "Failure to meet the requirements of this section may lead to service credits in accordance with "
    "the performance management framework.",
    "Tenderers shall describe in their method statement how each requirement of this section will be "
    "met, referring to the relevant award criterion.",
)


@dataclass(frozen=True)
class SpecificationSection:
    heading: str
    clauses: tuple[str, ...]
    table: tuple[tuple[str, ...], ...] = ()

    def paragraphs(self, rng: random.Random) -> list[str]:
        """About a page of numbered-clause paragraphs: this section's clauses first, then general ones."""
        own = rng.sample(self.clauses, k=len(self.clauses))
        wanted = _SENTENCES_PER_PARAGRAPH * _PARAGRAPHS_PER_SECTION - len(own)
        general = rng.sample(_GENERAL_CLAUSES, k=max(0, min(wanted, len(_GENERAL_CLAUSES))))
        sentences = own + general
        rng.shuffle(sentences)
        return [
            " ".join(sentences[start : start + _SENTENCES_PER_PARAGRAPH])
            for start in range(0, len(sentences), _SENTENCES_PER_PARAGRAPH)
        ]


SPECIFICATION_SECTIONS = (
    SpecificationSection(
        "Introduction and background",
        (
            "The council owns and operates 164 buildings, including offices, libraries, leisure centres, "
            "depots, community halls and residential care homes.",
            "The current maintenance arrangements expire on 31 March 2026 and are delivered under four "
            "separate contracts that the council intends to consolidate.",
            "The purpose of this procurement is to appoint a single contractor able to deliver a "
            "consistent, compliant and responsive service across the whole estate.",
            "The estate ranges from Victorian civic buildings to modern steel-framed structures "
            "completed within the last ten years.",
            "Several buildings are listed or lie within conservation areas, which places additional "
            "requirements on materials and working methods.",
            "The council has declared a climate emergency and expects the contract to contribute "
            "measurably to its carbon reduction targets.",
            "An asset register listing each building, its floor area and its principal installations is "
            "provided as part of the procurement documents.",
            "Tenderers are encouraged to visit a representative sample of buildings during the site "
            "visit days announced on the e-tendering portal.",
            "The contract will be awarded as a framework agreement with a single supplier, under which "
            "call-off orders are placed for work outside the core scope.",
            "Nothing in this specification obliges the council to place any minimum volume of "
            "call-off orders during the term of the framework agreement.",
            "The successful tenderer will take over responsibility for all installations on the "
            "commencement date following a mobilisation period of three months.",
            "Historic maintenance records will be transferred to the contractor in electronic form "
            "during the mobilisation period.",
        ),
    ),
    SpecificationSection(
        "Scope of the services",
        (
            "The services comprise planned preventive maintenance, reactive repairs, statutory testing "
            "and minor works with a value of up to 25,000 pounds per order.",
            "Mechanical installations within scope include boilers, heat pumps, air handling units, "
            "pumps, water tanks and building management systems.",
            "Electrical installations within scope include distribution boards, emergency lighting, "
            "fire alarm systems, lightning protection and electric vehicle charging points.",
            "Building fabric works within scope include roofs, gutters, doors, windows, internal "
            "finishes and external hard landscaping.",
            "Lifts, escalators and specialist kitchen equipment are excluded from the scope and remain "
            "with the manufacturers' service contracts.",
            "The contractor shall provide all labour, supervision, tools, plant, vehicles and materials "
            "needed to deliver the services.",
            "Access equipment such as scaffolding and mobile elevating work platforms is included in "
            "the tendered rates unless stated otherwise.",
            "Works to asbestos-containing materials shall only be undertaken by licensed specialists "
            "approved in advance by the council.",
            "The contractor shall maintain a stock of common spare parts sufficient to complete most "
            "repairs at the first visit.",
            "Out-of-hours services shall be available every day of the year, including public holidays, "
            "for emergencies affecting safety or security.",
            "The council may add or remove buildings from the scope by giving three months' written "
            "notice to the contractor.",
            "Minor works orders shall be priced using the schedule of rates, with any non-scheduled item "
            "quoted in advance for approval.",
        ),
    ),
    SpecificationSection(
        "Planned preventive maintenance",
        (
            "Planned maintenance shall follow the SFG20 standard maintenance specification at the "
            "frequencies set out in the asset register.",
            "The contractor shall submit an annual maintenance programme for approval no later than "
            "six weeks before the start of each contract year.",
            "Planned visits to schools and care homes shall be scheduled in agreement with the building "
            "manager to avoid disruption to occupants.",
            "Each planned task shall be recorded in the computer-aided facilities management system "
            "with the date, the technician and the readings taken.",
            "Defects found during planned maintenance shall be reported within 24 hours with a "
            "recommended remedy and an estimated cost.",
            "Consumables such as filters, belts and lamps replaced during planned maintenance are "
            "included in the tendered price.",
            "The contractor shall update the asset register whenever an installation is replaced, added or removed.",
            "Completion of the planned programme shall be reported monthly as a percentage of tasks due in the period.",
            "Heating plant shall be serviced before the start of each heating season, no later than 30 September.",
            "Water hygiene tasks, including temperature monitoring and flushing of little-used outlets, "
            "shall follow the approved written scheme for each building.",
        ),
    ),
    SpecificationSection(
        "Reactive maintenance and response times",
        (
            "Requests for reactive repairs will be raised through the council's help desk and passed "
            "to the contractor electronically.",
            "The contractor shall acknowledge each request within 15 minutes during working hours and "
            "within 30 minutes outside them.",
            "Response and completion times shall be measured from the time the request is issued by the help desk.",
            "Where a permanent repair cannot be completed at the first visit, the contractor shall make "
            "the installation safe and agree a completion date.",
            "The priority of each request is set by the help desk and may only be changed with the "
            "agreement of the contract manager.",
            "Photographs of the defect before and after the repair shall be attached to the job record "
            "in the facilities management system.",
            "Repeated failures of the same installation within 30 days will be investigated at the contractor's cost.",
            "Response times shall be met for at least 95 per cent of requests in each priority in every month.",
        ),
        table=(
            ("Priority", "Attendance", "Make safe", "Complete"),
            ("P1 Emergency", "2 hours", "4 hours", "24 hours"),
            ("P2 Urgent", "4 hours", "24 hours", "5 working days"),
            ("P3 Routine", "5 working days", "n/a", "20 working days"),
            ("P4 Planned", "by agreement", "n/a", "by agreement"),
        ),
    ),
    SpecificationSection(
        "Statutory compliance and testing",
        (
            "The contractor is responsible for all statutory inspections and tests of the installations "
            "within scope, at the frequencies required by law.",
            "Fixed electrical installations shall be inspected and tested every five years, or more "
            "often where the previous report requires it.",
            "Fire alarm systems shall be tested weekly by the building manager and serviced every six "
            "months by the contractor.",
            "Emergency lighting shall receive a full-duration test once a year, with results recorded "
            "against each luminaire.",
            "Gas installations shall be inspected annually by engineers registered with the relevant "
            "competent person scheme.",
            "Certificates shall be uploaded to the compliance register within five working days of each "
            "inspection or test.",
            "Any condition classified as dangerous shall be reported to the contract manager by telephone "
            "immediately and confirmed in writing.",
            "The compliance register shall show, for each building, the status of every statutory "
            "obligation at any time.",
            "The contractor shall attend quarterly compliance reviews and present the status of remedial actions.",
            "Pressure systems shall be examined in accordance with the written scheme of examination "
            "prepared by a competent person.",
        ),
    ),
    SpecificationSection(
        "Health, safety and environment",
        (
            "The contractor shall hold a certified occupational health and safety management system "
            "for the duration of the contract.",
            "Risk assessments and method statements shall be prepared for every task and made available "
            "on site before work begins.",
            "All operatives working in schools and care homes shall hold an enhanced criminal record "
            "check renewed every three years.",
            "Hot works shall only be carried out under a permit issued by the building manager.",
            "Waste shall be segregated at source and at least 85 per cent diverted from landfill, "
            "measured by weight each quarter.",
            "Replacement equipment shall be selected on whole-life cost and energy efficiency, with the "
            "most efficient option proposed by default.",
            "Refrigerant gases shall be handled only by certified technicians and every recovery recorded.",
            "The contractor's vehicle fleet serving the contract shall be fully electric or hybrid by "
            "the end of the second contract year.",
            "Accidents, incidents and near misses on council premises shall be reported within 24 hours.",
            "The contractor shall carry out a documented site induction for every operative before "
            "first attendance at a building.",
        ),
    ),
    SpecificationSection(
        "Staffing, subcontracting and social value",
        (
            "The contractor shall employ sufficient qualified staff to deliver the services, including "
            "cover for holidays and sickness.",
            "Operatives shall wear a uniform and carry identification showing their name, photograph and employer.",
            "Subcontracting of any part of the services requires the prior written approval of the council.",
            "The contractor shall pay all staff working on the contract at least the real living wage.",
            "At least four apprenticeships shall be created and maintained during the term of the contract.",
            "The contractor shall advertise vacancies on the contract through the council's local employment service.",
            "Subcontractors shall be paid within 30 days of receipt of a valid invoice, and this term "
            "shall flow down the supply chain.",
            "Social value commitments made in the tender become contractual obligations and are reported quarterly.",
            "Staff transferring from incumbent contractors shall be treated in accordance with the "
            "applicable transfer of employment regulations.",
            "Training records for every operative shall be kept up to date and available for inspection.",
        ),
    ),
    SpecificationSection(
        "Performance management and reporting",
        (
            "Performance will be measured against eight key performance indicators set out in the "
            "performance management framework.",
            "The contractor shall submit a monthly report covering performance, compliance, health and "
            "safety, and financial information.",
            "Monthly performance meetings shall be held between the contract manager and the "
            "contractor's account manager.",
            "Service credits apply when a key performance indicator falls below its minimum level in any month.",
            "Persistent underperformance over three consecutive months entitles the council to require "
            "a performance improvement plan.",
            "Customer satisfaction shall be surveyed twice a year among building managers, with a target "
            "score of at least four out of five.",
            "All performance data shall be derived from the facilities management system and not from manual records.",
            "The council may audit the contractor's performance data at any time on reasonable notice.",
            "An annual review shall consider the scope, the performance framework and opportunities for "
            "continuous improvement.",
            "The contractor shall propose at least two cost or carbon saving initiatives each contract year.",
        ),
    ),
    SpecificationSection(
        "Contract management, payment and exit",
        (
            "Planned maintenance is paid monthly in arrears as one twelfth of the annual price for the "
            "buildings in scope.",
            "Reactive repairs and minor works are paid on completion, at the schedule of rates, after "
            "verification by the contract manager.",
            "Invoices shall be submitted electronically and quote the purchase order number of the work concerned.",
            "Rates are fixed for the first two years and may then be adjusted annually by reference to "
            "a published price index.",
            "The contractor shall maintain professional indemnity, public liability and employer's "
            "liability insurance at the levels stated in the contract.",
            "On expiry or termination, the contractor shall cooperate fully in the transfer of the "
            "services to the council or a successor contractor.",
            "An exit plan shall be submitted within six months of the commencement date and updated annually.",
            "All data held in the facilities management system belongs to the council and shall be "
            "returned in an open format on exit.",
            "Disputes shall first be escalated through the contract management structure before any "
            "formal dispute resolution procedure.",
            "The council may terminate the contract for convenience by giving six months' written notice.",
        ),
    ),
)


def pricing_schedule_rows() -> tuple[tuple[str, ...], ...]:
    """Annex A: header plus items; rate and total columns are blank for the tenderer to fill in."""
    items = (
        ("Planned maintenance, offices and civic buildings", "building", "38"),
        ("Planned maintenance, schools", "building", "47"),
        ("Planned maintenance, leisure centres", "building", "9"),
        ("Planned maintenance, residential care homes", "building", "12"),
        ("Planned maintenance, depots and community halls", "building", "58"),
        ("Fixed electrical testing", "circuit", "21,400"),
        ("Emergency lighting annual test", "luminaire", "6,850"),
        ("Fire alarm six-monthly service", "system", "164"),
        ("Gas safety inspection", "appliance", "410"),
        ("Reactive repairs, labour (normal hours)", "hour", "18,000"),
        ("Reactive repairs, labour (out of hours)", "hour", "2,400"),
        ("Materials handling uplift on cost", "percent", "n/a"),
    )
    header = ("Item", "Description", "Unit", "Est. quantity", "Unit rate", "Annual total")
    return (header, *((f"A.{number}", *item, "", "") for number, item in enumerate(items, start=1)))
