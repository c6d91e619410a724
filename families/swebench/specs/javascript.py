"""SWE-bench Multilingual and Multimodal: the JavaScript and TypeScript repositories.

Facts read from the official ``swebench`` package at 4.1.0 (``harness/constants/javascript.py``).
A version here is the pull-request number of the instance, so most specs belong to a single
instance. Fields shared by every version of a repository are written once under ``shared``.
"""

from __future__ import annotations

from typing import Any

from pytest_swe.families.swebench.specs._build import repo
from pytest_swe.families.swebench.specs.model import RepoSpec

ORIGIN = "swebench 4.1.0 harness/constants/javascript.py"


_BROWSER_LIBRARIES = (
    "libx11-xcb1",
    "libxcomposite1",
    "libxcursor1",
    "libxdamage1",
    "libxi6",
    "libxtst6",
    "libnss3",
    "libcups2",
    "libxss1",
    "libxrandr2",
    "libasound2",
    "libatk1.0-0",
    "libgtk-3-0",
    "x11-utils",
)
"""The X11 and GTK libraries a headless browser needs; upstream lists them, in this order, for both
repositories that test in one."""


def _javascript_repo(
    by_version: dict[str, Any], *, shared: dict[str, Any] | None = None
) -> dict[str, RepoSpec]:
    return repo("javascript", by_version, shared=shared, origin=ORIGIN)


