// Lint rules, including the dependency direction described in docs/architecture.md:
// web -> api -> domain -> db -> scheduler-core; worker -> domain, db, core; simulator -> core;
// node-agent -> contracts. Apps never import apps; packages never import apps.
import js from "@eslint/js";
import globals from "globals";
import tseslint from "typescript-eslint";

const APPS = ["@tranche/web", "@tranche/worker", "@tranche/node-agent", "@tranche/simulator", "@tranche/cli"];
const noImports = (names, message) => ({
  "no-restricted-imports": [
    "error",
    { paths: names.map((name) => ({ name, message })), patterns: [{ group: names.map((n) => `${n}/*`), message }] },
  ],
});

export default tseslint.config(
  {
    ignores: [
      "**/.*.tmp.*",
      "**/node_modules/**",
      "**/.next/**",
      "**/dist/**",
      "packages/db/src/generated/**",
      "**/next-env.d.ts",
      ".data/**",
      "test-results/**",
      "bench/sim-*.mjs", // esbuild bundles of the simulator bench (bench/README.md), ignored by git too
      "playwright-report/**",
      "**/.turbo/**",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrorsIgnorePattern: "^_" },
      ],
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports" }],
      "no-restricted-syntax": [
        "error",
        { selector: "TSEnumDeclaration", message: "Use `as const` string literal unions, not TS enums (house style)." },
      ],
    },
  },
  {
    files: ["apps/web/**/*.tsx", "packages/ui/**/*.tsx"],
    languageOptions: { globals: { ...globals.browser } },
  },
  // The policy is pure: no I/O, no clock, no randomness (SPEC R11).
  {
    files: ["packages/scheduler-core/src/**/*.ts"],
    languageOptions: { globals: {} },
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: ["node:*", "fs", "path", "child_process", "net", "http", "os", "crypto"],
              message: "scheduler-core is pure: no I/O.",
            },
            {
              group: ["@prisma/*", "@tranche/db", "@tranche/db/*", "pg", "postgres"],
              message: "scheduler-core is pure: no database.",
            },
            { group: ["@tranche/*", "!@tranche/scheduler-core"], message: "scheduler-core imports nothing of Tranche's." },
          ],
        },
      ],
      "no-restricted-properties": [
        "error",
        { object: "Date", property: "now", message: "The policy reads no clock: `now` is a parameter." },
        { object: "Math", property: "random", message: "The policy uses no randomness (R11)." },
        { object: "performance", property: "now", message: "The policy reads no clock." },
      ],
      "no-restricted-globals": [
        "error",
        { name: "process", message: "The policy does no I/O." },
        { name: "console", message: "The policy does no I/O." },
        { name: "fetch", message: "The policy does no I/O." },
        { name: "setTimeout", message: "The policy reads no clock." },
      ],
      "no-restricted-syntax": [
        "error",
        {
          selector: "NewExpression[callee.name='Date'][arguments.length=0]",
          message: "The policy reads no clock: `now` is a parameter.",
        },
        { selector: "TSEnumDeclaration", message: "Use `as const` string literal unions, not TS enums (house style)." },
      ],
    },
  },
  { files: ["packages/**/*.ts", "packages/**/*.tsx"], rules: noImports(APPS, "Packages never import apps.") },
  {
    files: ["packages/contracts/**/*.ts"],
    rules: noImports([...APPS, "@tranche/db", "@tranche/domain", "@tranche/api"], "contracts are schemas only."),
  },
  {
    files: ["packages/db/**/*.ts"],
    rules: noImports([...APPS, "@tranche/domain", "@tranche/api"], "db sits below domain and api."),
  },
  { files: ["packages/domain/**/*.ts"], rules: noImports([...APPS, "@tranche/api"], "domain sits below api.") },
  {
    files: ["apps/simulator/**/*.ts"],
    rules: noImports(
      ["@tranche/db", "@tranche/domain", "@tranche/api", ...APPS.filter((a) => a !== "@tranche/simulator")],
      "The simulator depends on the scheduling core only.",
    ),
  },
  {
    files: ["apps/node-agent/**/*.ts"],
    rules: noImports(
      [
        "@tranche/db",
        "@tranche/domain",
        "@tranche/api",
        "@tranche/scheduler-core",
        ...APPS.filter((a) => a !== "@tranche/node-agent"),
      ],
      "The node agent speaks the protocol in @tranche/contracts only.",
    ),
  },
  {
    files: ["apps/worker/**/*.ts"],
    rules: noImports(["@tranche/api", ...APPS.filter((a) => a !== "@tranche/worker")], "Apps never import apps."),
  },
  {
    files: ["apps/cli/**/*.ts"],
    rules: noImports(
      ["@tranche/db", "@tranche/domain", "@tranche/api", ...APPS.filter((a) => a !== "@tranche/cli")],
      "The CLI talks to the REST API only.",
    ),
  },
  {
    files: ["apps/web/**/*.ts", "apps/web/**/*.tsx"],
    rules: noImports(
      APPS.filter((a) => a !== "@tranche/web"),
      "Apps never import apps.",
    ),
  },
);
