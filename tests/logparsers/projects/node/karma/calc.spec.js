// Sample specs run in a browser by karma with the mocha framework.
function assertEqual(actual, expected) {
  if (actual !== expected) {
    throw new Error("expected " + JSON.stringify(expected) + " but got " + JSON.stringify(actual));
  }
}

describe("render", function () {
  it("creates an element", function () {
    assertEqual(document.createElement("div").tagName, "DIV");
  });

  it("fails with a message", function () {
    assertEqual("line one\nline two", "line one\nline 2");
  });

  describe("nested block", function () {
    it("sets attributes", function () {
      const element = document.createElement("span");
      element.setAttribute("id", "a");
      assertEqual(element.id, "a");
    });

    describe("deeper block", function () {
      it("passes deep down", function () {});
    });

    it("fails after the deeper block", function () {
      assertEqual(1, 2);
    });
  });
});

describe("events", function () {
  it("dispatches", function () {
    let seen = false;
    document.addEventListener("ping", function () {
      seen = true;
    });
    document.dispatchEvent(new Event("ping"));
    assertEqual(seen, true);
  });
});