SPECS: dict[str, dict[str, RepoSpec]] = {
    "Automattic/wp-calypso": _javascript_repo(
        {
            "0.8": {"docker_specs": {"node_version": "0.8"}},
            "10.10.0": {"docker_specs": {"node_version": "10.10.0"}},
            "10.12.0": {"docker_specs": {"node_version": "10.12.0"}},
            "10.13.0": {"docker_specs": {"node_version": "10.13.0"}},
            "10.14.0": {"docker_specs": {"node_version": "10.14.0"}},
            "10.15.2": {"docker_specs": {"node_version": "10.15.2"}},
            "10.16.3": {"docker_specs": {"node_version": "10.16.3"}},
            "10.4.1": {"docker_specs": {"node_version": "10.4.1"}},
            "10.5.0": {"docker_specs": {"node_version": "10.5.0"}},
            "10.6.0": {"docker_specs": {"node_version": "10.6.0"}},
            "10.9.0": {"docker_specs": {"node_version": "10.9.0"}},
            "4.2.3": {"docker_specs": {"node_version": "4.2.3"}},
            "4.3.0": {"docker_specs": {"node_version": "4.3.0"}},
            "5.10.1": {"docker_specs": {"node_version": "5.10.1"}},
            "5.11.1": {"docker_specs": {"node_version": "5.11.1"}},
            "6.1.0": {"docker_specs": {"node_version": "6.1.0"}},
            "6.10.0": {"docker_specs": {"node_version": "6.10.0"}},
            "6.10.2": {"docker_specs": {"node_version": "6.10.2"}},
            "6.10.3": {"docker_specs": {"node_version": "6.10.3"}},
            "6.11.1": {"docker_specs": {"node_version": "6.11.1"}},
            "6.11.2": {"docker_specs": {"node_version": "6.11.2"}},
            "6.11.5": {"docker_specs": {"node_version": "6.11.5"}},
            "6.7.0": {"docker_specs": {"node_version": "6.7.0"}},
            "6.9.0": {"docker_specs": {"node_version": "6.9.0"}},
            "6.9.1": {"docker_specs": {"node_version": "6.9.1"}},
            "6.9.4": {"docker_specs": {"node_version": "6.9.4"}},
            "8.11.0": {"docker_specs": {"node_version": "8.11.0"}},
            "8.11.2": {"docker_specs": {"node_version": "8.11.2"}},
            "8.9.1": {"docker_specs": {"node_version": "8.9.1"}},
            "8.9.3": {"docker_specs": {"node_version": "8.9.3"}},
            "8.9.4": {"docker_specs": {"node_version": "8.9.4"}},
        },
        shared={
            "test_cmd": "npm run test-client",
            "install": ("npm install --unsafe-perm",),
            "apt_packages": ("libsass-dev", "sassc"),
        },
    ),
    "chartjs/Chart.js": _javascript_repo(
        {
            "2.0 2.1 2.2 2.3 2.4 2.5 2.6 2.7 2.8 2.9": {
                "test_cmd": (
                    "npm install",
                    "gulp build",
                    'xvfb-run --server-args="-screen 0 1280x1024x24 -ac :99" su chromeuser -c "gulp test"',
                ),
                "install": ("npm install", "npm install -g gulp-cli"),
                "docker_specs": {"node_version": "21.6.2", "run_args": {"cap_add": ("SYS_ADMIN",)}},
            },
            "3.0 3.1 3.2 3.3 3.4 3.5 3.6 3.7 3.8": {
                "test_cmd": (
                    "npm install",
                    "npm run build",
                    'xvfb-run --server-args="-screen 0 1280x1024x24 -ac :99" su chromeuser -c "./node_modules/.bin/cross-env NODE_ENV=test ./node_modules/.bin/karma start ./karma.conf.js --single-run --coverage --grep --auto-watch false"',
                ),
                "install": ("npm install",),
                "docker_specs": {"node_version": "21.6.2", "run_args": {"cap_add": ("SYS_ADMIN",)}},
            },
            "4.0 4.1 4.2 4.3 4.4": {
                "test_cmd": (
                    "pnpm install",
                    "pnpm run build",
                    'xvfb-run --server-args="-screen 0 1280x1024x24 -ac :99" su chromeuser -c "./node_modules/.bin/cross-env NODE_ENV=test ./node_modules/.bin/karma start ./karma.conf.cjs --single-run --coverage --grep --auto-watch false"',
                ),
                "install": ("pnpm install", "pnpm run build"),
                "docker_specs": {
                    "node_version": "21.6.2",
                    "pnpm_version": "7.9.0",
                    "run_args": {"cap_add": ("SYS_ADMIN",)},
                },
            },
        },
        shared={
            "apt_packages": (
                "python3",
                "python3-pip",
                "xvfb",
                "x11-xkb-utils",
                "xfonts-100dpi",
                "xfonts-75dpi",
                "xfonts-scalable",
                "xfonts-cyrillic",
                "x11-apps",
                "firefox",
            )
        },
    ),
    "markedjs/marked": _javascript_repo(
        {
            "0.3 0.5 0.6 0.7 1.0 1.1 1.2 2.0 3.9": {"docker_specs": {"node_version": "12.22.12"}},
            "4.0 4.1 5.0": {"docker_specs": {"node_version": "20.16.0"}},
        },
        shared={
            "test_cmd": "./node_modules/.bin/jasmine --no-color --config=jasmine.json",
            "install": ("npm install",),
        },
    ),
    "processing/p5.js": _javascript_repo(
        {
            "0.10 0.2 0.7 0.8 0.9 1.0 1.1 1.2 1.3 1.4 1.5 1.6 1.7 1.8 1.9": {
                "install": (
                    "npm install",
                    "PUPPETEER_SKIP_CHROMIUM_DOWNLOAD='' node node_modules/puppeteer/install.js",
                    "./node_modules/.bin/grunt yui",
                )
            },
            "0.4 0.5 0.6": {"install": ("npm install", "./node_modules/.bin/grunt yui")},
        },
        shared={
            "test_cmd": "sed -i 's/concurrency:[[:space:]]*[0-9][0-9]*/concurrency: 1/g' Gruntfile.js\nstdbuf -o 1M ./node_modules/.bin/grunt test --quiet --force",
            "docker_specs": {"node_version": "14.17.3"},
            "apt_packages": _BROWSER_LIBRARIES,
        },
    ),
    "diegomura/react-pdf": _javascript_repo(
        {
            "1.0 1.1 1.2": {
                "test_cmd": "./node_modules/.bin/jest --no-color",
                "install": ("npm install", "npm install cheerio@1.0.0-rc.3"),
                "docker_specs": {"node_version": "8.17.0"},
            },
            "2.0": {
                "test_cmd": 'NODE_OPTIONS="--experimental-vm-modules" ./node_modules/.bin/jest --no-color',
                "install": ("npm i -g yarn", "yarn install"),
                "docker_specs": {"node_version": "18.20.4"},
            },
        },
        shared={
            "apt_packages": (
                "pkg-config",
                "build-essential",
                "libpixman-1-0",
                "libpixman-1-dev",
                "libcairo2-dev",
                "libpango1.0-dev",
                "libjpeg-dev",
                "libgif-dev",
                "librsvg2-dev",
                *_BROWSER_LIBRARIES,
            )
        },
    ),
    "babel/babel": _javascript_repo(
        {
            "13928": {"test_cmd": ('yarn jest babel-parser -t "arrow" --verbose',)},
            "14532": {"test_cmd": ("yarn jest babel-generator --verbose",)},
            "15445": {
                "test_cmd": ('yarn jest packages/babel-generator/test/index.js -t "generation " --verbose',)
            },
            "15649": {"test_cmd": ("yarn jest packages/babel-traverse/test/scope.js --verbose",)},
            "16130": {"test_cmd": ("yarn jest babel-helpers --verbose",)},
        },
        shared={
            "install": ("make bootstrap",),
            "build": ("make build",),
            "docker_specs": {"node_version": "20", "_variant": "js_2"},
        },
    ),
    "vuejs/core": _javascript_repo(
        {
            "11589": {
                "test_cmd": (
                    "pnpm run test packages/runtime-core/__tests__/apiWatch.spec.ts --no-watch --reporter=verbose",
                )
            },
            "11739": {
                "test_cmd": (
                    'pnpm run test packages/runtime-core/__tests__/hydration.spec.ts --no-watch --reporter=verbose -t "mismatch handling"',
                )
            },
            "11870": {
                "test_cmd": (
                    "pnpm run test packages/runtime-core/__tests__/helpers/renderList.spec.ts --no-watch --reporter=verbose",
                )
            },
            "11899": {
                "test_cmd": (
                    "pnpm run test packages/compiler-sfc/__tests__/compileStyle.spec.ts --no-watch --reporter=verbose",
                ),
                "build": ("pnpm run build compiler-sfc",),
            },
            "11915": {
                "test_cmd": (
                    'pnpm run test packages/compiler-core/__tests__/parse.spec.ts --no-watch --reporter=verbose -t "Element"',
                )
            },
        },
        shared={"install": ("pnpm i",), "docker_specs": {"node_version": "20", "_variant": "js_2"}},
    ),
    "facebook/docusaurus": _javascript_repo(
        {
            "8927": {
                "test_cmd": (
                    "yarn test packages/docusaurus-utils/src/__tests__/markdownLinks.test.ts --verbose",
                )
            },
            "9183": {
                "test_cmd": (
                    "yarn test packages/docusaurus-theme-classic/src/__tests__/options.test.ts --verbose",
                )
            },
            "9897": {
                "test_cmd": (
                    "yarn test packages/docusaurus-utils/src/__tests__/markdownUtils.test.ts --verbose",
                )
            },
            "10130": {
                "test_cmd": (
                    "yarn test packages/docusaurus/src/server/__tests__/brokenLinks.test.ts --verbose",
                )
            },
            "10309": {
                "test_cmd": (
                    "yarn test packages/docusaurus-plugin-content-docs/src/client/__tests__/docsClientUtils.test.ts --verbose",
                )
            },
        },
        shared={"install": ("yarn install",), "docker_specs": {"node_version": "20", "_variant": "js_2"}},
    ),
    "immutable-js/immutable-js": _javascript_repo(
        {
            "2005": {
                "test_cmd": (
                    'npx jest __tests__/OrderedMap.ts __tests__/OrderedSet.ts --silent --json | jq -r \'.testResults[].assertionResults[] | "[" + (.status | ascii_upcase) + "] " + ((.ancestorTitles | join(" > ")) + (if .ancestorTitles | length > 0 then " > " else "" end) + .title)\'',
                )
            },
            "2006": {"test_cmd": ("npx jest __tests__/Range.ts --verbose",)},
        },
        shared={
            "install": ("npm install",),
            "build": ("npm run build",),
            "docker_specs": {"node_version": "20", "_variant": "js_2"},
        },
    ),
    "mrdoob/three.js": _javascript_repo(
        {
            "25687": {
                "test_cmd": ('npx qunit test/unit/src/core/Object3D.tests.js -f "/json|clone|copy/i"',)
            },
            "26589": {
                "test_cmd": (
                    "npx qunit test/unit/src/objects/Line.tests.js test/unit/src/objects/Mesh.tests.js test/unit/src/objects/Points.tests.js",
                )
            },
            "27395": {"test_cmd": ("npx qunit test/unit/src/math/Sphere.tests.js",)},
        },
        shared={
            "install": ("npm install --ignore-scripts",),
            "docker_specs": {"node_version": "20", "_variant": "js_2"},
        },
    ),
    "preactjs/preact": _javascript_repo(
        {
            "2757 2927 3010 3062": {
                "test_cmd": (
                    'COVERAGE=false BABEL_NO_MODULES=true npx karma start karma.conf.js --single-run --grep="test/browser/render.test.js"',
                ),
                "docker_specs": {"node_version": "16", "_variant": "js_2"},
            },
            "2896": {
                "test_cmd": (
                    'COVERAGE=false BABEL_NO_MODULES=true npx karma start karma.conf.js --single-run --grep="compat/test/browser/memo.test.js"',
                ),
                "docker_specs": {"node_version": "16", "_variant": "js_2"},
            },
            "3345 3567": {
                "test_cmd": (
                    'COVERAGE=false BABEL_NO_MODULES=true npx karma start karma.conf.js --single-run --grep="hooks/test/browser/useEffect.test.js"',
                ),
                "docker_specs": {"node_version": "18", "_variant": "js_2"},
            },
            "3454": {
                "test_cmd": (
                    'COVERAGE=false BABEL_NO_MODULES=true npx karma start karma.conf.js --single-run --grep="test/browser/svg.test.js"',
                ),
                "docker_specs": {"node_version": "18", "_variant": "js_2"},
            },
            "3562": {
                "test_cmd": (
                    'COVERAGE=false BABEL_NO_MODULES=true npx karma start karma.conf.js --single-run --grep="compat/test/browser/render.test.js"',
                ),
                "docker_specs": {"node_version": "18", "_variant": "js_2"},
            },
            "3689": {
                "test_cmd": (
                    'COVERAGE=false BABEL_NO_MODULES=true npx karma start karma.conf.js --single-run --grep="hooks/test/browser/errorBoundary.test.js"',
                ),
                "docker_specs": {"node_version": "18", "_variant": "js_2"},
            },
            "3739": {
                "test_cmd": (
                    'COVERAGE=false BABEL_NO_MODULES=true npx karma start karma.conf.js --single-run --grep="hooks/test/browser/useState.test.js"',
                ),
                "docker_specs": {"node_version": "20", "_variant": "js_2"},
            },
            "3763": {
                "test_cmd": (
                    'COVERAGE=false BABEL_NO_MODULES=true npx karma start karma.conf.js --single-run --grep="test/browser/lifecycles/componentDidMount.test.js"',
                ),
                "docker_specs": {"node_version": "20", "_variant": "js_2"},
            },
            "4152": {
                "test_cmd": (
                    'COVERAGE=false BABEL_NO_MODULES=true npx karma start karma.conf.js --single-run --grep="test/browser/components.test.js"',
                ),
                "docker_specs": {"node_version": "20", "_variant": "js_2"},
            },
            "4182": {
                "test_cmd": (
                    'COVERAGE=false BABEL_NO_MODULES=true npx karma start karma.conf.js --single-run --grep="hooks/test/browser/errorBoundary.test.js"',
                ),
                "docker_specs": {"node_version": "20", "_variant": "js_2"},
            },
            "4245": {
                "test_cmd": (
                    'COVERAGE=false BABEL_NO_MODULES=true npx karma start karma.conf.js --single-run --grep="hooks/test/browser/useId.test.js"',
                ),
                "docker_specs": {"node_version": "20", "_variant": "js_2"},
            },
            "4316": {
                "test_cmd": (
                    'COVERAGE=false BABEL_NO_MODULES=true npx karma start karma.conf.js --single-run --grep="test/browser/events.test.js"',
                ),
                "docker_specs": {"node_version": "20", "_variant": "js_2"},
            },
            "4436": {
                "test_cmd": (
                    'COVERAGE=false BABEL_NO_MODULES=true npx karma start karma.conf.js --single-run --grep="test/browser/refs.test.js"',
                ),
                "docker_specs": {"node_version": "20", "_variant": "js_2"},
            },
        },
        shared={"install": ("npm install",)},
    ),
    "axios/axios": _javascript_repo(
        {
            "4731": {"test_cmd": ("npx mocha -R tap test/unit/adapters/http.js -g 'body length'",)},
            "4738": {"test_cmd": ("timeout 10s npx mocha -R tap test/unit/adapters/http.js -g 'timeout'",)},
            "5085": {"test_cmd": ("npx mocha -R tap test/unit/regression/bugs.js",)},
            "5316": {
                "test_cmd": ("npx mocha test/unit/adapters/http.js -R tap -g 'FormData'",),
                "build": ("npm install",),
            },
            "5892": {"test_cmd": ("npx mocha test/unit/adapters/http.js -R tap -g 'compression'",)},
            "6539": {"test_cmd": ("npx mocha -R tap test/unit/regression/SNYK-JS-AXIOS-7361793.js",)},
        },
        shared={"install": ("npm install",), "docker_specs": {"node_version": "20", "_variant": "js_2"}},
    ),
}

#: The SWE-bench Multimodal repositories among the above (their rows may carry ``image_assets``).
MULTIMODAL_REPOS = frozenset(
    (
        "Automattic/wp-calypso",
        "chartjs/Chart.js",
        "diegomura/react-pdf",
        "markedjs/marked",
        "processing/p5.js",
    )
)
