"""The pipeline's stages as a remote worker sees them: no database, no storage.

    results.py    what each stage's compute returns, as pydantic models (JSON only on the wire)
"""
