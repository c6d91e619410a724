// Lighthouse-style wrapper: announces how many files it runs, then runs mocha's spec reporter.
const Mocha = require("mocha");
const path = require("node:path");

const files = [path.join(__dirname, "calc.spec.js")];
console.log(`running ${files.length} test files`);
const mocha = new Mocha({ reporter: "spec" });
files.forEach((file) => mocha.addFile(file));
mocha.run((failures) => {
  process.exitCode = failures ? 1 : 0;
});
