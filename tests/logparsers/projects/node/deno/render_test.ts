// quarto-cli-style deno tests: names carry a [smoke] or [unit] prefix.
Deno.test("[unit] yaml front matter parses", () => {
  if (1 + 1 !== 2) throw new Error("arithmetic");
});

Deno.test("[unit] fails on purpose", () => {
  throw new Error("line one\nline two");
});

Deno.test("[smoke] render /tmp/abc123/doc.qmd", () => {});

Deno.test({ name: "[smoke] ignored render", ignore: true, fn: () => {} });

Deno.test("[unit] with steps", async (t) => {
  await t.step("first step", () => {});
  await t.step("second step fails", () => {
    throw new Error("step failed");
  });
});
