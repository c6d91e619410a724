// A second file, so the default reporter prints one PASS/FAIL line per file.
test("concatenates", () => {
  expect("a" + "b").toBe("ab");
});

test("takes a while", async () => {
  await new Promise((resolve) => setTimeout(resolve, 30));
  expect(true).toBe(true);
});
