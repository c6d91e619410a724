export default { test: { include: ["**/*.test.mjs"], watch: false } };
