# tenderflow: one image for every role (API, workers, migrations); the compose file picks the command.
FROM python:3.11-slim-bookworm

# OCR and PDF tools, from Debian: tesseract with the languages a tender pipeline reads (English, German,
# French, Spanish, Italian, Portuguese, Dutch, Polish, Arabic, Hindi) and orientation/script data, poppler.
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      tesseract-ocr tesseract-ocr-eng tesseract-ocr-deu tesseract-ocr-fra tesseract-ocr-spa tesseract-ocr-ita \
      tesseract-ocr-por tesseract-ocr-nld tesseract-ocr-pol tesseract-ocr-ara tesseract-ocr-hin tesseract-ocr-osd \
      poppler-utils \
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
