"""The language identifier (py3langid), one per process: OCR's language detection
(`pdf.languages`) and the extractor's country clues (`extraction.country`) read the same one, so a
worker decodes its model once, not once for each."""

from __future__ import annotations

import tempfile
import threading
from pathlib import Path
from typing import Any

_identifier_lock = threading.Lock()


class _Loaded:
    """The identifier, built once per process (under `_identifier_lock`)."""

    identifier: Any = None


MODEL_CACHE_PREFIX = "langid-"


def _identifier(cache_dir: Path | None = None) -> Any:
    """The identifier (hold `_identifier_lock`); see `load`. py3langid ships its model LZMA-compressed: decoding
    it takes ~0.5 s of CPU, most of a worker's start. With `cache_dir`, the decoded model is kept
    there (named by the shipped model's hash, so an upgraded package gets its own), written once per
    machine, and each process after that reads it in a tenth of the time; a damaged or unwritable
    copy only means decoding the shipped model as before."""
    if _Loaded.identifier is None:
        from py3langid.langid import MODEL_DIR, MODEL_FILE, LanguageIdentifier  # type: ignore[import-untyped]

        identifier = _identifier_from_cache(Path(MODEL_DIR) / MODEL_FILE, cache_dir) if cache_dir else None
        _Loaded.identifier = identifier or LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    return _Loaded.identifier


def _identifier_from_cache(shipped: Path, cache_dir: Path) -> Any:
    import hashlib
    import lzma
    import os
    import shutil
    import zipfile
    from array import array

    import numpy as np
    from py3langid.langid import LanguageIdentifier

    def as_array(values: Any) -> array[int]:  # the identifier walks these in Python: stdlib arrays
        typecode = {2: "H", 4: "I", 8: "Q"}[values.dtype.itemsize]
        converted = array(typecode)
        converted.frombytes(np.ascontiguousarray(values).tobytes())
        return converted

    partial: Path | None = None
    cached: Path | None = None
    try:
        cached = cache_dir / f"{MODEL_CACHE_PREFIX}{hashlib.sha256(shipped.read_bytes()).hexdigest()[:16]}.npz"
        if not cached.exists():
            cache_dir.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile(dir=cache_dir, prefix=".langid-", suffix=".npz", delete=False) as out:
                partial = Path(out.name)
                with lzma.open(shipped) as source:
                    shutil.copyfileobj(source, out, length=1 << 20)
            os.replace(partial, cached)  # whole or not at all: processes may write it at once
            partial = None
        with np.load(cached, allow_pickle=False) as model:  # arrays only: nothing in it can run
            return LanguageIdentifier(
                np.asarray(model["ptc"]), np.asarray(model["pc"]), model["classes"].tolist(),
                as_array(model["nextmove"]), model["out_feat"].tolist(), norm_probs=True,
                tk_row=as_array(model["nextmove_row"]))
    except (OSError, ValueError, KeyError, EOFError, lzma.LZMAError, zipfile.BadZipFile):
        if cached is not None and partial is None:
            cached.unlink(missing_ok=True)  # damaged: the next process writes it again
        return None
    finally:
        if partial is not None:
            partial.unlink(missing_ok=True)


def load(cache_dir: Path | None = None) -> None:
    """Load the identifier now, once per process, from the decoded copy in `cache_dir` when given
    (see `_identifier`): a worker's warm-up."""
    with _identifier_lock:
        _identifier(cache_dir)


def classify(text: str) -> tuple[str, float]:
    """(ISO 639-1 label, probability) of the language of `text` (probabilities normalised)."""
    with _identifier_lock:  # loads the model once; classify itself only reads it
        identifier = _identifier()
    label, probability = identifier.classify(text)
    return str(label), float(probability)
