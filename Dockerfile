FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
WORKDIR /app
COPY pyproject.toml ./
RUN pip install --no-cache-dir -e . gunicorn==23.0.0
COPY . .
RUN useradd --create-home fleet && mkdir -p /app/var && chown -R fleet /app/var /app/staticfiles 2>/dev/null || true
USER fleet
EXPOSE 8000
CMD ["gunicorn", "fleet.wsgi:application", "--bind", "0.0.0.0:8000", "--workers", "3"]
