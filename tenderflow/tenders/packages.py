"""ZIP packages unpacked safely, member by member, before anything of them is stored.

    unpack(zip_path, directory, limits) -> Package    or PackageRejectedError, naming the entry and why

A package comes from a stranger, so it is read as hostile (Python's zipfile documents the traps):

- refused whole (PackageRejectedError), before a byte is unpacked: not a ZIP or a damaged directory;
  more than `max_entries` entries; an encrypted entry; an entry whose path leaves the package (an
  absolute path, a drive, '..', a NUL, a symbolic link); a declared size past `max_total_bytes` in
  all; an entry compressed more than `max_ratio` to one (a zip bomb);
- refused whole while unpacking: an entry that unpacks to more than it declared or than its cap
  (counted as it streams, never trusting the header), a CRC that does not match (corrupt);
- refused whole after: no member tenderflow can read (a package of 0 PDFs);
- each other member is decided on and listed with its outcome: `document` (a PDF, by its %PDF-
  header, unpacked and hashed in one pass), `duplicate` (the same bytes as an earlier member: one
  document), or `refused` with the reason (over the upload limit, not a PDF, a ZIP inside the
  package, a file the packing system added). Folders nest as deep as they like: a member's path
  keeps them. A refused member is never stored nor charged.

Office members: an XLSX is read with openpyxl (already a dependency, for the exports), after its
own ZIP passed the same checks, and its cells' text becomes a text PDF (reportlab) that goes through
the pipeline like any PDF (`converted_from`). A DOCX, an ODT or an old binary Office file is refused
with the reason: no reader for it is among tenderflow's dependencies (python-docx brings lxml, a
large native library; odfpy is unmaintained); saving it as PDF is the way in.
"""

from __future__ import annotations

import hashlib
import stat
import threading
import zipfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Final, Literal

from tenderflow.config import Settings
from tenderflow.errors import PackageRejectedError

ZIP_MAGIC: Final = b"PK\x03\x04"
EMPTY_ZIP_MAGIC: Final = b"PK\x05\x06"
PDF_MAGIC: Final = b"%PDF-"
_CHUNK = 1024 * 1024
_SMALL_ENTRY = 1024 * 1024
"""Entries that unpack to less than this are never called a bomb, whatever their ratio (a page of
blank space compresses a thousand to one)."""
_SYSTEM_FILES = (".ds_store", "thumbs.db", "desktop.ini")
_OFFICE_REFUSED = {
    ".docx": "a Word document (DOCX) is not read: no DOCX reader is among tenderflow's dependencies; save it as "
             "PDF and add that",
    ".doc": "an old Word document (DOC) is not read; save it as PDF and add that",
    ".odt": "an OpenDocument text (ODT) is not read: no ODF reader is among tenderflow's dependencies; save it as "
            "PDF and add that",
    ".ods": "an OpenDocument spreadsheet (ODS) is not read; save it as XLSX or PDF and add that",
    ".xls": "an old Excel workbook (XLS) is not read; save it as XLSX or PDF and add that",
    ".rtf": "an RTF document is not read; save it as PDF and add that",
}
MAX_OFFICE_TEXT_CHARS: Final = 400_000
"""Text read from one spreadsheet at most (about 150 pages of the text PDF)."""


@dataclass(frozen=True)
class PackageLimits:
    """What a package may hold (settings: TENDERFLOW_PACKAGE_*; an entry's own cap is the upload limit)."""

    max_entries: int = 1000
    max_entry_bytes: int = 100 * 1024 * 1024
    max_total_bytes: int = 2 * 1024 * 1024 * 1024
    max_ratio: float = 100.0

    @classmethod
    def from_settings(cls, settings: Settings) -> PackageLimits:
        return cls(max_entries=settings.package_max_entries, max_entry_bytes=settings.max_upload_bytes,
                   max_total_bytes=settings.package_max_unpacked_bytes, max_ratio=settings.package_max_ratio)


DEFAULT_PACKAGE_LIMITS: Final = PackageLimits()

MemberStatus = Literal["document", "duplicate", "refused"]


