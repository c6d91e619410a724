// PrismJS-style entry point: the harness runs "mocha tests/run.js --reporter json".
const assert = require("node:assert");

describe("languages", function () {
  describe("javascript", function () {
    it("highlights keywords", function () {
      assert.ok(true);
    });

    it("highlights regex literals", function () {
      assert.strictEqual("/a/", "/b/");
    });
  });
});
