#!/usr/bin/env bash
# Back up Spark Fleet's database from the compose stack into ./backups/
# (pg_dump's custom format, made by `manage.py backup` in the app's image).
#
#   deploy/backup.sh                  # ./backups/fleet-YYYYmmdd-HHMMSS.backup
#   deploy/backup.sh NAME.backup      # ./backups/NAME.backup
#
# Safe while the stack runs (pg_dump reads one consistent snapshot). Keep the
# files, and secrets/secret_key with them, somewhere else too.
set -euo pipefail
cd "$(dirname "$0")/.."
name=${1:-fleet-$(date -u +%Y%m%d-%H%M%S).backup}
mkdir -p backups
docker compose run --rm --no-deps --user "$(id -u):$(id -g)" -v "$PWD/backups:/backups" \
  migrate python manage.py backup "/backups/$name"
