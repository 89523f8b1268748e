#!/usr/bin/env bash
# Restore Spark Fleet's database from a backup in ./backups/ (deploy/backup.sh):
# stops web, worker and beat, replaces the whole database with the backup (all
# or nothing), applies migrations (a backup from an older release reaches the
# current schema), and starts them again.
#
#   deploy/restore.sh fleet-20261201-020000.backup
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -ne 1 ] || [ ! -f "backups/$1" ]; then
  echo "usage: deploy/restore.sh NAME (a file in ./backups/)" >&2
  exit 2
fi
docker compose stop web worker beat
docker compose run --rm --no-deps -v "$PWD/backups:/backups:ro" \
  migrate python manage.py restore "/backups/$1" --yes
docker compose start web worker beat
