import { agentqConfig } from "@agentq/eslint-config";
export default [
  ...agentqConfig({ tsconfigRootDir: import.meta.dirname, core: false }),
  // Tests read JSON response bodies, which are untyped by nature.
  {
    files: ["src/**/*.test.ts", "src/testing/**/*.ts"],
    rules: {
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-return": "off",
    },
  },
];
