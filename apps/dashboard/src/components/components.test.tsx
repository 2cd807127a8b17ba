/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import { describe, expect, it } from "vitest";
import { safeReturnTo } from "../return-to.ts";
import { DataTable } from "./data-table.tsx";
import { EmptyState } from "./empty-state.tsx";
import { ErrorNotice } from "./error-notice.tsx";
import { ANY_CHOICE, choicesOf, FilterForm, SelectField } from "./filter-form.tsx";
import { LocalTime } from "./local-time.tsx";
import { hrefWith, Pagination } from "./pagination.tsx";

const html = async (node: unknown) => String(await (node as Promise<string>));

describe("dashboard components", () => {
  it("writes an instant in UTC inside <time datetime> for the local-time script, a dash for none", async () => {
    expect(await html(<LocalTime at="2026-11-24T09:30:05.123Z" />)).toBe('<time datetime="2026-11-24T09:30:05.123Z" data-local="">2026-11-24 09:30:05 UTC</time>');
    expect(await html(<LocalTime at={null} />)).toBe("<span>—</span>");
  });

  it("paginates forward keeping the filters; first page drops the cursor; nothing when there is one page", async () => {
    const next = await html(<Pagination path="/messages" query={{ state: "pending", cursor: undefined }} nextCursor="c2" />);
    expect(next).toContain('href="/messages?state=pending&amp;cursor=c2"');
    expect(next).not.toContain("First page");
    const later = await html(<Pagination path="/messages" query={{ state: "held", cursor: "c2" }} nextCursor={null} />);
    expect(later).toContain('href="/messages?state=held"');
    expect(later).toContain("Last page");
    expect(await html(<Pagination path="/messages" query={{}} nextCursor={null} />)).toBe("");
    expect(hrefWith("/a", { x: "", y: undefined })).toBe("/a");
  });

  it("with a trail, goes back one page at a time: the address carries the earlier pages' cursors", async () => {
    const first = await html(<Pagination path="/m" query={{ state: "held" }} nextCursor="c2" trail />);
    expect(first).toContain('href="/m?state=held&amp;cursor=c2&amp;back=-"');
    expect(first).not.toContain("Previous page");
    const second = await html(<Pagination path="/m" query={{ state: "held", cursor: "c2", back: "-" }} nextCursor="c3" trail />);
    expect(second).toContain('href="/m?state=held" rel="prev"');
    expect(second).toContain('href="/m?state=held&amp;cursor=c3&amp;back=-%2Cc2"');
    const third = await html(<Pagination path="/m" query={{ cursor: "c3", back: "-,c2" }} nextCursor={null} trail />);
    expect(third).toContain('href="/m?cursor=c2&amp;back=-" rel="prev"');
    const long = Array.from({ length: 15 }, (_, i) => `c${i}`).join(",");
    expect(await html(<Pagination path="/m" query={{ cursor: "x", back: long }} nextCursor="y" trail />)).toContain("cursor=y&amp;back=c6%2Cc7%2Cc8%2Cc9%2Cc10%2Cc11%2Cc12%2Cc13%2Cc14%2Cx");
  });

  it("says an error in a plain sentence first, then its message and details, the SVC_ code last; escapes what it shows", async () => {
    const out = await html(<ErrorNotice error={{ code: "SVC_MALFORMED_REQUEST", message: "<b>bad</b>", details: { field: "friendly_name" } }} requestId="r1" />);
    expect(out).toContain('data-error-code="SVC_MALFORMED_REQUEST"');
    expect(out).toContain("&lt;b&gt;bad&lt;/b&gt;");
    expect(out).toContain("<code>friendly_name</code>");
    expect(out.indexOf("Something in the form was not accepted.")).toBeLessThan(out.indexOf('<code class="error-code">SVC_MALFORMED_REQUEST</code>'));
    const schema = await html(<ErrorNotice error={{ code: "SVC_MALFORMED_REQUEST", message: "Invalid request: /state Expected union value.", details: { errors: [{ path: "/state", message: "Expected union value" }, { path: "/name", message: "Expected string length less or equal to 63" }] } }} />);
    expect(schema).toContain("<li>state: is not one of the accepted values</li>");
    expect(schema).toContain("<li>name: is too long (at most 63 characters)</li>");
    expect(schema).not.toContain("Expected union value");
    const hook = await html(<ErrorNotice error={{ code: "SVC_MALFORMED_REQUEST", message: "The destination did not pass verification.", details: { field: "url", verification_failure_reason: "destination_not_public" } }} />);
    expect(hook).toContain("Why the verification failed");
    expect(hook).toContain("private or local network, which webhooks may not reach (destination_not_public)");
    expect(await html(<EmptyState title="No messages yet." />)).toContain("data-empty");
  });

  it("draws a table a row per item with the rows' and cells' data attributes, numbers right-aligned; the empty state when it has none", async () => {
    const rows = [{ id: "a", n: 2 }, { id: "b", n: 3 }];
    const columns = [{ head: "Id", cell: (r: { id: string; n: number }) => <code>{r.id}</code>, attrs: (r: { id: string }) => ({ "data-id": r.id }) }, { head: "N", num: true, cell: (r: { n: number }) => r.n }];
    const table = await html(<DataTable label="Things" rows={rows} columns={columns} rowAttrs={(r) => ({ "data-row": r.id })} empty={{ title: "None." }} />);
    expect(table).toContain('aria-label="Things"');
    expect(table).toContain('<th scope="col">Id</th><th scope="col" class="num">N</th>');
    expect(table).toContain('<tr data-row="b"><td data-id="b"><code>b</code></td><td class="num">3</td></tr>');
    expect(await html(<DataTable label="Things" rows={[]} columns={columns} empty={{ title: "None.", children: <p>Add one.</p> }} />)).toBe('<div class="empty" data-empty=""><strong>None.</strong><p>Add one.</p></div>');
    expect(await html(<DataTable label="Things" rows={[]} columns={columns} />)).toContain("<tbody></tbody>");
  });

  it("marks only the current choice of a select; a live filter form follows its fields with htmx", async () => {
    const choices = [ANY_CHOICE, ...choicesOf(["dead_lettered"])];
    expect(choices).toEqual([{ value: "", label: "any" }, { value: "dead_lettered", label: "dead lettered" }]);
    expect(await html(<SelectField name="state" label="State" choices={choices} />)).not.toContain("selected");
    expect(await html(<SelectField name="state" label="State" choices={choices} selected="" />)).toContain('<option value="" selected="">any</option>');
    const live = await html(<FilterForm action="/messages" live />);
    expect(live).toContain('class="filters panel" method="get" action="/messages" hx-get="/messages"');
    expect(await html(<FilterForm action="/audit" button="Filter" />)).toBe('<form class="filters" method="get" action="/audit"><div><button type="submit" class="secondary">Filter</button></div></form>');
  });

  it("returns only to paths of this site after sign-in", () => {
    expect(safeReturnTo("/messages?state=held")).toBe("/messages?state=held");
    for (const bad of [undefined, "https://evil.test/", "//evil.test/", "/\\evil.test", "messages", "/a\nb"]) expect(safeReturnTo(bad)).toBe("/");
  });
});
