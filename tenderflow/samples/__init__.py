"""Realistic sample tender notices (born-digital and scanned PDFs) with their answer keys.

    from tenderflow.samples import generate_samples
    for sample in generate_samples(Path("samples")):
        print(sample.path, sample.kind, sample.expected["reference_number"])

Used by the demo and by tests; see `catalogue` for the list of samples.
"""

from tenderflow.samples.catalogue import SampleKind, SampleTender, generate_samples
from tenderflow.samples.notices import EXPECTED_FIELDS

__all__ = ["EXPECTED_FIELDS", "SampleKind", "SampleTender", "generate_samples"]
