#!/bin/sh
# Installs each library version in its own --target dir (pure-Python wheels, usable by every interpreter).
set -e
cd "$(dirname "$0")"
PIP="/root/.pyenv/versions/3.11.7/bin/python -m pip"
for spec in six==1.7.3 six==1.9.0 pyee==8.0.1 pyee==8.1.0 fasteners==0.16.3 fasteners==0.17.3 \
            cachetools==5.5.2 cachetools==6.0.0; do
    dir="libs/$(echo "$spec" | sed 's/==/-/')"
    [ -d "$dir" ] || $PIP install --quiet --no-warn-conflicts --disable-pip-version-check --target "$dir" "$spec" 2>&1 | grep -v "^WARNING" || true
done
ls libs
