import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadSanctionsScreen } from "./sanctions-file.ts";

describe("loadSanctionsScreen", () => {
  const dir = mkdtempSync(join(tmpdir(), "agentq-sanctions-"));
  const party = (accountId: string, friendlyName: string) => ({ workspaceId: "W1", accountId, friendlyName });

  it("reads a CSV list and screens by account id, name and workspace", async () => {
    const file = join(dir, "list.csv");
    writeFileSync(file, "workspace_id,ai_account_id,name,status\n,A9,,blocked\nW1,,mallory,review\n");
    const { screen, entries } = loadSanctionsScreen(file);
    expect(entries).toBe(2);
    expect(await screen.screen({ parties: [party("A1", "alice"), party("A2", "bob")] })).toEqual({ status: "clear" });
    expect(await screen.screen({ parties: [party("A1", "alice"), party("A3", "mallory")] })).toMatchObject({ status: "review", party: { accountId: "A3" }, matchedOn: "name" });
    expect(await screen.screen({ parties: [party("A3", "mallory"), party("A9", "x")] })).toMatchObject({ status: "blocked", party: { accountId: "A9" }, matchedOn: "ai_account" });
  });

  it("reads a JSON list; refuses a missing file or an invalid entry", () => {
    const file = join(dir, "list.json");
    writeFileSync(file, JSON.stringify([{ workspace_id: "W2", status: "blocked" }]));
    expect(loadSanctionsScreen(file).entries).toBe(1);
    expect(() => loadSanctionsScreen(join(dir, "missing.json"))).toThrow(/SVC_SANCTIONS_LIST/);
    writeFileSync(file, JSON.stringify([{ workspace_id: "W2", status: "allowed" }]));
    expect(() => loadSanctionsScreen(file)).toThrow();
  });
});
