#!/usr/bin/env bash
# Creates the secrets docker-compose.yml reads, in ./secrets/ next to it
# (a folder only its owner may enter; the files inside stay readable by the
# containers' own users, which reach them through compose's mounts only).
# Never overwrites a secret that exists: run it again safely after an upgrade.
#
#   deploy/make-secrets.sh            # from the repository's folder
#
#   secret_key               Django's SECRET_KEY (sessions, CSRF, calendar links)
#   postgres_password        the database user's password
#   fleet_ssh_key(.pub)      the key the poller signs in to the Sparks with (ed25519);
#                            put the .pub line into each Spark's ~/.ssh/authorized_keys
#   fleet_metrics_token      the bearer token /metrics asks Prometheus for
#                            (make the file empty to leave /metrics open)
#   grafana_admin_password   Grafana's `admin` password (monitoring profile)
set -euo pipefail
cd "$(dirname "$0")/.."
dir=secrets
umask 077
mkdir -p "$dir"
chmod 700 "$dir"

random() {  # 48 URL-safe characters from the kernel's random source
  head -c 36 /dev/urandom | base64 | tr '+/' '-_'
}

made=()
write() {  # write NAME VALUE: only when the file does not exist yet
  local path="$dir/$1"
  if [ -e "$path" ]; then return; fi
  printf '%s\n' "$2" > "$path"
  chmod 644 "$path"
  made+=("$1")
}

write secret_key "$(random)$(random)"
write postgres_password "$(random)"
write fleet_metrics_token "sfm_$(random)"
write grafana_admin_password "$(random)"
if [ ! -e "$dir/fleet_ssh_key" ]; then
  ssh-keygen -q -t ed25519 -N "" -C "spark-fleet@$(hostname)" -f "$dir/fleet_ssh_key"
  chmod 644 "$dir/fleet_ssh_key" "$dir/fleet_ssh_key.pub"
  made+=(fleet_ssh_key fleet_ssh_key.pub)
fi

if [ ${#made[@]} -eq 0 ]; then
  echo "Every secret already exists in $dir/; nothing changed."
else
  echo "Made in $dir/: ${made[*]}"
fi
echo "The fleet's public key, for each Spark's ~/.ssh/authorized_keys:"
cat "$dir/fleet_ssh_key.pub"
