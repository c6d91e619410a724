// Fails to load: Jest reports the whole file as failed without running a test.
require("./module-that-does-not-exist");

test("never runs", () => {});
