// Chrome runs (Chart.js, bpmn-js, openlayers, alibaba-fusion/next): karma's progress reporter
// names failures with the browser, karma-spec-reporter marks each test. KARMA_BROWSER picks a
// headed Chrome (under xvfb-run) or headless Chrome.
module.exports = (config) =>
  config.set({
    basePath: __dirname,
    frameworks: ["mocha"],
    files: ["calc.spec.js"],
    browsers: [process.env.KARMA_BROWSER || "ChromeNoSandbox"],
    customLaunchers: {
      ChromeNoSandbox: { base: "Chrome", flags: ["--no-sandbox", "--disable-gpu", "--no-first-run"] },
      ChromeHeadlessNoSandbox: { base: "ChromeHeadless", flags: ["--no-sandbox", "--disable-gpu"] },
    },
    reporters: (process.env.KARMA_REPORTERS || "progress").split(","),
    singleRun: true,
    colors: false,
    browserNoActivityTimeout: 60000,
    plugins: ["karma-mocha", "karma-spec-reporter", "karma-chrome-launcher"],
  });