@dataclass(frozen=True)
class PackageMember:
    """One entry of the package and what became of it."""

    path: str
    status: MemberStatus
    size: int = 0
    reason: str | None = None
    file: Path | None = None
    """The PDF unpacked (or made from a spreadsheet's text), for a `document`."""
    sha256: str | None = None
    converted_from: str | None = None
    """'xlsx' for a spreadsheet whose text became the PDF."""
    duplicate_of: str | None = None


@dataclass
class Package:
    """What `unpack` made of a ZIP: every entry that is a file, in the package's order."""

    members: list[PackageMember] = field(default_factory=list)

    @property
    def documents(self) -> list[PackageMember]:
        return [member for member in self.members if member.status == "document"]


def is_zip(path: Path) -> bool:
    """Whether the file starts like a ZIP (or is an empty one)."""
    with path.open("rb") as handle:
        head = handle.read(4)
    return head in (ZIP_MAGIC, EMPTY_ZIP_MAGIC)


def safe_member_path(name: str) -> str:
    """The entry's path inside the package ('folder/notice.pdf'). Raises PackageRejectedError for one
    that would leave it: absolute, a drive ('C:'), a '..' step, a NUL or another control character."""
    if any(ord(character) < 0x20 or ord(character) == 0x7F for character in name):
        raise PackageRejectedError(f"the package's entry {name!r} has a control character in its path")
    posix = name.replace("\\", "/")
    path = PurePosixPath(posix)
    if posix.startswith("/") or (len(posix) > 1 and posix[1] == ":") or ".." in path.parts:
        raise PackageRejectedError(f"the package's entry {name!r} has a path that leaves the package; refused whole")
    return "/".join(part for part in path.parts if part not in ("", "."))


def _check_directory(archive: zipfile.ZipFile, limits: PackageLimits, *, what: str) -> list[zipfile.ZipInfo]:
    """The entries that are files, after the checks made before anything is unpacked."""
    infos = archive.infolist()
    if len(infos) > limits.max_entries:
        raise PackageRejectedError(f"{what} has {len(infos):,} entries; at most {limits.max_entries:,} are taken")
    declared = 0
    files = []
    for info in infos:
        safe_member_path(info.filename)
        if info.flag_bits & 0x1:
            raise PackageRejectedError(
                f"{what} is encrypted ({info.filename!r} needs a password): send it without one")
        mode = info.external_attr >> 16
        if stat.S_ISLNK(mode):
            raise PackageRejectedError(f"{what}'s entry {info.filename!r} is a symbolic link; refused whole")
        if info.is_dir():
            continue
        declared += info.file_size
        if declared > limits.max_total_bytes:
            raise PackageRejectedError(
                f"{what} unpacks to more than {limits.max_total_bytes:,} bytes (TENDERFLOW_PACKAGE_MAX_UNPACKED_BYTES)")
        if info.file_size > _SMALL_ENTRY and info.file_size > limits.max_ratio * max(info.compress_size, 1):
            raise PackageRejectedError(
                f"{what}'s entry {info.filename!r} is compressed {info.file_size / max(info.compress_size, 1):,.0f} "
                f"to one (more than {limits.max_ratio:g}): a zip bomb is refused whole")
        files.append(info)
    return files


def _open_archive(path: Path, *, what: str) -> zipfile.ZipFile:
    try:
        return zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
        raise PackageRejectedError(f"{what} is not a ZIP file, or its directory is damaged: {exc}") from exc


def _stream(archive: zipfile.ZipFile, info: zipfile.ZipInfo, cap: int, *, what: str) -> Iterator[bytes]:
    """The entry's bytes as they unpack, refused as soon as they pass what it declared or `cap`."""
    unpacked = 0
    try:
        with archive.open(info) as source:
            while chunk := source.read(_CHUNK):
                unpacked += len(chunk)
                if unpacked > info.file_size or unpacked > cap:
                    raise PackageRejectedError(
                        f"{what}'s entry {info.filename!r} unpacks to more than it declares or may; refused whole")
                yield chunk
    except (zipfile.BadZipFile, EOFError, OSError, NotImplementedError, RuntimeError) as exc:
        raise PackageRejectedError(f"{what}'s entry {info.filename!r} cannot be unpacked (corrupt?): {exc}") from exc


