"""Sample tender packages: a contract notice, addenda that move its submission deadline, and an annex,
in a ZIP with folders, as buyers publish them.

    package = generate_package(Path("out"), addenda=2)
    package.path              out/KCC-RD-2025-014.zip
    package.deadlines         the notice's deadline, then each addendum's (a week later each)
    package.expected_history  ['submission deadline moved from 2025-03-14 12:00 to 2025-03-21 12:00 by
                               addendum 1, page 1', …]

The notice is the roadworks sample (born-digital eForms notice, reference KCC-RD-2025-014, deadline
14 March 2025 12:00); addendum N, issued a few days apart, extends the deadline by `days_each` days
more than the one before; the annex is the pricing schedule as an XLSX workbook. What a merge of the
package must show is in `expected_history` and `final_deadline`.
"""

from __future__ import annotations

import random
import zipfile
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from tenderflow.samples import layouts
from tenderflow.samples.notices import ROADWORKS_EN, TenderFacts
from tenderflow.samples.specification import pricing_schedule_rows


@dataclass(frozen=True)
class SamplePackage:
    """A generated package: the ZIP, the files in it (by their path inside it) and what it says."""

    path: Path
    members: dict[str, Path]
    reference: str
    deadlines: tuple[datetime, ...]
    """The notice's submission deadline, then the one each addendum sets."""

    @property
    def final_deadline(self) -> str:
        """The deadline the last addendum set, as a merged tender carries it (ISO 8601, local)."""
        return self.deadlines[-1].isoformat(timespec="minutes")

    @property
    def expected_history(self) -> list[str]:
        """The change history a merge of the package writes for the submission deadline."""
        return [f"submission deadline moved from {old:%Y-%m-%d %H:%M} to {new:%Y-%m-%d %H:%M} by addendum {n}, page 1"
                for n, (old, new) in enumerate(zip(self.deadlines, self.deadlines[1:], strict=False), start=1)]


def generate_package(
    out_dir: Path, *, facts: TenderFacts = ROADWORKS_EN, addenda: int = 2, days_each: int = 7, annex: bool = True,
    seed: int = 7,
) -> SamplePackage:
    """Write the package's files under `out_dir` and its ZIP beside them; returns what it holds."""
    out_dir.mkdir(parents=True, exist_ok=True)
    folder = facts.reference_number
    rng = random.Random(f"{seed}/package/{folder}")  # noqa: S311 - sample layout, not a secret
    members: dict[str, Path] = {}
    notice = out_dir / "01-contract-notice.pdf"
    layouts.render_eforms_notice(facts, notice, rng)
    members[f"{folder}/01-contract-notice.pdf"] = notice
    deadlines = [facts.deadline]
    for number in range(1, addenda + 1):
        new_deadline = facts.deadline + timedelta(days=days_each * number)
        addendum = out_dir / f"addendum-{number:02d}.pdf"
        layouts.render_addendum(facts, addendum, number=number, issued=facts.published + timedelta(days=10 * number),
                                old_deadline=deadlines[-1], new_deadline=new_deadline)
        members[f"{folder}/addenda/addendum-{number:02d}.pdf"] = addendum
        deadlines.append(new_deadline)
    if annex:
        workbook_path = out_dir / "annex-a-price-schedule.xlsx"
        _price_schedule(workbook_path)
        members[f"{folder}/annexes/annex-a-price-schedule.xlsx"] = workbook_path
    path = out_dir / f"{folder}.zip"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, file in members.items():
            archive.write(file, name)
    return SamplePackage(path, members, facts.reference_number, tuple(deadlines))


def _price_schedule(path: Path) -> None:
    from openpyxl import Workbook

    workbook = Workbook()
    sheet = workbook.active
    assert sheet is not None
    sheet.title = "Annex A - prices"
    for row in pricing_schedule_rows():
        sheet.append(list(row))
    workbook.properties.created = workbook.properties.modified = datetime(2025, 2, 3)  # the same bytes each time
    workbook.save(path)
