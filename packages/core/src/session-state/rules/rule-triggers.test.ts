import { describe, expect, it } from "vitest";
import { isDomainError } from "../../errors.ts";
import { checkTriggers, inferTriggers } from "./rule-triggers.ts";

describe("triggers read from a lesson's text", () => {
  it.each([
    ["Don't modify `packages/postgres/migrations/**` once merged.", { paths: ["packages/postgres/migrations/**"], operations: ["modify"] }],
    ["Keep `package.json` and `Makefile` sorted; never edit `.nvmrc` by hand.", { paths: ["package.json", "Makefile", ".nvmrc"], operations: [] }],
    ["In .sql files, avoid /DROP\\s+TABLE/ outside migrations.", { paths: ["**/*.sql"], code_patterns: ["DROP\\s+TABLE"] }],
    ["Renaming or deleting `src/api/*.ts` breaks clients; creating new ones is fine.", { paths: ["src/api/*.ts"], operations: ["create", "delete", "rename"] }],
    ["Use `/console\\.log\\(/` sparingly in `.ts` code.", { paths: ["**/*.ts"], code_patterns: ["console\\.log\\("] }],
    ["Write good commit messages, e.g. short ones.", { paths: [], operations: [], code_patterns: [] }],
    ["Paths like /src/ are not patterns; `(unclosed` is not a path.", { paths: [], code_patterns: [] }],
  ])("%s", (text, expected) => {
    expect(inferTriggers(text)).toMatchObject(expected);
  });
});

describe("triggers checked", () => {
  it.each([
    [{ paths: ["../x"] }, "triggers.paths"],
    [{ paths: ["/abs/**"] }, "triggers.paths"],
    [{ operations: ["chmod"] }, "triggers.operations"],
    [{ languages: ["TypeScriptish"] }, "triggers.languages"],
    [{ code_patterns: ["(?<=x)y"] }, "triggers.code_patterns"],
    [{ project_attributes: { Bad: ["x"] } }, "triggers.project_attributes"],
    [{ project_attributes: { runtime: [] } }, "triggers.project_attributes"],
  ])("%j is refused naming %s", (input, field) => {
    try {
      checkTriggers(input);
      expect.unreachable();
    } catch (e) {
      expect(isDomainError(e) && e.code === "SVC_MALFORMED_REQUEST" && e.details?.field === field).toBe(true);
    }
  });

  it("normalizes: languages lower-case, duplicates dropped, ./ dropped", () => {
    expect(checkTriggers({ paths: ["./src/**", "src/**"], languages: ["TypeScript"], operations: ["modify", "modify"] })).toEqual({ paths: ["src/**"], operations: ["modify"], languages: ["typescript"], code_patterns: [], project_attributes: {} });
  });
});
