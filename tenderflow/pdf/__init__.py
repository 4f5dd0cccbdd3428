"""The pure compute of OCR: PDF in, page text out; no database, no storage.

    probe.py      is it a PDF we can and may process (pdfinfo; caps checked before any rendering)
    textlayer.py  the PDF's own text per page (pdftotext) and whether it is real text or garbage
    ocr.py        read_pages: the text layer where usable, else render (pdftoppm) + OCR (tesseract)
    tools.py      running those programs on hostile input: group kill, memory limit, timeouts;
                  and whole OCR batches the same way (call_sandboxed)
    sandbox.py    the single-threaded helper process that starts every run with its limits
    launcher.py   the worker's side of it: start the helper, hand it runs, wait for their ends
    cache.py      local copies of stored PDFs (the fetch is the caller's), checked against their
                  key's SHA-256, shared by a machine's worker processes
"""
