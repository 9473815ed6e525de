#!/bin/sh
# Installs what the corpus runs on, once (what is there already is kept):
#  - venv-python3.11, -3.12, -3.13, -3.13t: clean venvs of the interpreters (no site-packages);
#  - libs/<name>-<version>: each pinned library version in its own --target dir (pure Python,
#    its dependencies included, usable by every interpreter).
set -e
cd "$(dirname "$0")"
PYENV_ROOT=${PYENV_ROOT:-/root/.pyenv}
FT_PYTHON=${FT_PYTHON:-/opt/py313t/bin/python3.13t}
for v in 3.11 3.12 3.13; do
    exe=$(ls -d "$PYENV_ROOT"/versions/$v.*/bin/python$v 2>/dev/null | sort -V | tail -n 1)
    if [ -n "$exe" ] && [ ! -x venv-python$v/bin/python ]; then "$exe" -m venv venv-python$v; fi
done
if [ -x "$FT_PYTHON" ] && [ ! -x venv-python3.13t/bin/python ]; then "$FT_PYTHON" -m venv venv-python3.13t; fi
PIP="venv-python3.11/bin/python -m pip"
# One line a library: the buggy version first, then the fixed one.
PINS="
six==1.7.3 six==1.9.0
pyee==8.0.1 pyee==8.1.0
fasteners==0.16.3 fasteners==0.17.3
cachetools==5.5.2 cachetools==6.0.0
cachetools==4.1.1 cachetools==4.2.0
boltons==18.0.1 boltons==19.0.0
multimethod==1.9.0 multimethod==1.9.1
injector==0.20.1 injector==0.21.0
pyparsing==3.2.3 pyparsing==3.2.4
tqdm==4.32.1 tqdm==4.32.2
python-dateutil==2.6.1 python-dateutil==2.7.0
lazy_loader==0.3 lazy_loader==0.4
pytz==2022.7 pytz==2022.7.1
loguru==0.7.2 loguru==0.7.3
cachelib==0.14.0 cachelib==0.15.0
opentelemetry-api==1.5.0 opentelemetry-api==1.6.0
pyrate-limiter==4.3.0 pyrate-limiter==4.4.0
pyrate-limiter==4.5.1 pyrate-limiter==4.6.0
pyrate-limiter==1.0.0 pyrate-limiter==1.1.0
dbutils==3.1.2 dbutils==3.2.0
peewee==3.16.1 peewee==3.16.2
"
for spec in $PINS; do
    dir="libs/$(echo "$spec" | sed 's/==/-/')"
    [ -d "$dir" ] || $PIP install --quiet --no-warn-conflicts --disable-pip-version-check --target "$dir" "$spec" 2>&1 | grep -v "^WARNING" || true
done
# opentelemetry-api 1.5/1.6 import pkg_resources, which the 3.12+ venvs do not have: the
# setuptools that still ships it goes into the same --target dir.
for v in 1.5.0 1.6.0; do
    [ -d libs/opentelemetry-api-$v/pkg_resources ] || $PIP install --quiet --no-warn-conflicts --disable-pip-version-check --target libs/opentelemetry-api-$v "setuptools<70" 2>&1 | grep -v "^WARNING" || true
done
ls libs
# corpus-more: more documented bugs in the libraries above (a block of its own, so that it
# does not collide with additions to PINS). One line a bug: the buggy version, then the fixed one.
PINS_MORE="
python-dateutil==3.0.0 python-dateutil==4.0.0
opentelemetry-sdk==1.39.1 opentelemetry-sdk==1.40.0
loguru==0.2.3 loguru==0.2.4
loguru==0.2.4 loguru==0.2.5
loguru==0.2.5 loguru==0.3.0
boltons==15.1.0 boltons==15.1.1
tqdm==4.50.0 tqdm==4.50.1
"
for spec in $PINS_MORE; do
    dir="libs/$(echo "$spec" | sed 's/==/-/')"
    [ -d "$dir" ] || $PIP install --quiet --no-warn-conflicts --disable-pip-version-check --target "$dir" "$spec" 2>&1 | grep -v "^WARNING" || true
done
# loguru 0.2.x/0.3.0 (and better_exceptions_fork, a dependency of 0.2.x) import distutils, which
# 3.12+ do not have: the setuptools that provides it goes into the same --target dirs (the cases
# import setuptools first on 3.12+).
for v in 0.2.3 0.2.4 0.2.5 0.3.0; do
    [ -d libs/loguru-$v/setuptools ] || $PIP install --quiet --no-warn-conflicts --disable-pip-version-check --target libs/loguru-$v "setuptools<70" 2>&1 | grep -v "^WARNING" || true
done
# corpus-lib2: documented thread-safety bugs in third-party libraries the corpus did not use
# (a block of its own). One line a bug: the buggy version, then the first fixed one.
PINS_LIB2="
rich==9.12.0 rich==9.12.1
typeguard==2.3.0 typeguard==2.3.1
cached-property==1.1.0 cached-property==1.2.0
"
for spec in $PINS_LIB2; do
    dir="libs/$(echo "$spec" | sed 's/==/-/')"
    [ -d "$dir" ] || $PIP install --quiet --no-warn-conflicts --disable-pip-version-check --target "$dir" "$spec" 2>&1 | grep -v "^WARNING" || true
done
PINS_LIB2_B="
fsspec==2026.6.0 fsspec==2026.7.0
"
for spec in $PINS_LIB2_B; do
    dir="libs/$(echo "$spec" | sed 's/==/-/')"
    [ -d "$dir" ] || $PIP install --quiet --no-warn-conflicts --disable-pip-version-check --target "$dir" "$spec" 2>&1 | grep -v "^WARNING" || true
done
# corpus5: documented thread-safety bugs in libraries the corpus did not use (a block of its own).
# One line a bug: the buggy version, then the fixed one (icontract: 2.3.1, the first attempt, is
# broken in every thread but the importing one; 2.3.2 is the first release that checks them all).
PINS_MORE2="
sqlparse==0.4.4 sqlparse==0.5.0
repoze.lru==0.4 repoze.lru==0.5
icontract==2.3.0 icontract==2.3.2
that-depends==1.24.0 that-depends==1.25.0
modern-di==0.7.0 modern-di==0.8.0
"
for spec in $PINS_MORE2; do
    dir="libs/$(echo "$spec" | sed 's/==/-/')"
    [ -d "$dir" ] || $PIP install --quiet --no-warn-conflicts --disable-pip-version-check --target "$dir" "$spec" 2>&1 | grep -v "^WARNING" || true
done
# that-depends 1.25.0 imports typing_extensions without declaring it: it goes into the same --target dir.
[ -f libs/that-depends-1.25.0/typing_extensions.py ] || $PIP install --quiet --no-warn-conflicts --disable-pip-version-check --target libs/that-depends-1.25.0 typing_extensions 2>&1 | grep -v "^WARNING" || true
