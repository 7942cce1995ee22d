#!/bin/sh
# Runs the container's command as the unprivileged ffos user.
#
# A volume mounted at /app/data (a fly.io volume, some Docker volume drivers) is owned by root, and
# ffos could not create its database there. So, when started as root, this script gives the data
# directory to ffos (the directory itself, then only what is not ffos's already, so a restart does
# not rewrite every upload) and drops to ffos with setpriv, without capabilities and with
# no_new_privs; nothing else runs as root. Started as another user already (docker run --user …),
# it runs the command unchanged. FFOS_USER and FFOS_DATA_DIR exist for testing this script outside
# the image.
set -eu

RUN_AS="${FFOS_USER:-ffos}"
DATA_DIR="${FFOS_DATA_DIR:-/app/data}"

if [ "$(id -u)" = "0" ]; then
  GROUP="$(id -g "$RUN_AS")"
  mkdir -p "$DATA_DIR"
  chown "$RUN_AS:$GROUP" "$DATA_DIR"
  find "$DATA_DIR" -xdev ! -user "$RUN_AS" -exec chown "$RUN_AS:$GROUP" {} +
  exec setpriv --reuid="$RUN_AS" --regid="$GROUP" --init-groups --inh-caps=-all --bounding-set=-all --no-new-privs -- "$@"
fi
exec "$@"
