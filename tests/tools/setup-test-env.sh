#!/bin/sh
# tests/tools/setup-test-env.sh BUILD_DIR PYTHON: finds, or sets up, the programs the test suite runs besides the C
# compiler, make and CMake, and names them in BUILD_DIR/test-env.cmake, a CMake initial cache (cmake -C) that the
# Makefile hands to the test and sanitizer builds:
#   PDS_PYTHON      a Python with NumPy, SciPy, pytest and scikit-build-core (tests/verify, tests/disc, the Python
#                   package's tests in python/tests and its pip-install test): PYTHON if it has them
#   PDS_GMSH        the gmsh program (tests/mesh, tests/disc mesh .geo files with it at test time): gmsh on PATH if
#                   it runs
#   PDS_PKG_CONFIG  pkg-config (tests/install): pkg-config or pkgconf on PATH
# What is missing comes from PyPI into BUILD_DIR/venv, a virtual environment of PYTHON: numpy, scipy, pytest and
# scikit-build-core, gmsh, pkgconf. A second run installs nothing. Every failure says what to install and exits 1.
set -u
[ $# -eq 2 ] || { echo "usage: $0 BUILD_DIR PYTHON" >&2; exit 2; }
python=$2
mkdir -p "$1" && build=$(cd "$1" && pwd) || exit 1
venv=$build/venv
# The shared libraries the gmsh wheel loads (libgmsh.so), as Debian/Ubuntu packages.
gmsh_libs="libglu1-mesa libgl1 libxrender1 libxcursor1 libxfixes3 libxext6 libxft2 libfontconfig1 libxinerama1"

die() {
  echo "test-env: $*" >&2
  exit 1
}

command -v "$python" >/dev/null 2>&1 ||
  die "'$python' not found. Install Python 3 with its venv module (Debian/Ubuntu: apt-get install python3" \
      "python3-venv), or run make with PYTHON=/path/to/python3."

need=""     # PyPI packages to put into the venv
apt_alt=""  # the Debian/Ubuntu packages that would do instead

pymods="import numpy, scipy, pytest, scikit_build_core"
if "$python" -c "$pymods" 2>/dev/null; then
  py=$("$python" -c 'import sys; print(sys.executable)')
else
  py=$venv/bin/python
  if ! "$py" -c "$pymods" 2>/dev/null; then
    need="$need numpy scipy pytest scikit-build-core"
    apt_alt="$apt_alt python3-numpy python3-scipy python3-pytest python3-scikit-build-core"
  fi
fi

# The wheel's launcher (venv/bin/gmsh) starts with '#!/usr/bin/env python', whatever python is on PATH, so the tests
# run it through the venv's Python with a wrapper.
gmsh_wrapper=$build/test-env/gmsh
gmsh=$(command -v gmsh) || gmsh=""
if [ -n "$gmsh" ] && ! "$gmsh" -version >/dev/null 2>&1; then
  echo "test-env: $gmsh does not run ($gmsh -version fails); the tests use gmsh from PyPI instead"
  gmsh=""
fi
if [ -z "$gmsh" ]; then
  gmsh=$gmsh_wrapper
  if [ ! -f "$venv/bin/gmsh" ]; then
    need="$need gmsh"
    apt_alt="$apt_alt gmsh"
  fi
fi

if pkg_config=$(command -v pkg-config) || pkg_config=$(command -v pkgconf); then
  :
else
  pkg_config=$venv/bin/pkgconf
  if [ ! -x "$pkg_config" ]; then
    need="$need pkgconf"
    apt_alt="$apt_alt pkgconf"
  fi
fi

if [ -n "$need" ]; then
  if ! "$venv/bin/python" -m pip --version >/dev/null 2>&1; then
    echo "test-env: creating a virtual environment of $python in $venv"
    rm -rf "$venv"
    if ! { "$python" -m venv "$venv" && "$venv/bin/python" -m pip --version >/dev/null 2>&1; }; then
      rm -rf "$venv"
      die "could not create a virtual environment in $venv. Install Python's venv module (Debian/Ubuntu:" \
          "apt-get install python3-venv), or these packages:$apt_alt; then run make test again."
    fi
  fi
  echo "test-env: installing$need from PyPI into $venv"
  # shellcheck disable=SC2086 # one word per package
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check $need ||
    die "pip could not install$need into $venv (no network to PyPI?). Install instead (Debian/Ubuntu:" \
        "apt-get install$apt_alt), then run make test again."
fi

if [ "$gmsh" = "$gmsh_wrapper" ]; then
  mkdir -p "$build/test-env"
  cat >"$gmsh_wrapper" <<EOF
#!/bin/sh
# Written by tests/tools/setup-test-env.sh: the gmsh of the PyPI wheel in $venv, run by that environment's Python.
exec "$venv/bin/python" "$venv/bin/gmsh" "\$@"
EOF
  chmod +x "$gmsh_wrapper"
fi
"$py" -c 'import numpy, scipy' || die "$py cannot import numpy and scipy (see above)."
gmsh_version=$("$gmsh" -version 2>&1) ||
  die "$gmsh does not run:
$gmsh_version
The gmsh wheel loads X11 and OpenGL libraries; on Debian/Ubuntu: apt-get install $gmsh_libs"
PKG_CONFIG_PATH=$build "$pkg_config" --version >/dev/null 2>&1 || die "$pkg_config does not run ($pkg_config --version)."

# CMake string: backslashes and quotes escaped.
cmq() { printf '%s' "$1" | sed 's/[\\"]/\\&/g'; }
cat >"$build/test-env.cmake.tmp" <<EOF
# Written by tests/tools/setup-test-env.sh (make test, make sanitize-build): the programs the tests run.
set(PDS_PYTHON "$(cmq "$py")" CACHE FILEPATH "Python with NumPy, SciPy, pytest, scikit-build-core (tests)" FORCE)
set(PDS_GMSH "$(cmq "$gmsh")" CACHE FILEPATH "gmsh (tests/mesh and tests/disc mesh .geo files at test time)" FORCE)
set(PDS_PKG_CONFIG "$(cmq "$pkg_config")" CACHE FILEPATH "pkg-config (tests/install)" FORCE)
EOF
mv "$build/test-env.cmake.tmp" "$build/test-env.cmake" || exit 1
echo "test-env: Python $py; gmsh $gmsh ($(echo "$gmsh_version" | tail -n 1)); pkg-config $pkg_config"
