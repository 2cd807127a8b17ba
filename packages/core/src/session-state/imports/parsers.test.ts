import { describe, expect, it } from "vitest";
import { fixture } from "./fixtures/fixtures.ts";
import { IMPORT_PARSERS, findParser } from "./parsers.ts";

// Golden files of the four parsers: each fixture (a file as projects keep it) parsed, the rows
// compared with the committed <fixture>.<parser>.golden.json (update with `vitest -u` and review).


describe("import parsers: golden files", () => {
  it.each([
    ["madr.md", "decisions-madr"],
    ["DECISIONS.md", "decisions-log"],
    ["BACKLOG.md", "backlog-checklist"],
    ["LESSONS.md", "lessons-list"],
    ["LESSONS-items.md", "lessons-list"],
  ])("%s with %s", async (file, parserName) => {
    const parser = findParser(parserName);
    if (parser === undefined) throw new Error(parserName);
    const rows = parser.parse(fixture(file), file);
    await expect(`${JSON.stringify(rows, null, 2)}\n`).toMatchFileSnapshot(`./fixtures/${file}.${parserName}.golden.json`);
  });

  it("every parser's own example parses into valid rows", () => {
    for (const p of IMPORT_PARSERS) {
      const rows = p.parse(p.example, "EXAMPLE.md");
      expect(rows.length, p.name).toBeGreaterThan(0);
      expect(rows.flatMap((r) => r.errors), p.name).toEqual([]);
    }
  });

  it("reads what the fixtures mean", () => {
    const backlog = findParser("backlog-checklist")?.parse(fixture("BACKLOG.md"), "BACKLOG.md") ?? [];
    expect(backlog.map((r) => [r.parsed["title"], r.parsed["priority"], r.parsed["status"]])).toEqual([
      ["Retry webhook deliveries with jitter", 0, "open"],
      ["Fix the login redirect loop", 0, "resolved"],
      ["Dashboard for dead letters", 1, "open"],
      ["Document the CLI exit codes", 3, "open"],
      ["Try a bloom filter for idempotency keys", 2, "open"],
    ]);
    expect(backlog[0]?.parsed).toMatchObject({ labels: ["webhooks", "bug"], kind: "bug", description_md: "Backoff alone bunches retries after an outage.\nSee the incident notes of March." });
    expect(backlog[1]?.parsed["closing_note"]).toBe("imported as done from BACKLOG.md:7");
    const madr = findParser("decisions-madr")?.parse(fixture("madr.md"), "madr.md") ?? [];
    expect(madr.map((r) => [r.parsed["title"], r.parsed["supersedes_row"], r.parsed["decided_at"]])).toEqual([
      ["Poll the queue every second", null, "2026-02-10T00:00:00.000Z"],
      ["Wake workers with LISTEN/NOTIFY", 1, "2026-03-05T00:00:00.000Z"],
    ]);
    expect(madr[0]?.parsed).toMatchObject({ rationale_md: "it is the simplest thing that works.", consequences: { good: ["there is no extra connection per worker"], bad: ["idle workers still query the database"] } });
    const lessons = findParser("lessons-list")?.parse(fixture("LESSONS.md"), "LESSONS.md") ?? [];
    expect(lessons.map((r) => r.errors.length)).toEqual([0, 0, 1]);
    expect(lessons[0]?.parsed["why_md"]).toBe("CI and laptops drifted apart twice.");
  });
});
