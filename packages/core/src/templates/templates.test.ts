import { describe, expect, it } from "vitest";
import { isDomainError } from "../errors.ts";
import { createMessagingScenario } from "../testing/messaging-scenario.ts";
import { callContext } from "../testing/principal-fixtures.ts";
import { getTemplate } from "./get-template.ts";
import { listTemplates } from "./list-templates.ts";

describe("templates", () => {
  it("lists the built-in templates by name, paged", async () => {
    const s = await createMessagingScenario();
    const ctx = callContext(s.alice);
    expect(await listTemplates(s.world.deps, ctx, {})).toEqual({ items: [{ name: "directive", description: (expect.any(String) as string) }, { name: "note", description: (expect.any(String) as string) }, { name: "result", description: (expect.any(String) as string) }], next_cursor: null });
    const first = await listTemplates(s.world.deps, ctx, { limit: 2 });
    expect(first.items.map((t) => t.name)).toEqual(["directive", "note"]);
    expect((await listTemplates(s.world.deps, ctx, { limit: 2, cursor: first.next_cursor })).items.map((t) => t.name)).toEqual(["result"]);
    await expect(listTemplates(s.world.deps, ctx, { limit: 2, cursor: `${first.next_cursor}x` })).rejects.toSatisfy((e) => isDomainError(e) && e.code === "SVC_CURSOR_EXPIRED");
    await expect(listTemplates(s.world.deps, ctx, { limit: 2.5 })).rejects.toSatisfy((e) => isDomainError(e) && e.code === "SVC_MALFORMED_REQUEST");
  });

  it("returns a template's JSON Schema as plain JSON; directive has the three required string fields", async () => {
    const s = await createMessagingScenario();
    const t = await getTemplate(s.world.deps, callContext(s.alice), { name: "directive" });
    expect(t.name).toBe("directive");
    expect(t.schema).toEqual({
      type: "object",
      additionalProperties: false,
      required: ["directive_kind", "summary", "instructions"],
      properties: { directive_kind: { type: "string", description: (expect.any(String) as string) }, summary: { type: "string", description: (expect.any(String) as string) }, instructions: { type: "string", description: (expect.any(String) as string) } },
    });
    expect(JSON.parse(JSON.stringify(t))).toEqual(t);
  });

  it("an unknown template is SVC_RESOURCE_NOT_FOUND", async () => {
    const s = await createMessagingScenario();
    await expect(getTemplate(s.world.deps, callContext(s.alice), { name: "nope" })).rejects.toSatisfy((e) => isDomainError(e) && e.code === "SVC_RESOURCE_NOT_FOUND");
  });
});
