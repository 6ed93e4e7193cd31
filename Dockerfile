# The DBD Force Builder behind gunicorn. docker-compose.yml runs it beside PostgreSQL.
FROM python:3.11-slim

# Settings find templates/, static/ and the rules fixture beside manage.py, so the code
# runs from /app (ahead of the copy `pip install .` puts in site-packages).
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONPATH=/app

WORKDIR /app

COPY . .
RUN pip install . \
    && SECRET_KEY=collectstatic-only DEBUG=0 python manage.py collectstatic --noinput \
    && useradd --system --no-create-home --home-dir /app app

USER app
EXPOSE 8000

# Migrate, load the rules and work out again the evaluations stored with other rules'
# content (all idempotent), then serve. gunicorn reads its worker
# count from WEB_CONCURRENCY: 2 x cores + 1 unless set.
CMD ["sh", "-c", "python manage.py migrate --noinput && python manage.py loaddata rules && python manage.py refresh_evaluations && export WEB_CONCURRENCY=\"${WEB_CONCURRENCY:-$((2 * $(nproc) + 1))}\" && exec gunicorn dbd_site.wsgi -b 0.0.0.0:8000 --access-logfile -"]
