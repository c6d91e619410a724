// preact-style run: mocha specs, karma-mocha-reporter, in jsdom.
module.exports = (config) =>
  config.set({
    basePath: __dirname,
    frameworks: ["mocha"],
    files: ["calc.spec.js"],
    browsers: ["jsdom"],
    reporters: ["mocha"],
    singleRun: true,
    colors: false,
    plugins: ["karma-mocha", "karma-mocha-reporter", "karma-jsdom-launcher"],
  });
