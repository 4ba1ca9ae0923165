# The web image; the Celery workers reuse it (docker-compose.yml). The Python judge's
# sandbox is bubblewrap inside this image; the Lean worker uses sandbox_images/lean.
FROM python:3.12-slim-bookworm
RUN apt-get update && apt-get install -y --no-install-recommends bubblewrap libpq5 \
    && rm -rf /var/lib/apt/lists/*
RUN useradd --create-home --uid 1000 app
WORKDIR /app
COPY pyproject.toml ./
COPY config ./config
COPY market ./market
COPY verifiers ./verifiers
COPY judge ./judge
COPY formalmarket_verify ./formalmarket_verify
COPY manage.py ./
RUN pip install --no-cache-dir . gunicorn
COPY . .
RUN DJANGO_DEBUG=1 python manage.py collectstatic --noinput
USER app
EXPOSE 8000
CMD ["gunicorn", "config.wsgi:application", "--bind", "0.0.0.0:8000", "--workers", "3"]
