// Sample mocha specs for the spec, JSON and TAP reporters.
const assert = require("node:assert");

describe("calculator", function () {
  it("adds numbers", function () {
    assert.strictEqual(1 + 2, 3);
  });

  it("fails with a multi-line diff", function () {
    assert.deepStrictEqual({ first: "line one", second: "line two" }, { first: "line one", second: "line 2" });
  });

  describe("nested block", function () {
    it("still adds", function () {
      assert.strictEqual(2 + 2, 4);
    });

    it("throws a type error", function () {
      null.property;
    });

    it.skip("is pending", function () {});
  });

  it("takes a while", function (done) {
    setTimeout(done, 60);
  });

  it("logs json", function () {
    console.log(JSON.stringify({ passes: [], failures: [] }, null, 2));
    console.log("<result><value>1</value></result>");
  });
});

describe("second suite", function () {
  it("compares strings", function () {
    assert.strictEqual("a", "b");
  });
});
