# The web image; the `worker` and `beat` services reuse it (docker-compose.yml). It runs no
# sandbox: judging happens only in the judge workers (sandbox_images/python, sandbox_images/lean).
FROM python:3.12-slim-bookworm
RUN apt-get update && apt-get install -y --no-install-recommends libpq5 \
    && rm -rf /var/lib/apt/lists/*
RUN useradd --create-home --uid 1000 app
WORKDIR /app
COPY pyproject.toml README.md ./
COPY config ./config
COPY market ./market
COPY verifiers ./verifiers
COPY judge ./judge
COPY formalmarket_verify ./formalmarket_verify
COPY manage.py ./
RUN pip install --no-cache-dir .
COPY . .
# Static files with content-hashed names and a manifest, served by WhiteNoise (the production
# settings, DEBUG off). The key only satisfies the settings: collectstatic signs nothing.
RUN DJANGO_DEBUG=0 DJANGO_SECRET_KEY=collectstatic-signs-nothing REDIS_URL=redis://unused \
    DATABASE_URL=postgres://unused/unused \
    python manage.py collectstatic --noinput -v0
USER app
EXPOSE 8000
CMD ["gunicorn", "config.wsgi:application", "--bind", "0.0.0.0:8000", "--workers", "3", "--threads", "8", "--preload", "--no-control-socket"]