def _refusal(member_path: str, info: zipfile.ZipInfo, limits: PackageLimits) -> str | None:
    """Why an entry is refused before it is read, or None."""
    name = member_path.rsplit("/", 1)[-1].casefold()
    if member_path.casefold().startswith("__macosx/") or name in _SYSTEM_FILES or name.startswith("._"):
        return "a file the packing system added, not a document"
    if info.file_size == 0:
        return "empty"
    if info.file_size > limits.max_entry_bytes:
        return (f"{info.file_size:,} bytes is over the upload limit of {limits.max_entry_bytes:,} bytes "
                "(TENDERFLOW_MAX_UPLOAD_BYTES)")
    suffix = PurePosixPath(name).suffix
    if suffix in _OFFICE_REFUSED:
        return _OFFICE_REFUSED[suffix]
    return None


UNPACK_THREADS: Final = 4
"""Members unpacked at once: zlib's inflate and SHA-256 release the GIL, so a package of scans is
read on every core."""


@dataclass(frozen=True)
class _Unpacked:
    target: Path
    head: bytes
    sha256: str


def unpack(zip_path: Path, directory: Path, limits: PackageLimits = DEFAULT_PACKAGE_LIMITS) -> Package:
    """Unpack the package's members into `directory` (which the caller removes), deciding on each.
    Raises PackageRejectedError for a package refused whole (see the module's docstring)."""
    what = f"the package {zip_path.name!r}"
    package = Package()
    seen: dict[str, str] = {}
    with _open_archive(zip_path, what=what) as archive:
        infos = _check_directory(archive, limits, what=what)
    decided: list[tuple[int, zipfile.ZipInfo, str, str | None]] = []
    for index, info in enumerate(infos):
        member_path = safe_member_path(info.filename)
        decided.append((index, info, member_path, _refusal(member_path, info, limits)))
    readers = threading.local()
    opened: list[zipfile.ZipFile] = []

    def read(item: tuple[int, zipfile.ZipInfo, str, str | None]) -> _Unpacked:
        index, info, member_path, _ = item
        archive = getattr(readers, "archive", None)
        if archive is None:  # a ZipFile reads with one file position: one per thread
            archive = readers.archive = _open_archive(zip_path, what=what)
            opened.append(archive)
        # The member's own suffix (letters and digits only): openpyxl goes by it.
        suffix = "".join(c for c in PurePosixPath(member_path).suffix.casefold() if c.isalnum())[:5]
        target = directory / f"{index:05d}.{suffix or 'member'}"
        digest = hashlib.sha256()
        head = b""
        with target.open("wb") as sink:
            for chunk in _stream(archive, info, limits.max_entry_bytes, what=what):
                if len(head) < 8:
                    head += chunk[:8]
                digest.update(chunk)
                sink.write(chunk)
        return _Unpacked(target, head, digest.hexdigest())

    try:
        with ThreadPoolExecutor(max_workers=UNPACK_THREADS, thread_name_prefix="unpack") as pool:
            unpacked = dict(zip((item[0] for item in decided if item[3] is None),
                                pool.map(read, [item for item in decided if item[3] is None]), strict=True))
    finally:
        for archive in opened:
            archive.close()
    for index, info, member_path, reason in decided:
        if reason is not None:
            package.members.append(PackageMember(member_path, "refused", info.file_size, reason))
            continue
        member = unpacked[index]
        package.members.append(_decide(member_path, info, member.target, member.head, member.sha256, seen, limits,
                                       directory / f"{index:05d}.pdf"))
    if not package.documents:
        refused = "; ".join(f"{m.path}: {m.reason}" for m in package.members[:5] if m.reason)
        raise PackageRejectedError(f"{what} holds no PDF tenderflow can read" + (f" ({refused})" if refused else ""))
    return package


