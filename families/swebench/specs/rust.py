"""SWE-bench Multilingual: the Rust repositories.

Facts read from the official ``swebench`` package at 4.1.0 (``harness/constants/rust.py``).
A version here is the pull-request number of the instance, so most specs belong to a single
instance. Fields shared by every version of a repository are written once under ``shared``.
"""

from __future__ import annotations

from typing import Any

from pytest_swe.families.swebench.specs._build import repo
from pytest_swe.families.swebench.specs.model import RepoSpec

ORIGIN = "swebench 4.1.0 harness/constants/rust.py"


def _rust_repo(by_version: dict[str, Any], *, shared: dict[str, Any] | None = None) -> dict[str, RepoSpec]:
    return repo("rust", by_version, shared=shared, origin=ORIGIN)


SPECS: dict[str, dict[str, RepoSpec]] = {
    "burntsushi/ripgrep": _rust_repo(
        {
            "2209": {
                "test_cmd": (
                    "RUSTFLAGS=-Awarnings cargo test --package ripgrep --test integration -- regression::r2208 --exact",
                )
            },
            "2576": {
                "test_cmd": (
                    "RUSTFLAGS=-Awarnings cargo test --package ripgrep --test integration -- regression",
                )
            },
        },
        shared={
            "install": ("RUSTFLAGS=-Awarnings cargo test --package ripgrep --test integration --no-run",),
            "docker_specs": {"rust_version": "1.81"},
        },
    ),
    "sharkdp/bat": _rust_repo(
        {
            "562": {
                "test_cmd": ("RUSTFLAGS=-Awarnings cargo test --package bat --test integration_tests cache",)
            },
            "1892": {
                "test_cmd": (
                    "RUSTFLAGS=-Awarnings cargo test --package bat --test integration_tests ignored_suffix_arg",
                ),
                "install": (
                    "RUSTFLAGS=-Awarnings cargo test --package bat --test integration_tests ignored_suffix_arg --no-run",
                ),
            },
            "2201 3108": {
                "test_cmd": ("RUSTFLAGS=-Awarnings cargo test --package bat --test integration_tests pag",),
                "install": (
                    "RUSTFLAGS=-Awarnings cargo test --package bat --test integration_tests pag --no-run",
                ),
            },
            "2260": {
                "test_cmd": (
                    "RUSTFLAGS=-Awarnings cargo test --package bat --test integration_tests syntax",
                ),
                "install": (
                    "RUSTFLAGS=-Awarnings cargo test --package bat --test integration_tests syntax --no-run",
                ),
            },
            "2393": {
                "test_cmd": (
                    "RUSTFLAGS=-Awarnings cargo test --package bat --test integration_tests cache_",
                ),
                "install": (
                    "RUSTFLAGS=-Awarnings cargo test --package bat --test integration_tests cache_ --no-run",
                ),
            },
            "2650": {
                "test_cmd": (
                    "RUSTFLAGS=-Awarnings cargo test --package bat --test integration_tests map_syntax",
                ),
                "install": (
                    "RUSTFLAGS=-Awarnings cargo test --package bat --test integration_tests map_syntax --no-run",
                ),
            },
            "2835": {
                "test_cmd": (
                    "RUSTFLAGS=-Awarnings cargo test --package bat --test integration_tests header",
                ),
                "install": (
                    "RUSTFLAGS=-Awarnings cargo test --package bat --test integration_tests header --no-run",
                ),
            },
        },
        shared={"docker_specs": {"rust_version": "1.81"}},
    ),
    "astral-sh/ruff": _rust_repo(
        {
            "15309": {
                "test_cmd": ("cargo test --package ruff_linter 'f52'",),
                "install": ("RUSTFLAGS=-Awarnings cargo test --package ruff_linter --no-run",),
                "docker_specs": {"rust_version": "1.83"},
            },
            "15330": {
                "test_cmd": ("cargo test --package ruff_linter --lib rules::eradicate",),
                "install": (
                    "RUSTFLAGS=-Awarnings cargo test --package ruff_linter --lib rules::eradicate --no-run",
                ),
                "docker_specs": {"rust_version": "1.83"},
            },
            "15356": {
                "test_cmd": ("cargo test --package ruff_linter --lib rules::pycodestyle",),
                "install": (
                    "RUSTFLAGS=-Awarnings cargo test --package ruff_linter --lib rules::pycodestyle --no-run",
                ),
                "docker_specs": {"rust_version": "1.83"},
            },
            "15394": {
                "test_cmd": ("cargo test --package ruff_linter --lib rules::flake8_pie",),
                "install": (
                    "RUSTFLAGS=-Awarnings cargo test --package ruff_linter --lib rules::flake8_pie --no-run",
                ),
                "docker_specs": {"rust_version": "1.83"},
            },
            "15443": {
                "test_cmd": ("cargo test --package ruff_linter --lib rules::flake8_bandit",),
                "install": (
                    "RUSTFLAGS=-Awarnings cargo test --package ruff_linter --lib rules::flake8_bandit --no-run",
                ),
                "docker_specs": {"rust_version": "1.84"},
            },
            "15543": {
                "test_cmd": ("cargo test --package ruff_linter --lib rules::pyupgrade",),
                "install": (
                    "RUSTFLAGS=-Awarnings cargo test --package ruff_linter --lib rules::pyupgrade --no-run",
                ),
                "docker_specs": {"rust_version": "1.84"},
            },
            "15626": {
                "test_cmd": ("cargo test --package ruff_linter --lib rules::flake8_simplify::tests",),
                "install": (
                    "RUSTFLAGS=-Awarnings cargo test --package ruff_linter --lib rules::flake8_simplify::tests --no-run",
                ),
                "docker_specs": {"rust_version": "1.84"},
            },
        },
    ),
    "tokio-rs/tokio": _rust_repo(
        {
            "4384": {
                "test_cmd": (
                    "RUSTFLAGS=-Awarnings cargo test --package tokio --test net_types_unwind --features full --no-fail-fast",
                )
            },
            "4867": {
                "test_cmd": ("cargo test --test sync_broadcast --no-fail-fast",),
                "install": ("cargo test --test sync_broadcast --no-fail-fast --no-run",),
            },
            "4898": {
                "test_cmd": (
                    'RUSTFLAGS="--cfg tokio_unstable" cargo test --features full --test rt_metrics',
                ),
                "install": (
                    'RUSTFLAGS="--cfg tokio_unstable" cargo test --features full --test rt_metrics --no-run',
                ),
            },
            "6551": {
                "test_cmd": (
                    'RUSTFLAGS="--cfg tokio_unstable" cargo test --features full --test rt_metrics --no-fail-fast',
                ),
                "install": (
                    'RUSTFLAGS="--cfg tokio_unstable" cargo test --features full --test rt_metrics --no-fail-fast --no-run',
                ),
            },
            "6603": {
                "test_cmd": ("cargo test --test sync_mpsc --no-fail-fast",),
                "install": ("cargo test --test sync_mpsc --no-fail-fast --no-run",),
            },
            "6724": {
                "test_cmd": ("cargo test --test io_write_all_buf --no-fail-fast",),
                "install": ("cargo test --test io_write_all_buf --no-fail-fast --no-run",),
            },
            "6752": {
                "test_cmd": ("cargo test --test time_delay_queue --no-fail-fast",),
                "install": ("cargo test --test time_delay_queue --no-fail-fast --no-run",),
            },
            "6838": {
                "test_cmd": ("cargo test --test uds_stream --no-fail-fast",),
                "install": ("cargo test --test uds_stream --no-fail-fast --no-run",),
            },
            "7139": {
                "test_cmd": ('RUSTFLAGS="--cfg tokio_unstable" cargo test --test fs_file --no-fail-fast',),
                "install": (
                    'RUSTFLAGS="--cfg tokio_unstable" cargo test --test fs_file --no-fail-fast --no-run',
                ),
            },
        },
        shared={"docker_specs": {"rust_version": "1.81"}},
    ),
    "uutils/coreutils": _rust_repo(
        {
            "6377": {
                "test_cmd": ("cargo test test_env --no-fail-fast",),
                "install": ("cargo test test_env --no-run",),
            },
            "6575": {
                "test_cmd": ("cargo test cksum --no-fail-fast",),
                "install": ("cargo test cksum --no-run",),
            },
            "6682": {
                "test_cmd": ("cargo test mkdir --no-fail-fast",),
                "install": ("cargo test mkdir --no-run",),
            },
            "6690": {
                "test_cmd": (
                    "cargo test --no-fail-fast -- test_cp_cp test_cp_same_file test_cp_multiple_files test_cp_single_file test_cp_no_file",
                ),
                "install": (
                    "cargo test --no-run -- test_cp_cp test_cp_same_file test_cp_multiple_files test_cp_single_file test_cp_no_file",
                ),
            },
            "6731": {
                "test_cmd": ("cargo test backslash --no-fail-fast",),
                "install": ("cargo test backslash --no-run",),
            },
        },
        shared={"docker_specs": {"rust_version": "1.81"}},
    ),
    "nushell/nushell": _rust_repo(
        {
            "12901": {
                "test_cmd": ("cargo test --no-fail-fast shell::env",),
                "install": ("cargo test --no-run shell::env",),
                "docker_specs": {"rust_version": "1.77"},
            },
            "12950": {
                "test_cmd": ("cargo test external_arguments --no-fail-fast",),
                "install": ("cargo test external_arguments --no-run",),
                "docker_specs": {"rust_version": "1.77"},
            },
            "13246": {
                "test_cmd": ("cargo test -p nu-command --no-fail-fast --test main find::",),
                "install": ("cargo test -p nu-command --no-run --test main find::",),
                "build": ("cargo build",),
                "docker_specs": {"rust_version": "1.77"},
            },
            "13605": {
                "test_cmd": ("cargo test -p nu-command --no-fail-fast ls::",),
                "install": ("cargo test -p nu-command --no-run ls::",),
                "build": ("cargo build",),
                "docker_specs": {"rust_version": "1.78"},
            },
            "13831": {
                "test_cmd": ("cargo test -p nu-command --no-fail-fast split_column",),
                "install": ("cargo test -p nu-command --no-run split_column",),
                "build": ("cargo build",),
                "docker_specs": {"rust_version": "1.79"},
            },
        },
    ),
    "tokio-rs/axum": _rust_repo(
        {
            "682": {
                "test_cmd": (
                    "RUSTFLAGS=-Awarnings cargo test --package axum --lib trailing -- with_trailing_slash_post without_trailing_slash_post",
                ),
                "install": ("RUSTFLAGS=-Awarnings cargo test --package axum --lib trailing --no-run",),
            },
            "691": {
                "test_cmd": (
                    "RUSTFLAGS=-Awarnings cargo test --package axum --lib -- routing::tests::nest::nesting_router_at_root --exact",
                ),
                "install": ("RUSTFLAGS=-Awarnings cargo test --package axum --lib --no-run",),
            },
            "734": {
                "test_cmd": ("RUSTFLAGS=-Awarnings cargo test --package axum --lib -- routing::tests::head",),
                "install": ("RUSTFLAGS=-Awarnings cargo test --package axum --lib --no-run",),
            },
            "1119": {
                "test_cmd": ("RUSTFLAGS=-Awarnings cargo test --package axum --lib slash",),
                "install": ("RUSTFLAGS=-Awarnings cargo test --package axum --lib slash --no-run",),
            },
            "1730": {
                "test_cmd": (
                    "RUSTFLAGS=-Awarnings cargo test --package axum --lib -- routing::tests::mod state",
                ),
                "install": ("RUSTFLAGS=-Awarnings cargo test --package axum --lib --no-run",),
            },
            "1934 2096": {
                "test_cmd": (
                    "RUSTFLAGS=-Awarnings cargo test --package axum --lib -- routing::tests::fallback",
                ),
                "install": ("RUSTFLAGS=-Awarnings cargo test --package axum --lib --no-run",),
            },
        },
        shared={"docker_specs": {"rust_version": "1.81"}},
    ),
}
