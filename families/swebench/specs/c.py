"""SWE-bench Multilingual: the C and C++ repositories.

Facts read from the official ``swebench`` package at 4.1.0 (``harness/constants/c.py``).
A version here is the pull-request number of the instance, so most specs belong to a single
instance. Fields shared by every version of a repository are written once under ``shared``.
"""

from __future__ import annotations

from typing import Any

from pytest_swe.families.swebench.specs._build import repo
from pytest_swe.families.swebench.specs.model import RepoSpec

ORIGIN = "swebench 4.1.0 harness/constants/c.py"


def _c_repo(by_version: dict[str, Any], *, shared: dict[str, Any] | None = None) -> dict[str, RepoSpec]:
    return repo("c", by_version, shared=shared, origin=ORIGIN)


SPECS: dict[str, dict[str, RepoSpec]] = {
    "redis/redis": _c_repo(
        {
            "9733": {"test_cmd": ("TERM=dumb ./runtest --durable --single unit/introspection-2",)},
            "10068": {
                "test_cmd": ('TERM=dumb ./runtest --durable --single unit/type/stream --only "/*XTRIM*"',)
            },
            "10095": {
                "test_cmd": ('TERM=dumb ./runtest --durable --single unit/type/list --only "/.*(LPOP|RPOP)"',)
            },
            "10764": {"test_cmd": ('TERM=dumb ./runtest --durable --single unit/type/zset --only "BZMPOP"',)},
            "11279": {"test_cmd": ("TERM=dumb ./runtest --durable --single unit/acl",)},
            "11510": {
                "test_cmd": (
                    'TERM=dumb ./runtest --durable --single unit/introspection --only "/.*MONITOR.*"',
                )
            },
            "11631": {
                "test_cmd": ('TERM=dumb ./runtest --durable --single unit/geo --only "/.*GEOSEARCH .*"',)
            },
            "11734": {"test_cmd": ("TERM=dumb ./runtest --durable --single unit/bitops",)},
            "12272": {
                "test_cmd": (
                    'TERM=dumb ./runtest --durable --single unit/type/string --only "/.*(GETRANGE|SETRANGE).*"',
                )
            },
            "12472": {
                "test_cmd": ('TERM=dumb ./runtest --durable --single unit/acl --only "/.*ACL GETUSER.*"',)
            },
            "13115": {"test_cmd": ("TERM=dumb ./runtest --durable --single unit/scripting",)},
            "13338": {"test_cmd": ("TERM=dumb ./runtest --durable --single unit/type/stream-cgroups",)},
        },
        shared={"build": ("make distclean", "make")},
    ),
    "jqlang/jq": _c_repo(
        {
            "2235 2598 2650 2658 2681 2728 2750 2839 2919": {},
        },
        shared={
            "test_cmd": ("make check",),
            "build": (
                "git submodule update --init",
                "autoreconf -fi",
                "./configure --with-oniguruma=builtin",
                "make clean",
                "touch src/parser.y src/lexer.l",
                "make -j$(nproc)",
            ),
        },
    ),
    "nlohmann/json": _c_repo(
        {
            "4237": {},
        },
        shared={
            "test_cmd": ("./build/tests/test-udt_cpp11 -s -r=xml",),
            "build": ("mkdir -p build", "cd build", "cmake ..", "make test-udt_cpp11", "cd .."),
        },
    ),
    "micropython/micropython": _c_repo(
        {
            "10095": {
                "test_cmd": (
                    "cd tests",
                    "MICROPY_CPYTHON3=python3 MICROPY_MICROPYTHON=../ports/unix/build-standard/micropython ./run-tests.py -i basics/fun",
                ),
                "build": ("source ./tools/ci.sh", "ci_unix_build_helper VARIANT=standard"),
                "pre_install": (
                    "python -m venv .venv",
                    "source .venv/bin/activate",
                    "sed -i 's/uint mp_import_stat/mp_import_stat_t mp_import_stat/' mpy-cross/main.c",
                ),
            },
            "12158": {
                "test_cmd": (
                    "cd tests",
                    "MICROPY_CPYTHON3=python3 MICROPY_MICROPYTHON=../ports/unix/build-standard/micropython ./run-tests.py -d thread",
                ),
                "build": (
                    "source ./tools/ci.sh",
                    "ci_unix_build_helper VARIANT=standard",
                    "gcc -shared -o tests/unix/ffi_lib.so tests/unix/ffi_lib.c",
                ),
                "pre_install": ("python -m venv .venv", "source .venv/bin/activate"),
            },
            "13039": {
                "test_cmd": (
                    "cd tests",
                    "MICROPY_CPYTHON3=python3 MICROPY_MICROPYTHON=../ports/unix/build-standard/micropython ./run-tests.py -i slice",
                ),
                "build": (
                    "source ./tools/ci.sh",
                    "ci_unix_build_helper VARIANT=standard",
                    "gcc -shared -o tests/unix/ffi_lib.so tests/unix/ffi_lib.c",
                ),
                "pre_install": ("python -m venv .venv", "source .venv/bin/activate"),
            },
            "13569": {
                "test_cmd": (
                    "cd tests",
                    "MICROPY_CPYTHON3=python3 MICROPY_MICROPYTHON=../ports/unix/build-standard/micropython ./run-tests.py -i try",
                ),
                "build": (
                    "source ./tools/ci.sh",
                    "ci_unix_build_helper VARIANT=standard",
                    "gcc -shared -o tests/ports/unix/ffi_lib.so tests/ports/unix/ffi_lib.c",
                ),
                "pre_install": ("python -m venv .venv", "source .venv/bin/activate"),
            },
            "15898": {
                "test_cmd": (
                    "cd tests",
                    "MICROPY_CPYTHON3=python3 MICROPY_MICROPYTHON=../ports/unix/build-standard/micropython ./run-tests.py -i string_format",
                ),
                "build": (
                    "source ./tools/ci.sh",
                    "ci_unix_build_helper VARIANT=standard",
                    "gcc -shared -o tests/ports/unix/ffi_lib.so tests/ports/unix/ffi_lib.c",
                ),
                "pre_install": ("python -m venv .venv", "source .venv/bin/activate"),
            },
        },
    ),
    "valkey-io/valkey": _c_repo(
        {
            "790": {"test_cmd": ("TERM=dumb ./runtest --durable --single unit/cluster/cluster-shards",)},
            "928": {
                "test_cmd": (
                    'TERM=dumb ./runtest --durable --single unit/cluster/replica-migration --only "/.*NOREPLICAS.*"',
                )
            },
            "1499": {"test_cmd": ("TERM=dumb ./runtest --durable --single unit/introspection-2",)},
            "1842": {"test_cmd": ('TERM=dumb ./runtest --durable --single unit/acl --only "/.*ACL LOAD.*"',)},
        },
        shared={"build": ("make distclean", "make")},
    ),
    "fmtlib/fmt": _c_repo(
        {
            "1683": {
                "test_cmd": ("ctest --test-dir build -V -R printf-test",),
                "build": (
                    "mkdir -p build",
                    "cmake -B build -S .",
                    "cmake --build build --parallel $(nproc) --target printf-test",
                ),
            },
            "2310 2317 3248 3750 3901": {
                "test_cmd": ("ctest --test-dir build -V -R format-test",),
                "build": (
                    "mkdir -p build",
                    "cmake -B build -S .",
                    "cmake --build build --parallel $(nproc) --target format-test",
                ),
            },
            "2457 3158 3863": {
                "test_cmd": ("ctest --test-dir build -V -R ranges-test",),
                "build": (
                    "mkdir -p build",
                    "cmake -B build -S .",
                    "cmake --build build --parallel $(nproc) --target ranges-test",
                ),
            },
            "3272": {
                "test_cmd": ("ctest --test-dir build -V -R xchar-test",),
                "build": (
                    "mkdir -p build",
                    "cmake -B build -S .",
                    "cmake --build build --parallel $(nproc) --target xchar-test",
                ),
            },
            "3729": {
                "test_cmd": ("ctest --test-dir build -V -R std-test",),
                "build": (
                    "mkdir -p build",
                    "cmake -B build -S .",
                    "cmake --build build --parallel $(nproc) --target std-test",
                ),
            },
        },
    ),
}
