// ESLint (issue #31): the recommended rules of ESLint, typescript-eslint and eslint-plugin-svelte,
// with the few this codebase decides otherwise about said here, each with why.
import js from "@eslint/js";
import svelte from "eslint-plugin-svelte";
import tseslint from "typescript-eslint";

/** Test code: tests, their helpers and the benchmarks. */
const TEST_CODE = ["**/*.test.ts", "agent/test-support/**", "mcp/test-support/**", "ui/testing/**", "e2e/**", "bench/**"];

export default tseslint.config(
  { ignores: [".output/**", ".wxt/**", "node_modules/**", "e2e/artifacts/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  ...svelte.configs["flat/recommended"],
  {
    files: ["**/*.svelte", "**/*.svelte.ts"],
    languageOptions: { parserOptions: { parser: tseslint.parser, extraFileExtensions: [".svelte"] } },
  },
  {
    rules: {
      // TypeScript reports undefined names, with the right environment for each file (page, worker, Node).
      "no-undef": "off",
      // `_name` drops a field on purpose (`const { secret: _secret, ...rest } = x`).
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none", destructuredArrayIgnorePattern: "^_" },
      ],
      // Our Maps and Sets in runes modules are built and read within one computation, or replaced whole
      // (state = new Map(...)): `$state` already tracks them; SvelteMap would track every read again.
      "svelte/prefer-svelte-reactivity": "off",
      // `{" · "}` between inline elements keeps the spaces that markup whitespace would collapse.
      "svelte/no-useless-mustaches": "off",
    },
  },
  {
    // Tests reach into payloads the product parses with zod; `any` there stands for "whatever came back".
    files: TEST_CODE,
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
);
