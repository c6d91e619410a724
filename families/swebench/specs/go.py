"""SWE-bench Multilingual: the Go repositories.

Facts read from the official ``swebench`` package at 4.1.0 (``harness/constants/go.py``).
A version here is the pull-request number of the instance, so most specs belong to a single
instance. Fields shared by every version of a repository are written once under ``shared``.
"""

from __future__ import annotations

from typing import Any

from pytest_swe.families.swebench.specs._build import repo
from pytest_swe.families.swebench.specs.model import RepoSpec

ORIGIN = "swebench 4.1.0 harness/constants/go.py"


def _go_repo(by_version: dict[str, Any], *, shared: dict[str, Any] | None = None) -> dict[str, RepoSpec]:
    return repo("go", by_version, shared=shared, origin=ORIGIN)


SPECS: dict[str, dict[str, RepoSpec]] = {
    "caddyserver/caddy": _go_repo(
        {
            "4774": {
                "test_cmd": ('go test -v ./caddytest/integration -run "TestCaddyfileAdapt*"',),
                "install": ('go test -c ./caddytest/integration -run "TestCaddyfileAdapt*"',),
                "docker_specs": {"go_version": "1.18.10"},
            },
            "4943": {
                "test_cmd": ("go test -v ./modules/logging",),
                "install": ("go test -c ./modules/logging",),
                "docker_specs": {"go_version": "1.18.10"},
            },
            "5404": {
                "test_cmd": ("go test -v ./caddyconfig/caddyfile",),
                "install": ("go test -c ./caddyconfig/caddyfile",),
                "docker_specs": {"go_version": "1.20.14"},
            },
            "5626": {
                "test_cmd": ('go test -v ./caddyconfig/httpcaddyfile -run "Test.*Import"',),
                "install": ('go test -c ./caddyconfig/httpcaddyfile -run "Test.*Import"',),
                "docker_specs": {"go_version": "1.19.13"},
            },
            "5761": {
                "test_cmd": ('go test -v ./caddyconfig/caddyfile -run "TestLexer.*"',),
                "install": ('go test -c ./caddyconfig/caddyfile -run "TestLexer.*"',),
                "docker_specs": {"go_version": "1.23.8"},
            },
            "5870": {
                "test_cmd": ('go test -v . -run "TestUnsyncedConfigAccess"',),
                "install": ('go test -c . -run "TestUnsyncedConfigAccess"',),
                "docker_specs": {"go_version": "1.23.8"},
            },
            "5995": {
                "test_cmd": ('go test -v ./caddytest/integration -run "^TestUriReplace"',),
                "install": ('go test -c ./caddytest/integration -run "^TestUriReplace"',),
                "docker_specs": {"go_version": "1.23.8"},
            },
            "6051": {
                "test_cmd": ("go test -v ./caddyconfig/caddyfile",),
                "install": ("go test -c ./caddyconfig/caddyfile",),
                "docker_specs": {"go_version": "1.23.8"},
            },
            "6115": {
                "test_cmd": ("go test -v ./modules/caddyhttp/reverseproxy",),
                "install": ("go test -c ./modules/caddyhttp/reverseproxy",),
                "docker_specs": {"go_version": "1.23.8"},
            },
            "6288 6350": {
                "test_cmd": ('go test -v ./caddytest/integration -run "TestCaddyfileAdapt*"',),
                "install": ('go test -c ./caddytest/integration -run "TestCaddyfileAdapt*"',),
                "docker_specs": {"go_version": "1.23.8"},
            },
            "6345": {
                "test_cmd": ("go test -v ./caddytest/integration",),
                "install": ("go test -c ./caddytest/integration",),
                "docker_specs": {"go_version": "1.23.8"},
            },
            "6370": {
                "test_cmd": ("go test -v ./cmd",),
                "install": ("go test -c ./cmd",),
                "docker_specs": {"go_version": "1.23.8"},
            },
            "6411": {
                "test_cmd": ('go test -v . -run "TestReplacerNew*"',),
                "install": ("go mod tidy",),
                "docker_specs": {"go_version": "1.23.8"},
            },
        },
    ),
    "hashicorp/terraform": _go_repo(
        {
            "34580": {
                "test_cmd": ('go test -v ./internal/command -run "^TestFmt"',),
                "install": ("go test -c ./internal/command",),
                "docker_specs": {"go_version": "1.21.13"},
            },
            "34814": {
                "test_cmd": ("go test -v ./internal/builtin/provisioners/remote-exec",),
                "install": ("go test -c ./internal/builtin/provisioners/remote-exec",),
                "docker_specs": {"go_version": "1.22.12"},
            },
            "34900": {
                "test_cmd": (
                    'go test -v ./internal/terraform -run "(^TestContext2Apply|^TestContext2Plan).*[Ss]ensitive"',
                ),
                "install": ("go test -c ./internal/terraform",),
                "docker_specs": {"go_version": "1.22.12"},
            },
            "35543": {
                "test_cmd": ('go test -v ./internal/terraform -run "^TestContext2Plan_import"',),
                "install": ("go test -c ./internal/terraform",),
                "docker_specs": {"go_version": "1.23.8"},
            },
            "35611": {
                "test_cmd": ('go test -v ./internal/terraform -run "^TestContext2Apply_provisioner"',),
                "install": ("go test -c ./internal/terraform",),
                "docker_specs": {"go_version": "1.23.8"},
            },
        },
    ),
    "prometheus/prometheus": _go_repo(
        {
            "9248 10720": {
                "test_cmd": ('go test -v ./promql -run "^TestEvaluations"',),
                "install": ("go test -c ./promql",),
            },
            "10633": {
                "test_cmd": ('go test -v ./discovery/puppetdb -run "TestPuppetDBRefreshWithParameters"',),
                "install": ("go test -c ./discovery/puppetdb",),
            },
            "11859": {
                "test_cmd": ('go test -v ./tsdb -run "^TestSnapshot"',),
                "install": ("go test -c ./tsdb",),
            },
            "12874 15142": {
                "test_cmd": ('go test -v ./tsdb -run "^TestHead"',),
                "install": ("go test -c ./tsdb",),
            },
            "13845": {
                "test_cmd": ('go test -v ./promql ./model/labels -run "^(TestRangeQuery|TestLabels)"',),
                "install": ("go test -c ./promql ./model/labels",),
            },
            "14861": {
                "test_cmd": ('go test -v ./promql -run "^TestEngine"',),
                "install": ("go test -c ./promql",),
            },
        },
        shared={"docker_specs": {"go_version": "1.23.8"}},
    ),
    "gohugoio/hugo": _go_repo(
        {
            "12171": {
                "test_cmd": ('go test -v ./hugolib -run "^Test.*Pages"',),
                "install": ("go test -c ./hugolib",),
            },
            "12204": {
                "test_cmd": ('go test -v ./tpl/tplimpl -run "^TestEmbedded"',),
                "install": ("go test -c ./tpl/tplimpl",),
            },
            "12343": {
                "test_cmd": ('go test -v ./resources/page/... -run "^Test.*Permalink"',),
                "install": ("go test -c ./resources/page/...",),
            },
            "12448": {
                "test_cmd": ('go test -v ./hugolib/... -run "^TestRebuild"',),
                "install": ("go test -c ./hugolib/...",),
            },
            "12562": {
                "test_cmd": ('go test -v ./hugolib/... -run "^TestGetPage[^/]"',),
                "install": ("go test -c ./hugolib/...",),
            },
            "12579": {
                "test_cmd": ('go test -v ./resources/page -run "^TestGroupBy"',),
                "install": ("go test -c ./resources/page",),
            },
            "12768": {
                "test_cmd": ("go test -v ./markup/goldmark/blockquotes/...",),
                "install": ("go test -c ./markup/goldmark/blockquotes/...",),
            },
        },
        shared={"docker_specs": {"go_version": "1.23.8"}},
    ),
    "gin-gonic/gin": _go_repo(
        {
            "1805": {"test_cmd": ('go test -v . -run "^Test.*Router"',), "install": ("go test -c .",)},
            "1957": {"test_cmd": ('go test -v . -run "^TestContext.*Bind"',), "install": ("go test -c .",)},
            "2121": {
                "test_cmd": ('go test -v ./... -run "^Test.*Reader"',),
                "install": ("go test -c ./...",),
            },
            "2755": {"test_cmd": ('go test -v . -run "^TestTree"',), "install": ("go test -c .",)},
            "3227": {"test_cmd": ('go test -v . -run "^TestRedirect"',), "install": ("go test -c .",)},
            "3741": {"test_cmd": ('go test -v . -run "^TestColor"',), "install": ("go test -c .",)},
            "3820": {
                "test_cmd": ('go test -v ./binding -run "^TestMapping"',),
                "install": ("go test -c ./binding",),
            },
            "4003": {
                "test_cmd": ('go test . -v -run "TestMethodNotAllowedNoRoute"',),
                "install": ("go test -c .",),
            },
        },
        shared={"docker_specs": {"go_version": "1.23.8"}},
    ),
}
