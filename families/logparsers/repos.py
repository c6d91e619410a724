"""Which parser a repository's rows use when the row does not name one.

Classic SWE-bench rows (and 4.1.0's harness) choose the parser by repository. The table below
is 4.1.0's choice for each repository, plus the Multimodal JavaScript repositories whose
parser 5.x registers by name; rows of repositories outside it must name their parser.
"""

from __future__ import annotations

_BY_PARSER: dict[str, tuple[str, ...]] = {
    # Python (SWE-bench, Lite, Verified)
    "parse_log_pytest_v2": ("astropy/astropy", "scikit-learn/scikit-learn", "sphinx-doc/sphinx"),
    "parse_log_django": ("django/django",),
    "parse_log_pytest": (
        "marshmallow-code/marshmallow",
        "pallets/flask",
        "pvlib/pvlib-python",
        "pydata/xarray",
        "pylint-dev/astroid",
        "pytest-dev/pytest",
        "pyvista/pyvista",
        "sqlfluff/sqlfluff",
    ),
    "parse_log_matplotlib": ("matplotlib/matplotlib",),
    "parse_log_seaborn": ("mwaskom/seaborn",),
    "parse_log_pytest_options": ("psf/requests", "pydicom/pydicom", "pylint-dev/pylint"),
    "parse_log_sympy": ("sympy/sympy",),
    # C and C++ (Multilingual)
    "parse_log_redis": ("redis/redis", "valkey-io/valkey"),
    "parse_log_jq": ("jqlang/jq",),
    "parse_log_doctest": ("nlohmann/json",),
    "parse_log_micropython_test": ("micropython/micropython",),
    "parse_log_googletest": ("fmtlib/fmt",),
    # Go
    "parse_log_gotest": (
        "caddyserver/caddy",
        "hashicorp/terraform",
        "prometheus/prometheus",
        "gohugoio/hugo",
        "gin-gonic/gin",
    ),
    # Java
    "parse_log_maven": ("google/gson", "apache/druid", "javaparser/javaparser"),
    "parse_log_ant": ("projectlombok/lombok",),
    "parse_log_gradle_custom": ("apache/lucene", "reactivex/rxjava"),
    # JavaScript and TypeScript
    "parse_log_calypso": ("Automattic/wp-calypso",),
    "parse_log_chart_js": ("chartjs/Chart.js",),
    "parse_log_marked": ("markedjs/marked",),
    "parse_log_p5js": ("processing/p5.js",),
    "parse_log_react_pdf": ("diegomura/react-pdf",),
    "parse_log_jest": ("babel/babel", "facebook/docusaurus"),
    "parse_log_vitest": ("vuejs/core",),
    "parse_log_immutable_js": ("immutable-js/immutable-js",),
    "parse_log_tap": ("mrdoob/three.js", "axios/axios"),
    "parse_log_karma": ("preactjs/preact",),
    # PHP
    "parse_log_phpunit": (
        "phpoffice/phpspreadsheet",
        "laravel/framework",
        "php-cs-fixer/php-cs-fixer",
        "briannesbitt/carbon",
    ),
    # Rust
    "parse_log_cargo": (
        "burntsushi/ripgrep",
        "sharkdp/bat",
        "astral-sh/ruff",
        "tokio-rs/tokio",
        "uutils/coreutils",
        "nushell/nushell",
        "tokio-rs/axum",
    ),
    # Ruby
    "parse_log_jekyll": ("jekyll/jekyll",),
    "parse_log_ruby_unit": ("fluent/fluentd", "faker-ruby/faker"),
    "parse_log_rspec_transformed_json": ("fastlane/fastlane", "jordansissel/fpm", "rubocop/rubocop"),
}

_MULTIMODAL_BY_PARSER: dict[str, tuple[str, ...]] = {
    # JavaScript repositories that only 5.x's table names; prettier and scratch-gui share carbon's reader.
    "parse_log_next": ("alibaba-fusion/next",),
    "parse_log_bpmn_js": ("bpmn-io/bpmn-js",),
    "parse_log_carbon": (
        "carbon-design-system/carbon",
        "prettier/prettier",
        "scratchfoundation/scratch-gui",
    ),
    "parse_log_eslint": ("eslint/eslint",),
    "parse_log_lighthouse": ("GoogleChrome/lighthouse",),
    "parse_log_grommet": ("grommet/grommet",),
    "parse_log_highlightjs": ("highlightjs/highlight.js",),
    "parse_log_openlayers": ("openlayers/openlayers",),
    "parse_log_prismjs": ("PrismJS/prism",),
    "parse_log_quarto_cli": ("quarto-dev/quarto-cli",),
}


def _invert(table: dict[str, tuple[str, ...]]) -> dict[str, str]:
    return {repo: parser for parser, repos in table.items() for repo in repos}


REPO_PARSERS: dict[str, str] = _invert(_BY_PARSER)
"""4.1.0's repository -> parser name."""

MULTIMODAL_REPO_PARSERS: dict[str, str] = _invert(_MULTIMODAL_BY_PARSER)
"""Repositories only 5.x's JavaScript table names -> the registered parser it points to."""

_BY_LOWERCASE = {repo.lower(): parser for repo, parser in {**MULTIMODAL_REPO_PARSERS, **REPO_PARSERS}.items()}


def parser_name_for_repo(repo: str) -> str | None:
    """The parser name for ``owner/name`` (GitHub names are case-insensitive), or None if unknown."""
    return REPO_PARSERS.get(repo) or MULTIMODAL_REPO_PARSERS.get(repo) or _BY_LOWERCASE.get(repo.lower())
