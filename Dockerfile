# tenderflow: one image for every role (API, workers, migrations); the compose file picks the command.
FROM python:3.11-slim-bookworm

# OCR and PDF tools, from Debian: tesseract with the language packs a tender pipeline reads (the Makefile's
# OCR_LANGUAGES, tenderflow.pdf.languages.RECOMMENDED_PACKS: EU/EEA, Arabic, Indic, Cyrillic, CJK with
# vertical models, Vietnamese, Thai, Indonesian/Malay, Turkish, Hebrew; about 65 MB) and orientation/script
# data (osd), poppler with its CJK encodings and a CJK font (non-embedded Asian fonts read and render).
RUN apt-get update \
 && apt-get install -y --no-install-recommends tesseract-ocr poppler-utils poppler-data fonts-wqy-microhei \
      tesseract-ocr-eng tesseract-ocr-deu tesseract-ocr-fra tesseract-ocr-spa tesseract-ocr-ita tesseract-ocr-por \
      tesseract-ocr-nld tesseract-ocr-pol tesseract-ocr-ara tesseract-ocr-hin \
      tesseract-ocr-ces tesseract-ocr-slk tesseract-ocr-slv tesseract-ocr-hrv tesseract-ocr-hun tesseract-ocr-ron \
      tesseract-ocr-swe tesseract-ocr-dan tesseract-ocr-fin tesseract-ocr-est tesseract-ocr-lav tesseract-ocr-lit \
      tesseract-ocr-mlt tesseract-ocr-gle tesseract-ocr-cat tesseract-ocr-eus tesseract-ocr-glg tesseract-ocr-nor \
      tesseract-ocr-ell \
      tesseract-ocr-rus tesseract-ocr-ukr tesseract-ocr-bel tesseract-ocr-kaz tesseract-ocr-srp tesseract-ocr-bul \
      tesseract-ocr-mkd \
      tesseract-ocr-jpn tesseract-ocr-jpn-vert tesseract-ocr-chi-sim tesseract-ocr-chi-sim-vert tesseract-ocr-chi-tra \
      tesseract-ocr-chi-tra-vert tesseract-ocr-kor tesseract-ocr-kor-vert tesseract-ocr-vie tesseract-ocr-tha \
      tesseract-ocr-ind tesseract-ocr-msa \
      tesseract-ocr-tur tesseract-ocr-heb tesseract-ocr-ben tesseract-ocr-guj tesseract-ocr-mar tesseract-ocr-tam \
      tesseract-ocr-tel \
      tesseract-ocr-osd \
 && rm -rf /var/lib/apt/lists/*

RUN useradd --create-home --uid 10001 tenderflow
WORKDIR /opt/tenderflow
COPY pyproject.toml README.md requirements.lock ./
COPY tenderflow ./tenderflow
# Every dependency at the version requirements.lock pins (`make lock` writes it), as the tests ran them.
RUN pip install --no-cache-dir -c requirements.lock . && rm -rf /root/.cache

USER tenderflow
ENV TENDERFLOW_DATA_DIR=/home/tenderflow/data \
    TENDERFLOW_LOG_JSON=true \
    PYTHONUNBUFFERED=1
# Alive: the API answers /healthz on its port, or a worker process of this container heartbeats.
HEALTHCHECK --interval=30s --timeout=10s --start-period=30s --retries=3 CMD ["tenderflow", "health"]
ENTRYPOINT ["tenderflow"]
CMD ["--help"]
