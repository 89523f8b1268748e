# Spark Fleet's image: the app's folder (/app) belongs to root and is read-only
# for the app, which runs as the unprivileged user `fleet` (uid 1000) and
# writes only to its home, /tmp and the volumes compose mounts.
FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /app
# pg_dump and psql for `manage.py backup` and `restore` (Debian's 15, the same major
# version as compose's PostgreSQL and as the server the test suite runs on).
RUN apt-get update && apt-get install -y --no-install-recommends postgresql-client \
    && rm -rf /var/lib/apt/lists/*
# Dependencies first (gunicorn is one of them), so a code change reuses this layer.
COPY pyproject.toml ./
RUN pip install .
COPY . .
# Static files collected once, at build time (a throw-away var folder; no key is kept).
RUN DEBUG=true FLEET_VAR_DIR=/tmp/build-var python manage.py collectstatic --noinput --verbosity 0 \
    && rm -rf /tmp/build-var
# The app user, and the folders compose mounts volumes on: a new named volume
# takes the owner of the folder it covers, so these stay writable by `fleet`.
RUN useradd --uid 1000 --create-home --shell /usr/sbin/nologin fleet \
    && mkdir -p /run/fleet-metrics /etc/alertmanager /home/fleet/var \
    && chown fleet:fleet /run/fleet-metrics /etc/alertmanager /home/fleet/var
USER fleet
ENV FLEET_VAR_DIR=/home/fleet/var
EXPOSE 8000
CMD ["gunicorn", "fleet.wsgi:application", "--bind", "0.0.0.0:8000", "--workers", "3"]