def _decide(
    member_path: str, info: zipfile.ZipInfo, unpacked: Path, head: bytes, sha256: str, seen: dict[str, str],
    limits: PackageLimits, converted: Path,
) -> PackageMember:
    suffix = PurePosixPath(member_path.casefold()).suffix
    if head.startswith(PDF_MAGIC):
        return _document(member_path, unpacked, sha256, info.file_size, seen)
    if head.startswith((ZIP_MAGIC, EMPTY_ZIP_MAGIC)) and suffix == ".xlsx":
        try:
            text = spreadsheet_text(unpacked, limits)
        except PackageRejectedError as exc:
            return PackageMember(member_path, "refused", info.file_size, str(exc))
        if not text.strip():
            return PackageMember(member_path, "refused", info.file_size, "a spreadsheet with no text in it")
        text_pdf(converted, member_path, text)
        digest = hashlib.sha256(converted.read_bytes()).hexdigest()
        return _document(member_path, converted, digest, converted.stat().st_size, seen, converted_from="xlsx")
    if head.startswith((ZIP_MAGIC, EMPTY_ZIP_MAGIC)):
        return PackageMember(member_path, "refused", info.file_size,
                             "a ZIP inside the package is not unpacked: add its files, or upload it as a package")
    return PackageMember(member_path, "refused", info.file_size,
                         f"not a PDF (no %PDF- header{', a ' + suffix + ' file' if suffix else ''})")


def _document(member_path: str, file: Path, sha256: str, size: int, seen: dict[str, str], *,
              converted_from: str | None = None) -> PackageMember:
    if sha256 in seen:
        return PackageMember(member_path, "duplicate", size, f"the same bytes as {seen[sha256]}", sha256=sha256,
                             duplicate_of=seen[sha256])
    seen[sha256] = member_path
    return PackageMember(member_path, "document", size, file=file, sha256=sha256, converted_from=converted_from)


# --- spreadsheets ---------------------------------------------------------------------------------


def spreadsheet_text(path: Path, limits: PackageLimits) -> str:
    """The text of an XLSX's cells, sheet by sheet, a row a line (cells joined by ' | '), at most
    MAX_OFFICE_TEXT_CHARS. Its own ZIP passes the package's checks first (a bomb inside a member is
    one too). Raises PackageRejectedError naming why it cannot be read."""
    with _open_archive(path, what="the spreadsheet") as archive:
        _check_directory(archive, limits, what="the spreadsheet")
    from openpyxl import load_workbook

    lines: list[str] = []
    size = 0
    try:
        workbook = load_workbook(path, read_only=True, data_only=True)
    except Exception as exc:  # openpyxl raises what its parsers raise: every failure is "cannot be read"
        raise PackageRejectedError(f"the spreadsheet cannot be read: {type(exc).__name__}: {exc}") from exc
    try:
        for sheet in workbook.worksheets:
            lines.append(f"== {sheet.title} ==")
            for row in sheet.iter_rows(values_only=True):
                cells = [str(value).strip() for value in row if value is not None and str(value).strip()]
                if not cells:
                    continue
                line = " | ".join(cells)
                size += len(line) + 1
                if size > MAX_OFFICE_TEXT_CHARS:
                    lines.append("[… the rest of the spreadsheet is not read]")
                    return "\n".join(lines)
                lines.append(line)
    except Exception as exc:  # a damaged sheet part: refused, with the reason
        raise PackageRejectedError(f"the spreadsheet cannot be read: {type(exc).__name__}: {exc}") from exc
    finally:
        workbook.close()
    return "\n".join(lines)


_FONT_DIRECTORIES = (Path("/usr/share/fonts/truetype/dejavu"), Path("/usr/share/fonts/dejavu"))


def _font() -> str:
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont

    if "PackageText" in pdfmetrics.getRegisteredFontNames():
        return "PackageText"
    for directory in _FONT_DIRECTORIES:
        regular = directory / "DejaVuSans.ttf"
        if regular.is_file():
            pdfmetrics.registerFont(TTFont("PackageText", str(regular)))
            return "PackageText"
    return "Helvetica"  # Latin-1 only: other scripts print as boxes, and their text layer is lost


def text_pdf(target: Path, title: str, text: str) -> None:
    """A born-digital PDF of `text` (A4, lines wrapped at 110 characters), headed by `title`."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    font = _font()
    pdf = canvas.Canvas(str(target), pagesize=A4, invariant=True)  # invariant: the same text, the same bytes
    width, height = A4
    lines = [f"{title} (the text of a spreadsheet)", ""]
    for line in text.splitlines():
        lines += [line[start:start + 110] for start in range(0, max(len(line), 1), 110)]
    y = height - 50
    for line in lines:
        if y < 50:
            pdf.showPage()
            y = height - 50
        pdf.setFont(font, 9)
        pdf.drawString(40, y, line)
        y -= 12
    pdf.save()

